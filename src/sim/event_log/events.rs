//! The event log's vocabulary: one [`SimEvent`] per line, its kind and
//! fields. Field names are the log's schema; every type reads back
//! (`heartvale replay`) as it was written.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::base::time::GameTime;
use crate::scenario::{LocationId, RelationKind, ResidentId};
use crate::sim::residents::{ActivityKind, Heard};
use crate::sim::social::{Emotion, EndCause, Trigger};

/// One line of the event log.
#[derive(Message, Debug, Clone, Serialize, Deserialize)]
pub struct SimEvent {
    pub time: GameTime,
    #[serde(flatten)]
    pub body: EventBody,
}

/// The event kinds. Later features add variants; field names are the log schema.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventBody {
    /// The run began.
    Start {
        scenario: String,
        seed: u64,
        days: u32,
        residents: Vec<ResidentId>,
        names: Vec<String>,
        brain: String,
    },
    /// A validated plan.
    Plan {
        resident: ResidentId,
        action: String,
        activity: ActivityKind,
        target_location: LocationId,
        dialogue: String,
        emoji: String,
        duration: u32,
        from: LocationId,
    },
    /// A brain's plan needed fixing; `plan` follows with the fixed version.
    PlanFixed {
        resident: ResidentId,
        problems: Vec<String>,
    },
    /// Set off along a route.
    Move {
        resident: ResidentId,
        from: LocationId,
        to: LocationId,
        route: Vec<LocationId>,
        minutes: u32,
    },
    /// Reached the destination of a move.
    Arrive {
        resident: ResidentId,
        location: LocationId,
    },
    /// Two residents start talking.
    ConversationStart {
        conversation: u64,
        participants: Vec<ResidentId>,
        location: LocationId,
        trigger: Trigger,
    },
    /// One message of a conversation (`time` is to the game second).
    Message {
        conversation: u64,
        participants: Vec<ResidentId>,
        location: LocationId,
        speaker: ResidentId,
        text: String,
        emotion: Emotion,
        mentions: Vec<ResidentId>,
    },
    /// A bystander joined: the conversation is now a group chat.
    ConversationJoin {
        conversation: u64,
        resident: ResidentId,
        participants: Vec<ResidentId>,
    },
    /// A resident began a HEART RULE skill in a conversation (a scenario's
    /// `converse:`); `inputs` are the skill's variables as filled in.
    SkillStart {
        conversation: u64,
        resident: ResidentId,
        partner: ResidentId,
        skill: String,
        inputs: std::collections::BTreeMap<String, String>,
    },
    /// The skill ended with its conversation: whether it ran to its end, the
    /// variables it set, and why it stopped early if it did.
    SkillEnd {
        conversation: u64,
        resident: ResidentId,
        partner: ResidentId,
        skill: String,
        finished: bool,
        results: std::collections::BTreeMap<String, String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// A conversation ended, with what it changed.
    ConversationEnd {
        conversation: u64,
        participants: Vec<ResidentId>,
        location: LocationId,
        trigger: Trigger,
        reason: EndCause,
        topic: String,
        messages: u32,
        seconds: u32,
        changes: Vec<RelationshipDelta>,
        memories: Vec<ConversationMemory>,
    },
    /// One resident's view of another changed.
    RelationshipChange {
        resident: ResidentId,
        other: ResidentId,
        old_strength: f32,
        new_strength: f32,
        relation: RelationKind,
        #[serde(skip_serializing_if = "Option::is_none")]
        previous_relation: Option<RelationKind>,
        reason: String,
    },
    /// Two residents agreed to meet; `will_keep` is each one's private intention.
    AppointmentMade {
        appointment: u32,
        residents: Vec<ResidentId>,
        location: LocationId,
        at: GameTime,
        will_keep: Vec<bool>,
    },
    AppointmentKept {
        appointment: u32,
        residents: Vec<ResidentId>,
        location: LocationId,
        made: GameTime,
    },
    AppointmentMissed {
        appointment: u32,
        residents: Vec<ResidentId>,
        location: LocationId,
        showed: Vec<bool>,
    },
    /// A notice was posted.
    Notice {
        resident: ResidentId,
        location: LocationId,
        notice: u32,
        text: String,
    },
    /// A resident read a notice.
    NoticeRead {
        resident: ResidentId,
        notice: u32,
        author: ResidentId,
    },
    /// A resident learnt of a gathering and decided whether to go.
    Appointment {
        resident: ResidentId,
        gathering: String,
        heard: Heard,
        will_attend: bool,
    },
    Sleep {
        resident: ResidentId,
        location: LocationId,
        until: GameTime,
    },
    Wake {
        resident: ResidentId,
        location: LocationId,
    },
    /// The day's memories were replaced by a summary.
    Consolidate {
        resident: ResidentId,
        night: String,
        entries: u32,
        summary: String,
    },
    /// One call to an LLM and what came of it.
    LlmCall {
        resident: ResidentId,
        /// What the call was for.
        call: CallKind,
        /// The model asked.
        model: String,
        /// What came of it.
        outcome: CallOutcome,
        /// Whose answer the resident used.
        used: AnswerUsed,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        latency_ms: u64,
        prompt_tokens: u32,
        completion_tokens: u32,
        /// Token counts were estimated (the server sent no `usage`).
        estimated: bool,
        attempts: u32,
        /// How the server was asked for structure, after any fallback.
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<FormatLevel>,
    },
    /// LLM accounting for one game day (and the part day at the end).
    LlmUsage {
        day: u32,
        calls: u32,
        skipped: u32,
        fallbacks: u32,
        prompt_tokens: u64,
        completion_tokens: u64,
        latency_p50_ms: u64,
        latency_p90_ms: u64,
        latency_p99_ms: u64,
        /// Calls per kind (`plan`, `repair`, `line`, `summary`).
        by_kind: std::collections::BTreeMap<String, u32>,
        /// Calls per resident.
        by_resident: std::collections::BTreeMap<ResidentId, u32>,
    },
    End {
        reason: EndReason,
        day: u32,
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
            EventBody::Sleep { .. } => "sleep",
            EventBody::Wake { .. } => "wake",
            EventBody::Consolidate { .. } => "consolidate",
            EventBody::LlmCall { .. } => "llm_call",
            EventBody::LlmUsage { .. } => "llm_usage",
            EventBody::End { .. } => "end",
        }
    }
}

/// One tie a conversation changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelationshipDelta {
    pub resident: ResidentId,
    pub other: ResidentId,
    pub old: f32,
    pub new: f32,
}

/// What a participant keeps of a conversation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConversationMemory {
    pub resident: ResidentId,
    pub text: String,
    pub importance: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    DaysDone,
    AllAsleep,
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
