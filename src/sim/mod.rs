//! The render-free simulation. Every plugin here runs under `MinimalPlugins`.
//!
//! One simulation step is one run of the [`SimStep`] schedule: a fixed slice of
//! game time (tuning `step_minutes`). The step's systems run in the fixed order
//! of [`SimSet`] on a single thread, so the same scenario, seed and brain give
//! the same event log, byte for byte.

pub(crate) mod actions;
pub mod brain;
pub mod clock;
pub mod companion;
pub mod dating;
pub(crate) mod disjoint;
pub mod end;
pub mod event_log;
pub mod interview;
pub mod knowledge;
pub mod memory;
pub(crate) mod needs;
pub mod notice_board;
pub mod notices;
pub mod outcome;
pub mod planning;
pub mod residents;
pub mod social;
pub mod timings;
pub mod town;

use std::sync::Arc;

use bevy::ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::scenario::Scenario;
pub use brain::ActiveBrain;

/// One simulation step.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimStep;

/// The step's phases, run in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimSet {
    /// Advance game time.
    Clock,
    /// Finish actions whose time is up (wake up).
    Finish,
    /// Walk along paths; arrive.
    Movement,
    /// Decay and restore needs.
    Needs,
    /// Snapshot who is where, for everyone's decisions this step.
    Census,
    /// Read notice boards.
    Notices,
    /// Conversations start, take turns and end (see [`social::SocialSet`]).
    Interactions,
    /// Idle residents ask their brain for a plan; plans are validated and started.
    Planning,
    /// Actions that begin now take effect (sleep, post a notice, observe).
    Begin,
    /// Memories from this step's events; nightly consolidation.
    Memory,
    /// End conditions.
    End,
    /// Write this step's events to the log.
    Log,
}

/// What most step systems read and write: the clock, the town, the tuning,
/// and the event stream.
#[derive(SystemParam)]
pub(crate) struct StepCx<'w> {
    pub(crate) clock: Res<'w, clock::Clock>,
    pub(crate) town: Res<'w, crate::scenario::Town>,
    pub(crate) tuning: Res<'w, town::ActiveTuning>,
    pub(crate) events: MessageWriter<'w, event_log::SimEvent>,
}

/// Threads of the compute pool the step's parallel parts run on (1 when
/// there is none, as in a bare test world).
pub(crate) fn pool_threads() -> usize {
    bevy::tasks::ComputeTaskPool::try_get().map_or(1, |p| p.thread_num())
}

/// How the step's parallel queries hand out their items: see
/// [`CHUNKS_PER_THREAD`].
pub(crate) fn batching() -> bevy::ecs::batching::BatchingStrategy {
    bevy::ecs::batching::BatchingStrategy::new().batches_per_thread(CHUNKS_PER_THREAD)
}

/// Chunks per pool thread in [`par_chunks`] and the step's parallel queries:
/// enough that uneven chunks even out, few enough that handing them out
/// stays cheap.
pub(crate) const CHUNKS_PER_THREAD: usize = 4;

/// `f` over `items` in a few chunks per pool thread (see [`par_ranges`]).
pub(crate) fn par_chunks<T: Sync, R: Send + 'static>(
    items: &[T],
    min: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    par_ranges(items.len(), min, |range| f(&items[range]))
}

/// `f` over `0..n` cut into a few ranges per pool thread (so a thread that
/// finishes early takes another instead of idling), the results in the
/// ranges' order (so whatever is merged from them is the same for any thread
/// count); one call over everything with one thread or fewer than `min`.
pub(crate) fn par_ranges<R: Send + 'static>(
    n: usize,
    min: usize,
    f: impl Fn(std::ops::Range<usize>) -> R + Sync,
) -> Vec<R> {
    let threads = pool_threads();
    if threads < 2 || n < min.max(2) {
        return vec![f(0..n)];
    }
    let f = &f;
    let step = n.div_ceil(threads * CHUNKS_PER_THREAD);
    bevy::tasks::ComputeTaskPool::get().scope(|s| {
        for lo in (0..n).step_by(step) {
            s.spawn(async move { f(lo..(lo + step).min(n)) });
        }
    })
}

/// The scenario the world was built from.
#[derive(Resource, Clone)]
pub struct LoadedScenario(pub Arc<Scenario>);

/// Run settings chosen on the command line.
#[derive(Resource, Clone, Debug)]
pub struct RunSettings {
    /// The seed every random stream of the run derives from.
    pub(crate) seed: u64,
    /// Game days to run.
    pub(crate) days: u32,
}

/// The whole simulation: add this to an app with `MinimalPlugins` (headless)
/// or `DefaultPlugins` (the window). Then call [`setup_world`].
pub fn plugin(app: &mut App) {
    let mut step = Schedule::new(SimStep);
    step.set_executor(SingleThreadedExecutor::default());
    step.configure_sets(
        (
            SimSet::Clock,
            SimSet::Finish,
            SimSet::Movement,
            SimSet::Needs,
            SimSet::Census,
            SimSet::Notices,
            SimSet::Interactions,
            SimSet::Planning,
            SimSet::Begin,
            SimSet::Memory,
            SimSet::End,
            SimSet::Log,
        )
            .chain(),
    );
    app.add_schedule(step);
    app.add_plugins((
        clock::plugin,
        residents::plugin,
        needs::plugin,
        planning::plugin,
        actions::plugin,
        notices::plugin,
        memory::plugin,
        knowledge::plugin,
        social::plugin,
        dating::plugin,
        end::plugin,
        event_log::plugin,
    ));
}

/// Inserts the scenario's resources and spawns its residents.
pub fn setup_world(world: &mut World, scenario: Arc<Scenario>, settings: RunSettings) {
    clock::setup(world, &scenario, &settings);
    town::setup(world, &scenario);
    residents::spawn_all(world, &scenario, &settings);
    social::setup(world, scenario.residents.len(), settings.seed);
    memory::setup(world, &scenario);
    dating::setup(world, &scenario);
    world.init_resource::<companion::Companions>();
    world.insert_resource(settings);
    world.insert_resource(LoadedScenario(scenario));
}
