//! One game day against a real local model (llama.cpp's server with
//! SmolLM2-135M-Instruct, started by `scripts/local-llm.sh`). Ignored by default:
//!
//!     scripts/local-llm.sh --background
//!     cargo test --test local_llm -- --ignored --nocapture
//!
//! A 135M model writes broken JSON and echoes its prompt: that is the point. The
//! run must finish, every plan must be valid (after repair or fallback), some
//! plans and lines must come from the model, and the log must account every call.

use std::time::Duration;

use serde_json::Value;

use heartvale::headless::{default_scenario, headless_app_with_llm, run_to_end};
use heartvale::llm::LlmSettings;
use heartvale::sim::event_log::EventLog;

#[test]
#[ignore = "needs scripts/local-llm.sh running (6–17 minutes on 2 cores)"]
fn one_day_against_a_real_local_model() {
    let url = std::env::var("HEARTVALE_LOCAL_LLM_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8089/v1".into());
    let mut settings = LlmSettings::for_endpoint(&url, "smollm2-135m");
    // Two slots on the server, two cores: keep the queue short and the day affordable.
    settings.concurrency = 2;
    settings.timeout = Duration::from_secs(180);
    settings.max_calls_per_day = Some(40);
    let scenario = default_scenario();
    let mut app = headless_app_with_llm(
        scenario.clone(),
        7,
        1,
        EventLog::in_memory(),
        Some(settings),
    )
    .expect("the LLM brain starts");
    run_to_end(&mut app, 3000);
    let log: Vec<Value> = app
        .world()
        .resource::<EventLog>()
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |kind: &'static str| log.iter().filter(move |e| e["kind"] == kind);
    assert!(of("end").count() == 1, "the run finished");
    // Every plan carried out is valid for the town.
    let d = &scenario.tuning.durations;
    for p in of("plan") {
        let place = p["target_location"].as_str().unwrap();
        assert!(scenario.town.find(place).is_some(), "{p}");
        let minutes = p["duration"].as_u64().unwrap() as u32;
        assert!((d.min..=d.max).contains(&minutes), "{p}");
    }
    let calls: Vec<&Value> = of("llm_call").collect();
    let from_model = |call: &str| {
        calls
            .iter()
            .filter(|c| {
                c["used"] == "llm"
                    && (c["call"] == call || (call == "plan" && c["call"] == "repair"))
            })
            .count()
    };
    let (plans, lines) = (from_model("plan"), from_model("line"));
    eprintln!(
        "{} calls; plans from the model: {plans}; lines: {lines}",
        calls.len()
    );
    for c in calls.iter().filter(|c| c["outcome"] != "skipped").take(60) {
        eprintln!("{}", c);
    }
    assert!(plans > 0, "some plans came from the model");
    assert!(lines > 0, "some lines came from the model");
    // The log accounts every call: per-day usage sums to the calls logged.
    let sent = calls.iter().filter(|c| c["outcome"] != "skipped").count() as u64;
    let usage: u64 = of("llm_usage").map(|u| u["calls"].as_u64().unwrap()).sum();
    assert_eq!(usage, sent);
    for u in of("llm_usage") {
        assert!(
            u["calls"].as_u64().unwrap() <= 40,
            "the daily budget held: {u}"
        );
    }
}
