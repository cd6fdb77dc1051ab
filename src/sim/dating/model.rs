//! Town dates played by a model. The LLM brain puts a [`ModelDates`] in the
//! world when the host thinks with one (the simulation knows only minds that
//! may take a while). A model's answer can take seconds, so each step runs on
//! a thread of its own with a copy of the date; the town shows the date as it
//! was until the step comes back, and a headless run waits for it, so the
//! log does not depend on the server's speed. What the model answered is kept
//! with the date (and in a save), so a load rebuilds the date from it without
//! asking again.

use std::sync::Arc;

use bevy::prelude::*;
use crossbeam_channel::{Receiver, Sender, bounded};

use super::TownDates;
use crate::cupid::{Answer, Date, Message as Line, Minds, Posed, Recording};
use crate::sim::clock::{StepGate, StepMode};
use crate::sim::outcome::SimOutcome;

/// Minds for a date with this seed, and where their streamed answers' pieces
/// go (the 💘 panel shows the answer being written).
pub type MakeMinds = dyn Fn(u64, Option<Sender<String>>) -> Result<Box<dyn Minds + Send + Sync>, String>
    + Send
    + Sync;

/// How town dates are played by a model.
#[derive(Resource, Clone)]
pub struct ModelDates {
    /// Makes one date's minds.
    pub make: Arc<MakeMinds>,
    /// The model's name, for the log.
    pub model: String,
    /// Stream the answers (the window watches them written).
    pub stream: bool,
}

/// A step back from its thread: the date after it, the minds, its lines and
/// what the minds answered.
pub(crate) struct Back {
    pub(crate) date: Date,
    pub(crate) minds: Box<dyn Minds + Send + Sync>,
    pub(crate) lines: Vec<Line>,
    pub(crate) answers: Vec<Answer>,
    pub(crate) upcoming: Option<Posed>,
    pub(crate) notes: Vec<String>,
}

/// Plays the date's next step on a thread of its own (or here, if no thread
/// can be had); the answer comes on the channel.
pub(crate) fn send_step(date: &Date, minds: Box<dyn Minds + Send + Sync>) -> Receiver<Back> {
    let (tx, rx) = bounded(1);
    let date = date.clone();
    let (job_tx, job) = bounded(1);
    let _ = job_tx.send((date, minds));
    let run = move || {
        if let Ok((date, minds)) = job.recv() {
            let _ = tx.send(step(date, minds));
        }
    };
    let thread = std::thread::Builder::new().name("heartvale-date".into());
    if let Err(e) = thread.spawn(run.clone()) {
        warn!("no thread for a date's step ({e}); it is played here");
        run();
    }
    rx
}

/// One step, its answers recorded.
fn step(mut date: Date, mut minds: Box<dyn Minds + Send + Sync>) -> Back {
    let mut recording = Recording::new(minds.as_mut());
    let lines = date.step(&mut recording);
    let answers = recording.answers;
    Back {
        date,
        upcoming: minds.upcoming(),
        notes: minds.take_notes(),
        minds,
        lines,
        answers,
    }
}

/// Each frame: steps that came back wait for the next simulation step, and
/// pieces being written are gathered for the panel; a headless run waits
/// while a step is away.
pub(super) fn collect(
    mut dates: ResMut<TownDates>,
    mode: Res<StepMode>,
    outcome: Res<SimOutcome>,
    mut gate: ResMut<StepGate>,
) {
    let mut away = false;
    for live in dates.active.iter_mut().filter_map(|d| d.live.as_mut()) {
        live.collect();
        away |= live.away.is_some();
    }
    gate.dates = *mode == StepMode::Headless && !outcome.ended() && away;
}
