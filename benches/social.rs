//! The conversation trigger pass (appointments, work greetings, the lonely's
//! approach, chance meetings through the spatial grid) on a generated town of
//! 1,000, 5,000 and 10,000 residents at noon on its first day, when most stand
//! at work or at lunch. The pass only reads the world, so every sample sees the
//! same crowd.

use std::sync::Arc;

use bevy::ecs::system::SystemState;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use heartvale::headless::headless_app;
use heartvale::scenario::generate::generated_town;
use heartvale::sim::clock::Clock;
use heartvale::sim::event_log::EventLog;
use heartvale::sim::social::triggers::{TriggerParams, preview_encounters};

fn triggers(c: &mut Criterion) {
    let mut group = c.benchmark_group("social_triggers");
    group.sample_size(30);
    for residents in [1_000usize, 5_000, 10_000] {
        let scenario = Arc::new(generated_town(residents, 1));
        let mut app = headless_app(scenario, 1, 3, EventLog::default());
        while app.world().resource::<Clock>().now.minute_of_day() < 12 * 60 {
            app.update();
        }
        let world = app.world_mut();
        let mut params = SystemState::<TriggerParams>::new(world);
        let found = preview_encounters(world, &mut params);
        eprintln!("{residents} residents: {found} encounters at noon");
        group.bench_with_input(
            BenchmarkId::from_parameter(residents),
            &residents,
            |b, _| b.iter(|| preview_encounters(world, &mut params)),
        );
    }
    group.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, triggers);
criterion_main!(benches);
