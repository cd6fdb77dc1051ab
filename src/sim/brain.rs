//! The one interface every mind implements — plans, conversation lines and
//! nightly summaries — and the contexts it is given. The built-in brain
//! (`crate::brain`) and the LLM brain (`crate::llm`) live above the
//! simulation and plug in through [`ActiveBrain`].

use std::sync::Arc;

use bevy::prelude::Resource;
use serde::{Deserialize, Serialize};

use super::memory::Memory;
use super::notices::NoticeBoard;
use super::residents::{
    Activity, Agenda, Census, Needs, Relationship, Relationships, Roster, RosterIdx,
};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, LocIdx, Location, Profile, Town, Tuning, WorkRole};

/// Which brain answers plans, lines and summaries.
#[derive(Resource, Clone)]
pub struct ActiveBrain(pub Arc<dyn Brain>);

/// A plan, exactly as a brain returns it (and as an LLM must write it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// English verb phrase, e.g. "Serve breakfast at the tavern".
    pub action: String,
    /// A place id from the scenario.
    pub target_location: String,
    /// What the resident says or thinks, in Chinese.
    pub dialogue: String,
    pub emoji: String,
    /// Minutes, once there.
    pub duration: i64,
}

/// Everything a brain may look at to plan one resident's next action.
pub struct PlanContext<'a> {
    pub now: GameTime,
    pub seed: u64,
    pub town: &'a Town,
    pub tuning: &'a Tuning,
    pub me: &'a Profile,
    pub my_idx: RosterIdx,
    pub needs: &'a Needs,
    pub at: LocIdx,
    pub previous: Option<&'a Activity>,
    pub memories: &'a [Memory],
    pub agenda: &'a Agenda,
    pub relationships: &'a Relationships,
    pub notices: &'a NoticeBoard,
    pub census: &'a Census,
    pub roster: &'a Roster,
    pub gatherings: &'a [Gathering],
}

/// Inputs for one line of a conversation.
pub struct LineContext<'a> {
    pub now: GameTime,
    pub speaker: &'a Profile,
    /// Whom the line answers or addresses.
    pub listener: &'a Profile,
    pub relation: Option<&'a Relationship>,
    pub needs: Option<&'a Needs>,
    pub place: &'a Location,
    pub topic: Topic,
    /// 0-based turn, and how many lines a built-in speaker aims for.
    pub turn: u32,
    pub lines: u32,
    pub previous: &'a str,
    /// The other members of a group chat (empty for two).
    pub others: &'a [&'a Profile],
    /// Whom to @-mention in a group line.
    pub mention: Option<&'a str>,
    /// The speaker greets the listener in this work role.
    pub role: Option<WorkRole>,
    /// The speaker invites the listener to this gathering in this line.
    pub inviting: Option<&'a Gathering>,
    pub inviting_place: Option<&'a str>,
    /// The speaker proposes to meet at (place, when) in this line…
    pub proposing: Option<(&'a str, &'a str)>,
    /// …or accepts such a proposal.
    pub accepting: Option<(&'a str, &'a str)>,
    pub seed: u64,
}

/// Inputs for a night's memory summary.
pub struct SummaryContext<'a> {
    pub me: &'a Profile,
    pub night: chrono::NaiveDate,
    pub entries: &'a [Memory],
}

/// What a resident's mind does. Implementations must be deterministic for the
/// same inputs (randomness comes through the `rng` argument).
pub trait Brain: Send + Sync + 'static {
    fn name(&self) -> &str;
    fn plan(&self, cx: &PlanContext<'_>, rng: &mut rand_chacha::ChaCha8Rng) -> Plan;
    fn line(&self, cx: &LineContext<'_>) -> String;
    fn summarise(&self, cx: &SummaryContext<'_>) -> String;
}

/// What a conversation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// A topic both care about (from their `topics`).
    Interest,
    Work,
    Food,
    Books,
    Nature,
    Town,
}

impl Topic {
    /// Picks a topic from shared interests, then the place, then small talk.
    pub fn choose(a: &Profile, b: &Profile, place: &Location) -> Topic {
        use crate::scenario::{LocationKind, Service};
        if a.topics.iter().any(|t| b.topics.contains(t)) {
            return Topic::Interest;
        }
        match place.kind {
            LocationKind::Work => Topic::Work,
            LocationKind::Nature | LocationKind::Wild => Topic::Nature,
            _ if place.has(Service::Food) => Topic::Food,
            _ if place.has(Service::Books) => Topic::Books,
            _ => Topic::Town,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Topic::Interest => "共同的爱好",
            Topic::Work => "工作",
            Topic::Food => "美食",
            Topic::Books => "读书",
            Topic::Nature => "大自然",
            Topic::Town => "小镇日常",
        }
    }
}
