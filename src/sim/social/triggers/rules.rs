//! The trigger rules, in priority order: pairs the player asked for,
//! appointments due, staff greeting customers, the lonely approaching
//! someone, and chance meetings of residents standing near each other. Each
//! takes the residents it pairs out of the step's pool.

use bevy::prelude::Vec2;
use rand::RngExt;

use super::grid::{Grid, Placed, RollClock};
use super::{CrowdView, Encounter};
use crate::scenario::{LocIdx, WorkRole};
use crate::sim::residents::roster::RosterIdx;
use crate::sim::social::analysis::{self, Stage};
use crate::sim::social::meetings::MeetingStatus;
use crate::sim::social::message::Trigger;

/// Staff greet a customer who comes back at most once in this many game
/// seconds (a regular is welcomed at lunch and again at dinner): serving
/// regulars all day is not a conversation each time.
const GREET_AGAIN_SECONDS: i64 = 6 * 3600;
/// Staff greet one who came in within this long (「来啦！」 is not said to
/// one who has sat there all afternoon).
const GREET_WITHIN_SECONDS: i64 = 30 * 60;

/// One who came to talk with someone settles in this long before going up
/// to them.
const SEEK_AFTER_MINUTES: i64 = 15;

/// An organiser addresses the guests within this many minutes of the start.
const ADDRESS_WITHIN: i64 = 60;

/// One step's pass: who is taken, and the encounters found so far.
pub(super) struct Pass<'a, 'c> {
    pub(super) cx: &'a CrowdView<'c>,
    pub(super) taken: &'a mut Vec<bool>,
    pub(super) out: Vec<Encounter>,
}

impl Pass<'_, '_> {
    /// Takes both out of this step's pool and records the encounter.
    fn pair_up(&mut self, a: RosterIdx, b: RosterIdx, trigger: Trigger) -> &mut Encounter {
        self.taken[a.i()] = true;
        self.taken[b.i()] = true;
        self.out.push(Encounter {
            a,
            b,
            trigger,
            interrupts: Vec::new(),
            meeting: None,
            crowd: Vec::new(),
        });
        self.out.last_mut().expect("just pushed")
    }

    /// Pairs the player asked for (from the inspector), when both stand at
    /// one place, awake and free.
    pub(super) fn requested(&mut self, requested: &[(RosterIdx, RosterIdx)]) {
        let cx = self.cx;
        for &(a, b) in requested {
            let (Some((pa, _)), Some((pb, _))) = (cx.awake_here(a), cx.awake_here(b)) else {
                continue;
            };
            let busy = |i: RosterIdx| self.taken[i.i()] || cx.state.talking[i.i()].is_some();
            if a == b || pa != pb || busy(a) || busy(b) {
                continue;
            }
            self.pair_up(a, b, Trigger::Requested);
        }
    }

    /// Rule 1: Appointments: both at the place around the hour; they cut short any other talk.
    pub(super) fn appointments(&mut self) {
        let cx = self.cx;
        let (now, a) = (cx.now, &cx.tuning.appointments);
        for m in cx.meetings.list.iter().filter(|m| {
            m.status == MeetingStatus::Pending
                && now.0 >= m.at.0 - 30 * 60
                && now.0 <= m.at.0 + a.wait_minutes as i64 * 60
        }) {
            let here = |i: RosterIdx| cx.awake_here(i).is_some_and(|(at, _)| at == m.place);
            if !here(m.a) || !here(m.b) || self.taken[m.a.i()] || self.taken[m.b.i()] {
                continue;
            }
            let busy = |i: RosterIdx| cx.state.talking[i.i()];
            let together = busy(m.a).is_some() && busy(m.a) == busy(m.b);
            let interrupts: Vec<u64> = if together {
                Vec::new()
            } else {
                [busy(m.a), busy(m.b)].into_iter().flatten().collect()
            };
            // The one who waited there opens: 「你来啦，我还怕你忘了」 is not
            // said by the one who has just come.
            let since = |i: RosterIdx| cx.awake_here(i).map(|(_, t)| t);
            let (a, b) = match since(m.b) < since(m.a) {
                true => (m.b, m.a),
                false => (m.a, m.b),
            };
            let e = self.pair_up(a, b, Trigger::Appointment);
            e.interrupts = interrupts;
            e.meeting = Some(m.id);
        }
    }

