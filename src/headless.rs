//! Small app builders shared by the CLI, tests and benchmarks: every simulation
//! plugin runs headless under `MinimalPlugins`.

use std::sync::Arc;
use std::time::Duration;

use bevy::app::{TaskPoolOptions, TaskPoolThreadAssignmentPolicy};
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;

use crate::llm::LlmSettings;
use crate::scenario::Scenario;
use crate::sim::clock::Clock;
use crate::sim::event_log::EventLog;
use crate::sim::outcome::SimOutcome;
use crate::sim::{self, RunSettings};

/// Sizes Bevy's compute pool, on which the step's parallel parts run, to
/// `threads` (at least 1; the thread that runs the step helps too). Call it
/// before the first app is built: Bevy keeps one pool per process, and the
/// first sizing holds. With 1, those parts run on the step's thread alone.
/// Whatever the threads, a run's log is the same.
pub fn use_threads(threads: usize) {
    let fixed = |n: usize| TaskPoolThreadAssignmentPolicy {
        min_threads: n,
        max_threads: n,
        percent: 1.0,
        on_thread_spawn: None,
        on_thread_destroy: None,
    };
    let n = threads.max(1);
    TaskPoolOptions {
        min_total_threads: n + 2,
        max_total_threads: n + 2,
        io: fixed(1),
        async_compute: fixed(1),
        compute: fixed(n),
    }
    .create_default_pools();
}

/// All the cores there are: the default of `--threads`.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

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
