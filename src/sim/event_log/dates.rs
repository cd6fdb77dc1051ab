//! Cupid's dates in town, as the log writes them (`date_start`,
//! `date_round`, `date_end`); `narrate_dates` tells them.

use serde::{Deserialize, Serialize};

use super::ties::{ConversationMemory, RelationshipDelta};
use crate::cupid::Band;
use crate::scenario::{LocationId, ResidentId};

/// How a date in town ended: Cupid's endings, or one side never came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateOutcome {
    /// The host ended it.
    Host,
    /// The rounds were played.
    Rounds,
    /// The score fell to 10 or less.
    BrokeUp,
    /// The score reached 45 or more after round 5.
    Established,
    /// One side (or both) did not come in time.
    StoodUp,
}

impl DateOutcome {
    /// In Chinese.
    pub fn label(self) -> &'static str {
        match self {
            DateOutcome::Host => "主持人宣布结束",
            DateOutcome::Rounds => "约定的轮数已满",
            DateOutcome::BrokeUp => "关系破裂",
            DateOutcome::Established => "关系确立",
            DateOutcome::StoodUp => "有人没有赴约",
        }
    }
}

/// A date began: both are at the place.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DateStarted {
    /// The date's number, unique in the run.
    pub date: u32,
    /// The two, the one asked first first.
    pub residents: Vec<ResidentId>,
    /// Who hosts it.
    pub host: ResidentId,
    /// Where.
    pub location: LocationId,
    /// Whether the player asked for it.
    pub requested: bool,
}

/// One side's choice in a round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DateChoice {
    /// Who chose.
    pub resident: ResidentId,
    /// The option's letter.
    pub option: String,
    /// The option's words.
    pub content: String,
    /// Why, in its words.
    pub rationale: String,
}

/// A round was judged.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DateRoundPlayed {
    /// The date's number.
    pub date: u32,
    /// The two, as in `date_start`.
    pub residents: Vec<ResidentId>,
    /// Which round, from 1.
    pub round: u32,
    /// The story's time ("Day 1, Evening").
    pub story_time: String,
    /// The scene and its question.
    pub question: String,
    /// Both choices, the one asked first first.
    pub choices: Vec<DateChoice>,
    /// The score before the round.
    pub before: i32,
    /// After it.
    pub after: i32,
    /// The host's reasons.
    pub reason: String,
}

/// A date ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DateEnded {
    /// The date's number.
    pub date: u32,
    /// The two.
    pub residents: Vec<ResidentId>,
    /// Why it ended.
    pub reason: DateOutcome,
    /// The final score (0–50).
    pub score: i32,
    /// Rounds played.
    pub rounds: u32,
    /// The score's band.
    pub band: Band,
    /// Ties it changed.
    pub changes: Vec<RelationshipDelta>,
    /// What each keeps of it (a key memory).
    pub memories: Vec<ConversationMemory>,
    /// The model that played it (none: the built-in host and avatars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What went wrong with the model's answers (repairs, turns the
    /// built-in minds took over).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
