//! Cupid: offline dates per second (the built-in host and avatars over the
//! default scene bank), and with the fake server the calls and prompt tokens
//! a date takes (printed; target ≤ 3 calls a round).

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use heartvale::cupid::{Avatar, Date, OfflineMinds, SceneBank};
use heartvale::llm::LlmSettings;
use heartvale::llm::cupid::LlmMinds;
use heartvale::llm::fake::{FakeServer, cupid_handler};

fn bank() -> Arc<SceneBank> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale/cupid/scenes.yaml");
    Arc::new(SceneBank::load(&path).expect("the default scene bank loads"))
}

fn pair() -> (Avatar, Avatar) {
    let town = heartvale::headless::default_scenario();
    let find = |id: &str| town.residents.iter().find(|p| p.id.as_str() == id).unwrap();
    (
        Avatar::new(find("heqing"), find("shisong")),
        Avatar::new(find("shisong"), find("heqing")),
    )
}

fn offline(c: &mut Criterion) {
    let bank = bank();
    let (a, b) = pair();
    let mut g = c.benchmark_group("cupid");
    g.throughput(Throughput::Elements(1));
    let mut seed = 0;
    g.bench_function("offline_date", |bench| {
        bench.iter(|| {
            seed += 1;
            let mut date = Date::new(a.clone(), b.clone(), 10);
            date.play(&mut OfflineMinds::new(bank.clone(), seed));
            date.score()
        })
    });
    g.finish();
}

/// Ten dates against the fake server: what a date costs in calls and tokens.
fn llm_economy(_: &mut Criterion) {
    let server = FakeServer::start(cupid_handler());
    let settings = LlmSettings::for_endpoint(&server.url, "fake");
    let (a, b) = pair();
    let (mut calls, mut rounds, mut tokens) = (0u64, 0u64, 0u64);
    for seed in 0..10 {
        let mut minds = LlmMinds::new(&settings, bank(), seed)
            .expect("an endpoint")
            .expect("the bridge starts");
        let mut date = Date::new(a.clone(), b.clone(), 10);
        date.play(&mut minds);
        let c = minds.calls();
        calls += u64::from(c.calls);
        rounds += date.rounds().len() as u64;
        tokens += c.prompt_tokens;
    }
    println!(
        "cupid/llm_economy: {:.1} calls per date, {:.2} per round, {:.0} prompt tokens per date ({:.0} per call)",
        calls as f64 / 10.0,
        calls as f64 / rounds as f64,
        tokens as f64 / 10.0,
        tokens as f64 / calls as f64
    );
}

criterion_group!(benches, offline, llm_economy);
criterion_main!(benches);
