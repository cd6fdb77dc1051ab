//! Everything that happens, as [`SimEvent`] messages, written to an append-only
//! JSON Lines log: one object per line, `time` and `kind` first.

use bevy::prelude::*;

pub(crate) mod dates;
pub(crate) mod events;
mod file;
mod highlights;
pub(crate) mod narrate;
mod narrate_dates;
pub(crate) mod narration;
pub(crate) mod ties;

pub use crate::context::LayerTokens;
pub use dates::{DateChoice, DateEnded, DateOutcome, DateRoundPlayed, DateStarted};
pub use events::{AnswerUsed, CallKind, CallOutcome, EndReason, EventBody, FormatLevel, SimEvent};
pub use highlights::{Highlight, HighlightKind, Highlights};
pub use narrate::narrate;
pub use narration::{LogNames, Names, Narration, Strand};
pub use ties::{ConversationMemory, RelationshipDelta};

use super::clock::Clock;
use super::residents::roster::Roster;
use super::{LoadedScenario, RunSettings, SimSet, SimStep};

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
    /// A file, buffered (written by a thread of its own when there are cores to spare).
    File(file::LogFile),
}

/// The event log sink plus counts of what was written.
#[derive(Resource, Default)]
pub struct EventLog {
    /// Where lines go.
    pub(crate) sink: LogSink,
    /// Lines written.
    pub(crate) lines: u64,
    /// First write error, reported once; the run goes on.
    pub(crate) error: Option<String>,
    /// Reused for each step's lines, so logging allocates nothing per event.
    scratch: Vec<u8>,
}

impl EventLog {
    /// A log written to a new file at `path` (JSON Lines).
    pub fn to_file(path: &std::path::Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
        Ok(Self {
            sink: LogSink::File(file::LogFile::new(file)),
            ..default()
        })
    }

    /// A log kept in memory (tests, the window).
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

    /// Writes a step's events, in order. A large batch is serialised in
    /// chunks on the compute pool (the lines are joined in order, so the
    /// log does not depend on the threads).
    fn write_all(&mut self, events: &[&SimEvent]) {
        // No log asked for: nothing to serialise (at 100,000 residents that
        // was a twentieth of the step).
        if matches!(self.sink, LogSink::Discard) {
            self.lines += events.len() as u64;
            return;
        }
        let threads = crate::sim::pool_threads();
        let mut lines = std::mem::take(&mut self.scratch);
        lines.clear();
        if threads < 2 || events.len() < PARALLEL_LINES {
            let n = serialise(events, &mut lines);
            self.put(&lines, n);
        } else {
            let parts = crate::sim::par_chunks(events, 0, |part| {
                let mut out = Vec::new();
                let n = serialise(part, &mut out);
                (out, n)
            });
            for (out, n) in parts {
                self.put(&out, n);
            }
        }
        self.scratch = lines;
    }

    /// Puts `n` serialised lines in the sink, noting the first error.
    fn put(&mut self, lines: &[u8], (n, error): (u64, Option<String>)) {
        if let Some(e) = error {
            self.error.get_or_insert(e);
        }
        self.lines += n;
        let result = match &mut self.sink {
            LogSink::Discard => Ok(()),
            LogSink::Memory(buf) => {
                buf.extend_from_slice(lines);
                Ok(())
            }
            LogSink::File(f) => f.write_all(lines),
        };
        if let Err(e) = result {
            self.error
                .get_or_insert(format!("cannot write the event log: {e}"));
        }
    }

    /// Writes out what is buffered; a failure is kept in `error`.
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
        .init_resource::<RunStart>()
        .add_systems(SimStep, log_start.before(SimSet::Clock));
}

/// Whether the run's `start` line is written, and whether the run goes on
/// from a save.
#[derive(Resource, Debug, Default)]
struct RunStart {
    logged: bool,
    resumed: bool,
}

/// The run goes on from a save: its `start` line says so.
pub fn mark_resumed(world: &mut World) {
    world.resource_mut::<RunStart>().resumed = true;
}

/// Writes the `start` line before the run's first step (a resumed run's too).
pub(super) fn log_start(world: &mut World) {
    let mut start = world.resource_mut::<RunStart>();
    if std::mem::replace(&mut start.logged, true) {
        return;
    }
    let resumed = start.resumed;
    let brain = match world.get_resource::<BrainLabel>() {
        Some(label) => label.0.clone(),
        None => world
            .resource::<super::brain::ActiveBrain>()
            .0
            .name()
            .to_string(),
    };
    let scenario = world.resource::<LoadedScenario>().0.name.clone();
    let settings = world.resource::<RunSettings>().clone();
    let residents = world.resource::<Roster>().ids().to_vec();
    let names = world.resource::<Roster>().names().to_vec();
    let town = world.resource::<crate::scenario::Town>();
    let places = town.indices().map(|l| town.id(l).clone()).collect();
    let place_names = town.indices().map(|l| town.name(l).to_string()).collect();
    let time = world.resource::<Clock>().now;
    world.write_message(SimEvent {
        time,
        body: EventBody::Start {
            scenario,
            seed: settings.seed,
            days: settings.days,
            residents,
            names,
            places,
            place_names,
            brain,
            resumed,
        },
    });
}

/// Below this many events a step's lines are serialised on one thread.
const PARALLEL_LINES: usize = 64;

/// Appends `events` as JSON lines to `out`: how many, and the first error
/// (an event that cannot be serialised is left out; the rest are written).
fn serialise(events: &[&SimEvent], out: &mut Vec<u8>) -> (u64, Option<String>) {
    let (mut n, mut error) = (0, None);
    for event in events {
        let len = out.len();
        match serde_json::to_writer(&mut *out, event) {
            Ok(()) => {
                out.push(b'\n');
                n += 1;
            }
            Err(e) => {
                out.truncate(len);
                error.get_or_insert(format!("cannot serialise event: {e}"));
            }
        }
    }
    (n, error)
}

fn write_log(mut reader: MessageReader<SimEvent>, mut log: ResMut<EventLog>) {
    let events: Vec<&SimEvent> = reader.read().collect();
    log.write_all(&events);
}
