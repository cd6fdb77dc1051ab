//! The census: where everyone is and what they do, taken once per step
//! for everyone's decisions in it.

use bevy::prelude::*;

use super::roster::{Roster, RosterIdx};
use super::{Activity, ActivityKind, MapPosition, Needs, Persona, Resident, Walking, Whereabouts};
use crate::scenario::{LocIdx, Profile, Town, WorkRole};
use crate::sim::disjoint::Disjoint;

/// Where everyone is and what they do, taken once per step, indexed by roster idx.
/// A save keeps where everyone was and what they did (the next step's needs
/// read it before the census is taken again); the persona fields are the
/// scenario's.
#[derive(Resource, Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Census {
    /// Each resident's entry, by roster idx.
    pub entries: Vec<CensusEntry>,
    /// Roster indices of residents standing at each place (not walking), sorted.
    pub at_place: Vec<Vec<RosterIdx>>,
    /// How many residents are walking to each place.
    pub(crate) heading_to: Vec<u32>,
    /// The few persona fields the step's passes read of everyone, by roster idx;
    /// copied when a persona changes (reading a large town's profiles each step
    /// cost a cache miss per resident). `None` for a resident not spawned yet.
    #[serde(skip)]
    pub(crate) traits: Vec<Option<Traits>>,
    /// Roster indices of residents with a greeting role at work, ascending.
    #[serde(skip)]
    pub(crate) greeters: Vec<RosterIdx>,
}

/// Where one resident is and what it is doing.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct CensusEntry {
    /// The place it stands at, or last stood at while walking.
    pub at: LocIdx,
    /// Its position on the map.
    #[serde(with = "xy")]
    pub(crate) pos: Vec2,
    /// Whether it is walking.
    pub(crate) walking: bool,
    /// What kind of action it is on, if any.
    pub(crate) kind: Option<ActivityKind>,
    /// Whether the action has begun (it has arrived).
    pub(crate) underway: bool,
    /// Social satisfaction (the need), 0–100.
    pub(crate) social: f32,
    /// Energy (the need), 0–100: whether one is too tired to go on talking
    /// is read here, next to where one stands, rather than from each
    /// talker's needs scattered in memory.
    #[serde(default)]
    pub(crate) energy: f32,
    /// Whom it came to keep company with (an underway plan "Chat with X").
    #[serde(default)]
    pub(crate) seeking: Option<RosterIdx>,
    /// When its action ends (it may leave then).
    #[serde(default)]
    pub(crate) until: crate::base::time::GameTime,
}

/// The few persona fields the step's passes read of everyone (`Census::traits`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Traits {
    /// Big Five extraversion, 0–100.
    pub(crate) extraversion: f32,
    /// Workplace, and the role in which the resident greets people there.
    pub(crate) work: Option<(LocIdx, Option<WorkRole>)>,
    /// Where it lives.
    pub(crate) home: LocIdx,
    /// Whether it eats at all (a willow spirit does not: never hungry).
    pub(crate) eats: bool,
}

impl Traits {
    /// The fields of a persona.
    pub fn of(p: &Profile) -> Self {
        Self {
            extraversion: p.personality.extraversion,
            work: p.work.as_ref().map(|w| (w.place, w.role)),
            home: p.home,
            eats: p.eats,
        }
    }
}

impl Census {
    /// Takes a saved census's entries, keeping the persona fields.
    pub(crate) fn restore(&mut self, saved: Census) {
        self.entries = saved.entries;
        self.at_place = saved.at_place;
        self.heading_to = saved.heading_to;
    }

    /// Who stands at `place` (roster indices, sorted).
    pub fn standing_at(&self, place: LocIdx) -> &[RosterIdx] {
        self.at_place.get(place.i()).map_or(&[][..], Vec::as_slice)
    }
    /// How many stand at `place`.
    pub fn count_at(&self, place: LocIdx) -> usize {
        self.standing_at(place).len()
    }
    /// Standing at `place` or on the way there: what its capacity is weighed against.
    pub fn expected_at(&self, place: LocIdx) -> usize {
        self.count_at(place) + self.heading_to.get(place.i()).map_or(0, |&n| n as usize)
    }
    /// Whether the resident at `idx` eats at all (its persona's `eats`).
    pub fn eats(&self, idx: RosterIdx) -> bool {
        self.traits
            .get(idx.i())
            .is_none_or(|t| t.is_none_or(|t| t.eats))
    }
    /// Whether the resident at `idx` is asleep.
    pub fn asleep(&self, idx: RosterIdx) -> bool {
        self.entries
            .get(idx.i())
            .is_some_and(|e| e.underway && e.kind == Some(ActivityKind::Sleep))
    }
}

