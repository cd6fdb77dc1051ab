//! What a conversation or a date leaves between two people, as the log
//! writes it: the ties it changed and what each keeps of it.

use serde::{Deserialize, Serialize};

use crate::scenario::ResidentId;

/// One tie a conversation changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelationshipDelta {
    /// Whose view.
    pub(crate) resident: ResidentId,
    /// Of whom.
    pub(crate) other: ResidentId,
    /// Strength before.
    pub(crate) old: f32,
    /// Strength after.
    pub(crate) new: f32,
}

/// What a participant keeps of a conversation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConversationMemory {
    /// Who remembers.
    pub(crate) resident: ResidentId,
    /// The memory.
    pub(crate) text: String,
    /// How much it matters, out of 100.
    pub(crate) importance: u32,
}
