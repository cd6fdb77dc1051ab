//! Residents spawned from the scenario: at home, with their memories, ties
//! and agenda, asleep if the run opens before they wake.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::scenario::{Scenario, Town};
use crate::sim::RunSettings;
use crate::sim::memory::store::Memories;

/// Spawns every resident of the scenario at home, asleep or waking.
pub(in crate::sim) fn spawn_all(world: &mut World, scenario: &Scenario, settings: &RunSettings) {
    world.insert_resource(Roster::default());
    spawn_residents(
        world,
        scenario,
        0..scenario.residents.len(),
        settings.seed,
        scenario.start,
    );
}

/// Spawns residents `range` of `scenario` at home at time `now` (the start, or
/// later when a hot reload adds some) and gives them the next roster indices.
pub fn spawn_residents(
    world: &mut World,
    scenario: &Scenario,
    range: std::ops::Range<usize>,
    seed: u64,
    now: GameTime,
) {
    // Built once for the whole range: per resident it made spawning a large town quadratic.
    let index: HashMap<&ResidentId, RosterIdx> = scenario
        .residents
        .iter()
        .enumerate()
        .map(|(i, p)| (&p.id, RosterIdx(i as u32)))
        .collect();
    for i in range {
        spawn_resident(world, scenario, &index, i, seed, now);
    }
}

fn spawn_resident(
    world: &mut World,
    scenario: &Scenario,
    index: &HashMap<&ResidentId, RosterIdx>,
    i: usize,
    seed: u64,
    now: GameTime,
) {
    let p = &scenario.residents[i];
    let mut memories = Memories::default();
    for m in &p.memories {
        memories.push_initial(now, m.clone());
    }
    for g in &p.goals {
        memories.push_initial(now, format!("目标：{}", g.text));
    }
    let pos = spread_position(&scenario.town, p.home, RosterIdx(i as u32));
    let mut entity = world.spawn((
        Resident {
            id: p.id.clone(),
            idx: RosterIdx(i as u32),
        },
        Persona(p.clone()),
        Whereabouts(p.home),
        MapPosition(pos),
        memories,
        initial_ties(p, index),
        initial_agenda(p),
        crate::sim::knowledge::seed::initial_knowledge(p, &scenario.residents, index, now),
        ResidentRng::new(&ChaCha8Rng::seed_from_u64(resident_seed(
            seed,
            p.id.as_str(),
        ))),
    ));
    if let Some(a) = asleep_at_start(p, now) {
        entity.insert(a);
    }
    let entity = entity.id();
    world
        .resource_mut::<Roster>()
        .push(p.id.clone(), p.name.clone(), entity);
}

/// The ties the scenario gives a resident, to residents that exist.
fn initial_ties(p: &Profile, index: &HashMap<&ResidentId, RosterIdx>) -> Relationships {
    Relationships::new(
        p.relationships
            .iter()
            .filter_map(|r| {
                Some(Relationship {
                    with_idx: *index.get(&r.with)?,
                    with: r.with.clone(),
                    kind: r.kind,
                    strength: r.strength,
                    impression: r.impression.clone(),
                    interactions: 0,
                    last_interaction: Default::default(),
                    met: Default::default(),
                    last_talk: None,
                    talk_days: Default::default(),
                })
            })
            .collect(),
    )
}

/// The gatherings a resident organises, which it means to attend.
fn initial_agenda(p: &Profile) -> Agenda {
    Agenda {
        appointments: p
            .goals
            .iter()
            .filter_map(|g| g.gathering)
            .map(|g| Appointment {
                gathering: g,
                heard: Heard::Organiser,
                will_attend: true,
            })
            .collect(),
        meetings: Vec::new(),
        notices_read: Vec::new(),
    }
}

/// The run opens at dawn: whoever wakes later is still asleep at home.
fn asleep_at_start(p: &Profile, start: GameTime) -> Option<Activity> {
    let start_minute = start.minute_of_day();
    (start_minute < p.wake).then(|| Activity {
        text: Box::new(ActivityText {
            action: "Sleep".into(),
            dialogue: String::new(),
            emoji: "😴".into(),
        }),
        kind: ActivityKind::Sleep,
        target: p.home,
        duration: p.wake - start_minute,
        busy_until: start.at_minute(p.wake),
        underway: true,
        walked: false,
        with: None,
    })
}

/// A stable spot inside a place's area for resident `idx`, so a crowd spreads out.
pub fn spread_position(town: &Town, place: LocIdx, idx: RosterIdx) -> Vec2 {
    let loc = town.get(place);
    // Golden-angle spiral: evenly spread, no two residents on one point.
    let k = (idx.0 % 64) as f32;
    let angle = k * 2.399_963;
    let r = (k / 64.0).sqrt() * 0.45;
    loc.position + Vec2::new(angle.cos() * r * loc.size.x, angle.sin() * r * loc.size.y)
}
