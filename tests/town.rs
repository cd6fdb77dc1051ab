//! The default town, run headless for 3 days with fixed seeds: the behaviour the
//! foundation issue promises, checked from the event log and from the world.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use heartvale::base::time::GameTime;
use heartvale::headless::{default_scenario, headless_app};
use heartvale::scenario::{Scenario, Service, Town};
use heartvale::sim::clock::Clock;
use heartvale::sim::event_log::EventLog;
use heartvale::sim::residents::{Persona, Resident, Walking, Whereabouts};
use serde_json::Value;

/// What the test samples from the world at every step.
#[derive(Default)]
struct Samples {
    /// Per resident: (steps on shift, steps of those at the workplace).
    shift: BTreeMap<String, (u32, u32)>,
    /// Per resident: minutes at the square during the gathering on day 3.
    at_party: BTreeMap<String, u32>,
    /// Most residents at the square at once on the evening of day 3.
    square_peak: usize,
}

struct Run {
    log: String,
    events: Vec<Value>,
    samples: Samples,
    scenario: Arc<Scenario>,
}

fn run(seed: u64) -> Run {
    run_scenario(default_scenario(), seed)
}

fn run_scenario(scenario: Arc<Scenario>, seed: u64) -> Run {
    let mut app = headless_app(scenario.clone(), seed, 3, EventLog::in_memory());
    let square = scenario.town.find("square").unwrap();
    let party_from = GameTime::parse("2026-04-08 18:00").unwrap();
    let party_to = GameTime::parse("2026-04-08 21:00").unwrap();
    let mut samples = Samples::default();
    let mut steps = 0;
    while !app
        .world()
        .resource::<heartvale::sim::outcome::SimOutcome>()
        .ended()
    {
        app.update();
        steps += 1;
        assert!(steps < 5000, "the run never ended");
        let world = app.world_mut();
        let now = world.resource::<Clock>().now;
        let mut at_square = 0;
        let mut q = world.query::<(&Resident, &Persona, &Whereabouts, Option<&Walking>)>();
        for (r, p, at, walking) in q.iter(world) {
            let standing = walking.is_none();
            if let Some(w) = &p.work
                && w.covers(now.weekday_index(), now.minute_of_day())
            {
                let e = samples.shift.entry(r.id.to_string()).or_default();
                e.0 += 1;
                if standing && at.0 == w.place {
                    e.1 += 1;
                }
            }
            if now >= party_from && now < party_to && standing && at.0 == square {
                at_square += 1;
                *samples.at_party.entry(r.id.to_string()).or_default() += 1;
            }
        }
        samples.square_peak = samples.square_peak.max(at_square);
    }
    let log = app.world().resource::<EventLog>().text().to_string();
    let events = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("every log line is JSON"))
        .collect();
    Run {
        log,
        events,
        samples,
        scenario,
    }
}

fn kind<'a>(events: &'a [Value], k: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    events.iter().filter(move |e| e["kind"] == k)
}

fn time(e: &Value) -> GameTime {
    GameTime::parse(e["time"].as_str().unwrap()).unwrap()
}

#[test]
fn log_lines_have_time_kind_and_who() {
    let r = run(7);
    assert!(
        r.events.len() > 500,
        "a 3-day town logs a lot: {}",
        r.events.len()
    );
    for e in &r.events {
        assert!(e["time"].is_string() && e["kind"].is_string(), "{e}");
        let k = e["kind"].as_str().unwrap();
        if !matches!(k, "start" | "end") {
            assert!(
                e["resident"].is_string()
                    || e["participants"].is_array()
                    || e["residents"].is_array(),
                "`{k}` names no resident: {e}"
            );
        }
    }
    assert_eq!(r.events.first().unwrap()["kind"], "start");
    assert_eq!(r.events.last().unwrap()["kind"], "end");
    for k in [
        "plan",
        "move",
        "arrive",
        "conversation_start",
        "message",
        "conversation_end",
        "relationship_change",
        "notice",
        "sleep",
        "wake",
        "consolidate",
    ] {
        assert!(kind(&r.events, k).count() > 0, "no `{k}` events");
    }
}

#[test]
fn everyone_sleeps_every_night_mostly_at_home() {
    check_everyone_sleeps_every_night_mostly_at_home(&run(7));
}

