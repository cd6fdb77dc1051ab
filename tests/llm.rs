//! The LLM brain against a real HTTP server on 127.0.0.1 (a small fake of the
//! OpenAI API): good and broken answers, refused formats, rate limits, server
//! errors, timeouts, refused connections, streaming, record/replay and key hygiene.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use serde_json::{Value, json};

use heartvale::headless::{default_scenario, headless_app_with_llm, run_to_end};
use heartvale::llm::LlmSettings;
use heartvale::llm::cassette::CassetteMode;
use heartvale::llm::fake::{self, FakeReply, FakeRequest, FakeServer};
use heartvale::scenario::Town;
use heartvale::sim::clock::{Clock, SimSpeed, StepMode};
use heartvale::sim::event_log::EventLog;
use heartvale::sim::residents::{Resident, Thinking};

const PLAN: &str = r#"{"action":"Serve breakfast at the tavern","target_location":"tavern","dialogue":"早上好，今天的粥熬得正好！","emoji":"🍲","duration":90}"#;

fn server(f: impl Fn(&FakeRequest) -> FakeReply + Send + Sync + 'static) -> FakeServer {
    FakeServer::start(Arc::new(f))
}

/// Only 钟大川 (who plans at 06:01) thinks with the LLM.
fn one_resident(url: &str) -> LlmSettings {
    let mut s = LlmSettings::for_endpoint(url, "fake-model");
    s.only = Some(vec!["zhong".into()]);
    s.timeout = Duration::from_secs(10);
    s
}

fn app_with(settings: LlmSettings) -> App {
    headless_app_with_llm(
        default_scenario(),
        7,
        1,
        EventLog::in_memory(),
        Some(settings),
    )
    .expect("the LLM brain starts")
}

/// The default town for one whole day with these LLM settings.
fn one_day(seed: u64, settings: LlmSettings) -> App {
    let mut app = headless_app_with_llm(
        default_scenario(),
        seed,
        1,
        EventLog::in_memory(),
        Some(settings),
    )
    .expect("the LLM brain starts");
    run_to_end(&mut app, 2000);
    app
}

/// Runs until `done(log)` holds; returns the log's events.
fn run_until(app: &mut App, max_steps: u64, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let started = Instant::now();
    loop {
        app.update();
        heartvale::llm::wait_if_gated(app.world(), Duration::from_millis(20));
        let events = events(app);
        if done(&events) {
            return events;
        }
        let steps = app.world().resource::<Clock>().steps;
        assert!(steps < max_steps, "not done after {steps} steps");
        assert!(started.elapsed() < Duration::from_secs(60), "took too long");
    }
}

fn events(app: &App) -> Vec<Value> {
    app.world()
        .resource::<EventLog>()
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every log line is JSON"))
        .collect()
}

fn of<'a>(events: &'a [Value], kind: &str, resident: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["kind"] == kind && e["resident"] == resident)
        .collect()
}

/// Runs until 钟大川's first plan is carried out; returns (llm_call events, the plan).
fn first_plan(app: &mut App) -> (Vec<Value>, Value) {
    let events = run_until(app, 120, |ev| !of(ev, "plan", "zhong").is_empty());
    let calls = of(&events, "llm_call", "zhong")
        .into_iter()
        .cloned()
        .collect();
    let plan = of(&events, "plan", "zhong")[0].clone();
    (calls, plan)
}

#[test]
fn a_good_json_plan_is_used() {
    let fake = server(|_| fake::chat(PLAN));
    let mut app = app_with(one_resident(&fake.url));
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let c = &calls[0];
    assert_eq!(
        (
            c["call"].as_str(),
            c["outcome"].as_str(),
            c["used"].as_str()
        ),
        (Some("plan"), Some("ok"), Some("llm"))
    );
    assert_eq!(c["format"], "json_schema");
    assert_eq!(
        (c["prompt_tokens"].as_u64(), c["estimated"].as_bool()),
        (Some(321), Some(false))
    );
    assert_eq!(plan["action"], "Serve breakfast at the tavern");
    assert_eq!(plan["target_location"], "tavern");
    assert_eq!(plan["duration"], 90);
    // The request carried the schema built from the town, and the persona.
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    let ids = &req.body["response_format"]["json_schema"]["schema"]["properties"]["target_location"]
        ["enum"];
    assert_eq!(ids.as_array().unwrap().len(), default_scenario().town.len());
    let prompt = req.prompt();
    assert!(
        prompt.contains("钟大川") && prompt.contains("[tavern]") && prompt.contains("22:00"),
        "{prompt}"
    );
    assert!(
        req.header("authorization").is_none(),
        "no key configured, no auth header"
    );
}

#[test]
fn json_in_code_fences_and_prose_is_read() {
    let fake = server(|req| {
        if req.n == 0 {
            fake::chat(&format!(
                "好的！这是我的计划：\n```json\n{PLAN}\n```\n希望可以。"
            ))
        } else {
            fake::chat(PLAN)
        }
    });
    let mut app = app_with(one_resident(&fake.url));
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(calls[0]["outcome"], "ok");
    assert_eq!(plan["target_location"], "tavern");
}

