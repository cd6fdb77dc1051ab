//! Endpoint pools against several real HTTP servers on 127.0.0.1 (fakes of
//! the OpenAI API): calls spread evenly or by weight, a failing or hanging
//! member routed around, every member down, answers too big to keep, and the
//! town doing the same whichever member answered.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use heartvale::headless::{default_scenario, headless_app_with_llm, run_to_end};
use heartvale::llm::LlmSettings;
use heartvale::llm::bridge::{Bridge, BridgeSettings, Job};
use heartvale::llm::cassette::CassetteMode;
use heartvale::llm::client::{ChatRequest, Client, Endpoint, Format, LlmError, Message};
use heartvale::llm::fake::{self, FakeReply, FakeServer};
use heartvale::scenario::Scenario;
use heartvale::scenario::generate::generated_town;
use heartvale::sim::event_log::EventLog;

/// The default town for one day on these servers (comma-separated, with weights).
fn one_day(urls: &str, tune: impl FnOnce(&mut LlmSettings)) -> Vec<Value> {
    day_in(default_scenario(), urls, tune)
}

/// One day of `town` on these servers.
fn day_in(town: Arc<Scenario>, urls: &str, tune: impl FnOnce(&mut LlmSettings)) -> Vec<Value> {
    let mut settings = LlmSettings::for_endpoint(urls, "fake-model");
    tune(&mut settings);
    let mut app = headless_app_with_llm(town, 7, 1, EventLog::in_memory(), Some(settings))
        .expect("the LLM brain starts");
    run_to_end(&mut app, 2000);
    let text = app.world().resource::<EventLog>().text().to_string();
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect()
}

fn calls(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["kind"] == "llm_call").collect()
}

fn ended(events: &[Value]) -> bool {
    events
        .iter()
        .any(|e| e["kind"] == "end" && e["reason"] != "failed")
}

/// How far `n` is from `expected`, as a fraction of it.
fn off(n: usize, expected: f64) -> f64 {
    (n as f64 - expected).abs() / expected
}

/// Sends `n` calls at once through a bridge to a pool of these servers (30
/// residents' worth of affinity), and counts the answers per member.
fn spread(urls: &str, n: u64) -> Vec<(String, usize)> {
    let settings = LlmSettings::for_endpoint(urls, "fake-model");
    let pool = Arc::new(settings.default_pool().unwrap().clone());
    let bridge = Bridge::start(BridgeSettings::default(), None).unwrap();
    for id in 0..n {
        bridge.send(Job {
            due: 0,
            id,
            priority: 100,
            pool: pool.clone(),
            affinity: Some(id % 30),
            request: hi(false),
            pieces: None,
        });
    }
    let mut counts: Vec<(String, usize)> = pool
        .members()
        .iter()
        .map(|m| (m.endpoint.base_url.clone(), 0))
        .collect();
    let mut got = 0;
    while got < n {
        let Some(done) = bridge.try_recv() else {
            bridge.wait(Duration::from_millis(5));
            continue;
        };
        assert!(done.result.is_ok(), "{:?}", done.result);
        let member = &done.tries.last().unwrap().member;
        counts.iter_mut().find(|(u, _)| u == member).unwrap().1 += 1;
        got += 1;
    }
    counts
}

fn slow_servers(n: usize) -> Vec<FakeServer> {
    (0..n)
        .map(|_| {
            FakeServer::start(Arc::new(|_| {
                FakeReply::Delay(Duration::from_millis(10), Box::new(fake::chat("好。")))
            }))
        })
        .collect()
}

#[test]
fn calls_spread_evenly_over_equal_members() {
    let servers = slow_servers(3);
    let urls: Vec<&str> = servers.iter().map(|s| s.url.as_str()).collect();
    let counts = spread(&urls.join(","), 600);
    for (_, n) in &counts {
        assert!(off(*n, 200.0) <= 0.10, "uneven: {counts:?}");
    }
}

#[test]
fn calls_spread_by_weight_over_unequal_members() {
    let servers = slow_servers(2);
    let counts = spread(
        &format!("{},{}#weight=3", servers[0].url, servers[1].url),
        800,
    );
    assert!(off(counts[0].1, 200.0) <= 0.10, "{counts:?}");
    assert!(off(counts[1].1, 600.0) <= 0.10, "{counts:?}");
}

#[test]
fn a_towns_calls_share_the_members_and_keep_to_their_last_one() {
    let servers: Vec<FakeServer> = (0..3)
        .map(|_| FakeServer::start(fake::town_handler()))
        .collect();
    let urls: Vec<&str> = servers.iter().map(|s| s.url.as_str()).collect();
    let town = Arc::new(generated_town(90, 3));
    let events = day_in(town, &urls.join(","), |_| {});
    assert!(ended(&events));
    let counts: Vec<usize> = servers.iter().map(FakeServer::count).collect();
    let total = counts.iter().sum::<usize>() as f64;
    assert!(total > 300.0, "{counts:?}");
    // A run steps with few calls out at once, so residents mostly keep to
    // their server (its prompt cache), and the servers still share the work.
    for n in &counts {
        assert!(*n as f64 > total * 0.2, "{counts:?}");
    }
    let mut last: std::collections::HashMap<&str, &str> = Default::default();
    let (mut same, mut moved) = (0, 0);
    for call in calls(&events).iter().filter(|c| c["outcome"] == "ok") {
        let member = call["endpoint"].as_str().unwrap();
        assert!(urls.contains(&member), "{call}");
        match last.insert(call["resident"].as_str().unwrap(), member) {
            Some(m) if m == member => same += 1,
            Some(_) => moved += 1,
            None => {}
        }
    }
    assert!(same >= 4 * moved, "{same} stayed, {moved} moved");
}