fn check_everyone_sleeps_every_night_mostly_at_home(r: &Run) {
    for p in &r.scenario.residents {
        let id = p.id.as_str();
        let nights: Vec<&Value> = kind(&r.events, "sleep")
            .filter(|e| e["resident"] == id)
            .filter(|e| {
                let until = GameTime::parse(e["until"].as_str().unwrap()).unwrap();
                time(e).minutes_until(until) > 120
            })
            .collect();
        let dates: BTreeSet<String> = nights
            .iter()
            .map(|e| time(e).night_of().to_string())
            .collect();
        assert_eq!(
            dates.into_iter().collect::<Vec<_>>(),
            ["2026-04-06", "2026-04-07", "2026-04-08"],
            "{id} must sleep each of the 3 nights"
        );
        for e in &nights {
            let m = time(e).minute_of_day();
            assert!(
                !(7 * 60..21 * 60).contains(&m),
                "{id} went to bed at {}",
                e["time"]
            );
        }
        let home = r.scenario.town.id(p.home).to_string();
        let at_home = nights
            .iter()
            .filter(|e| e["location"] == home.as_str())
            .count();
        assert!(
            at_home * 10 >= nights.len() * 8,
            "{id} slept away from home too often"
        );
    }
}

#[test]
fn residents_are_at_work_during_most_of_their_hours() {
    check_residents_are_at_work_during_most_of_their_hours(&run(7));
}

fn check_residents_are_at_work_during_most_of_their_hours(r: &Run) {
    assert!(!r.samples.shift.is_empty());
    for (id, (on_shift, at_work)) in &r.samples.shift {
        let share = *at_work as f32 / *on_shift as f32;
        assert!(
            share >= 0.6,
            "{id} was at work {:.0}% of shift time",
            share * 100.0
        );
    }
}

#[test]
fn everyone_eats_every_day() {
    check_everyone_eats_every_day(&run(7));
}

fn check_everyone_eats_every_day(r: &Run) {
    // The willow spirit (`eats: false`) has no meals: none may be planned.
    for p in r.scenario.residents.iter().filter(|p| !p.eats()) {
        let meals = kind(&r.events, "plan")
            .filter(|e| e["resident"] == p.id.as_str() && e["activity"] == "eat")
            .count();
        assert_eq!(meals, 0, "{} does not eat, yet planned {meals} meals", p.id);
    }
    for p in r.scenario.residents.iter().filter(|p| p.eats()) {
        let days: BTreeMap<String, u32> = kind(&r.events, "plan")
            .filter(|e| e["resident"] == p.id.as_str() && e["activity"] == "eat")
            .fold(BTreeMap::new(), |mut m, e| {
                *m.entry(time(e).date().to_string()).or_default() += 1;
                m
            });
        for d in ["2026-04-06", "2026-04-07", "2026-04-08"] {
            assert!(
                days.get(d).copied().unwrap_or(0) >= 2,
                "{} ate {:?} times on {d}",
                p.id,
                days.get(d)
            );
        }
    }
}

/// Replays moves and arrivals: every step is along a path from where the resident
/// stood, and every plan starts where the resident is.
#[test]
fn nobody_stands_where_they_could_not_walk() {
    check_nobody_stands_where_they_could_not_walk(&run(7));
}

fn check_nobody_stands_where_they_could_not_walk(r: &Run) {
    let town = &r.scenario.town;
    let mut at: HashMap<String, String> = r
        .scenario
        .residents
        .iter()
        .map(|p| (p.id.to_string(), town.id(p.home).to_string()))
        .collect();
    let mut heading: HashMap<String, String> = HashMap::new();
    for e in &r.events {
        let who = e["resident"].as_str().unwrap_or("").to_string();
        match e["kind"].as_str().unwrap() {
            "plan" => assert_eq!(
                e["from"].as_str().unwrap(),
                at[&who],
                "{who} planned from elsewhere"
            ),
            "move" => {
                assert_eq!(e["from"].as_str().unwrap(), at[&who]);
                let mut cur = town.find(&at[&who]).unwrap();
                for hop in e["route"].as_array().unwrap() {
                    let next = town.find(hop.as_str().unwrap()).unwrap();
                    assert!(
                        town.get(cur).neighbours.contains(&next),
                        "{who} jumped from {} to {}",
                        town.id(cur),
                        town.id(next)
                    );
                    cur = next;
                }
                assert_eq!(town.id(cur).as_str(), e["to"].as_str().unwrap());
                heading.insert(who.clone(), e["to"].as_str().unwrap().to_string());
            }
            "arrive" => {
                let to = heading.remove(&who).expect("arrival without a move");
                assert_eq!(e["location"].as_str().unwrap(), to);
                at.insert(who, to);
            }
            "sleep" | "wake" | "notice" => {
                assert_eq!(
                    e["location"].as_str().unwrap(),
                    at[&who],
                    "{who} acted away from where they stood"
                );
            }
            _ => {}
        }
    }
}

