//! Cupid in town. The host — a resident with `host: cupid`, else the tavern
//! keeper — hosts dates between two residents: at a gathering at its place
//! or once an evening when a pair's tie and personalities make it plausible,
//! or whenever the player asks (the inspector's "💘 约会"). Each of the two, when next free, sets off for the
//! host's place; once both are there the date goes on one step every few
//! game minutes (the scene, the side asked, the other, the judgement), so
//! its lines come as game time passes; its end moves both ties and leaves
//! each a key memory.
//!
//! The offline host and avatars play town dates, seeded per date: the same
//! run gives the same dates, and a save keeps only how far a date has got —
//! it is rebuilt on load by replaying its steps.

mod arrange;
mod run;

use std::sync::Arc;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::residents::{Roster, RosterIdx};
use super::{SimSet, SimStep};
use crate::base::time::GameTime;
use crate::cupid::{Avatar, Date, Message as Line, OfflineMinds, SceneBank};
use crate::scenario::{
    HostRole, LocIdx, LocationKind, RelationKind, ResidentId, Scenario, Service,
};

/// Game minutes between two steps of a date (a round is four).
const STEP_MINUTES: i64 = 4;
/// Rounds of a date in town.
const ROUNDS: u32 = crate::cupid::MAX_ROUNDS;
/// How long a booked date waits for both to arrive.
const WAIT_MINUTES: i64 = 180;
/// Days before the host pairs the same two again of its own accord.
const REPEAT_AFTER_DAYS: i64 = 7;

/// Who hosts dates, where, and with which scenes.
#[derive(Resource, Clone)]
pub struct Cupid {
    /// The scene bank (the scenario's `cupid/scenes.yaml`, else the built-in one).
    pub(crate) bank: Arc<SceneBank>,
    /// The host and its place; no dates in a town without one.
    pub host: Option<(RosterIdx, LocIdx)>,
}

impl Cupid {
    /// The scenario's host and scenes.
    fn of(scenario: &Scenario) -> Self {
        let path = scenario.dir.join("cupid").join("scenes.yaml");
        let bank = match path.is_file() {
            true => SceneBank::load(&path).unwrap_or_else(|d| {
                warn!("{d}\nthe town's dates use the built-in scenes instead");
                SceneBank::builtin()
            }),
            false => SceneBank::builtin(),
        };
        Self {
            bank: Arc::new(bank),
            host: host_of(scenario),
        }
    }
}

/// A resident with `host: cupid`, else the first who works at an eatery; its
/// workplace (else the town's first eatery, else its home).
pub(crate) fn host_of(scenario: &Scenario) -> Option<(RosterIdx, LocIdx)> {
    let town = &scenario.town;
    let eatery = |l: LocIdx| town.get(l).kind == LocationKind::Food;
    let people = &scenario.residents;
    let i = people
        .iter()
        .position(|p| p.host == Some(HostRole::Cupid))
        .or_else(|| {
            people
                .iter()
                .position(|p| p.work.as_ref().is_some_and(|w| eatery(w.place)))
        })?;
    let p = &people[i];
    let place = p
        .work
        .as_ref()
        .map(|w| w.place)
        .or_else(|| town.indices().find(|&l| town.get(l).has(Service::Food)))
        .unwrap_or(p.home);
    Some((RosterIdx(i as u32), place))
}

/// Dates the player asked for (the inspector), taken at the next step.
#[derive(Resource, Debug, Default)]
pub struct DateRequests(pub Vec<(ResidentId, ResidentId)>);

/// Every date booked or under way, and what the host remembers of past ones.
#[derive(Resource, Debug, Default, Serialize, Deserialize)]
pub struct TownDates {
    /// Booked or under way.
    pub(crate) active: Vec<TownDate>,
    /// Pairs dated, and the day each date ended (for the host's own pairings).
    pub(crate) past: Vec<([RosterIdx; 2], i64)>,
    next_id: u32,
    /// The last day the host considered pairing two residents.
    considered_day: i64,
    /// Gatherings at the host's place it has looked around at.
    #[serde(default)]
    gatherings_seen: Vec<usize>,
    /// The latest finished date, for the window (not saved).
    #[serde(skip)]
    pub(crate) last: Option<ShownDate>,
}

impl TownDates {
    /// Whether the resident is booked for or on a date.
    pub fn dating(&self, idx: RosterIdx) -> bool {
        self.active.iter().any(|d| d.pair.contains(&idx))
    }

    /// The date under way (or booked) with the resident, else the latest.
    pub fn shown_for(&self, idx: Option<RosterIdx>) -> Option<ShownDate> {
        let pick = |d: &&TownDate| idx.is_none_or(|i| d.pair.contains(&i));
        self.active
            .iter()
            .find(pick)
            .or_else(|| self.active.first())
            .map(TownDate::shown)
            .or_else(|| self.last.clone())
    }
}

