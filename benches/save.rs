//! The save: a generated town of 1,000 residents after 3 days, written to
//! SQLite (one transaction, FULL sync) and read back into a fresh world.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use heartvale::headless::{headless_app, run_to_end};
use heartvale::save::{self, TownSource};
use heartvale::scenario::generate::generated_town;
use heartvale::sim::event_log::EventLog;

const RESIDENTS: usize = 1000;

fn save_and_load(c: &mut Criterion) {
    let scenario = Arc::new(generated_town(RESIDENTS, 42));
    let source = TownSource::Generated {
        residents: RESIDENTS,
        seed: 42,
    };
    let mut app = headless_app(scenario, 42, 3, EventLog::default());
    run_to_end(&mut app, 100_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("town.db");
    let mut group = c.benchmark_group("save");
    group.sample_size(10);
    group.bench_function("write_1000_residents_3_days", |b| {
        b.iter(|| save::save_world(app.world_mut(), &file, &source).expect("saves"))
    });
    group.bench_function("load_1000_residents_3_days", |b| {
        b.iter(|| {
            let loaded = save::load(&file).expect("loads");
            let seed = loaded.snapshot.seed();
            let mut town = headless_app(Arc::new(loaded.scenario), seed, 4, EventLog::default());
            save::restore(town.world_mut(), loaded.snapshot).expect("restores");
            town
        })
    });
    group.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, save_and_load);
criterion_main!(benches);