#[test]
fn party_notice_goes_up_early_and_the_square_fills_on_day_three() {
    check_party_notice_goes_up_early_and_the_square_fills_on_day_three(&run(7));
}

fn check_party_notice_goes_up_early_and_the_square_fills_on_day_three(r: &Run) {
    let notice = kind(&r.events, "notice")
        .find(|e| e["resident"] == "zhong" && e["text"].as_str().unwrap().contains("联谊会"))
        .expect("the tavern keeper posts the party notice");
    assert!(
        time(notice) < GameTime::parse("2026-04-08 00:00").unwrap(),
        "posted on {}",
        notice["time"]
    );
    let square = r.scenario.town.find("square").unwrap();
    assert!(r.scenario.town.get(square).has(Service::NoticeBoard));
    assert!(
        r.samples.square_peak >= 5,
        "only {} residents at the square during the party",
        r.samples.square_peak
    );
}

/// Over several seeds, the party is known sooner when its notice can be
/// read, and draws at least as many: the same town with the notice board
/// taken away (so nobody reads the notice and word of mouth is all there is)
/// is the control. (In a town this small, word of mouth reaches nearly
/// everyone by the party, so it is the speed that differs.)
#[test]
fn notice_readers_turn_up_more_often() {
    let with_board = default_scenario();
    let mut without = (*with_board).clone();
    let mut locations = without.town.locations.clone();
    for l in &mut locations {
        l.services.retain(|s| *s != Service::NoticeBoard);
    }
    without.town = Town::new(without.town.name.clone(), without.town.map, locations);
    let without = Arc::new(without);
    let (mut came_with, mut came_without, mut readers) = (0, 0, 0);
    // Game minutes from the start until each resident knew of the party
    // (the whole run for one who never did), summed.
    let knew = |r: &Run| -> i64 {
        let time = |e: &Value| time(e).0;
        let start = time(&r.events[0]);
        let end = time(r.events.last().unwrap());
        let mut first: std::collections::BTreeMap<&str, i64> = Default::default();
        for e in kind(&r.events, "learned").filter(|e| e["fact"] == "gathering") {
            first
                .entry(e["resident"].as_str().unwrap())
                .or_insert(time(e));
        }
        let ids = r.events[0]["residents"].as_array().unwrap();
        ids.iter()
            .map(|id| first.get(id.as_str().unwrap()).copied().unwrap_or(end) - start)
            .sum::<i64>()
            / 60
    };
    let (mut sooner_with, mut sooner_without) = (0, 0);
    for seed in [1, 2, 3, 4, 5, 6] {
        let a = run_scenario(with_board.clone(), seed);
        let b = run_scenario(without.clone(), seed);
        assert_eq!(kind(&b.events, "notice_read").count(), 0);
        readers += kind(&a.events, "notice_read").count();
        let came = |r: &Run| {
            r.samples
                .at_party
                .iter()
                .filter(|(id, mins)| id.as_str() != "zhong" && **mins >= 30)
                .count()
        };
        came_with += came(&a);
        came_without += came(&b);
        sooner_with += knew(&a);
        sooner_without += knew(&b);
    }
    eprintln!(
        "party: with notice {came_with} came, known after {sooner_with} resident-minutes; without {came_without}, {sooner_without}; reads {readers}"
    );
    assert!(readers > 0);
    assert!(
        sooner_with < sooner_without,
        "known after {sooner_with} resident-minutes with the notice, {sooner_without} without"
    );
    assert!(
        came_with >= came_without,
        "with the notice {came_with} came, without it {came_without}"
    );
}

#[test]
fn conversations_happen_and_are_remembered() {
    check_conversations_happen_and_are_remembered(&run(7));
}

fn check_conversations_happen_and_are_remembered(r: &Run) {
    let talks = kind(&r.events, "conversation_end").count();
    assert!(talks >= 20, "only {talks} conversations in 3 days");
    let pairs: BTreeSet<String> = kind(&r.events, "conversation_end")
        .map(|e| e["participants"].to_string())
        .collect();
    assert!(
        pairs.len() >= 8,
        "conversations stuck to {} pairs",
        pairs.len()
    );
}

#[test]
fn memories_are_consolidated_once_per_resident_per_night() {
    check_memories_are_consolidated_once_per_resident_per_night(&run(7));
}

