//! LLM bridge overhead and frame time with calls in flight, against the fake
//! OpenAI server on 127.0.0.1 (real HTTP).
//!
//! - `bridge/200` vs `direct/200`: 200 chat calls with 4 in flight, through the
//!   bridge (crossbeam → dispatcher → tokio → crossbeam) vs the same client
//!   called straight from tokio with a semaphore of 4. Ratio = direct / bridge time.
//! - `pool/1`, `pool/2`, `pool/4`: 80 calls through the bridge to a pool of
//!   1, 2 or 4 fake servers that each answer after 50 ms, 4 in flight per
//!   server. Throughput ratio = `pool/1` time / `pool/N` time (ideal N).
//! - `frame/100_in_flight` vs `frame/builtin`: one app update running one
//!   simulation step of a 100-resident town, with every resident's plan call
//!   hanging at the server, vs the same town on the built-in brain.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use heartvale::headless::headless_app_with_llm;
use heartvale::llm::bridge::{Bridge, BridgeSettings, Job};
use heartvale::llm::client::{ChatRequest, Client, Endpoint, Format, Message, RetryPolicy};
use heartvale::llm::fake::{self, FakeReply, FakeServer};
use heartvale::llm::pool::Pool;
use heartvale::llm::{LlmBrain, LlmSettings};
use heartvale::scenario::generate::generated_town;
use heartvale::sim::clock::{SimSpeed, StepMode};
use heartvale::sim::event_log::EventLog;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CALLS: usize = 200;

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("你是心谷镇的一位居民。"),
            Message::user("现在是早上八点，你要做什么？"),
        ],
        temperature: 0.7,
        max_tokens: 64,
        seed: Some(1),
        format: Format::Text,
        stream: false,
    }
}

