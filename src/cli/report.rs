//! What `heartvale sim` prints: the LLM setup, the first failed call, the
//! per-resident summary and the LLM accounting.

use std::time::Duration;

use bevy::prelude::World;
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};

use crate::llm::LlmBrain;
use crate::llm::accounting::ResidentUsage;
use crate::llm::cassette::CassetteMode;
use crate::llm::embed::town::TownEmbeddings;
use crate::sim::clock::Clock;
use crate::sim::event_log::EventLog;
use crate::sim::outcome::SimOutcome;
use crate::sim::residents::{Needs, Persona, Resident, Roster, RosterIdx, Tally};

/// Residents shown in the summary table (a big town's rest is counted).
const SHOWN: usize = 50;

/// Who thinks with which model, and how (none without an LLM).
pub(super) fn llm_line(world: &World, residents: usize) -> Option<String> {
    let brain = world.get_resource::<LlmBrain>()?;
    let ep = brain.endpoints().first();
    let settings = brain.settings();
    let cassette = match &settings.cassette {
        Some(CassetteMode::Record(d)) => format!(", recording to {}", d.display()),
        Some(CassetteMode::Replay(d)) => format!(", replaying {}", d.display()),
        None => String::new(),
    };
    Some(format!(
        "LLM: {} of {residents} residents on {} ({}), timeout {:?}, {} in flight per server at most{cassette}",
        brain.routed(),
        ep.map_or("-".into(), |e| e.shown()),
        ep.map_or("-", |e| e.model()),
        settings.timeout,
        settings.concurrency,
    ))
}

/// The first failed LLM call, as a warning for the user (once per run; the run
/// goes on with the built-in brain).
pub(super) fn first_llm_failure(world: &mut World, warned: &mut bool) -> Option<String> {
    let failures = world.get_resource_mut::<LlmBrain>()?.take_failures();
    let first = first_unwarned(failures, warned)?;
    Some(format!(
        "warning: LLM call failed: {first}\n         residents fall back to the built-in brain when a call fails; every call is an `llm_call` event in the log"
    ))
}

/// The first failed embeddings request, as a warning (once per run; recall
/// goes on by words).
pub(super) fn first_embed_failure(world: &mut World, warned: &mut bool) -> Option<String> {
    let failures = world.get_resource_mut::<TownEmbeddings>()?.take_failures();
    let first = first_unwarned(failures, warned)?;
    Some(format!(
        "warning: {first}\n         memories without a vector are recalled by their words until the next try"
    ))
}

/// The first of `failures`, unless the user was warned already.
fn first_unwarned(failures: Vec<String>, warned: &mut bool) -> Option<String> {
    if *warned {
        return None;
    }
    let first = failures.into_iter().next()?;
    *warned = true;
    Some(first)
}

/// The end-of-run summary: a row per resident, the run in a line, and the
/// LLM accounting when residents thought with a model.
pub(super) fn summary(world: &mut World, name: &str, seed: u64, wall: Duration) -> String {
    let clock = world.resource::<Clock>().clone();
    let outcome = world.resource::<SimOutcome>().0;
    let lines = world.resource::<EventLog>().lines;
    let mut rows: Vec<(RosterIdx, Vec<String>)> = world
        .query::<(&Resident, &Persona, &Tally, &Needs)>()
        .iter(world)
        .map(|(r, p, t, n)| (r.idx, resident_row(r, p, t, n)))
        .collect();
    rows.sort_by_key(|r| r.0);
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "id",
        "name",
        "plans",
        "conversations",
        "notices",
        "nights",
        "energy",
        "hunger",
        "social",
        "fun",
    ]);
    for (_, row) in rows.iter().take(SHOWN) {
        table.add_row(row.clone());
    }
    let mut out = format!("{table}\n");
    if rows.len() > SHOWN {
        out.push_str(&format!("… and {} more residents\n", rows.len() - SHOWN));
    }
    out.push_str(&format!(
        "{name}: {} steps to {} ({:?}), {lines} events, {:.2}s wall, seed {seed}",
        clock.steps,
        clock.now,
        outcome.map(|o| format!("{o:?}")).unwrap_or_default(),
        wall.as_secs_f64(),
    ));
    out.push_str(&spread_lines(world));
    if let Some(brain) = world.get_resource::<LlmBrain>() {
        out.push('\n');
        out.push_str(&llm_table(world, brain, wall));
    }
    if let Some(e) = world.get_resource::<TownEmbeddings>() {
        let u = e.usage();
        out.push_str(&format!(
            "\nembeddings ({}): {} requests, {} texts, {} failed",
            e.passage_model(),
            u.calls,
            u.texts,
            u.failed
        ));
    }
    out
}

/// Gatherings and events a run's word spread about shown at most (a big
/// town's are counted).
const SPREAD_SHOWN: usize = 12;
/// Tellings listed per fact at most.
const TOLD_SHOWN: usize = 8;