fn check_memories_are_consolidated_once_per_resident_per_night(r: &Run) {
    let mut count: BTreeMap<(String, String), u32> = BTreeMap::new();
    for e in kind(&r.events, "consolidate") {
        let key = (
            e["resident"].as_str().unwrap().to_string(),
            e["night"].as_str().unwrap().to_string(),
        );
        *count.entry(key).or_default() += 1;
        // The night's date, as the summary says it (4月6日).
        let night = e["night"].as_str().unwrap();
        let (month, day) = (&night[5..7], &night[8..10]);
        let said = format!(
            "{}月{}日",
            month.trim_start_matches('0'),
            day.trim_start_matches('0')
        );
        assert!(e["summary"].as_str().unwrap().contains(&said), "{e}");
    }
    for p in &r.scenario.residents {
        for night in ["2026-04-06", "2026-04-07", "2026-04-08"] {
            assert_eq!(
                count.get(&(p.id.to_string(), night.to_string())),
                Some(&1),
                "{} on the night of {night}",
                p.id
            );
        }
    }
}

#[test]
fn same_seed_same_log_other_seed_other_log() {
    let a = run(11).log;
    let b = run(11).log;
    assert!(a == b, "two runs with seed 11 differ");
    let c = run(12).log;
    assert_ne!(a, c, "the seed changes nothing");
}

/// The same promises hold for other seeds, not just the one the tests above use.
#[test]
fn behaviour_holds_for_other_seeds() {
    for seed in [1, 2, 3, 4, 5, 6, 8, 9] {
        let r = run(seed);
        check_everyone_sleeps_every_night_mostly_at_home(&r);
        check_residents_are_at_work_during_most_of_their_hours(&r);
        check_everyone_eats_every_day(&r);
        check_nobody_stands_where_they_could_not_walk(&r);
        check_party_notice_goes_up_early_and_the_square_fills_on_day_three(&r);
        check_memories_are_consolidated_once_per_resident_per_night(&r);
        check_conversations_happen_and_are_remembered(&r);
    }
}

/// A manual stop ends the run at once with an `end` line saying so.
#[test]
fn a_manual_stop_ends_the_run() {
    let mut app = headless_app(default_scenario(), 7, 3, EventLog::in_memory());
    for _ in 0..90 {
        app.update();
    }
    app.world_mut()
        .write_message(heartvale::sim::outcome::StopSim);
    app.update();
    let outcome = app
        .world()
        .resource::<heartvale::sim::outcome::SimOutcome>()
        .0;
    assert_eq!(outcome, Some(heartvale::sim::event_log::EndReason::Stopped));
    let steps = app.world().resource::<Clock>().steps;
    app.update();
    assert_eq!(
        app.world().resource::<Clock>().steps,
        steps,
        "no steps after the end"
    );
    let log = app.world().resource::<EventLog>().text().to_string();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["kind"].as_str(), last["reason"].as_str()),
        (Some("end"), Some("stopped"))
    );
    assert_eq!(last["time"], "2026-04-06 07:31");
}

/// A place holds about as many as its capacity: once full (counting those on
/// their way) it draws nobody new. Without that, a big town's evening crowd
/// snowballed until nearly everyone stood in one canteen.
#[test]
fn crowds_stay_within_capacity_in_a_big_town() {
    use heartvale::scenario::LocationKind;
    use heartvale::sim::residents::Census;
    let scenario = Arc::new(heartvale::scenario::generate::generated_town(1_000, 1));
    let mut app = headless_app(scenario.clone(), 1, 1, EventLog::in_memory());
    let mut peak = 0usize;
    while app.world().resource::<Clock>().now.minute_of_day() < 23 * 60 {
        app.update();
        let census = app.world().resource::<Census>();
        for (i, loc) in scenario.town.locations.iter().enumerate() {
            if matches!(loc.kind, LocationKind::Home | LocationKind::Work) {
                continue;
            }
            let here = census.at_place[i].len();
            peak = peak.max(here);
            // Those who chose it in the same step may overshoot a little.
            assert!(
                here <= loc.capacity as usize * 3 / 2,
                "{} holds {here} at {} (capacity {})",
                loc.id.as_str(),
                app.world().resource::<Clock>().now,
                loc.capacity
            );
        }
    }
    // The shared places are used, not avoided.
    assert!(peak >= 40, "peak {peak}");
}

/// The planner's weights are the scenario's (`planner:` in tuning.yaml): with
/// work worth nothing, nobody goes to work; as shipped, every worker does.
#[test]
fn planner_weights_come_from_the_tuning() {
    let work_plans = |r: &Run| {
        r.events
            .iter()
            .filter(|e| e["kind"] == "plan" && e["activity"] == "work")
            .count()
    };
    assert!(work_plans(&run(7)) > 10);
    let mut lazy = (*default_scenario()).clone();
    lazy.tuning.planner.work = -2000.0;
    lazy.tuning.planner.work_conscientiousness = 0.0;
    assert_eq!(work_plans(&run_scenario(Arc::new(lazy), 7)), 0);
}
