//! Small app builders shared by the CLI, tests and benchmarks: every simulation
//! plugin runs headless under `MinimalPlugins`.

use std::sync::Arc;
use std::time::Duration;

use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;

use crate::llm::LlmSettings;
use crate::scenario::Scenario;
use crate::sim::clock::Clock;
use crate::sim::event_log::EventLog;
use crate::sim::outcome::SimOutcome;
use crate::sim::{self, RunSettings};

/// A headless app with the whole simulation, one step per `update()`.
pub fn headless_app(scenario: Arc<Scenario>, seed: u64, days: u32, log: EventLog) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins((
        sim::plugin,
        crate::builtin::plugin,
        crate::llm::plugin,
    ));
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

/// A headless app whose residents think with an LLM (when `llm` is `Some`).
pub fn headless_app_with_llm(
    scenario: Arc<Scenario>,
    seed: u64,
    days: u32,
    log: EventLog,
    llm: Option<LlmSettings>,
) -> Result<App, String> {
    let mut app = headless_app(scenario, seed, days, log);
    if let Some(settings) = llm {
        crate::llm::attach(app.world_mut(), settings).map_err(|e| e.to_string())?;
    }
    Ok(app)
}

/// Runs until an end condition holds (or `max_steps` simulation steps, as a
/// guard); returns the steps run. Between frames it sleeps while the step waits
/// for LLM replies.
pub fn run_to_end(app: &mut App, max_steps: u64) -> u64 {
    let first = app.world().resource::<Clock>().steps;
    while !app.world().resource::<SimOutcome>().ended()
        && app.world().resource::<Clock>().steps - first < max_steps
    {
        app.update();
        crate::llm::wait_if_gated(app.world(), Duration::from_millis(50));
    }
    app.world_mut().resource_mut::<EventLog>().flush();
    app.world().resource::<Clock>().steps - first
}

/// Loads the default town shipped in `scenarios/heartvale`.
pub fn default_scenario() -> Arc<Scenario> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    Arc::new(Scenario::load(&dir).unwrap_or_else(|e| panic!("default scenario is broken:\n{e}")))
}

/// Copies a folder with everything in it (a town with its script sets), for
/// tests that edit a scenario.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}