#[test]
fn invalid_json_gets_one_repair() {
    let fake = server(|req| {
        if req.n == 0 {
            fake::chat("I think I will go to the tavern and serve breakfast.")
        } else {
            fake::chat(PLAN)
        }
    });
    let mut app = app_with(one_resident(&fake.url));
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        (calls[0]["outcome"].as_str(), calls[0]["used"].as_str()),
        (Some("invalid"), Some("repair"))
    );
    assert!(calls[0]["reason"].as_str().unwrap().contains("no JSON"));
    assert_eq!(
        (calls[1]["call"].as_str(), calls[1]["used"].as_str()),
        (Some("repair"), Some("llm"))
    );
    assert_eq!(plan["target_location"], "tavern");
    // The repair prompt shows the model its answer and what was wrong.
    let repair = fake.requests()[1].prompt();
    assert!(
        repair.contains("I think I will go") && repair.contains("tavern"),
        "{repair}"
    );
}

#[test]
fn a_second_bad_answer_falls_back_to_the_builtin_brain() {
    let fake = server(|_| fake::chat("{ not json at all"));
    let mut app = app_with(one_resident(&fake.url));
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[1]["outcome"].as_str(), calls[1]["used"].as_str()),
        (Some("invalid"), Some("builtin"))
    );
    // The built-in brain's plan for the tavern keeper at dawn.
    assert_eq!(plan["target_location"], "tavern");
    assert!(!plan["action"].as_str().unwrap().is_empty());
}

#[test]
fn a_refused_response_format_falls_back_and_is_remembered() {
    let fake = server(|req| match req.format() {
        Some("json_schema") => {
            fake::status(400, vec![], "response_format json_schema is not supported")
        }
        _ => fake::chat(PLAN),
    });
    let mut settings = one_resident(&fake.url);
    settings.only = Some(vec!["zhong".into(), "shen".into()]);
    let mut app = app_with(settings);
    let events = run_until(&mut app, 600, |ev| {
        ev.iter()
            .filter(|e| e["kind"] == "llm_call" && e["call"] == "plan")
            .count()
            >= 4
    });
    let calls = of(&events, "llm_call", "zhong");
    assert_eq!(
        (calls[0]["outcome"].as_str(), calls[0]["format"].as_str()),
        (Some("ok"), Some("json_object"))
    );
    assert_eq!(of(&events, "plan", "zhong")[0]["target_location"], "tavern");
    // Both first calls went out together; after the refusal no call asks for json_schema again.
    let requests = fake.requests();
    let schema_asks = requests
        .iter()
        .filter(|r| r.format() == Some("json_schema"))
        .count();
    assert!(schema_asks <= 2, "{schema_asks}");
    let structured: Vec<&FakeRequest> = requests.iter().filter(|r| r.format().is_some()).collect();
    assert!(structured.len() > 4, "{}", structured.len());
    assert!(
        structured[structured.len() - 2..]
            .iter()
            .all(|r| r.format() == Some("json_object"))
    );
}

#[test]
fn a_plan_with_an_unreachable_place_is_repaired() {
    // Cut the mine off the map: the model asks for it anyway.
    let mut s = (*default_scenario()).clone();
    let mine = s.town.find("mine").unwrap();
    let mut locations = s.town.locations.clone();
    for l in &mut locations {
        l.neighbours.retain(|&n| n != mine);
    }
    locations[mine.i()].neighbours.clear();
    s.town = Town::new(s.town.name.clone(), s.town.map, locations);
    let fake = server(|req| {
        if req.n == 0 {
            fake::chat(&PLAN.replace("tavern", "mine"))
        } else {
            fake::chat(PLAN)
        }
    });
    let mut app = headless_app_with_llm(
        Arc::new(s),
        7,
        1,
        EventLog::in_memory(),
        Some(one_resident(&fake.url)),
    )
    .unwrap();
    let (calls, plan) = first_plan(&mut app);
    assert!(
        calls[0]["reason"]
            .as_str()
            .unwrap()
            .contains("cannot be reached"),
        "{calls:?}"
    );
    assert_eq!(calls[1]["used"], "llm");
    assert_eq!(plan["target_location"], "tavern");
}

#[test]
fn rate_limits_wait_for_retry_after() {
    let fake = server(|req| {
        if req.n == 0 {
            fake::status(429, vec![("retry-after".into(), "1".into())], "slow down")
        } else {
            fake::chat(PLAN)
        }
    });
    let started = Instant::now();
    let mut app = app_with(one_resident(&fake.url));
    let (calls, plan) = first_plan(&mut app);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 was honoured"
    );
    assert_eq!(
        (calls[0]["attempts"].as_u64(), calls[0]["used"].as_str()),
        (Some(2), Some("llm"))
    );
    assert_eq!(plan["target_location"], "tavern");
}

