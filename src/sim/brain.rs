//! The one interface every mind implements — plans, conversation lines and
//! nightly summaries — and the contexts it is given. The built-in brain
//! (`crate::builtin`) and the LLM brain (`crate::llm`) live above the
//! simulation and plug in through [`ActiveBrain`].

use std::sync::Arc;

use bevy::prelude::Resource;
use serde::{Deserialize, Serialize};

use super::knowledge::facts::{About, Knowledge};
use super::knowledge::words::FactWords;
use super::memory::store::Memory;
use super::notice_board::NoticeBoard;
use super::residents::census::Census;
use super::residents::roster::{Roster, RosterIdx};
use super::residents::{Activity, ActivityKind, Agenda, Needs, Relationship, Relationships};
use super::social::cue::Cue;
use crate::base::time::GameTime;
use crate::base::weather::{Season, Weather};
use crate::scenario::{Gathering, LocIdx, Location, Profile, Town, Tuning, WorkRole};

/// Which brain answers plans, lines and summaries.
#[derive(Resource, Clone)]
pub struct ActiveBrain(pub Arc<dyn Brain>);

/// A plan, exactly as a brain returns it (and as an LLM must write it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// English verb phrase, e.g. "Serve breakfast at the tavern".
    pub(crate) action: String,
    /// A place id from the scenario.
    pub(crate) target_location: String,
    /// What the resident says or thinks, in Chinese.
    pub(crate) dialogue: String,
    /// An emoji for the action.
    pub(crate) emoji: String,
    /// Minutes, once there.
    pub(crate) duration: i64,
    /// What kind of action it is. The built-in planner always says; a model's
    /// plan may leave it out, and then it is read from `action`'s words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) activity: Option<ActivityKind>,
    /// The resident the action is with (its id or name), if it is with
    /// someone: "Chat with 阿朵" names 阿朵, and the town pairs them up there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) with: Option<String>,
}

/// Everything a brain may look at to plan one resident's next action.
pub struct PlanContext<'a> {
    /// The time of planning.
    pub(crate) now: GameTime,
    /// The run's seed.
    pub(crate) seed: u64,
    /// The town map.
    pub(crate) town: &'a Town,
    /// The scenario's tuning.
    pub(crate) tuning: &'a Tuning,
    /// Who plans.
    pub(crate) me: &'a Profile,
    /// Its needs now.
    pub(crate) needs: &'a Needs,
    /// Where it stands.
    pub(crate) at: LocIdx,
    /// The action it has just finished, if any.
    pub(crate) previous: Option<&'a Activity>,
    /// Its memories, oldest first.
    pub(crate) memories: &'a [Memory],
    /// The gatherings and appointments it knows of.
    pub(crate) agenda: &'a Agenda,
    /// Its ties.
    pub(crate) relationships: &'a Relationships,
    /// The notice boards.
    pub(crate) notices: &'a NoticeBoard,
    /// Where everyone is and what they do.
    pub(crate) census: &'a Census,
    /// Every resident.
    pub(crate) roster: &'a Roster,
    /// Every gathering of the scenario.
    pub(crate) gatherings: &'a [Gathering],
    /// The scenario's phrase bank (what it says with a plan).
    pub(crate) phrases: &'a crate::scenario::PhraseBank,
    /// Meals it has set out for today.
    pub(crate) meals_today: u32,
    /// Who is in a talk or on a date, where the town talks.
    pub(crate) social: Option<&'a crate::sim::social::SocialState>,
}

