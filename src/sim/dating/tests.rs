use bevy::prelude::*;

use super::{Cupid, DateRequests, TownDates};
use crate::headless::{default_scenario, headless_app};
use crate::scenario::ResidentId;
use crate::sim::clock::Clock;
use crate::sim::event_log::{DateOutcome, EventBody, EventLog};
use crate::sim::memory::Memories;
use crate::sim::residents::{Relationships, Roster};

fn id(s: &str) -> ResidentId {
    ResidentId::new(s)
}

#[test]
fn the_tavern_keeper_hosts_at_the_tavern() {
    let app = headless_app(default_scenario(), 7, 1, EventLog::in_memory());
    let cupid = app.world().resource::<Cupid>();
    let (host, place) = cupid.host.expect("心谷镇 has a host");
    let roster = app.world().resource::<Roster>();
    assert_eq!(roster.id_of(host).as_str(), "zhong");
    let town = app.world().resource::<crate::scenario::Town>();
    assert_eq!(town.id(place).as_str(), "tavern");
}

/// A town app with a date between 何青 and 石松 asked for at the start.
fn app_with_request(seed: u64) -> App {
    let mut app = headless_app(default_scenario(), seed, 1, EventLog::in_memory());
    app.world_mut()
        .resource_mut::<DateRequests>()
        .0
        .push((id("heqing"), id("shisong")));
    app
}

fn lines_of(app: &App, kind: &str) -> Vec<String> {
    let tag = format!("\"kind\":\"{kind}\"");
    app.world()
        .resource::<EventLog>()
        .text()
        .lines()
        .filter(|l| l.contains(&tag))
        .map(str::to_owned)
        .collect()
}

fn run_steps(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

#[test]
fn a_requested_date_is_played_and_changes_the_tie_and_memories() {
    let mut app = app_with_request(3);
    let before = tie(&app, "heqing", "shisong");
    // Until the date is over (its memories are checked before a night consolidates them).
    while app.world().resource::<TownDates>().last.is_none() {
        app.update();
        assert!(
            app.world().resource::<Clock>().now.minute_of_day() < 23 * 60,
            "the date ended"
        );
    }
    let starts = lines_of(&app, "date_start");
    assert_eq!(starts.len(), 1, "one date: {starts:?}");
    assert!(
        starts[0].contains("\"host\":\"zhong\"") && starts[0].contains("\"location\":\"tavern\"")
    );
    let rounds = lines_of(&app, "date_round");
    let ends = lines_of(&app, "date_end");
    assert_eq!(ends.len(), 1, "{ends:?}");
    let end: serde_json::Value = serde_json::from_str(&ends[0]).unwrap();
    assert_eq!(end["rounds"].as_u64().unwrap() as usize, rounds.len());
    assert!(!rounds.is_empty());
    let score = end["score"].as_i64().unwrap();
    assert!((0..=50).contains(&score));
    let after = tie(&app, "heqing", "shisong");
    if score != 25 {
        assert_ne!(before, after, "a date that moved the score moves the tie");
    }
    assert_eq!(end["changes"].as_array().unwrap().len(), 2);
    for who in ["heqing", "shisong"] {
        let e = app.world().resource::<Roster>().entity(&id(who)).unwrap();
        let m = app.world().get::<Memories>(e).unwrap();
        assert!(
            m.entries()
                .iter()
                .any(|m| m.importance == 90 && m.text.contains("约会")),
            "{who} keeps the date as a key memory"
        );
    }
    // Both went to the tavern for it.
    let plans = lines_of(&app, "plan");
    assert!(
        plans
            .iter()
            .any(|l| l.contains("for a date at tavern") && l.contains("\"resident\":\"heqing\""))
    );
}

fn tie(app: &App, a: &str, b: &str) -> f32 {
    let roster = app.world().resource::<Roster>();
    let e = roster.entity(&id(a)).unwrap();
    app.world()
        .get::<Relationships>(e)
        .unwrap()
        .strength(&id(b))
}

#[test]
fn a_date_saved_midway_goes_on_the_same_after_a_load() {
    let mut a = app_with_request(11);
    while a
        .world()
        .resource::<TownDates>()
        .active
        .first()
        .is_none_or(|d| d.steps < 9)
    {
        a.update();
        assert!(
            a.world().resource::<Clock>().now.minute_of_day() < 23 * 60,
            "the date began"
        );
    }
    let snap = crate::save::take(a.world_mut());
    let mut b = headless_app(default_scenario(), 11, 1, EventLog::in_memory());
    crate::save::restore(b.world_mut(), snap).unwrap();
    a.world_mut().resource_mut::<EventLog>().clear_memory();
    run_steps(&mut a, 200);
    run_steps(&mut b, 200);
    for kind in ["date_round", "date_end", "relationship_change"] {
        assert_eq!(lines_of(&a, kind), lines_of(&b, kind), "{kind}");
    }
    assert!(
        !lines_of(&a, "date_end").is_empty(),
        "the date ended within 200 steps"
    );
}

#[test]
fn nobody_dates_the_host_or_themselves_or_two_at_once() {
    let mut app = headless_app(default_scenario(), 5, 1, EventLog::in_memory());
    app.world_mut().resource_mut::<DateRequests>().0.extend([
        (id("zhong"), id("adou")),
        (id("heqing"), id("heqing")),
        (id("nobody"), id("heqing")),
        (id("heqing"), id("shisong")),
        (id("heqing"), id("su")),
    ]);
    app.update();
    let dates = app.world().resource::<TownDates>();
    assert_eq!(dates.active.len(), 1);
    let roster = app.world().resource::<Roster>();
    let pair: Vec<&str> = dates.active[0]
        .pair
        .iter()
        .map(|&i| roster.id_of(i).as_str())
        .collect();
    assert_eq!(pair, ["heqing", "shisong"]);
}

#[test]
fn the_host_pairs_residents_of_its_own_accord_over_a_week() {
    let mut app = headless_app(default_scenario(), 1, 7, EventLog::in_memory());
    crate::headless::run_to_end(&mut app, 1_000_000);
    let starts = lines_of(&app, "date_start");
    assert!(!starts.is_empty(), "a week of evenings brings a date");
    assert!(starts.iter().all(|l| l.contains("\"requested\":false")));
    let ends = lines_of(&app, "date_end");
    assert!(ends.len() >= starts.len().saturating_sub(1));
    let _ = DateOutcome::StoodUp;
    let _ = EventBody::DateStart;
}

#[test]
fn the_host_pairs_two_who_came_to_a_gathering_it_goes_to() {
    // 心谷联谊会, day 3 on the square, 18:00–21:00, organised by the host.
    let mut app = headless_app(default_scenario(), 1, 3, EventLog::in_memory());
    crate::headless::run_to_end(&mut app, 1_000_000);
    let square: Vec<String> = lines_of(&app, "date_start")
        .into_iter()
        .filter(|l| l.contains("\"location\":\"square\""))
        .collect();
    let seen = &app.world().resource::<TownDates>().gatherings_seen;
    assert_eq!(seen.len(), 1, "the host looked around at its gathering");
    // Whether it books is a roll of the pair's plausibility; when it does,
    // the date is held where the gathering is.
    for l in &square {
        assert!(l.contains("\"requested\":false"));
    }
}