/// A date in town.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct TownDate {
    pub(crate) id: u32,
    /// The two; the first is asked first.
    pub(crate) pair: [RosterIdx; 2],
    pub(crate) host: RosterIdx,
    pub(crate) place: LocIdx,
    pub(crate) seed: u64,
    /// Each one's tie to the other when it was booked.
    pub(crate) ties: [Option<(RelationKind, f32)>; 2],
    pub(crate) booked: GameTime,
    /// Whether each has been sent off to the place.
    pub(crate) sent: [bool; 2],
    /// When both were there.
    pub(crate) started: Option<GameTime>,
    /// Cupid steps taken.
    pub(crate) steps: u32,
    pub(crate) requested: bool,
    /// The date itself, rebuilt from the fields above when missing (after a load).
    #[serde(skip)]
    pub(crate) live: Option<Box<Live>>,
}

/// A date being played, and every line so far.
pub(crate) struct Live {
    pub(crate) date: Date,
    minds: OfflineMinds,
    pub(crate) lines: Vec<Line>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("lines", &self.lines.len())
            .finish()
    }
}

impl TownDate {
    /// The date, built (or rebuilt by replaying its steps) when needed.
    fn live(&mut self, avatars: impl FnOnce() -> [Avatar; 2], bank: &Arc<SceneBank>) -> &mut Live {
        if self.live.is_none() {
            let [mut a, mut b] = avatars();
            (a.tie, b.tie) = (self.ties[0], self.ties[1]);
            let mut live = Live {
                date: Date::new(a, b, ROUNDS),
                minds: OfflineMinds::new(bank.clone(), self.seed),
                lines: Vec::new(),
            };
            for _ in 0..self.steps {
                let lines = live.date.step(&mut live.minds);
                live.lines.extend(lines);
            }
            self.live = Some(Box::new(live));
        }
        self.live.as_mut().expect("just built")
    }

    fn shown(&self) -> ShownDate {
        ShownDate {
            pair: self.pair,
            under_way: self.started.is_some(),
            lines: self
                .live
                .as_ref()
                .map(|l| l.lines.clone())
                .unwrap_or_default(),
        }
    }
}

/// What the window shows of a date.
#[derive(Debug, Clone)]
pub struct ShownDate {
    /// The two, the first asked first.
    pub pair: [RosterIdx; 2],
    /// Whether both have arrived (else it is booked).
    pub under_way: bool,
    /// Every line so far: scenes, choices, scores, the end.
    pub lines: Vec<Line>,
}

/// The dating phases, after conversations and before planning (a resident
/// sent to a date gets its plan in this step's planning).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum DatingSet {
    Book,
    Play,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<TownDates>()
        .init_resource::<DateRequests>()
        .configure_sets(
            SimStep,
            (DatingSet::Book, DatingSet::Play)
                .chain()
                .in_set(SimSet::Interactions)
                .after(super::social::SocialSet::Conclude),
        )
        .add_systems(
            SimStep,
            (
                (
                    run::take_requests,
                    arrange::pair_at_gathering,
                    arrange::pair_tonight,
                )
                    .chain()
                    .in_set(DatingSet::Book),
                (run::send_off, run::start, run::play, run::finish)
                    .chain()
                    .in_set(DatingSet::Play),
            ),
        );
}

/// The host and scenes of the scenario.
pub(super) fn setup(world: &mut World, scenario: &Scenario) {
    world.insert_resource(Cupid::of(scenario));
    world.init_resource::<TownDates>();
}

/// Books a date between `a` and `b` at `at` (else the host's place), if
/// there is a host, neither is the host or already dating, and they are two.
fn book(
    dates: &mut TownDates,
    cupid: &Cupid,
    ((a, b), at): ((RosterIdx, RosterIdx), Option<LocIdx>),
    ties: [Option<(RelationKind, f32)>; 2],
    (now, seed): (GameTime, u64),
    requested: bool,
) -> bool {
    let Some((host, home_ground)) = cupid.host else {
        return false;
    };
    let place = at.unwrap_or(home_ground);
    if a == b || a == host || b == host || dates.dating(a) || dates.dating(b) {
        return false;
    }
    let id = dates.next_id;
    dates.next_id += 1;
    dates.active.push(TownDate {
        id,
        pair: [a, b],
        host,
        place,
        seed: seed ^ (u64::from(id) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        ties,
        booked: now,
        sent: [false; 2],
        started: None,
        steps: 0,
        requested,
        live: None,
    });
    true
}

/// The roster's id of a date's side.
fn id_of(roster: &Roster, idx: RosterIdx) -> ResidentId {
    roster.id_of(idx).clone()
}

#[cfg(test)]
mod tests;
