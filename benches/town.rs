//! The whole default town, 3 days headless, from loading the scenario to the end.

use criterion::{Criterion, criterion_group, criterion_main};
use heartvale::headless::{headless_app, run_to_end};
use heartvale::scenario::Scenario;
use heartvale::sim::event_log::EventLog;

fn town(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let mut group = c.benchmark_group("default_town");
    group.sample_size(10);
    group.bench_function("3_days_headless", |b| {
        b.iter(|| {
            let scenario = std::sync::Arc::new(Scenario::load(&dir).expect("default town loads"));
            let mut app = headless_app(scenario, 7, 3, EventLog::in_memory());
            run_to_end(&mut app, 10_000)
        })
    });
    group.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, town);
criterion_main!(benches);