#[test]
fn server_errors_are_retried_with_backoff() {
    let fake = server(|req| {
        if req.n < 2 {
            fake::status(if req.n == 0 { 500 } else { 503 }, vec![], "overloaded")
        } else {
            fake::chat(PLAN)
        }
    });
    let mut settings = one_resident(&fake.url);
    settings.timeout = Duration::from_secs(20);
    let mut app = app_with(settings);
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(
        (calls[0]["attempts"].as_u64(), calls[0]["outcome"].as_str()),
        (Some(3), Some("ok"))
    );
    assert_eq!(plan["target_location"], "tavern");
}

#[test]
fn a_timeout_falls_back_without_freezing() {
    let fake = server(|_| FakeReply::Hang);
    let mut settings = one_resident(&fake.url);
    settings.timeout = Duration::from_millis(700);
    let mut app = app_with(settings);
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(
        (calls[0]["outcome"].as_str(), calls[0]["used"].as_str()),
        (Some("error"), Some("builtin"))
    );
    assert!(calls[0]["reason"].as_str().unwrap().contains("timed out"));
    assert_eq!(
        plan["target_location"], "tavern",
        "the built-in plan for a tavern keeper"
    );
}

#[test]
fn a_refused_connection_falls_back() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut settings = one_resident(&format!("http://127.0.0.1:{port}/v1"));
    settings.timeout = Duration::from_secs(5);
    let mut app = app_with(settings);
    let (calls, plan) = first_plan(&mut app);
    assert_eq!(calls[0]["outcome"], "error");
    assert!(
        calls[0]["reason"].as_str().unwrap().contains("connect"),
        "{calls:?}"
    );
    assert!(!plan["action"].as_str().unwrap().is_empty());
}

#[test]
fn repeated_failures_open_the_circuit_breaker() {
    let fake = server(|_| fake::status(400, vec![], "bad request"));
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.breaker_failures = 3;
    let mut app = app_with(settings);
    let events = run_until(&mut app, 200, |ev| {
        ev.iter()
            .any(|e| e["kind"] == "llm_call" && e["reason"] == "circuit_open")
    });
    let calls: Vec<&Value> = events.iter().filter(|e| e["kind"] == "llm_call").collect();
    let sent = calls.iter().filter(|c| c["outcome"] != "skipped").count();
    assert!(sent >= 3, "{sent}");
    // Refused formats are retried lower down before the 400 stands.
    assert!(
        fake.count() >= sent,
        "{} requests for {sent} calls",
        fake.count()
    );
    // Every resident still got a plan from the built-in brain.
    for id in ["zhong", "shen", "shisong"] {
        assert!(!of(&events, "plan", id).is_empty(), "{id}");
    }
}

#[test]
fn streamed_lines_are_spoken() {
    let fake = server(|req| {
        if req.body["stream"] == true {
            fake::stream("早啊！今天酒馆的豆浆特别香，要不要来一碗？")
        } else {
            fake::chat(PLAN)
        }
    });
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.stream_lines = true;
    let mut app = app_with(settings);
    let events = run_until(&mut app, 600, |ev| {
        ev.iter()
            .any(|e| e["kind"] == "llm_call" && e["call"] == "line" && e["used"] == "llm")
    });
    let line = events.iter().find(|e| {
        e["kind"] == "message" && e["text"] == "早啊！今天酒馆的豆浆特别香，要不要来一碗？"
    });
    assert!(line.is_some(), "the streamed line was spoken");
    let call = events
        .iter()
        .find(|e| e["kind"] == "llm_call" && e["call"] == "line")
        .unwrap();
    let chars = "早啊！今天酒馆的豆浆特别香，要不要来一碗？".chars().count();
    assert_eq!(
        call["completion_tokens"], chars,
        "usage from the stream's last chunk"
    );
}

