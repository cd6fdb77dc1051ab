//! The host's own pairings: once an evening, and once at every gathering
//! it goes to (the date is held there), the most plausible pair of residents who know each
//! other — their ties both ways, times how well their personalities go
//! together; at a gathering, of those who came — is asked out, with a
//! chance that grows with how plausible they are.

use bevy::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Cupid, REPEAT_AFTER_DAYS, TownDates, book};
use crate::scenario::RelationKind;
use crate::sim::RunSettings;
use crate::sim::clock::Clock;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::RosterIdx;
use crate::sim::residents::{Persona, Relationships, Resident};
use crate::sim::social::analysis;
use crate::sim::town::{ActiveTuning, Gatherings};

/// The evening hour the host makes its pairing (game minutes after midnight).
const PAIRING_MINUTE: u32 = 17 * 60;
/// Too late to start one: after this the host waits for the next evening.
const LAST_PAIRING_MINUTE: u32 = 19 * 60;
/// Adults only.
/// A tie weaker than this (either way) is not enough for a date.
const MIN_STRENGTH: f32 = 30.0;
/// The chance of a date on an evening, times the best pair's plausibility (0–1).
const EVENING_CHANCE: f32 = 0.7;

/// A pair the host might ask out: who, how plausible (0–1), their ties.
type Pairing = (
    (RosterIdx, RosterIdx),
    f32,
    [Option<(RelationKind, f32)>; 2],
);

/// Minutes into a gathering before the host looks around (people arrive).
const GATHERING_SETTLE: i64 = 30;

/// One resident as the host weighs it.
type Candidate<'a> = (&'a Resident, &'a Persona, &'a Relationships);

/// Once an evening: book the most plausible pair, perhaps.
pub(super) fn pair_tonight(
    clock: Res<Clock>,
    settings: Res<RunSettings>,
    tuning: Res<ActiveTuning>,
    cupid: Res<Cupid>,
    mut dates: ResMut<TownDates>,
    people: Query<Candidate>,
) {
    let (now, day) = (clock.now, clock.now.day_number());
    let minute = now.minute_of_day();
    if cupid.host.is_none()
        || dates.considered_day == day
        || !(PAIRING_MINUTE..LAST_PAIRING_MINUTE).contains(&minute)
    {
        return;
    }
    dates.considered_day = day;
    let anyone = |_: RosterIdx| true;
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed ^ (day as u64).wrapping_mul(0xd1b5_4a32));
    let pairs = pairings(&people, &dates, &cupid, &tuning, (day, &anyone));
    let Some((pair, plausible, ties)) = choose(pairs, &mut rng) else {
        return;
    };
    if rng.random::<f32>() < plausible * EVENING_CHANCE {
        book(
            &mut dates,
            &cupid,
            (pair, None),
            ties,
            (now, settings.seed),
            false,
        );
    }
}

/// Once a gathering the host is at has settled: the most plausible pair of
/// those standing there, asked out there with a chance of its plausibility.
pub(super) fn pair_at_gathering(
    (clock, settings, tuning): (Res<Clock>, Res<RunSettings>, Res<ActiveTuning>),
    (cupid, gatherings, census): (Res<Cupid>, Res<Gatherings>, Res<Census>),
    mut dates: ResMut<TownDates>,
    people: Query<Candidate>,
) {
    let Some((host, _)) = cupid.host else {
        return;
    };
    let now = clock.now;
    let host_at = census
        .entries
        .get(host.i())
        .filter(|e| !e.walking)
        .map(|e| e.at);
    let under_way = gatherings.0.iter().find(|g| {
        Some(g.location) == host_at
            && g.starts.plus_minutes(GATHERING_SETTLE) <= now
            && now < g.ends
            && !dates.gatherings_seen.contains(&g.id)
    });
    let Some(g) = under_way else {
        return;
    };
    dates.gatherings_seen.push(g.id);
    let place = g.location;
    let here = census.at_place.get(place.i()).cloned().unwrap_or_default();
    let came = |i: RosterIdx| here.binary_search(&i).is_ok() && !census.asleep(i);
    let day = now.day_number();
    let seed = settings.seed ^ (u64::from(g.id.0) + 1).wrapping_mul(0x2545_f491);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pairs = pairings(&people, &dates, &cupid, &tuning, (day, &came));
    let Some((pair, plausible, ties)) = choose(pairs, &mut rng) else {
        return;
    };
    if rng.random::<f32>() < plausible {
        let at = Some(place);
        book(
            &mut dates,
            &cupid,
            (pair, at),
            ties,
            (now, settings.seed),
            false,
        );
    }
}