/// A map position as `[x, y]` (Bevy's serde for `Vec2` needs a feature that
/// rebuilds much of Bevy).
mod xy {
    use bevy::math::Vec2;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &Vec2, s: S) -> Result<S::Ok, S::Error> {
        [v.x, v.y].serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec2, D::Error> {
        let [x, y] = <[f32; 2]>::deserialize(d)?;
        Ok(Vec2::new(x, y))
    }
}

/// What the census reads of each resident.
type CensusView<'a> = (
    &'a Resident,
    &'a Whereabouts,
    &'a MapPosition,
    Option<&'a Activity>,
    &'a Needs,
);

/// Residents from which the census is written on all threads.
const PARALLEL_FROM: usize = 2048;

/// Takes the census for this step.
pub(super) fn take_census(
    mut census: ResMut<Census>,
    town: Res<Town>,
    roster: Res<Roster>,
    q: Query<CensusView>,
    walkers: Query<(&Resident, &Activity), With<Walking>>,
    changed: Query<(&Resident, &Persona), Changed<Persona>>,
) {
    let census = &mut *census;
    census.traits.resize(roster.len(), None);
    let mut any = false;
    for (r, p) in &changed {
        census.traits[r.idx.i()] = Some(Traits::of(&p.0));
        any = true;
    }
    if any {
        census.greeters = roster
            .indices()
            .filter(|i| census.traits[i.i()].is_some_and(|t| t.work.is_some_and(|w| w.1.is_some())))
            .collect();
    }
    // Everyone's entry is written below when everyone is in the query (as
    // in a running town): clearing 100,000 entries first would write them twice.
    if q.iter().len() != roster.len() {
        census.entries.clear();
    }
    census.entries.resize(
        roster.len(),
        CensusEntry {
            at: LocIdx(0),
            pos: Vec2::ZERO,
            walking: false,
            kind: None,
            underway: false,
            social: 0.0,
            energy: 0.0,
            seeking: None,
            until: crate::base::time::GameTime(0),
        },
    );
    census.at_place.resize(town.len(), Vec::new());
    for v in &mut census.at_place {
        v.clear();
    }
    census.heading_to.clear();
    census.heading_to.resize(town.len(), 0);
    write_entries(&mut census.entries, &q, roster.len());
    // The walkers apart: with the sparse `Walking` in the main query, Bevy would
    // visit everyone archetype by archetype, in no order in memory.
    for (r, a) in &walkers {
        census.entries[r.idx.i()].walking = true;
        census.heading_to[a.target.i()] += 1;
    }
    // Filled in index order so each list is sorted and the same every run.
    for (i, e) in census.entries.iter().enumerate() {
        if !e.walking {
            census.at_place[e.at.i()].push(RosterIdx(i as u32));
        }
    }
}

/// Writes everyone's entry at its roster index (`residents` in all). Each
/// resident's entry is its own, so a large town's are written on every core.
fn write_entries(entries: &mut [CensusEntry], q: &Query<CensusView>, residents: usize) {
    let entries = Disjoint::new(entries);
    let one = |(r, at, pos, act, needs): CensusView<'_>| {
        let entry = CensusEntry {
            at: at.0,
            pos: pos.0,
            walking: false,
            kind: act.map(|a| a.kind),
            underway: act.is_some_and(|a| a.underway),
            social: needs.social,
            energy: needs.energy,
            seeking: act
                .filter(|a| a.underway && a.kind == ActivityKind::Socialise)
                .and_then(|a| a.with),
            until: act.map_or(crate::base::time::GameTime(0), |a| a.busy_until),
        };
        // SAFETY: roster indices are unique, so no two residents of the
        // pass write one entry.
        unsafe { entries.put(r.idx.i(), entry) };
    };
    if crate::sim::pool_threads() > 1 && residents >= PARALLEL_FROM {
        q.par_iter()
            .batching_strategy(crate::sim::batching())
            .for_each(one);
    } else {
        q.iter().for_each(one);
    }
}