#[test]
fn the_frame_loop_never_waits_for_hanging_requests() {
    let fake = server(|_| FakeReply::Hang);
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.only = Some(vec!["zhong".into(), "shen".into(), "shisong".into()]);
    settings.timeout = Duration::from_secs(3600);
    let mut app = app_with(settings);
    // Headless: the step waits for replies, but every update returns at once.
    let mut slowest = Duration::ZERO;
    for _ in 0..200 {
        let t = Instant::now();
        app.update();
        slowest = slowest.max(t.elapsed());
    }
    assert!(
        slowest < Duration::from_millis(250),
        "an update took {slowest:?}"
    );
    let steps = app.world().resource::<Clock>().steps;
    assert_eq!(steps, 1, "headless steps wait for the replies due");
    // In the window, time flows: the thinking residents stand still, everyone else goes on.
    app.insert_resource(StepMode::Realtime);
    app.world_mut().resource_mut::<SimSpeed>().multiplier = 300.0;
    let mut slowest = Duration::ZERO;
    for _ in 0..100 {
        let t = Instant::now();
        app.update();
        slowest = slowest.max(t.elapsed());
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        slowest < Duration::from_millis(250),
        "an update took {slowest:?}"
    );
    assert!(
        app.world().resource::<Clock>().steps > steps + 10,
        "the clock moved on"
    );
    let world = app.world_mut();
    let thinking: Vec<String> = world
        .query_filtered::<&Resident, With<Thinking>>()
        .iter(world)
        .map(|r| r.id.to_string())
        .collect();
    assert_eq!(thinking.len(), 3, "{thinking:?}");
    let log = world.resource::<EventLog>().text();
    let others_planned = ["adou", "xiaoxi", "heqing", "yue", "ma", "su"]
        .iter()
        .any(|id| log.contains(&format!(r#""kind":"plan","resident":"{id}""#)));
    assert!(others_planned, "residents on the built-in brain went on");
    assert!(!log.contains(r#""kind":"plan","resident":"zhong""#));
}

#[test]
fn record_then_replay_gives_the_same_log_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassette");
    let fake = FakeServer::start(fake::town_handler());
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.cassette = Some(CassetteMode::Record(cassette.clone()));
    let app = one_day(7, settings);
    let recorded = app.world().resource::<EventLog>().text().to_string();
    let calls = fake.count();
    drop(app);
    drop(fake); // replay needs no server
    assert!(calls > 50, "{calls} calls recorded");
    assert!(recorded.contains(r#""used":"llm""#));
    // Model calls and their accounting read back as they were written, too.
    for line in recorded.lines() {
        let event: heartvale::sim::event_log::SimEvent = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&event).unwrap(), line);
    }
    let mut settings = LlmSettings::for_endpoint("http://127.0.0.1:9/v1", "fake-model");
    settings.cassette = Some(CassetteMode::Replay(cassette.clone()));
    let app = one_day(7, settings);
    let replayed = app.world().resource::<EventLog>().text().to_string();
    assert_eq!(recorded.len(), replayed.len());
    assert!(recorded == replayed, "replay differs from the recording");
    // Another seed asks other questions: a clear failure, not a silent fallback.
    let mut settings = LlmSettings::for_endpoint("http://127.0.0.1:9/v1", "fake-model");
    settings.cassette = Some(CassetteMode::Replay(cassette));
    let app = one_day(8, settings);
    let failure = app
        .world()
        .resource::<heartvale::sim::outcome::SimFailure>()
        .0
        .clone();
    assert!(
        failure
            .as_deref()
            .unwrap_or("")
            .contains("no recorded answer"),
        "{failure:?}"
    );
    assert!(
        app.world()
            .resource::<EventLog>()
            .text()
            .contains(r#""reason":"failed""#)
    );
}

#[test]
fn the_default_town_on_an_llm_stays_within_budget_per_resident_and_prompt() {
    let fake = FakeServer::start(fake::town_handler());
    let settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    let app = one_day(7, settings);
    let brain = app.world().resource::<heartvale::llm::LlmBrain>();
    let residents = default_scenario().residents.len() as f64;
    let calls: u32 = brain
        .stats()
        .residents
        .iter()
        .map(|r| r.total_calls())
        .sum();
    let per_resident_day = calls as f64 / residents;
    assert!(
        per_resident_day <= 30.0,
        "{per_resident_day} calls per resident per day"
    );
    assert!(
        per_resident_day >= 5.0,
        "the LLM did the thinking: {per_resident_day}"
    );
    let median = brain.stats().median_prompt_tokens();
    eprintln!(
        "economy: {per_resident_day:.1} calls per resident per day, median prompt {median} tokens"
    );
    assert!(median <= 2000, "median prompt {median} tokens");
    // The log accounts every call: one llm_call per request the server saw.
    let log = events(&app);
    let logged = log
        .iter()
        .filter(|e| e["kind"] == "llm_call" && e["outcome"] != "skipped")
        .count();
    let abandoned = log
        .iter()
        .filter(|e| e["kind"] == "llm_call" && e["outcome"] == "abandoned")
        .count();
    // A call sent in the last step may or may not have reached the server
    // yet. (A date's calls, when the host thinks with the model, are its own.)
    let served = fake
        .requests()
        .iter()
        .filter(|r| {
            !r.body["response_format"]["json_schema"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("cupid_"))
        })
        .count();
    assert!(
        (logged - abandoned..=logged).contains(&served),
        "{logged} logged, {abandoned} abandoned, {served} served"
    );
    let usage: u64 = log
        .iter()
        .filter(|e| e["kind"] == "llm_usage")
        .map(|e| e["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(usage as usize, logged);
    assert!(
        log.iter()
            .any(|e| e["kind"] == "consolidate" && e["summary"].as_str().unwrap().contains("充实"))
    );
}

#[test]
fn a_daily_budget_caps_calls() {
    let fake = FakeServer::start(fake::town_handler());
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.max_calls_per_day = Some(20);
    let app = one_day(7, settings);
    assert_eq!(fake.count(), 20);
    let log = events(&app);
    assert!(
        log.iter()
            .any(|e| e["kind"] == "llm_call" && e["reason"] == "budget")
    );
}

#[test]
fn watched_residents_keep_the_llm_when_the_queue_is_long() {
    let slow = Arc::new(AtomicUsize::new(0));
    let s = slow.clone();
    let fake = server(move |req| {
        s.fetch_add(1, Ordering::SeqCst);
        FakeReply::Delay(
            Duration::from_millis(30),
            Box::new(fake::town_handler()(req)),
        )
    });
    let mut settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    settings.lod_queue = 1;
    let mut app = app_with(settings);
    app.world_mut()
        .resource_mut::<heartvale::llm::LlmFocus>()
        .watched = vec![heartvale::scenario::ResidentId::new("shisong")];
    let events = run_until(&mut app, 60, |ev| {
        ev.iter().filter(|e| e["kind"] == "plan").count() >= 3
    });
    let skipped: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "llm_call" && e["reason"] == "queue")
        .collect();
    assert!(
        !skipped.is_empty(),
        "with a queue of one, others use the built-in brain"
    );
    assert!(
        skipped.iter().all(|e| e["resident"] != "shisong"),
        "the watched resident is never shed"
    );
}

/// A short text request, streamed or not.
fn hi(stream: bool) -> heartvale::llm::client::ChatRequest {
    use heartvale::llm::client::{ChatRequest, Format, Message};
    ChatRequest {
        messages: vec![Message::user("hi")],
        temperature: 0.0,
        max_tokens: 10,
        seed: None,
        format: Format::Text,
        stream,
    }
}

#[test]
fn client_calls_embeddings_and_streams_directly() {
    use heartvale::llm::client::{Client, Endpoint, RetryPolicy};
    let fake = server(|req| {
        if req.path.ends_with("/embeddings") {
            fake::town_handler()(req)
        } else {
            fake::stream("你好，世界")
        }
    });
    let ep = Endpoint {
        base_url: fake.url.clone(),
        model: "m".into(),
        api_key: None,
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = Client::new(RetryPolicy::default());
    let v = rt
        .block_on(client.embeddings(&ep, &["a".into(), "b".into()], Duration::from_secs(5)))
        .unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[1][0], 1.0);
    let req = hi(true);
    let reply = rt
        .block_on(client.chat(&ep, &req, Duration::from_secs(5)))
        .unwrap();
    assert_eq!(reply.content, "你好，世界");
    assert_eq!(fake.requests()[1].body["stream"], json!(true));
}

/// A server that echoes what it was sent (the bearer key, the URL's
/// password) in its error body: the error the town logs and prints has them
/// blanked out, and the URL as printed has no user info.
#[test]
fn keys_and_passwords_echoed_by_a_server_are_redacted() {
    use heartvale::llm::client::{ApiKey, Client, Endpoint, RetryPolicy};
    let fake = server(|req| {
        let auth: Vec<String> = req
            .headers
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        FakeReply::Json {
            status: 401,
            headers: vec![],
            body: json!({ "error": format!("bad credentials: {}", auth.join(" ")) }),
        }
    });
    let with_password = fake.url.replacen("http://", "http://alice:hunter2pw@", 1);
    let ep = Endpoint {
        base_url: with_password,
        model: "m".into(),
        api_key: ApiKey::new("sk-live-0123456789"),
    };
    assert_eq!(ep.shown_url(), fake.url);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = Client::new(RetryPolicy::default());
    let req = hi(false);
    let err = rt
        .block_on(client.chat(&ep, &req, Duration::from_secs(5)))
        .unwrap_err()
        .to_string();
    let sent = &fake.requests()[0].headers;
    assert!(
        sent.iter().any(|(_, v)| v.contains("sk-live-0123456789")),
        "the key was sent: {sent:?}"
    );
    assert!(err.contains("bad credentials"), "{err}");
    assert!(!err.contains("sk-live-0123456789"), "{err}");
    assert!(!err.contains("hunter2pw"), "{err}");
}

/// `{field}`s left in a rendered prompt (a template asks for something the code does not fill).
fn unfilled(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let n = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(after.len());
        if n > 0 && after[n..].starts_with('}') {
            out.push(after[..n].to_string());
        }
        rest = after;
    }
    out
}

#[test]
fn every_prompt_renders_for_a_resident() {
    let inner = fake::town_handler();
    let fake = server(move |req| {
        if req.n == 0 {
            fake::chat("```\nnot a plan\n```")
        } else {
            inner(req)
        }
    });
    let settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    let _town = one_day(7, settings);
    let prompts: Vec<(String, String)> = fake
        .requests()
        .iter()
        .map(|r| {
            let kind = match r.prompt() {
                p if p.contains("你上一次的回答不能用") => "repair",
                p if p.contains("日记式总结") => "summary",
                p if p.contains("总结这段对话的要点") => "recap",
                p if p.contains("请生成一句开场白") => "line_open",
                p if p.contains("## 请回复") => "line_reply",
                p if p.contains("请决定下一步做什么") => "plan",
                // A date the host arranged that day: its host and avatars.
                p if p.contains("你是丘比特约会主持人") => "cupid_host",
                p if p.contains("正在和") && p.contains("进行一场约会") => "cupid_avatar",
                _ => "unknown",
            };
            (kind.to_string(), r.prompt())
        })
        .collect();
    for kind in [
        "plan",
        "repair",
        "line_open",
        "line_reply",
        "summary",
        "recap",
    ] {
        let (_, text) = prompts
            .iter()
            .find(|(k, _)| k == kind)
            .unwrap_or_else(|| panic!("no {kind} prompt was sent"));
        assert!(
            unfilled(text).is_empty(),
            "{kind}: {:?}\n{text}",
            unfilled(text)
        );
        eprintln!("===== {kind} =====\n{text}\n");
    }
    assert!(prompts.iter().all(|(k, _)| k != "unknown"));
    // Nothing said is left out, not shown as empty quotes (「刚才：Sleep「」」).
    for (kind, text) in &prompts {
        assert!(!text.contains("「」"), "{kind}: empty quotes\n{text}");
    }
    for (kind, text) in prompts.iter().filter(|(k, _)| k.starts_with("cupid")) {
        assert!(unfilled(text).is_empty(), "{kind}: {:?}", unfilled(text));
    }
    let plan = &prompts.iter().find(|(k, _)| k == "plan").unwrap().1;
    for part in [
        "全局规则",
        "22:00",
        "[square]",
        "公告板",
        "大五人格",
        "目标",
        "其他居民",
        "记得的事",
    ] {
        assert!(plan.contains(part), "plan prompt lacks {part}");
    }
}

#[test]
fn a_reply_for_a_resident_that_is_gone_is_dropped() {
    let fake = server(|_| FakeReply::Delay(Duration::from_millis(200), Box::new(fake::chat(PLAN))));
    let mut app = app_with(one_resident(&fake.url));
    // First step: 钟大川 asks; then he leaves town before the answer comes.
    while fake.count() == 0 {
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    let zhong = app
        .world()
        .resource::<heartvale::sim::residents::Roster>()
        .entities()[0];
    app.world_mut().entity_mut(zhong).remove::<Thinking>();
    let events = run_until(&mut app, 50, |ev| !of(ev, "llm_call", "zhong").is_empty());
    let call = of(&events, "llm_call", "zhong")[0];
    assert_eq!(
        (call["outcome"].as_str(), call["used"].as_str()),
        (Some("ok"), Some("dropped"))
    );
    assert!(
        of(&events, "plan", "zhong").is_empty(),
        "a superseded answer is not carried out"
    );
    app.world_mut().despawn(zhong);
    for _ in 0..30 {
        app.update();
    }
}

/// The default town for a day, every resident on the fake server's town answers.
fn town_on_fake_server() -> (FakeServer, App) {
    let inner = fake::town_handler();
    let fake = server(move |req| inner(req));
    let settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
    let app = headless_app_with_llm(
        default_scenario(),
        7,
        1,
        EventLog::in_memory(),
        Some(settings),
    )
    .expect("the LLM brain starts");
    (fake, app)
}

#[test]
fn conversation_memories_are_rewritten_in_the_residents_own_words() {
    let (_fake, mut app) = town_on_fake_server();
    // Until the first recap is used, before the night folds memories into a summary.
    let events = run_until(&mut app, 2000, |ev| {
        ev.iter()
            .any(|e| e["kind"] == "llm_call" && e["call"] == "recap" && e["used"] == "llm")
    });
    let call = events
        .iter()
        .find(|e| e["kind"] == "llm_call" && e["call"] == "recap" && e["used"] == "llm")
        .unwrap();
    let who = call["resident"].as_str().unwrap();
    let w = app.world();
    let e = w
        .resource::<heartvale::sim::residents::Roster>()
        .entity(&heartvale::scenario::ResidentId::new(who))
        .unwrap();
    let memories = w.get::<heartvale::sim::memory::Memories>(e).unwrap();
    let rewritten = memories
        .entries()
        .iter()
        .filter(|m| m.kind == heartvale::sim::memory::MemoryKind::Dialogue)
        .any(|m| &*m.text == "聊得很开心，约好改天一起去酒馆坐坐。");
    assert!(
        rewritten,
        "{who}'s memory keeps the model's words, quotes trimmed"
    );
}

#[test]
fn a_models_emotion_tag_labels_its_line() {
    let (_fake, mut app) = town_on_fake_server();
    const LINE: &str = "说得对，改天一起去酒馆坐坐吧，我请客。";
    let events = run_until(&mut app, 2000, |ev| {
        ev.iter()
            .any(|e| e["kind"] == "message" && e["text"] == LINE)
    });
    let m = events
        .iter()
        .find(|e| e["kind"] == "message" && e["text"] == LINE)
        .unwrap();
    // The keywords would say neutral; the model's 【开心】 says happy, and is not spoken.
    assert_eq!(m["emotion"], "happy", "{m}");
    assert!(
        events
            .iter()
            .filter(|e| e["kind"] == "message")
            .all(|e| !e["text"].as_str().unwrap().contains('【'))
    );
}

/// Every call logs its prompt's tokens per layer; a tight budget cuts the
/// retrieved memories first, then the oldest dialogue, never persona or stage.
#[test]
fn prompts_are_built_from_budgeted_layers() {
    let fake = FakeServer::start(fake::town_handler());
    let run = |total: usize| {
        let mut scenario = (*default_scenario()).clone();
        scenario.tuning.prompt.total = total;
        let settings = LlmSettings::for_endpoint(&fake.url, "fake-model");
        let mut app = headless_app_with_llm(
            Arc::new(scenario),
            7,
            1,
            EventLog::in_memory(),
            Some(settings),
        )
        .expect("the LLM brain starts");
        run_to_end(&mut app, 3000);
        events(&app)
            .into_iter()
            .filter(|e| e["kind"] == "llm_call" && e["outcome"] != "skipped")
            .collect::<Vec<Value>>()
    };
    let layer = |e: &Value, name: &str| e["layers"][name].as_u64().unwrap_or(0);
    let roomy = run(12_000);
    assert!(roomy.len() > 50, "{} calls", roomy.len());
    for e in &roomy {
        assert!(e["layers"].is_object(), "{e}");
        assert!(layer(e, "persona") > 0 && layer(e, "stage") > 0, "{e}");
        assert_eq!(layer(e, "cut"), 0, "nothing cut with room to spare: {e}");
    }
    let plans = |calls: &[Value]| -> Vec<Value> {
        calls
            .iter()
            .filter(|e| e["call"] == "plan")
            .cloned()
            .collect()
    };
    assert!(plans(&roomy).iter().any(|e| layer(e, "retrieved") > 0));
    assert!(
        roomy
            .iter()
            .any(|e| e["call"] == "line" && layer(e, "dialogue") > 0)
    );
    // 90 tokens: a line's persona, stage and listener fit, its memories do not.
    let tight = run(90);
    let cut: Vec<&Value> = tight.iter().filter(|e| layer(e, "cut") > 0).collect();
    assert!(!cut.is_empty(), "a tight budget cuts");
    for e in &tight {
        let sum: u64 = [
            "persona",
            "stage",
            "profile",
            "key_moments",
            "dialogue",
            "retrieved",
        ]
        .iter()
        .map(|l| layer(e, l))
        .sum();
        let kept = layer(e, "persona") + layer(e, "stage");
        assert!(sum <= 90 || sum == kept + layer(e, "profile"), "{e}");
    }
    // Lines that had to shed something kept their dialogue and lost memories.
    assert!(
        cut.iter()
            .any(|e| e["call"] == "line" && layer(e, "retrieved") == 0 && layer(e, "dialogue") > 0),
        "retrieved history goes before dialogue"
    );
    assert!(plans(&tight).iter().all(|e| layer(e, "persona") > 0));
}

/// A model that plays every resident and breaks the world's rules: it eats
/// at the old mine, works in other people's homes, sleeps at the tavern,
/// never eats otherwise and never posts a notice. The town keeps the rules
/// whatever it writes: every meal, shift and night where it can happen, no
/// one starving at the end of the day, the party's notice up on day 1 — and
/// every plan sent back says why in the log.
#[test]
fn a_model_that_breaks_the_world_s_rules_is_held_to_them() {
    const BAD: [&str; 4] = [
        r#"{"action":"Eat lunch at the old mine","target_location":"mine","dialogue":"在矿洞里吃饭。","emoji":"🍚","duration":60,"activity":"eat"}"#,
        r#"{"action":"Work at the Lin house","target_location":"home_lin","dialogue":"去林家干活。","emoji":"🔨","duration":120,"activity":"work"}"#,
        r#"{"action":"Sleep at the tavern","target_location":"tavern","dialogue":"在酒馆睡一觉。","emoji":"😴","duration":120,"activity":"sleep"}"#,
        r#"{"action":"Hang out at the square","target_location":"square","dialogue":"去广场转转。","emoji":"🙂","duration":120,"activity":"socialise"}"#,
    ];
    let n = Arc::new(AtomicUsize::new(0));
    let seen = n.clone();
    let server = server(move |req| {
        let prompt = req.prompt();
        let content = if req.format().is_some() || prompt.contains("\"target_location\"") {
            BAD[seen.fetch_add(1, Ordering::SeqCst) % BAD.len()].to_string()
        } else {
            "今天天气真不错，你最近在忙些什么呢？".to_string()
        };
        fake::chat_with_usage(&content, 100, 20)
    });
    let mut settings = LlmSettings::for_endpoint(&server.url, "rule-breaker");
    settings.timeout = Duration::from_secs(10);
    let mut app = one_day(7, settings);
    let ev = events(&app);
    let town = app.world().resource::<Town>().clone();
    let scenario = default_scenario();
    let profile = |id: &str| {
        scenario
            .residents
            .iter()
            .find(|p| p.id.as_str() == id)
            .unwrap()
            .clone()
    };
    let plans: Vec<&Value> = ev.iter().filter(|e| e["kind"] == "plan").collect();
    // A whole day planned. How many plans depends on which bad answer each
    // call drew, so on the order the calls reached the server: 100–113 seen.
    assert!(plans.len() >= 80, "{} plans", plans.len());
    for p in &plans {
        let me = profile(p["resident"].as_str().unwrap());
        let target = town.find(p["target_location"].as_str().unwrap()).unwrap();
        match p["activity"].as_str().unwrap() {
            "eat" => assert!(
                town.get(target).has(heartvale::scenario::Service::Food),
                "{p}"
            ),
            "work" => assert_eq!(Some(target), me.work.as_ref().map(|w| w.place), "{p}"),
            "sleep" => assert_eq!(target, me.home, "{p}"),
            _ => {}
        }
    }
    // Every broken plan was sent back (or replaced) with the rule it broke.
    let told = ev
        .iter()
        .filter(|e| {
            e["kind"] == "llm_call"
                && e["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("吃") || r.contains("上班") || r.contains("睡觉"))
        })
        .count();
    assert!(told > 10, "{told} calls sent back with a rule");
    let notice = ev
        .iter()
        .find(|e| e["kind"] == "notice")
        .expect("the party's notice went up");
    assert!(
        notice["time"].as_str().unwrap().starts_with("2026-04-06"),
        "{notice}"
    );
    let mut q = app
        .world_mut()
        .query::<(&Resident, &heartvale::sim::residents::Needs)>();
    for (r, needs) in q.iter(app.world()) {
        let mine: Vec<String> = plans
            .iter()
            .filter(|p| p["resident"] == r.id.as_str())
            .map(|p| {
                format!(
                    "{} {} {} {}",
                    p["time"], p["activity"], p["target_location"], p["duration"]
                )
            })
            .collect();
        assert!(
            needs.hunger() > 0.0,
            "{} ends the day starving: {mine:#?}",
            r.id
        );
    }
}

/// The log without what differs from server to server: the latencies and
/// the server's address.
fn without_latencies(log: &str) -> Vec<Value> {
    log.lines()
        .map(|l| {
            let mut e: Value = serde_json::from_str(l).unwrap();
            let fields = e.as_object_mut().unwrap();
            for k in [
                "latency_ms",
                "latency_p50_ms",
                "latency_p90_ms",
                "latency_p99_ms",
                "endpoint",
            ] {
                fields.remove(k);
            }
            e
        })
        .collect()
}

/// A resident's next plan is asked for while its action goes on and used when
/// it ends; when an answer is used never depends on when it came: a server
/// that answers at once and one that takes 0–40 ms, varying call by call, give
/// the same day.
#[test]
fn plans_asked_ahead_give_the_same_day_whatever_the_servers_speed() {
    let quick = FakeServer::start(fake::town_handler());
    let answer = fake::town_handler();
    let n = AtomicUsize::new(0);
    let slow = server(move |req| {
        let k = n.fetch_add(1, Ordering::SeqCst) as u64;
        FakeReply::Delay(Duration::from_millis(k * 17 % 41), Box::new(answer(req)))
    });
    let day = |url: &str| {
        let app = one_day(7, LlmSettings::for_endpoint(url, "fake-model"));
        let log = app.world().resource::<EventLog>().text().to_string();
        // The summary's count of plans asked ahead is the log's.
        let ahead = app
            .world()
            .resource::<heartvale::llm::LlmBrain>()
            .stats()
            .ahead;
        let logged = |needle: &str| {
            log.lines()
                .filter(|l| {
                    l.contains(r#""early":true"#) && !l.contains(r#""outcome":"abandoned""#)
                })
                .filter(|l| l.contains(needle))
                .count()
        };
        assert_eq!(ahead.finished as usize, logged(""));
        assert_eq!(ahead.stale as usize, logged(r#""reason":"stale""#));
        log
    };
    let (at_once, varying) = (day(&quick.url), day(&slow.url));
    let used_ahead = at_once
        .lines()
        .filter(|l| l.contains(r#""early":true"#) && l.contains(r#""used":"llm""#))
        .count();
    let plans = at_once
        .lines()
        .filter(|l| l.contains(r#""kind":"plan""#))
        .count();
    assert!(
        used_ahead * 3 >= plans,
        "{used_ahead} of {plans} plans were asked ahead and used"
    );
    assert!(
        without_latencies(&at_once) == without_latencies(&varying),
        "the day depends on the server's speed"
    );
}