    /// Rule 1b: In the first hour of a gathering, its organiser, standing
    /// there, addresses the guests around (a group chat up to the group
    /// size, the nearest first): once per gathering, with at least two guests.
    pub(super) fn addresses(&mut self, settled: &[(RosterIdx, LocIdx)]) {
        let cx = self.cx;
        for g in cx.gatherings {
            let opening = g.starts <= cx.now && cx.now < g.starts.plus_minutes(ADDRESS_WITHIN);
            if !opening || cx.state.addressed.contains(&g.id) {
                continue;
            }
            let Some(host) = cx.roster.idx(&g.organiser) else {
                continue;
            };
            let here = |i: RosterIdx, at: LocIdx| at == g.location && !self.taken[i.i()];
            if !settled.iter().any(|&(i, at)| i == host && here(i, at)) {
                continue;
            }
            let dist = |o: RosterIdx| cx.pos(host).distance_squared(cx.pos(o));
            let mut guests: Vec<RosterIdx> = settled
                .iter()
                .filter(|&&(i, at)| i != host && here(i, at))
                .map(|&(i, _)| i)
                .collect();
            if guests.len() < 2 {
                continue;
            }
            guests.sort_by(|&x, &y| dist(x).total_cmp(&dist(y)).then(x.cmp(&y)));
            guests.truncate((cx.tuning.group.max_size as usize).saturating_sub(1).max(2));
            for &guest in &guests[1..] {
                self.taken[guest.i()] = true;
            }
            let e = self.pair_up(host, guests[0], Trigger::Gathering);
            e.crowd = guests[1..].to_vec();
        }
    }

    /// Rule 2: Staff on shift greet each customer once per visit (the one there longest first).
    pub(super) fn greetings(&mut self) {
        let cx = self.cx;
        for &s in &cx.census.greeters {
            let Some((place, role)) = cx.person(s).and_then(|p| p.staff) else {
                continue;
            };
            if self.taken[s.i()] || cx.state.talking[s.i()].is_some() {
                continue;
            }
            if let Some(c) = self.customer(s, place, role) {
                self.pair_up(s, c, Trigger::Work);
            }
        }
    }