/// How far the notable facts spread: for each, who knew by each day, how
/// they came to know, and who told whom.
fn spread_lines(world: &mut World) -> String {
    use crate::sim::knowledge::spread::{source_zh, spread};
    use crate::sim::knowledge::{FactWords, Knowledge};
    let people: Vec<(RosterIdx, Knowledge)> = world
        .query::<(&Resident, &Knowledge)>()
        .iter(world)
        .map(|(r, k)| (r.idx, k.clone()))
        .collect();
    let roster = world.resource::<Roster>();
    let scenario = &world.resource::<crate::sim::LoadedScenario>().0;
    let words = FactWords {
        roster,
        town: world.resource::<crate::scenario::Town>(),
        gatherings: &world.resource::<crate::sim::town::Gatherings>().0,
        residents: &scenario.residents,
    };
    let refs: Vec<(RosterIdx, &Knowledge)> = people.iter().map(|(i, k)| (*i, k)).collect();
    let now = world.resource::<Clock>().now;
    let all = spread(&refs, &words, scenario.start, now);
    if all.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n消息传开：");
    for s in all.iter().take(SPREAD_SHOWN) {
        let days: Vec<String> = s
            .by_day
            .iter()
            .enumerate()
            .map(|(d, n)| format!("第{}天 {n} 人", d + 1))
            .collect();
        let how: Vec<String> = s
            .sources
            .iter()
            .map(|(k, n)| format!("{} {n}", source_zh(k)))
            .collect();
        out.push_str(&format!(
            "\n- {}：{}（{}）",
            s.what,
            days.join("，"),
            how.join("、")
        ));
        if !s.told.is_empty() {
            let chain: Vec<String> = s
                .told
                .iter()
                .take(TOLD_SHOWN)
                .map(|&(a, b)| format!("{}→{}", roster.name_of(a), roster.name_of(b)))
                .collect();
            let more = s.told.len().saturating_sub(TOLD_SHOWN);
            let more = if more > 0 {
                format!(" 等 {more} 次")
            } else {
                String::new()
            };
            out.push_str(&format!("；经 {}{more}", chain.join("、")));
        }
    }
    if all.len() > SPREAD_SHOWN {
        out.push_str(&format!("\n- …… 还有 {} 件", all.len() - SPREAD_SHOWN));
    }
    out
}

fn resident_row(r: &Resident, p: &Persona, t: &Tally, n: &Needs) -> Vec<String> {
    vec![
        r.id.to_string(),
        p.name.clone(),
        t.plans.to_string(),
        t.conversations.to_string(),
        t.notices.to_string(),
        t.nights.to_string(),
        format!("{:.0}", n.energy),
        format!("{:.0}", n.hunger),
        format!("{:.0}", n.social),
        format!("{:.0}", n.fun),
    ]
}

/// The end-of-run LLM accounting: per resident, then totals and latency percentiles.
fn llm_table(world: &World, brain: &LlmBrain, wall: Duration) -> String {
    let roster = world.resource::<Roster>();
    let stats = brain.stats();
    let days = stats.days.max(1);
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "LLM",
        "calls",
        "plan",
        "repair",
        "line",
        "summary",
        "recap",
        "calls/day",
        "prompt tok",
        "completion tok",
        "used plans",
        "used lines",
        "fallbacks",
        "skipped",
    ]);
    let mut total = ResidentUsage::default();
    for (i, u) in stats.residents.iter().enumerate() {
        if u.total_calls() + u.skipped == 0 {
            continue;
        }
        let mut row = vec![roster.names()[i].clone(), u.total_calls().to_string()];
        row.extend(u.calls.iter().map(u32::to_string));
        row.extend([
            format!("{:.1}", u.total_calls() as f64 / days as f64),
            u.prompt_tokens.to_string(),
            u.completion_tokens.to_string(),
            u.llm_plans.to_string(),
            u.llm_lines.to_string(),
            u.fallbacks.to_string(),
            u.skipped.to_string(),
        ]);
        table.add_row(row);
        total.add(u);
    }
    let (p50, p90, p99) = stats.latency_percentiles();
    let routed = brain.routed().max(1) as f64;
    format!(
        "{table}\nLLM total: {} calls over {} game day(s) = {:.1} per resident per day; {} prompt + {} completion tokens; median prompt {} tokens; latency p50 {} ms, p90 {} ms, p99 {} ms; {} fallbacks, {} skipped",
        total.total_calls(),
        days,
        total.total_calls() as f64 / days as f64 / routed,
        total.prompt_tokens,
        total.completion_tokens,
        stats.median_prompt_tokens(),
        p50,
        p90,
        p99,
        total.fallbacks,
        total.skipped
    ) + &overlap_line(stats.summed_latency(), wall, brain)
        + &member_table(stats)
}

/// How far the calls overlapped: their summed latency over the run's wall
/// time (1× when they went one after another; up to the pools' concurrency).
fn overlap_line(summed: Duration, wall: Duration, brain: &LlmBrain) -> String {
    let replayed = matches!(brain.settings().cassette, Some(CassetteMode::Replay(_)));
    let ratio = summed.as_secs_f64() / wall.as_secs_f64().max(1e-3);
    let note = if replayed {
        " (recorded latencies: the replay itself waits for no server)"
    } else {
        ""
    };
    let ahead = brain.stats().ahead;
    format!(
        "\nLLM overlap: {ratio:.1}× ({:.1} s of calls in {:.1} s wall){note}; {} plan calls asked ahead, {} of them dropped as stale",
        summed.as_secs_f64(),
        wall.as_secs_f64(),
        ahead.finished,
        ahead.stale
    )
}

/// Requests per server (a pool's members; failovers counted where they went).
fn member_table(stats: &crate::llm::accounting::LlmStats) -> String {
    if stats.members.is_empty() {
        return String::new();
    }
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "server", "requests", "failed", "p50 ms", "p90 ms", "p99 ms",
    ]);
    for (url, m) in &stats.members {
        let (p50, p90, p99) = m.latency_percentiles();
        table.add_row(vec![
            url.clone(),
            m.calls.to_string(),
            m.failures.to_string(),
            p50.to_string(),
            p90.to_string(),
            p99.to_string(),
        ]);
    }
    format!("\n{table}")
}
