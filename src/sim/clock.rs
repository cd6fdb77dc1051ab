//! Game clock, pause and speed, and the driver that runs simulation steps.

use bevy::prelude::*;

use super::outcome::{SimOutcome, StopSim};
use super::{RunSettings, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::Scenario;

/// The game clock: where the run started, where it is now, how far a step goes.
#[derive(Resource, Debug, Clone)]
pub struct Clock {
    /// The first moment of the run.
    pub(crate) start: GameTime,
    /// The current game time.
    pub now: GameTime,
    /// Game minutes per step.
    pub(crate) step_minutes: u32,
    /// Game days the run lasts.
    pub(crate) days: u32,
    /// Steps taken so far.
    pub steps: u64,
}

impl Clock {
    /// 1-based day of the run.
    pub fn day(&self) -> u32 {
        (self.now.day_number() - self.start.day_number()) as u32 + 1
    }
    /// The moment the run ends at the latest.
    pub fn end(&self) -> GameTime {
        self.start.plus_minutes(self.days as i64 * 1440)
    }
}

/// How the driver turns frames into steps.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub enum StepMode {
    /// One step per app update, as fast as possible (`heartvale sim`, tests).
    Headless,
    /// Steps follow real time × `minutes_per_second` × speed (the window).
    Realtime,
}

/// Pause and speed; the window's controls write these.
#[derive(Resource, Debug, Clone)]
pub struct SimSpeed {
    /// Whether steps are held (single steps still go).
    pub paused: bool,
    /// Multiplier of the scenario's base rate.
    pub multiplier: f32,
    /// Game minutes per real second at 1×.
    pub(crate) minutes_per_second: f32,
    /// Single steps requested while paused.
    pub pending_single_steps: u32,
    /// Game minutes per real second at most, whatever the speed: set by the
    /// window while the camera follows a resident who is talking, so each
    /// line can be read as it is said.
    pub(crate) reading_cap: Option<f32>,
    /// Fractional game minutes carried to the next frame.
    carry_minutes: f32,
}

impl SimSpeed {
    /// Running at 1× at the scenario's rate.
    pub fn new(minutes_per_second: f32) -> Self {
        Self {
            paused: false,
            multiplier: 1.0,
            minutes_per_second,
            pending_single_steps: 0,
            reading_cap: None,
            carry_minutes: 0.0,
        }
    }
}

/// Headless runs wait here for async minds: while `waiting`, no step is taken
/// (the frame still completes), so the outcome does not depend on how fast a
/// server answers.
#[derive(Resource, Debug, Clone, Default)]
pub struct StepGate {
    /// An async mind's answer is awaited.
    pub(crate) waiting: bool,
    /// An embedding is awaited (`--embed`).
    pub(crate) embeddings: bool,
    /// A model's step of a town date is awaited.
    pub(crate) dates: bool,
    /// The run was asked to stop: nothing is awaited any more (a server
    /// that never answers cannot keep Ctrl-C from stopping the run); the
    /// step goes on as a window's does, its calls left unanswered.
    pub(crate) stopping: bool,
}

impl StepGate {
    /// Whether the next step waits for an answer from the network.
    pub fn held(&self) -> bool {
        !self.stopping && (self.waiting || self.embeddings || self.dates)
    }
}

/// The `Update` system that runs simulation steps; async minds collect their
/// replies before it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DriveSteps;

/// Longest burst of steps one frame may run, so a slow frame cannot snowball.
const MAX_STEPS_PER_FRAME: u32 = 600;

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(StepMode::Headless)
        .init_resource::<StepGate>()
        .add_systems(
            Update,
            (stop_waiting, drive_steps).chain().in_set(DriveSteps),
        )
        .add_systems(SimStep, advance.in_set(SimSet::Clock));
}

pub(super) fn setup(world: &mut World, scenario: &Scenario, settings: &RunSettings) {
    world.insert_resource(Clock {
        start: scenario.start,
        now: scenario.start,
        step_minutes: scenario.tuning.step_minutes,
        days: settings.days,
        steps: 0,
    });
    world.insert_resource(SimSpeed::new(scenario.minutes_per_second));
}

fn advance(mut clock: ResMut<Clock>) {
    clock.now = clock.now.plus_minutes(clock.step_minutes as i64);
    clock.steps += 1;
}

/// A stop asked for ends the waiting at once (the stop itself is taken at
/// the end of the next step).
fn stop_waiting(mut stops: MessageReader<StopSim>, mut gate: ResMut<StepGate>) {
    if stops.read().count() > 0 {
        gate.stopping = true;
    }
}

/// Runs as many simulation steps as this frame calls for.
fn drive_steps(world: &mut World) {
    if !world.contains_resource::<Clock>() || world.resource::<SimOutcome>().ended() {
        return;
    }
    let steps = match *world.resource::<StepMode>() {
        StepMode::Headless => {
            u32::from(!world.resource::<SimSpeed>().paused && !world.resource::<StepGate>().held())
        }
        StepMode::Realtime => {
            let dt = world.resource::<Time<Real>>().delta_secs();
            let step_minutes = world.resource::<Clock>().step_minutes as f32;
            let mut speed = world.resource_mut::<SimSpeed>();
            if speed.paused {
                std::mem::take(&mut speed.pending_single_steps)
            } else {
                let rate = speed.minutes_per_second * speed.multiplier;
                let rate = speed.reading_cap.map_or(rate, |cap| rate.min(cap));
                speed.carry_minutes += dt * rate;
                let n = (speed.carry_minutes / step_minutes).floor();
                speed.carry_minutes -= n * step_minutes;
                (n as u32).min(MAX_STEPS_PER_FRAME)
            }
        }
    };
    for _ in 0..steps {
        world.run_schedule(SimStep);
        if world.resource::<SimOutcome>().ended() {
            break;
        }
    }
}