    /// The customer staff `s` greets next at `place`: free, not working
    /// there (unless named on its list), on its list, come in lately, and
    /// not greeted this visit nor in the last six hours. A waiter does not
    /// take the order of one who does not eat (the willow spirit).
    fn customer(&self, s: RosterIdx, place: LocIdx, role: WorkRole) -> Option<RosterIdx> {
        let cx = self.cx;
        let greets = cx.lookup.greets(s);
        let taken = &self.taken;
        cx.census
            .at_place
            .get(place.i())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&c| c != s && !taken[c.i()] && cx.state.talking[c.i()].is_none())
            .filter(|&c| {
                // Colleagues are not customers, unless named on the list (a
                // teacher's students study where the teacher works).
                let named = greets.contains(cx.roster.id_of(c));
                named || cx.person(c).is_some_and(|p| p.workplace != Some(place))
            })
            .filter(|&c| greets.is_empty() || greets.contains(cx.roster.id_of(c)))
            .filter(|&c| role != WorkRole::Waiter || cx.census.eats(c))
            .filter_map(|c| {
                let (at, since) = cx.awake_here(c)?;
                // One sitting here since before the shift (or a long talk)
                // is not welcomed in as if just come.
                if cx.now.0 - since.0 > GREET_WITHIN_SECONDS {
                    return None;
                }
                let greeted = cx
                    .state
                    .greeted
                    .get(&(c, place))
                    .is_some_and(|&t| t >= since || cx.now.0 - t.0 < GREET_AGAIN_SECONDS);
                (at == place && !greeted).then_some((since, c))
            })
            .min()
            .map(|(_, c)| c)
    }

    /// Rule 3: Those who came to talk with someone (a plan "Chat with X")
    /// go up to them once both are there and free, however much company
    /// they have had; the lonely seek company where they are: friends
    /// first, then acquaintances, then anyone. Their own ties are scanned
    /// first, so the crowd is only searched when nobody they know is free.
    pub(super) fn approach(&mut self, settled: &[(RosterIdx, LocIdx)]) {
        let cx = self.cx;
        for &(s, place) in settled {
            let Some(me) = cx.person(s) else { continue };
            if self.taken[s.i()] {
                continue;
            }
            let sought = me
                .seeking
                .filter(|_| self.settled_in(s))
                .filter(|&o| self.available(s, o, place));
            let lonely = me.social_need > cx.tuning.approach_need;
            if let Some(o) = sought.or_else(|| lonely.then(|| self.company(s, place)).flatten()) {
                self.pair_up(s, o, Trigger::Approach);
            }
        }
    }

    /// Whether `s` has stood here long enough to look round for whom it came
    /// to see (meanwhile they may fall to talking by themselves).
    fn settled_in(&self, s: RosterIdx) -> bool {
        let cx = self.cx;
        cx.awake_here(s)
            .is_some_and(|(_, since)| since.minutes_until(cx.now) >= SEEK_AFTER_MINUTES)
    }

    /// Whether `o` is there at `place` for `s` to go up to: awake, free, not
    /// taken this step, and the pair not just done talking.
    fn available(&self, s: RosterIdx, o: RosterIdx, place: LocIdx) -> bool {
        let (cx, now) = (self.cx, self.cx.now);
        o != s
            && !self.taken[o.i()]
            && cx.state.free(o, now)
            && cx.awake_here(o).is_some_and(|(at, _)| at == place)
            && cx.state.pair_ready(s, o, now)
    }

    /// Whom `s` approaches at `place`: the closest tie that is free there,
    /// else the nearest free resident.
    fn company(&self, s: RosterIdx, place: LocIdx) -> Option<RosterIdx> {
        let cx = self.cx;
        let n = cx.roster.len();
        let available = |o: RosterIdx| self.available(s, o, place);
        let dist = |o: RosterIdx| cx.pos(s).distance_squared(cx.pos(o));
        let stage = |strength: f32| Stage::of(strength, &cx.tuning.relationship);
        let known = cx
            .lookup
            .ties(s)
            .into_iter()
            .flat_map(|t| t.iter())
            .filter(|r| ((r.with_idx).i()) < n && available(r.with_idx))
            .max_by(|x, y| {
                stage(x.strength)
                    .cmp(&stage(y.strength))
                    .then(x.strength.total_cmp(&y.strength))
                    .then(dist(y.with_idx).total_cmp(&dist(x.with_idx)))
                    .then(y.with_idx.cmp(&x.with_idx))
            })
            .map(|r| r.with_idx);
        known.or_else(|| {
            cx.census.at_place[place.i()]
                .iter()
                .copied()
                .filter(|&o| available(o))
                .min_by(|&x, &y| dist(x).total_cmp(&dist(y)).then(x.cmp(&y)))
        })
    }

    /// Rule 4: Chance meetings of residents standing near each other. Every
    /// pair's draw is its own (a hash of the step's key and the pair), so
    /// whom each resident would meet is found on all threads at once; then,
    /// in roster order, each takes the first of those still free.
    pub(super) fn chance_meetings(
        &mut self,
        settled: &[(RosterIdx, LocIdx)],
        near: &mut Vec<Near>,
        grid: &mut Grid<Near>,
        rng: &mut rand_chacha::ChaCha8Rng,
    ) {
        let cx = self.cx;
        let p = &cx.tuning.proximity;
        near.clear();
        near.extend(
            settled
                .iter()
                .filter(|&&(i, _)| !self.taken[i.i()])
                .map(|&(i, _)| {
                    let x = cx.person(i).expect("settled");
                    Near {
                        idx: i,
                        pos: cx.pos(i),
                        extraversion: x.extraversion,
                        social_need: x.social_need,
                    }
                }),
        );
        grid.fill(p.distance, near);
        let roll = Roll {
            cx,
            grid,
            clock: RollClock::new(cx.now, cx.step_minutes, p.reroll_minutes),
            best_stage: best_stage(&p.modifiers),
            key: rng.random(),
        };
        let found = crate::sim::par_chunks(near, PARALLEL_ROLLS, |part| {
            let mut out = Vec::new();
            for a in part {
                roll.meets(a, &mut out);
            }
            out
        });
        for (a, b) in found.into_iter().flatten() {
            if !self.taken[a.i()] && !self.taken[b.i()] {
                self.pair_up(a, b, Trigger::Proximity);
            }
        }
    }
}

