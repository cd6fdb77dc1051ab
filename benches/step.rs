//! One simulation step of a generated town with 1,000, 10,000 and 100,000
//! residents. Each sample runs the busy part of a day, 08:00–20:00 (720 steps:
//! residents plan, walk, eat, work and talk), and reports the mean time of one
//! step in it, so every size is measured over the same stretch of game time.
//!
//! Bevy keeps one thread pool per process, so one run measures one number of
//! threads: `HEARTVALE_THREADS=1 cargo bench --bench step`, then `=2` (the
//! default: all cores). The ids name it: `sim_step/2t/10000`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::App;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use heartvale::headless::headless_app;
use heartvale::scenario::Scenario;
use heartvale::scenario::generate::generated_town;
use heartvale::sim::clock::Clock;
use heartvale::sim::event_log::EventLog;
use heartvale::sim::timings::{self, StepTimings};

/// Steps `app` until 20:00, calling `step` to run each one; the in-memory log
/// is emptied after each (untimed), as the window's bounded event stream is.
fn until_evening(app: &mut App, mut step: impl FnMut(&mut App)) {
    while app.world().resource::<Clock>().now.minute_of_day() < 20 * 60 {
        step(app);
        app.world_mut().resource_mut::<EventLog>().clear_memory();
    }
}

/// A town run up to 08:00 on its first day, logging to memory.
fn morning(scenario: &Arc<Scenario>) -> App {
    let mut app = headless_app(scenario.clone(), 1, 3, EventLog::in_memory());
    while app.world().resource::<Clock>().now.minute_of_day() < 8 * 60 {
        app.update();
    }
    app
}

/// The threads this run measures (`HEARTVALE_THREADS`, else all cores).
fn threads() -> usize {
    let threads = std::env::var("HEARTVALE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(heartvale::headless::all_cores);
    heartvale::headless::use_threads(threads);
    threads
}

fn step(c: &mut Criterion) {
    let threads = threads();
    let mut group = c.benchmark_group("sim_step");
    for residents in [1_000usize, 10_000, 100_000] {
        // A 100,000 sample is some 20 s: ten of them.
        group.sample_size(if residents > 10_000 { 10 } else { 20 });
        let scenario = Arc::new(generated_town(residents, 1));
        group.bench_with_input(
            BenchmarkId::new(format!("{threads}t"), residents),
            &residents,
            |b, _| {
                b.iter_custom(|iters| {
                    let mut app = morning(&scenario);
                    let (mut spent, mut steps) = (Duration::ZERO, 0u32);
                    until_evening(&mut app, |app| {
                        let t = Instant::now();
                        app.update();
                        spent += t.elapsed();
                        steps += 1;
                    });
                    spent / steps * iters as u32
                })
            },
        );
    }
    group.finish();
    // Where the window's time goes, phase by phase (one untimed extra run per size).
    for residents in [1_000usize, 10_000] {
        let scenario = Arc::new(generated_town(residents, 1));
        let mut app = morning(&scenario);
        timings::enable(&mut app);
        until_evening(&mut app, App::update);
        let t = app.world().resource::<StepTimings>();
        eprintln!(
            "sim_step/{residents}, 08:00–20:00, by phase:\n{}",
            timings::table(t)
        );
    }
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, step);
criterion_main!(benches);
