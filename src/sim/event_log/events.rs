//! The event log's vocabulary: one [`SimEvent`] per line, its kind and
//! fields. Field names are the log's schema; every type reads back
//! (`heartvale replay`) as it was written.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::ties::{ConversationMemory, RelationshipDelta};
use crate::base::time::GameTime;
use crate::context::LayerTokens;
use crate::scenario::{LocationId, RelationKind, ResidentId};
use crate::sim::residents::{ActivityKind, Heard};
use crate::sim::social::emotion::Emotion;
use crate::sim::social::message::{EndCause, Trigger};

/// One line of the event log.
#[derive(Message, Debug, Clone, Serialize, Deserialize)]
pub struct SimEvent {
    /// Game time of the event (to the minute; to the second for messages).
    pub(crate) time: GameTime,
    /// What happened.
    #[serde(flatten)]
    pub body: EventBody,
}

/// The event kinds. Later features add variants; field names are the log schema.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventBody {
    /// The run began.
    Start {
        /// The scenario's name.
        scenario: String,
        /// The run's seed.
        seed: u64,
        /// Days the run was asked for.
        days: u32,
        /// Every resident's id, in roster order.
        residents: Vec<ResidentId>,
        /// Their display names, in the same order.
        names: Vec<String>,
        /// Every place's id, in the town's order (older logs: none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        places: Vec<LocationId>,
        /// Their names, in the same order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        place_names: Vec<String>,
        /// The brain that drives them: `builtin` or the model's name.
        brain: String,
        /// The run goes on from a save (absent for a new run).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        resumed: bool,
    },
    /// A validated plan.
    Plan {
        /// Whose plan.
        resident: ResidentId,
        /// What they will do, as the brain phrased it.
        action: String,
        /// The kind of action, which decides needs and services.
        activity: ActivityKind,
        /// Where they will do it.
        target_location: LocationId,
        /// What they say as they set off (may be empty).
        dialogue: String,
        /// The emoji shown over them.
        emoji: String,
        /// Game minutes the action lasts once there.
        duration: u32,
        /// Where they were when they planned.
        from: LocationId,
    },
    /// A brain's plan needed fixing; `plan` follows with the fixed version.
    PlanFixed {
        /// Whose plan.
        resident: ResidentId,
        /// What was wrong with it, one line each.
        problems: Vec<String>,
    },
    /// Set off along a route.
    Move {
        /// Who walks.
        resident: ResidentId,
        /// Where they start.
        from: LocationId,
        /// Where they are going.
        to: LocationId,
        /// Every place on the way, `from` and `to` included.
        route: Vec<LocationId>,
        /// Game minutes the walk takes.
        minutes: u32,
    },
    /// Reached the destination of a move.
    Arrive {
        /// Who arrived.
        resident: ResidentId,
        /// Where.
        location: LocationId,
    },
    /// Two residents start talking.
    ConversationStart {
        /// The conversation's number, unique in the run.
        conversation: u64,
        /// Who talks, the initiator first.
        participants: Vec<ResidentId>,
        /// Where.
        location: LocationId,
        /// Why it started.
        trigger: Trigger,
    },
    /// One message of a conversation (`time` is to the game second).
    Message {
        /// The conversation it belongs to.
        conversation: u64,
        /// Everyone in the conversation at this message.
        participants: Vec<ResidentId>,
        /// Where it is said.
        location: LocationId,
        /// Who says it.
        speaker: ResidentId,
        /// The words.
        text: String,
        /// How they say it.
        emotion: Emotion,
        /// Other residents the words name.
        mentions: Vec<ResidentId>,
    },
    /// A bystander joined: the conversation is now a group chat.
    ConversationJoin {
        /// The conversation joined.
        conversation: u64,
        /// Who joined.
        resident: ResidentId,
        /// Everyone in it now.
        participants: Vec<ResidentId>,
    },
    /// A resident began a HEART RULE skill in a conversation (a scenario's
    /// `converse:`); `inputs` are the skill's variables as filled in.
    SkillStart {
        /// The conversation the skill runs in.
        conversation: u64,
        /// Who runs the skill.
        resident: ResidentId,
        /// Who it is run with.
        partner: ResidentId,
        /// The skill's name in the resident's script set.
        skill: String,
        /// The skill's input variables, as filled in.
        inputs: std::collections::BTreeMap<String, String>,
    },
    /// The skill ended with its conversation: whether it ran to its end, the
    /// variables it set, and why it stopped early if it did.
    SkillEnd {
        /// The conversation the skill ran in.
        conversation: u64,
        /// Who ran the skill.
        resident: ResidentId,
        /// Who it was run with.
        partner: ResidentId,
        /// The skill's name.
        skill: String,
        /// Whether the skill ran to its end.
        finished: bool,
        /// The variables it set.
        results: std::collections::BTreeMap<String, String>,
        /// Why it stopped early, if it did.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// What the script engine warned about on the way.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// A conversation ended, with what it changed.
    ConversationEnd {
        /// The conversation's number.
        conversation: u64,
        /// Everyone in it at the end.
        participants: Vec<ResidentId>,
        /// Where it took place.
        location: LocationId,
        /// Why it had started.
        trigger: Trigger,
        /// Why it ended.
        reason: EndCause,
        /// What it was mostly about.
        topic: String,
        /// Messages said.
        messages: u32,
        /// Game seconds from start to end.
        seconds: u32,
        /// Ties it changed.
        changes: Vec<RelationshipDelta>,
        /// What each participant keeps of it.
        memories: Vec<ConversationMemory>,
    },
    /// One resident's view of another changed.
    RelationshipChange {
        /// Whose view changed.
        resident: ResidentId,
        /// Of whom.
        other: ResidentId,
        /// Strength before (0–100).
        old_strength: f32,
        /// Strength after.
        new_strength: f32,
        /// The tie's stage now.
        relation: RelationKind,
        /// The stage before, when this change moved it.
        #[serde(skip_serializing_if = "Option::is_none")]
        previous_relation: Option<RelationKind>,
        /// What changed it.
        reason: String,
    },
    /// Two residents agreed to meet; `will_keep` is each one's private intention.
    AppointmentMade {
        /// The appointment's number, unique in the run.
        appointment: u32,
        /// Who agreed to meet.
        residents: Vec<ResidentId>,
        /// Where.
        location: LocationId,
        /// When.
        at: GameTime,
        /// Whether each (in `residents` order) means to come.
        will_keep: Vec<bool>,
    },
    /// Both came to an appointment.
    AppointmentKept {
        /// The appointment's number.
        appointment: u32,
        /// Who met.
        residents: Vec<ResidentId>,
        /// Where.
        location: LocationId,
        /// When it was made.
        made: GameTime,
    },
    /// The time of an appointment passed without everyone there.
    AppointmentMissed {
        /// The appointment's number.
        appointment: u32,
        /// Who had agreed to meet.
        residents: Vec<ResidentId>,
        /// Where.
        location: LocationId,
        /// Whether each (in `residents` order) came.
        showed: Vec<bool>,
    },
    /// A notice was posted.
    Notice {
        /// Who posted it.
        resident: ResidentId,
        /// The board's place.
        location: LocationId,
        /// The notice's number, unique in the run.
        notice: u32,
        /// What it says.
        text: String,
    },
    /// A resident read a notice.
    NoticeRead {
        /// Who read it.
        resident: ResidentId,
        /// The notice's number.
        notice: u32,
        /// Who posted it.
        author: ResidentId,
    },
    /// A resident learnt of a gathering and decided whether to go.
    Appointment {
        /// Who learnt of it.
        resident: ResidentId,
        /// The gathering's title.
        gathering: String,
        /// How they learnt of it.
        heard: Heard,
        /// Whether they mean to go.
        will_attend: bool,
    },
    /// A resident learnt something it did not know: what, and from where.
    Learned {
        /// Who learnt it.
        resident: ResidentId,
        /// The fact's kind: `job`, `hobby`, `family`, `food`, `gathering`,
        /// `attended`, `quarrel`, `date`, `stood_up`.
        fact: String,
        /// The fact in Chinese.
        text: String,
        /// Where it came from: `known`, `lived`, `saw`, `notice`, `told`.
        source: String,
        /// Who told it (source `told`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<ResidentId>,
    },
    /// A gathering ended: who came.
    Gathered {
        /// Its title.
        gathering: String,
        /// Where it was.
        location: LocationId,
        /// Who organised it.
        organiser: ResidentId,
        /// Everyone who was there, in order of arrival.
        residents: Vec<ResidentId>,
    },
    /// A resident went to sleep.
    Sleep {
        /// Who.
        resident: ResidentId,
        /// Where.
        location: LocationId,
        /// When they mean to wake.
        until: GameTime,
    },
    /// A resident woke up.
    Wake {
        /// Who.
        resident: ResidentId,
        /// Where.
        location: LocationId,
    },
    /// The day's memories were replaced by a summary.
    Consolidate {
        /// Whose memories.
        resident: ResidentId,
        /// The date of the night (`YYYY-MM-DD`).
        night: String,
        /// Memory entries the summary replaced.
        entries: u32,
        /// The summary, in the resident's words.
        summary: String,
    },
    /// One call to an LLM and what came of it.
    LlmCall {
        /// Whose call.
        resident: ResidentId,
        /// What the call was for.
        call: CallKind,
        /// The model asked.
        model: String,
        /// What came of it.
        outcome: CallOutcome,
        /// Whose answer the resident used.
        used: AnswerUsed,
        /// The server that gave the result (a member of the endpoint's pool).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        endpoint: Option<String>,
        /// Pool members that failed this call before, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failed_over: Vec<String>,
        /// Why the answer was unusable or not sent, when it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// Asked ahead: a plan asked for when the action before it began.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        early: bool,
        /// Wall-clock milliseconds the call took.
        latency_ms: u64,
        /// Tokens in the prompt.
        prompt_tokens: u32,
        /// Tokens in the answer.
        completion_tokens: u32,
        /// Token counts were estimated (the server sent no `usage`).
        estimated: bool,
        /// Requests sent (retries included).
        attempts: u32,
        /// How the server was asked for structure, after any fallback.
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<FormatLevel>,
        /// The prompt's tokens per layer (persona, stage, profile, key
        /// moments, dialogue, retrieved) after cutting to the budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        layers: Option<LayerTokens>,
    },
    /// LLM accounting for one game day (and the part day at the end).
    LlmUsage {
        /// The game day (1-based).
        day: u32,
        /// Calls sent.
        calls: u32,
        /// Calls not sent (budget, breaker, queue).
        skipped: u32,
        /// Times the built-in brain answered instead.
        fallbacks: u32,
        /// Prompt tokens in all.
        prompt_tokens: u64,
        /// Completion tokens in all.
        completion_tokens: u64,
        /// Median latency, ms.
        latency_p50_ms: u64,
        /// 90th-percentile latency, ms.
        latency_p90_ms: u64,
        /// 99th-percentile latency, ms.
        latency_p99_ms: u64,
        /// Calls per kind (`plan`, `repair`, `line`, `summary`).
        by_kind: std::collections::BTreeMap<String, u32>,
        /// Calls per resident.
        by_resident: std::collections::BTreeMap<ResidentId, u32>,
    },
    /// Cupid's date began in town.
    DateStart(super::dates::DateStarted),
    /// A round of a date was judged.
    DateRound(super::dates::DateRoundPlayed),
    /// A date ended: the score, the ties changed, the key memories.
    DateEnd(super::dates::DateEnded),
    /// The run ended.
    End {
        /// Why.
        reason: EndReason,
        /// The game day it ended on.
        day: u32,
        /// What failed, when `reason` is `failed`.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

impl EventBody {
    /// The event's `kind` in the log: `plan`, `message` …
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::Start { .. } => "start",
            EventBody::Plan { .. } => "plan",
            EventBody::PlanFixed { .. } => "plan_fixed",
            EventBody::Move { .. } => "move",
            EventBody::Arrive { .. } => "arrive",
            EventBody::ConversationStart { .. } => "conversation_start",
            EventBody::Message { .. } => "message",
            EventBody::ConversationJoin { .. } => "conversation_join",
            EventBody::SkillStart { .. } => "skill_start",
            EventBody::SkillEnd { .. } => "skill_end",
            EventBody::ConversationEnd { .. } => "conversation_end",
            EventBody::RelationshipChange { .. } => "relationship_change",
            EventBody::AppointmentMade { .. } => "appointment_made",
            EventBody::AppointmentKept { .. } => "appointment_kept",
            EventBody::AppointmentMissed { .. } => "appointment_missed",
            EventBody::Notice { .. } => "notice",
            EventBody::NoticeRead { .. } => "notice_read",
            EventBody::Appointment { .. } => "appointment",
            EventBody::Learned { .. } => "learned",
            EventBody::Gathered { .. } => "gathered",
            EventBody::Sleep { .. } => "sleep",
            EventBody::Wake { .. } => "wake",
            EventBody::Consolidate { .. } => "consolidate",
            EventBody::LlmCall { .. } => "llm_call",
            EventBody::LlmUsage { .. } => "llm_usage",
            EventBody::End { .. } => "end",
            EventBody::DateStart(_) => "date_start",
            EventBody::DateRound(_) => "date_round",
            EventBody::DateEnd(_) => "date_end",
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The days asked for are over.
    DaysDone,
    /// On the last evening everyone is asleep, so nothing more would happen.
    AllAsleep,
    /// The user stopped it.
    Stopped,
    /// Something the run cannot go on without failed (e.g. a replay cassette miss).
    Failed,
}

/// What a call to a model was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A resident's next plan.
    Plan,
    /// A second try at a plan that was unusable.
    Repair,
    /// A line of a conversation.
    Line,
    /// A night's memory summary.
    Summary,
    /// A conversation remembered in the resident's own words.
    Recap,
}

impl CallKind {
    /// Every kind, in table order.
    pub const ALL: [CallKind; 5] = [
        CallKind::Plan,
        CallKind::Repair,
        CallKind::Line,
        CallKind::Summary,
        CallKind::Recap,
    ];

    /// The name in the log: `plan`, `repair`, `line`, `summary`, `recap`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Plan => "plan",
            CallKind::Repair => "repair",
            CallKind::Line => "line",
            CallKind::Summary => "summary",
            CallKind::Recap => "recap",
        }
    }
}

/// What came of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// An answer came back (used or not).
    Ok,
    /// The answer was unusable.
    Invalid,
    /// No answer: the server failed or timed out.
    Error,
    /// Not sent: over the day's budget, the circuit breaker open, or the queue too long.
    Skipped,
    /// Still out when the run ended.
    Abandoned,
}

/// Whose answer the resident used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerUsed {
    /// The model's.
    Llm,
    /// None yet: a repair call went out.
    Repair,
    /// The built-in brain's.
    Builtin,
    /// None: the answer came too late (superseded, or the resident is gone).
    Dropped,
    /// None: the run ended first.
    None,
}

/// How a server was asked for structured output, after any fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormatLevel {
    /// `response_format: json_schema`.
    JsonSchema,
    /// `response_format: json_object`.
    JsonObject,
    /// No response format; JSON asked for in the prompt.
    Plain,
}