/// From this many residents standing about, the chance-meeting rolls are
/// shared out over the pool's threads.
const PARALLEL_ROLLS: usize = 4096;

/// The stage most likely to talk: a draw above its chance fails for every pair.
fn best_stage(m: &crate::scenario::StageValues) -> Stage {
    [
        Stage::Stranger,
        Stage::Acquaintance,
        Stage::Friend,
        Stage::CloseFriend,
    ]
    .into_iter()
    .max_by(|x, y| x.pick(m).total_cmp(&y.pick(m)))
    .expect("four stages")
}

/// A resident standing about, with what its chance of a meeting reads of
/// it beside its position: the rolls go through a crowd's neighbours by the
/// hundred, and a lookup in the census for each would be a cache miss each.
#[derive(Debug, Clone, Copy)]
pub(super) struct Near {
    idx: RosterIdx,
    pos: Vec2,
    extraversion: f32,
    social_need: f32,
}

impl Placed for Near {
    fn pos(&self) -> Vec2 {
        self.pos
    }
}

/// One step's chance-meeting rolls: read-only, so they run on any thread.
struct Roll<'a, 'c> {
    cx: &'a CrowdView<'c>,
    grid: &'a Grid<Near>,
    clock: RollClock,
    best_stage: Stage,
    /// The step's draw from the social stream; each pair's draw derives from it.
    key: u64,
}

impl Roll<'_, '_> {
    /// Everyone `a` (at `pa`) would meet among its higher-indexed neighbours,
    /// if it rolls this step, in the grid's order; the more outgoing of two
    /// opens.
    fn meets(&self, x: &Near, out: &mut Vec<(RosterIdx, RosterIdx)>) {
        let (a, pa) = (x.idx, x.pos);
        if !self.clock.rolls(a) {
            return;
        }
        let cx = self.cx;
        let p = &cx.tuning.proximity;
        let d2 = p.distance * p.distance;
        // What depends on `a` alone, once: a party where it stands.
        let party = cx.gathering_at(cx.census.entries[a.i()].at).is_some();
        let (boost, least_need) = if party {
            (cx.tuning.gathering_talk, 50.0)
        } else {
            (1.0, 0.0)
        };
        for cellmates in self.grid.around(pa) {
            for y in cellmates {
                let b = y.idx;
                if b <= a || pa.distance_squared(y.pos) > d2 {
                    continue;
                }
                let chance = |stage| {
                    let need = (x.social_need.max(least_need), y.social_need.max(least_need));
                    let p = analysis::proximity_chance(
                        cx.tuning,
                        stage,
                        (x.extraversion, y.extraversion),
                        need,
                    );
                    (p * boost).min(1.0)
                };
                // Most draws fail even for the closest tie: they stop here, before
                // the ties and cooldowns (scattered in memory) are looked up.
                let draw = pair_draw(self.key, a, b);
                if draw >= chance(self.best_stage) || !cx.state.pair_ready(a, b, cx.now) {
                    continue;
                }
                if draw < chance(cx.stage(a, b)) * self.coworkers(a, b) {
                    out.push(if y.extraversion > x.extraversion {
                        (b, a)
                    } else {
                        (a, b)
                    });
                }
            }
        }
    }
}

impl Roll<'_, '_> {
    /// [`crate::scenario::ProximityTuning::coworkers`] for two who work
    /// where they both stand, else 1.
    fn coworkers(&self, a: RosterIdx, b: RosterIdx) -> f32 {
        let cx = self.cx;
        let at_work = |i: RosterIdx| {
            let work = cx.census.traits.get(i.i()).copied().flatten()?.work?.0;
            (cx.census.entries[i.i()].at == work).then_some(work)
        };
        match (at_work(a), at_work(b)) {
            (Some(x), Some(y)) if x == y => cx.tuning.proximity.coworkers,
            _ => 1.0,
        }
    }
}

/// A uniform draw in [0, 1) for the pair `a`, `b` under the step's `key`
/// (SplitMix64's finaliser: every bit of the input moves every bit out).
fn pair_draw(key: u64, a: RosterIdx, b: RosterIdx) -> f32 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let h = mix(key ^ mix(((a.0 as u64) << 32) | b.0 as u64));
    // The top 24 bits: every f32 in [0, 1) with that spacing.
    (h >> 40) as f32 / (1u32 << 24) as f32
}