fn bridge_vs_direct(c: &mut Criterion) {
    let server = FakeServer::start(Arc::new(|_| fake::chat("早上好，我去酒馆吃早饭。")));
    let ep = Arc::new(Endpoint {
        base_url: server.url.clone(),
        model: "fake".into(),
        api_key: None,
    });
    let pool = Arc::new(Pool::single((*ep).clone()));
    let bridge = Bridge::start(BridgeSettings::default(), None).expect("bridge");
    let mut g = c.benchmark_group("llm");
    g.sample_size(40);
    let mut next = 0u64;
    g.bench_function("bridge/200", |b| {
        b.iter(|| {
            send(&bridge, &pool, &mut next, CALLS);
            receive(&bridge, CALLS);
        })
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = Client::new(RetryPolicy::default());
    g.bench_function("direct/200", |b| {
        b.iter(|| {
            rt.block_on(async {
                let limit = Arc::new(tokio::sync::Semaphore::new(4));
                let mut tasks = Vec::with_capacity(CALLS);
                for _ in 0..CALLS {
                    let (client, ep, limit) = (client.clone(), ep.clone(), limit.clone());
                    tasks.push(tokio::spawn(async move {
                        let _permit = limit.acquire_owned().await.unwrap();
                        client.chat(&ep, &request(), Duration::from_secs(60)).await
                    }));
                }
                for t in tasks {
                    assert!(t.await.unwrap().is_ok());
                }
            })
        })
    });
    g.finish();
}

/// Sends `n` calls (25 residents' worth of affinity), ids after `next`.
fn send(bridge: &Bridge, pool: &Arc<Pool>, next: &mut u64, n: usize) {
    for _ in 0..n {
        *next += 1;
        bridge.send(Job {
            due: 0,
            id: *next,
            priority: 100,
            pool: pool.clone(),
            affinity: Some(*next % 25),
            request: request(),
            pieces: None,
        });
    }
}

/// Waits for `n` answers, all good.
fn receive(bridge: &Bridge, n: usize) {
    let mut got = 0;
    while got < n {
        match bridge.try_recv() {
            Some(done) => {
                assert!(done.result.is_ok(), "{:?}", done.result);
                got += 1;
            }
            None => bridge.wait(Duration::from_millis(5)),
        }
    }
}

/// Calls per pool run: enough to keep four servers busy for a while.
const POOL_CALLS: usize = 80;

fn pools(c: &mut Criterion) {
    let servers: Vec<FakeServer> = (0..4)
        .map(|_| {
            FakeServer::start(Arc::new(|_| {
                FakeReply::Delay(Duration::from_millis(50), Box::new(fake::chat("好。")))
            }))
        })
        .collect();
    let mut g = c.benchmark_group("llm");
    g.sample_size(10);
    for members in [1, 2, 4] {
        let urls: Vec<&str> = servers[..members].iter().map(|s| s.url.as_str()).collect();
        let settings = LlmSettings::for_endpoint(&urls.join(","), "fake");
        let pool = Arc::new(settings.default_pool().expect("a pool").clone());
        let bridge = Bridge::start(BridgeSettings::default(), None).expect("bridge");
        let mut next = 0u64;
        g.bench_function(format!("pool/{members}"), |b| {
            b.iter(|| {
                send(&bridge, &pool, &mut next, POOL_CALLS);
                receive(&bridge, POOL_CALLS);
            })
        });
    }
    g.finish();
}

fn frame_with_calls_in_flight(c: &mut Criterion) {
    let server = FakeServer::start(Arc::new(|_| FakeReply::Hang));
    let town = Arc::new(generated_town(100, 3));
    let mut g = c.benchmark_group("llm");
    for (name, llm) in [("frame/100_in_flight", true), ("frame/builtin", false)] {
        let settings = llm.then(|| {
            let mut s = LlmSettings::for_endpoint(&server.url, "fake");
            s.concurrency = 100;
            s.lod_queue = 1000;
            s.timeout = Duration::from_secs(3600);
            s
        });
        let mut app =
            headless_app_with_llm(town.clone(), 1, 3, EventLog::in_memory(), settings).unwrap();
        // One step per update, regardless of replies (as in the window, paused and stepped).
        app.insert_resource(StepMode::Realtime);
        app.world_mut().resource_mut::<SimSpeed>().paused = true;
        let step = |app: &mut bevy::prelude::App| {
            app.world_mut()
                .resource_mut::<SimSpeed>()
                .pending_single_steps = 1;
            app.update();
            app.world_mut().resource_mut::<EventLog>().clear_memory();
        };
        for _ in 0..130 {
            step(&mut app); // to 08:10: everyone awake and asking
        }
        if llm {
            let out = app.world().resource::<LlmBrain>().outstanding();
            assert!(out >= 90, "{out} calls outstanding");
        }
        g.bench_function(name, |b| b.iter(|| step(&mut app)));
    }
    g.finish();
}

/// The LLM economy of the default town on the fake server: calls per resident
/// per game day and prompt tokens per call (printed), and the wall time of one day.
fn economy(c: &mut Criterion) {
    let server = FakeServer::start(fake::town_handler());
    let scenario = heartvale::headless::default_scenario();
    let run = || {
        let settings = LlmSettings::for_endpoint(&server.url, "fake");
        let mut app = headless_app_with_llm(
            scenario.clone(),
            7,
            1,
            EventLog::in_memory(),
            Some(settings),
        )
        .unwrap();
        heartvale::headless::run_to_end(&mut app, 3000);
        app
    };
    let app = run();
    let brain = app.world().resource::<LlmBrain>();
    let calls: u32 = brain
        .stats()
        .residents
        .iter()
        .map(|r| r.total_calls())
        .sum();
    let mut kinds = [0u32; 5];
    for r in &brain.stats().residents {
        for (k, n) in kinds.iter_mut().zip(r.calls) {
            *k += n;
        }
    }
    println!(
        "economy: {:.1} calls per resident per game day (plan {}, repair {}, line {}, summary {}, recap {}), median prompt {} tokens",
        calls as f64 / scenario.residents.len() as f64,
        kinds[0],
        kinds[1],
        kinds[2],
        kinds[3],
        kinds[4],
        brain.stats().median_prompt_tokens()
    );
    let mut g = c.benchmark_group("llm");
    g.sample_size(10);
    g.bench_function("default_town/1_day_fake_server", |b| b.iter(run));
    g.finish();
}

/// Ask early, wait late: a generated town of 40 for a game day against a
/// loopback server that answers each call after 20 ms, four calls at once.
/// Prints how far the calls overlapped (summed latency over wall time; 1×
/// when they go one after another, at most 4×) and times the day.
fn overlap(c: &mut Criterion) {
    let answer = fake::town_handler();
    let server = FakeServer::start(Arc::new(move |req| {
        FakeReply::Delay(Duration::from_millis(20), Box::new(answer(req)))
    }));
    let scenario = Arc::new(heartvale::scenario::generate::generated_town(40, 1));
    let run = || {
        let mut settings = LlmSettings::for_endpoint(&server.url, "fake");
        settings.concurrency = 4;
        let mut app = headless_app_with_llm(
            scenario.clone(),
            1,
            1,
            EventLog::in_memory(),
            Some(settings),
        )
        .unwrap();
        let started = Instant::now();
        heartvale::headless::run_to_end(&mut app, 3000);
        (app, started.elapsed())
    };
    let (app, wall) = run();
    let stats = app.world().resource::<LlmBrain>().stats();
    println!(
        "overlap: 40 residents, 20 ms server, 4 at once: {} calls, {:.1}× ({:.1} s of calls in {:.1} s)",
        stats.latencies_counted(),
        stats.summed_latency().as_secs_f64() / wall.as_secs_f64(),
        stats.summed_latency().as_secs_f64(),
        wall.as_secs_f64()
    );
    let mut g = c.benchmark_group("llm");
    g.sample_size(10);
    g.bench_function("generated_40/1_day_20ms_server", |b| b.iter(run));
    g.finish();
}

criterion_group!(
    benches,
    bridge_vs_direct,
    pools,
    frame_with_calls_in_flight,
    economy,
    overlap
);
criterion_main!(benches);
