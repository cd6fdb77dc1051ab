//! Everything that happens, as [`SimEvent`] messages, written to an append-only
//! JSON Lines log: one object per line, `time` and `kind` first.

use std::io::Write;

use bevy::prelude::*;
use serde::Serialize;

use super::clock::Clock;
use super::residents::{ActivityKind, Heard, Roster};
use super::social::{Emotion, EndCause, Trigger};
use super::{LoadedScenario, RunSettings, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{LocationId, RelationKind, ResidentId};

/// One line of the event log.
#[derive(Message, Debug, Clone, Serialize)]
pub struct SimEvent {
    pub time: GameTime,
    #[serde(flatten)]
    pub body: EventBody,
}

/// The event kinds. Later features add variants; field names are the log schema.
#[derive(Debug, Clone, Serialize)]
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
        #[serde(skip_serializing_if = "Vec::is_empty")]
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
        /// `plan`, `repair`, `line` or `summary`.
        call: String,
        model: String,
        /// `ok`; `invalid` (unusable answer); `error` (no answer); `skipped` (not sent:
        /// budget, circuit breaker or queue too long).
        outcome: String,
        /// Whose answer the resident used: `llm` or `builtin`.
        used: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        latency_ms: u64,
        prompt_tokens: u32,
        completion_tokens: u32,
        /// Token counts were estimated (the server sent no `usage`).
        estimated: bool,
        attempts: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<String>,
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

/// One tie a conversation changed.
#[derive(Debug, Clone, Serialize)]
pub struct RelationshipDelta {
    pub resident: ResidentId,
    pub other: ResidentId,
    pub old: f32,
    pub new: f32,
}

/// What a participant keeps of a conversation.
#[derive(Debug, Clone, Serialize)]
pub struct ConversationMemory {
    pub resident: ResidentId,
    pub text: String,
    pub importance: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    DaysDone,
    AllAsleep,
    Stopped,
    /// Something the run cannot go on without failed (e.g. a replay cassette miss).
    Failed,
}

/// What the `start` line names as the brain (the built-in one unless an async mind says otherwise).
#[derive(Resource, Debug, Clone)]
pub struct BrainLabel(pub String);

/// Where log lines go.
#[derive(Default)]
pub enum LogSink {
    /// Nowhere (benchmarks).
    #[default]
    Discard,
    /// Kept in memory (tests, the window's event stream).
    Memory(Vec<u8>),
    /// A file, buffered.
    File(std::io::BufWriter<std::fs::File>),
}

/// The event log sink plus counts of what was written.
#[derive(Resource, Default)]
pub struct EventLog {
    pub sink: LogSink,
    pub lines: u64,
    /// First write error, reported once; the run goes on.
    pub error: Option<String>,
    /// Reused for each line, so logging allocates nothing per event.
    scratch: Vec<u8>,
}

impl EventLog {
    pub fn to_file(path: &std::path::Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
        Ok(Self {
            sink: LogSink::File(std::io::BufWriter::new(file)),
            ..default()
        })
    }

    pub fn in_memory() -> Self {
        Self {
            sink: LogSink::Memory(Vec::new()),
            ..default()
        }
    }

    /// The in-memory log as text.
    pub fn text(&self) -> &str {
        match &self.sink {
            LogSink::Memory(buf) => std::str::from_utf8(buf).unwrap_or(""),
            _ => "",
        }
    }

    /// Empties an in-memory log, keeping its buffer for reuse.
    pub fn clear_memory(&mut self) {
        if let LogSink::Memory(buf) = &mut self.sink {
            buf.clear();
        }
    }

    fn write(&mut self, event: &SimEvent) {
        let mut line = std::mem::take(&mut self.scratch);
        line.clear();
        if let Err(e) = serde_json::to_writer(&mut line, event) {
            self.error
                .get_or_insert(format!("cannot serialise event: {e}"));
            self.scratch = line;
            return;
        }
        line.push(b'\n');
        self.lines += 1;
        let result = match &mut self.sink {
            LogSink::Discard => Ok(()),
            LogSink::Memory(buf) => {
                buf.extend_from_slice(&line);
                Ok(())
            }
            LogSink::File(f) => f.write_all(&line),
        };
        if let Err(e) = result {
            self.error
                .get_or_insert(format!("cannot write the event log: {e}"));
        }
        self.scratch = line;
    }

    pub fn flush(&mut self) {
        if let LogSink::File(f) = &mut self.sink
            && let Err(e) = f.flush()
        {
            self.error
                .get_or_insert(format!("cannot write the event log: {e}"));
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<SimEvent>()
        .init_resource::<EventLog>()
        .add_systems(SimStep, write_log.in_set(SimSet::Log))
        .add_systems(SimStep, log_start.before(SimSet::Clock));
}

/// Writes the `start` line before the first step.
pub(super) fn log_start(world: &mut World) {
    if world.resource::<Clock>().steps > 0 {
        return;
    }
    let brain = match world.get_resource::<BrainLabel>() {
        Some(label) => label.0.clone(),
        None => world.resource::<super::ActiveBrain>().0.name().to_string(),
    };
    let scenario = world.resource::<LoadedScenario>().0.name.clone();
    let settings = world.resource::<RunSettings>().clone();
    let residents = world.resource::<Roster>().ids.clone();
    let names = world.resource::<Roster>().names.clone();
    let time = world.resource::<Clock>().now;
    world.write_message(SimEvent {
        time,
        body: EventBody::Start {
            scenario,
            seed: settings.seed,
            days: settings.days,
            residents,
            names,
            brain,
        },
    });
}

fn write_log(mut reader: MessageReader<SimEvent>, mut log: ResMut<EventLog>) {
    for e in reader.read() {
        log.write(e);
    }
}