#[test]
fn a_member_that_fails_or_hangs_is_routed_around() {
    let good = FakeServer::start(fake::town_handler());
    let broken = FakeServer::start(Arc::new(|_| fake::status(500, vec![], "boom")));
    let hanging = FakeServer::start(Arc::new(|_| FakeReply::Hang));
    let urls = format!("{},{},{}", broken.url, hanging.url, good.url);
    let events = one_day(&urls, |s| s.timeout = Duration::from_secs(2));
    assert!(ended(&events), "the day completes");
    let calls = calls(&events);
    // A member answered: used, or its answer refused on its merits (the fake
    // server's four lines sometimes repeat the conversation so far).
    let answered = |c: &&&Value| c["used"] == "llm" || c["outcome"] == "invalid";
    let used = calls.iter().filter(answered).count();
    // Calls a member failed went on to another, except those that hung to the deadline.
    assert!(
        used * 10 >= calls.len() * 8,
        "{used} of {} answered",
        calls.len()
    );
    // Taken out after two failures each, then only probed now and then.
    assert!(broken.count() < 12, "{} to the broken one", broken.count());
    assert!(
        hanging.count() < 12,
        "{} to the hanging one",
        hanging.count()
    );
    assert!(good.count() > 50);
    // A call the broken member failed went on to another one. (Which member
    // the first failed-over call met first depends on timing: it may be the
    // hanging one, so look for the broken one among all of them.)
    let failed_over_broken = |c: &&&Value| {
        c["failed_over"]
            .as_array()
            .is_some_and(|f| f.iter().any(|u| u == broken.url.as_str()))
    };
    assert!(
        calls.iter().any(|c| failed_over_broken(&c)),
        "no call went on from the broken member"
    );
}

#[test]
fn with_every_member_down_the_builtin_brain_answers() {
    // Nothing listens on these ports (9 is discard, refused on loopback).
    let events = one_day("http://127.0.0.1:9/v1,http://127.0.0.1:1/v1", |s| {
        s.timeout = Duration::from_secs(2)
    });
    assert!(ended(&events));
    let calls = calls(&events);
    assert!(!calls.is_empty());
    assert!(calls.iter().all(|c| c["used"] != "llm"), "built-in answers");
    assert!(events.iter().filter(|e| e["kind"] == "plan").count() > 20);
}

#[test]
fn whichever_member_answers_the_town_does_the_same() {
    let one = FakeServer::start(fake::town_handler());
    let two = FakeServer::start(fake::town_handler());
    let three = FakeServer::start(fake::town_handler());
    let single = one_day(&one.url, |_| {});
    let pooled = one_day(&format!("{},{}", two.url, three.url), |_| {});
    assert!(two.count() > 0 && three.count() > 0);
    // Only where the call went and how long it took differ.
    let strip = |events: &[Value]| -> Vec<Value> {
        events
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if let Some(o) = e.as_object_mut() {
                    for k in ["endpoint", "failed_over", "latency_ms"] {
                        o.remove(k);
                    }
                    for k in ["latency_p50_ms", "latency_p90_ms", "latency_p99_ms"] {
                        o.remove(k);
                    }
                }
                e
            })
            .collect()
    };
    assert_eq!(strip(&single), strip(&pooled));
}

fn hi(stream: bool) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("你好")],
        temperature: 0.0,
        max_tokens: 8,
        seed: None,
        format: Format::Text,
        stream,
    }
}

#[test]
fn a_huge_or_endless_answer_is_cut_off_at_the_limit() {
    let huge = FakeServer::start(Arc::new(|req| FakeReply::Flood {
        bytes: if req.body["stream"] == true {
            u64::MAX
        } else {
            100 * 1024 * 1024
        },
        stream: req.body["stream"] == true,
    }));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ep = Endpoint {
        base_url: huge.url.clone(),
        model: "m".into(),
        api_key: None,
    };
    let client = Client::default().with_max_body(256 * 1024);
    for stream in [false, true] {
        let got = rt.block_on(client.chat(&ep, &hi(stream), Duration::from_secs(30)));
        assert_eq!(
            got,
            Err(LlmError::TooLarge { limit: 256 * 1024 }),
            "{stream}"
        );
    }
    // In a town: every call fails small, and the cassette keeps it small.
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassette");
    let events = one_day(&huge.url, |s| {
        s.only = Some(vec!["zhong".into(), "shen".into()]);
        s.cassette = Some(CassetteMode::Record(cassette.clone()));
    });
    assert!(ended(&events));
    let failed = calls(&events)
        .into_iter()
        .filter(|c| c["outcome"] == "error")
        .count();
    assert!(failed >= 5, "{failed}");
    // Every call recorded (failed ones, and plans asked ahead that the run
    // ended before) is its prompt and a short error, not the flood.
    let text = std::fs::read_to_string(cassette.join("calls.jsonl")).unwrap();
    let recorded = text.lines().count();
    assert!(recorded >= failed, "{recorded} recorded, {failed} failed");
    // A prompt is a few KiB (its size moves with what the town said); the
    // flood would be the 256 KiB limit or more.
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(
        longest < 32 * 1024,
        "a call of {longest} bytes among {recorded} ({} bytes in all)",
        text.len()
    );
}