/// One of the pairs, drawn with a weight that grows steeply with how
/// plausible it is: the likeliest pair is asked most often, but not every
/// run (a town where the same two date in every seed is canned).
fn choose(mut pairs: Vec<Pairing>, rng: &mut ChaCha8Rng) -> Option<Pairing> {
    let weight = |p: &Pairing| p.1 * p.1;
    let total: f32 = pairs.iter().map(weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut left = rng.random::<f32>() * total;
    let i = pairs
        .iter()
        .position(|p| {
            left -= weight(p);
            left <= 0.0
        })
        .unwrap_or(pairs.len() - 1);
    Some(pairs.swap_remove(i))
}

/// How much an age gap makes a pair less plausible: none up to 8 years,
/// then less and less (a 30-year gap counts a fifth).
fn age_fit(a: u32, b: u32) -> f32 {
    let gap = a.abs_diff(b) as f32;
    (1.0 - (gap - 8.0).max(0.0) / 27.5).clamp(0.2, 1.0)
}

/// Every pair a date suits among those `eligible`, in roster order, with
/// how plausible it is (0–1) and their ties.
fn pairings(
    people: &Query<Candidate>,
    dates: &TownDates,
    cupid: &Cupid,
    tuning: &ActiveTuning,
    (day, eligible): (i64, &dyn Fn(RosterIdx) -> bool),
) -> Vec<Pairing> {
    let host = cupid.host.map(|(h, _)| h);
    let adult = |p: &Persona| p.0.age >= crate::cupid::ADULT_AGE;
    let mut by_idx: Vec<Option<Candidate>> = Vec::new();
    for c in people.iter() {
        let i = c.0.idx.i();
        if by_idx.len() <= i {
            by_idx.resize(i + 1, None);
        }
        by_idx[i] = Some(c);
    }
    let mut found: Vec<Pairing> = Vec::new();
    for &(me, persona, ties) in by_idx.iter().flatten() {
        let a = me.idx;
        if Some(a) == host || !adult(persona) || dates.dating(a) || !eligible(a) {
            continue;
        }
        for t in ties.iter().filter(|t| datable(t.kind, t.strength)) {
            let b = t.with_idx;
            let Some(Some((_, other, back))) = by_idx.get(b.i()) else {
                continue;
            };
            let Some(back) = back.by_idx(a).filter(|r| datable(r.kind, r.strength)) else {
                continue;
            };
            if b <= a || Some(b) == host || !adult(other) || dates.dating(b) || !eligible(b) {
                continue;
            }
            if dated_lately(dates, [a, b], day)
                || crate::cupid::refusal(&persona.0, &other.0).is_some()
            {
                continue;
            }
            let r = &tuning.social.relationship;
            let (fit, _) = analysis::compatibility(r, &persona.0.personality, &other.0.personality);
            let plausible =
                ((t.strength + back.strength) / 200.0 * fit * age_fit(persona.0.age, other.0.age))
                    .clamp(0.0, 1.0);
            let ties = [Some((t.kind, t.strength)), Some((back.kind, back.strength))];
            found.push(((a, b), plausible, ties));
        }
    }
    found.sort_by_key(|p| p.0);
    found
}

/// Someone one might date: known, not family or a workmate, and liked enough.
fn datable(kind: RelationKind, strength: f32) -> bool {
    matches!(
        kind,
        RelationKind::Acquaintance | RelationKind::Friend | RelationKind::CloseFriend
    ) && strength >= MIN_STRENGTH
}

/// Whether the two had a date in the last days.
fn dated_lately(dates: &TownDates, pair: [RosterIdx; 2], day: i64) -> bool {
    dates
        .past
        .iter()
        .any(|(p, d)| (p == &pair || p == &[pair[1], pair[0]]) && day - d < REPEAT_AFTER_DAYS)
}
