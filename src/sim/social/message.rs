//! What a conversation is made of, as the rest of the town reads it: its
//! messages and how they were said, what brought the talkers together, where
//! it stands, why it ended, and a meeting proposed in it. The systems that
//! run conversations are in the module above.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::cue::Cue;
use super::emotion::Emotion;
use crate::base::time::GameTime;
use crate::scenario::LocIdx;
use crate::sim::residents::roster::RosterIdx;

/// A resident taking part in a conversation (sparse: comes and goes often).
#[derive(Component, Debug, Clone, Copy)]
#[component(storage = "SparseSet")]
pub struct Talking;

/// Where a conversation is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationState {
    /// Opened; no one has spoken.
    Init,
    /// The first messages.
    Greeting,
    /// Under way.
    Active,
    /// Someone is saying goodbye; it ends after this turn.
    Closing,
    /// Over; the entity goes at the end of the step.
    Ended,
}

/// What brought the participants together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// They stood near each other.
    Proximity,
    /// One sought the other's company.
    Approach,
    /// A greeting role met a customer at work.
    Work,
    /// They had agreed to meet.
    Appointment,
    /// The organiser of a gathering under way addresses the guests there.
    Gathering,
    /// Asked for from outside the simulation's rules ([`super::ForcedEncounters`]).
    Requested,
}

/// Why a conversation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndCause {
    /// A speaker said `[END]`.
    Said,
    /// It reached the most turns a conversation has.
    MaxTurns,
    /// No reply within the timeout.
    Timeout,
    /// A third party came between them.
    Interrupted,
    /// A participant's need turned urgent.
    UrgentNeed,
    /// A speaker had nothing to say.
    Left,
}

/// One message of a conversation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who said it.
    pub(crate) speaker: RosterIdx,
    /// The words.
    pub(crate) text: String,
    /// How it was said.
    pub(crate) emotion: Emotion,
    /// Others the words name.
    pub(crate) mentions: Vec<RosterIdx>,
    /// When (to the second).
    pub(crate) time: GameTime,
    /// What the line does (a model's line: none).
    #[serde(default)]
    pub(crate) cue: Option<Cue>,
    /// Whom it was said to.
    #[serde(default)]
    pub(crate) to: Option<RosterIdx>,
}

/// A line to be said: whether it ends the conversation, the emotion a
/// model labelled it with (keywords decide when it gave none), and, from
/// the built-in brain, what it does and what it tells of the speaker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivered {
    /// The words.
    pub line: String,
    /// The speaker ends the conversation with it.
    pub ends: bool,
    /// The emotion the model gave it, if any.
    pub emotion: Option<Emotion>,
    /// What the line does (the built-in brain's lines).
    #[serde(default)]
    pub cue: Option<Cue>,
    /// What the listeners learn of the speaker from it.
    #[serde(default)]
    pub teaches: Option<crate::sim::knowledge::facts::About>,
}

impl Delivered {
    /// A model's line: its words, whether it ends the talk, its own label.
    pub fn from_model(line: String, ends: bool, emotion: Option<Emotion>) -> Self {
        Self {
            line,
            ends,
            emotion,
            cue: None,
            teaches: None,
        }
    }
}

/// The turn due next: who speaks, to whom, and whom a built-in speaker @-mentions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Who speaks.
    pub(crate) speaker: RosterIdx,
    /// To whom.
    pub(crate) listener: RosterIdx,
    /// Whom a built-in line @-mentions.
    pub(crate) mention: Option<RosterIdx>,
}

/// A meeting one participant proposes in this conversation.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Proposal {
    /// Who proposes.
    pub(crate) proposer: RosterIdx,
    /// To whom.
    pub(crate) partner: RosterIdx,
    /// The message index of the proposal; the next one accepts.
    pub(crate) turn: u32,
    /// Where they would meet.
    pub(crate) place: LocIdx,
    /// When.
    pub(crate) at: GameTime,
}

/// Splits a trailing `[END]` (anywhere in the text, as models write it) off a line.
pub fn split_end(line: &str) -> (String, bool) {
    if line.contains("[END]") {
        (line.replace("[END]", "").trim().to_string(), true)
    } else {
        (line.trim().to_string(), false)
    }
}