/// Inputs for one line of a conversation.
pub struct LineContext<'a> {
    /// The time of the line (to the second).
    pub(crate) now: GameTime,
    /// Who speaks.
    pub(crate) speaker: &'a Profile,
    /// Whom the line answers or addresses.
    pub(crate) listener: &'a Profile,
    /// How the speaker sees the listener.
    pub(crate) relation: Option<&'a Relationship>,
    /// The speaker's needs.
    pub(crate) needs: Option<&'a Needs>,
    /// What the speaker is doing there (its action under way, or come
    /// for and about to begin).
    pub(crate) doing: Option<ActivityKind>,
    /// The speaker's action keeps it where they talk a while yet: it does
    /// not take its leave with 「走了走了」.
    pub(crate) stays: bool,
    /// The speaker came where it talks within the last quarter hour
    /// ([`crate::scenario::dialogue::Cond::arrived`]).
    pub(crate) arrived: bool,
    /// … and the listener.
    pub(crate) listener_arrived: bool,
    /// Where they talk.
    pub(crate) place: &'a Location,
    /// What they talk about.
    pub(crate) topic: Topic,
    /// 0-based turn.
    pub turn: u32,
    /// How many lines a built-in speaker aims for.
    pub(crate) lines: u32,
    /// The line before, if any (empty at the start).
    pub(crate) previous: &'a str,
    /// The other members of a group chat (empty for two).
    pub(crate) others: &'a [&'a Profile],
    /// Whom to @-mention in a group line.
    pub(crate) mention: Option<&'a str>,
    /// The speaker greets the listener in this work role.
    pub(crate) role: Option<WorkRole>,
    /// The speaker invites the listener to this gathering in this line.
    pub(crate) inviting: Option<&'a Gathering>,
    /// The gathering's place name.
    pub(crate) inviting_place: Option<&'a str>,
    /// The speaker answers the listener's invitation: yes or no, and why.
    pub(crate) answering_invite: Option<crate::sim::social::invites::InviteReason>,
    /// The conversation is the organiser's address to the guests of this
    /// gathering (under way where they talk).
    pub(crate) hosting: Option<&'a Gathering>,
    /// The scenario's phrase bank (the built-in brain's words).
    pub(crate) phrases: &'a crate::scenario::PhraseBank,
    /// The lines the speaker has said lately: (day number, hash by
    /// [`crate::sim::social::spoken::line_hash`]).
    pub(crate) spoken: &'a [(i64, u64)],
    /// What the whole town has said (how often the town heard a line today).
    pub(crate) town_spoken: &'a crate::sim::social::Spoken,
    /// The conversation so far.
    pub(crate) history: &'a [crate::sim::social::message::ChatMessage],
    /// What brought them together.
    pub(crate) trigger: crate::sim::social::message::Trigger,
    /// One of them works where they talk.
    pub(crate) at_work: bool,
    /// The speaker is at work where they talk: its workplace, on shift or at
    /// its work (behind its own counter, at its own bench).
    pub(crate) speaker_at_work: bool,
    /// … and the listener.
    pub(crate) listener_at_work: bool,
    /// A gathering the speaker means to go to that has not begun (and does
    /// not organise), with its place's name: news to share.
    pub(crate) upcoming: Option<(&'a Gathering, &'a str)>,
    /// The speaker proposes to meet at (place, when) in this line…
    pub(crate) proposing: Option<(&'a str, &'a str)>,
    /// …or accepts such a proposal.
    pub(crate) accepting: Option<(&'a str, &'a str)>,
    /// The run's seed (lines vary by it, deterministically).
    pub(crate) seed: u64,
    /// The day's weather and the season: what talk of the sky agrees with.
    pub(crate) sky: (Weather, Season),
    /// The speaker's roster index…
    pub(crate) speaker_idx: RosterIdx,
    /// …and the listener's.
    pub(crate) listener_idx: RosterIdx,
    /// What the speaker knows…
    pub(crate) knows: &'a Knowledge,
    /// …and the listener.
    pub(crate) listener_knows: &'a Knowledge,
    /// The listener's ties (whom news of others matters to).
    pub(crate) listener_ties: &'a Relationships,
    /// The speaker's agenda (the gatherings it knows of and means to go to).
    pub(crate) agenda: &'a Agenda,
    /// Names, places, gatherings and personas, for the words of facts.
    pub(crate) words: FactWords<'a>,
    /// Who stands at the place (roster indices, sorted): within earshot.
    pub(crate) earshot: &'a [RosterIdx],
}

/// A line as a brain says it: the words (a closing one ends with `[END]`),
/// what they do, and a fact about the speaker they tell (an introduction
/// tells one's trade, naming a favourite dish one's taste).
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    /// The words.
    pub text: String,
    /// What the line does.
    pub cue: Option<Cue>,
    /// What the listeners learn of the speaker from it.
    pub teaches: Option<About>,
}

impl Said {
    /// Words that do nothing the town tracks.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cue: None,
            teaches: None,
        }
    }
}

/// Inputs for a night's memory summary.
pub struct SummaryContext<'a> {
    /// Whose memories.
    pub(crate) me: &'a Profile,
    /// The date of the night.
    pub(crate) night: chrono::NaiveDate,
    /// The day's memories, oldest first.
    pub(crate) entries: &'a [Memory],
}

/// What a resident's mind does. Implementations must be deterministic for the
/// same inputs (randomness comes through the `rng` argument).
pub trait Brain: Send + Sync + 'static {
    /// A short name for logs and the window: `builtin`, the model's name.
    fn name(&self) -> &str;
    /// The next action for the resident in `cx`.
    fn plan(&self, cx: &PlanContext<'_>, rng: &mut rand_chacha::ChaCha8Rng) -> Plan;
    /// The speaker's next line of a conversation, in Chinese.
    fn line(&self, cx: &LineContext<'_>) -> Said;
    /// The day's memories in a few sentences, in the resident's words.
    fn summarise(&self, cx: &SummaryContext<'_>) -> String;
}

/// What a conversation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Topic {
    /// A topic both care about (from their `topics`).
    Interest,
    /// Their work.
    Work,
    /// Food.
    Food,
    /// Books.
    Books,
    /// Nature.
    Nature,
    /// Small talk about the town.
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

    /// The topic in Chinese, for lines and prompts.
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
