//! Small app builders shared by the CLI, tests and benchmarks: every simulation
//! plugin runs headless under `MinimalPlugins`.

use std::sync::Arc;

use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;

use crate::scenario::Scenario;
use crate::sim::end::SimOutcome;
use crate::sim::event_log::EventLog;
use crate::sim::{self, RunSettings};

/// A headless app with the whole simulation, one step per `update()`.
pub fn headless_app(scenario: Arc<Scenario>, seed: u64, days: u32, log: EventLog) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(sim::plugin);
    app.insert_resource(log);
    // One step of a small town is microseconds of work: waking worker threads for
    // every schedule would cost more than the step itself.
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::default());
    }
    sim::setup_world(app.world_mut(), scenario, RunSettings { seed, days });
    app
}

/// Runs until an end condition holds (or `max_steps`, as a guard); returns the steps run.
pub fn run_to_end(app: &mut App, max_steps: u64) -> u64 {
    let mut steps = 0;
    while !app.world().resource::<SimOutcome>().ended() && steps < max_steps {
        app.update();
        steps += 1;
    }
    app.world_mut().resource_mut::<EventLog>().flush();
    steps
}

/// Loads the default town shipped in `scenarios/heartvale`.
pub fn default_scenario() -> Arc<Scenario> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    Arc::new(Scenario::load(&dir).unwrap_or_else(|e| panic!("default scenario is broken:\n{e}")))
}
