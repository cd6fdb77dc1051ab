//! Everything that happens, as [`SimEvent`] messages, written to an append-only
//! JSON Lines log: one object per line, `time` and `kind` first.

use std::io::Write;

use bevy::prelude::*;

pub(crate) mod dates;
pub(crate) mod events;
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
    /// A file, buffered.
    File(std::io::BufWriter<std::fs::File>),
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
    /// Reused for each line, so logging allocates nothing per event.
    scratch: Vec<u8>,
}

impl EventLog {
    /// A log written to a new file at `path` (JSON Lines).
    pub fn to_file(path: &std::path::Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
        Ok(Self {
            sink: LogSink::File(std::io::BufWriter::new(file)),
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

fn write_log(mut reader: MessageReader<SimEvent>, mut log: ResMut<EventLog>) {
    for e in reader.read() {
        log.write(e);
    }
}
