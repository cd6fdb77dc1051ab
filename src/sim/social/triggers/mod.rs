//! Who starts talking to whom this step. In priority order: appointments due,
//! staff greeting customers, lonely residents approaching someone, and chance
//! meetings of residents standing near each other (found through a uniform
//! grid, so the pass stays linear in the number of residents).

pub(in crate::sim::social) mod grid;
mod open;
mod rules;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;

pub use grid::RollClock;
pub(super) use open::start_conversations;

use super::analysis::{self, Stage};
use super::meetings::Meetings;
use super::message::{Talking, Trigger};
use super::{SocialRng, SocialState};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, LocIdx, ResidentId, SocialTuning, WorkRole};
use crate::sim::clock::Clock;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{ActivityKind, Persona, Relationships, Resident};
use crate::sim::town::{ActiveTuning, Gatherings};
use grid::Grid;
use rules::Pass;

/// Notes who has stood where since when.
pub(super) fn presence(
    clock: Res<Clock>,
    census: Res<Census>,
    roster: Res<Roster>,
    mut state: ResMut<SocialState>,
) {
    let now = clock.now;
    state.resize(roster.len());
    for (i, e) in census.entries.iter().enumerate() {
        state.stood[i] = match state.stood[i] {
            _ if e.walking => None,
            Some((at, since)) if at == e.at => Some((at, since)),
            _ => Some((e.at, now)),
        };
    }
    if now.day_number() != state.today {
        state.today = now.day_number();
        state.started_today = 0;
    }
    // Expired cooldowns are dropped now and then, not every step.
    if clock.steps.is_multiple_of(60) {
        state.pair_ready.retain(|_, t| *t > now);
    }
}

/// Two residents to bring together, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Encounter {
    /// `a` opens.
    pub(crate) a: RosterIdx,
    /// Who is approached.
    pub(crate) b: RosterIdx,
    /// Why.
    pub(crate) trigger: Trigger,
    /// Conversations this one cuts short.
    pub(crate) interrupts: Vec<u64>,
    /// The appointment being kept.
    pub(crate) meeting: Option<u32>,
    /// Others who take part from the start (the guests an organiser addresses).
    pub(crate) crowd: Vec<RosterIdx>,
}

/// One resident as the trigger pass sees it.
#[derive(Debug, Clone, Copy)]
pub struct PersonView {
    /// Big Five extraversion, 0–100.
    pub(crate) extraversion: f32,
    /// How much it wants company (100 − the `social` need).
    pub(crate) social_need: f32,
    /// Working its shift at its workplace, with a greeting role.
    pub(crate) staff: Option<(LocIdx, WorkRole)>,
    /// Where the resident works (colleagues are not greeted as customers there).
    pub(crate) workplace: Option<LocIdx>,
    /// Whom it came to talk with (its plan names them).
    pub(crate) seeking: Option<RosterIdx>,
}

/// What the pass reads of a resident only when a pair gets that far: ties and
/// greeting lists sit scattered in memory, so nobody's are read every step.
pub trait Lookup {
    /// The resident's ties.
    fn ties(&self, idx: RosterIdx) -> Option<&Relationships>;
    /// Whom staff greet (empty: every customer).
    fn greets(&self, idx: RosterIdx) -> &[ResidentId];
}

/// Everything the trigger pass reads.
pub struct CrowdView<'a> {
    /// The step's time.
    pub(crate) now: GameTime,
    /// Game minutes per step.
    pub(crate) step_minutes: u32,
    /// The social tuning.
    pub(crate) tuning: &'a SocialTuning,
    /// Where everyone is.
    pub(crate) census: &'a Census,
    /// Every resident.
    pub(crate) roster: &'a Roster,
    /// Who is talking, and who talked when.
    pub(crate) state: &'a SocialState,
    /// Appointments still to come.
    pub(crate) meetings: &'a Meetings,
    /// Ties and greeting lists, read on demand.
    pub(crate) lookup: &'a (dyn Lookup + Sync),
    /// The scenario's gatherings.
    pub(crate) gatherings: &'a [Gathering],
}

type PeopleQuery<'w, 's> =
    Query<'w, 's, (&'static Resident, &'static Persona, &'static Relationships)>;

/// [`Lookup`] through the residents' components.
struct QueryLookup<'a, 'w, 's> {
    roster: &'a Roster,
    people: &'a PeopleQuery<'w, 's>,
}

impl Lookup for QueryLookup<'_, '_, '_> {
    fn ties(&self, idx: RosterIdx) -> Option<&Relationships> {
        let e = *self.roster.entities().get(idx.i())?;
        self.people.get(e).ok().map(|(_, _, r)| r)
    }

    fn greets(&self, idx: RosterIdx) -> &[ResidentId] {
        let e = self.roster.entities().get(idx.i());
        e.and_then(|&e| self.people.get(e).ok())
            .and_then(|(_, p, _)| p.work.as_ref())
            .map_or(&[], |w| w.greets.as_slice())
    }
}

impl CrowdView<'_> {
    /// From the census: dense, in roster order.
    pub(super) fn person(&self, i: RosterIdx) -> Option<PersonView> {
        let t = (*self.census.traits.get(i.i())?)?;
        let e = self.census.entries.get(i.i())?;
        let working_at =
            (e.underway && !e.walking && e.kind == Some(ActivityKind::Work)).then_some(e.at);
        let staff = t.work.and_then(|(place, role)| {
            let role = role?;
            (working_at == Some(place)).then_some((place, role))
        });
        Some(PersonView {
            extraversion: t.extraversion,
            social_need: analysis::social_need(e.social),
            staff,
            workplace: t.work.map(|w| w.0),
            seeking: e.seeking,
        })
    }

    /// `a`'s view of `b`.
    pub(super) fn strength(&self, a: RosterIdx, b: RosterIdx) -> f32 {
        self.lookup
            .ties(a)
            .and_then(|t| t.by_idx(b))
            .map_or(0.0, |r| r.strength)
    }

    /// The pair's stage, from the mean of both views.
    pub(super) fn stage(&self, a: RosterIdx, b: RosterIdx) -> Stage {
        let s = (self.strength(a, b) + self.strength(b, a)) / 2.0;
        Stage::of(s, &self.tuning.relationship)
    }

    pub(super) fn awake_here(&self, i: RosterIdx) -> Option<(LocIdx, GameTime)> {
        // Asleep, or on a date: not there for anyone to talk to.
        if self.census.asleep(i) || self.state.engaged(i, self.now) {
            return None;
        }
        self.state.stood.get(i.i()).copied().flatten()
    }

    /// Standing long enough, awake, and free.
    pub(super) fn settled(&self, i: RosterIdx) -> Option<LocIdx> {
        let (at, since) = self.awake_here(i)?;
        let long = since.0 + self.tuning.proximity.seconds as i64 <= self.now.0;
        (long && self.state.free(i, self.now)).then_some(at)
    }

    pub(super) fn pos(&self, i: RosterIdx) -> Vec2 {
        self.census.entries[i.i()].pos
    }

    /// The gathering under way at `place` now, if any.
    pub(super) fn gathering_at(&self, place: LocIdx) -> Option<&Gathering> {
        self.gatherings
            .iter()
            .find(|g| g.under_way_at(place, self.now))
    }
}

/// This step's encounters.
#[derive(Debug, Default)]
pub struct Encounters {
    /// In the order found.
    pub(crate) found: Vec<Encounter>,
}

/// Finds this step's encounters. Reads only; `rng` decides the chance meetings.
pub fn plan_encounters(cx: &CrowdView, rng: &mut rand_chacha::ChaCha8Rng) -> Encounters {
    plan_with(cx, &[], rng, &mut Scratch::default())
}

/// The pass's working buffers, kept from step to step: allocated afresh, a
/// large town's would be new pages from the system every step.
#[derive(Default)]
pub(super) struct Scratch {
    taken: Vec<bool>,
    settled: Vec<(RosterIdx, LocIdx)>,
    near: Vec<rules::Near>,
    grid: Grid<rules::Near>,
}

/// From this many residents, who stands settled is looked through on all threads.
const PARALLEL_SETTLED: usize = 4096;

/// [`plan_encounters`], with requested pairs (roster idx) first.
fn plan_with(
    cx: &CrowdView,
    requested: &[(RosterIdx, RosterIdx)],
    rng: &mut rand_chacha::ChaCha8Rng,
    scratch: &mut Scratch,
) -> Encounters {
    let n = cx.roster.len();
    let Scratch {
        taken,
        settled,
        near,
        grid,
    } = scratch;
    taken.clear();
    taken.resize(n, false);
    // Who stands settled, awake and free (where), in roster order: one pass over
    // everyone; the approach and chance-meeting passes visit only these.
    settled.clear();
    let parts = crate::sim::par_ranges(n, PARALLEL_SETTLED, |range| {
        range
            .map(|i| RosterIdx(i as u32))
            .filter_map(|i| Some((i, cx.settled(i)?)))
            .filter(|&(i, _)| cx.census.traits.get(i.i()).is_some_and(Option::is_some))
            .collect::<Vec<_>>()
    });
    settled.extend(parts.into_iter().flatten());
    let mut pass = Pass {
        cx,
        taken,
        out: Vec::new(),
    };
    pass.requested(requested);
    pass.appointments();
    pass.addresses(settled);
    pass.greetings();
    pass.approach(settled);
    pass.chance_meetings(settled, near, grid, rng);
    Encounters { found: pass.out }
}

/// What [`preview_encounters`] reads from a world.
pub type TriggerParams<'w, 's> = (
    Res<'w, Clock>,
    Res<'w, ActiveTuning>,
    Res<'w, Census>,
    Res<'w, Roster>,
    Res<'w, SocialState>,
    Res<'w, Meetings>,
    Res<'w, SocialRng>,
    PeopleQuery<'w, 's>,
    Res<'w, Gatherings>,
);

/// Runs the trigger pass on a world without changing it; returns how many
/// encounters it found (for benchmarks).
pub fn preview_encounters(
    world: &mut World,
    params: &mut SystemState<TriggerParams<'static, 'static>>,
) -> usize {
    let Ok((clock, tuning, census, roster, state, meetings, rng, q, gatherings)) =
        params.get(world)
    else {
        return 0;
    };
    let lookup = QueryLookup {
        roster: &roster,
        people: &q,
    };
    let cx = CrowdView {
        now: clock.now,
        step_minutes: tuning.step_minutes,
        tuning: &tuning.social,
        census: &census,
        roster: &roster,
        state: &state,
        meetings: &meetings,
        lookup: &lookup,
        gatherings: &gatherings,
    };
    let mut rng = rng.0.clone();
    plan_encounters(&cx, &mut rng).found.len()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::scenario::RelationKind;
    use crate::sim::residents::{CensusEntry, Relationship, Traits};
    use crate::sim::social::meetings::MeetingStatus;

    /// A hand-built crowd: residents standing at places, at positions, since a time.
    struct World0 {
        now: GameTime,
        tuning: SocialTuning,
        census: Census,
        roster: Roster,
        state: SocialState,
        meetings: Meetings,
        ties: Vec<Relationships>,
        social_need: Vec<f32>,
        staff: Vec<Option<(LocIdx, WorkRole, Vec<ResidentId>)>>,
        gatherings: Vec<Gathering>,
        /// Whether each eats (all do unless a test says otherwise).
        eats: Vec<bool>,
    }

    impl World0 {
        fn new(tuning: SocialTuning) -> Self {
            Self {
                now: GameTime(100_000),
                tuning,
                census: Census::default(),
                roster: Roster::default(),
                state: SocialState::default(),
                meetings: Meetings::default(),
                ties: Vec::new(),
                social_need: Vec::new(),
                staff: Vec::new(),
                gatherings: Vec::new(),
                eats: Vec::new(),
            }
        }

        /// Adds a resident standing at `place`, `pos`, for `seconds`.
        fn add(&mut self, place: u32, pos: (f32, f32), seconds: i64) -> RosterIdx {
            let i = self.roster.push(
                ResidentId::new(&format!("r{}", self.roster.len())),
                format!("居民{}", self.roster.len()),
                Entity::PLACEHOLDER,
            );
            self.census.entries.push(CensusEntry {
                at: LocIdx(place),
                pos: Vec2::new(pos.0, pos.1),
                walking: false,
                kind: None,
                underway: false,
                social: 50.0,
                energy: 50.0,
                seeking: None,
                until: crate::base::time::GameTime(0),
            });
            while self.census.at_place.len() <= place as usize {
                self.census.at_place.push(Vec::new());
            }
            self.census.at_place[place as usize].push(i);
            self.state.resize(self.roster.len());
            self.state.stood[i.i()] = Some((LocIdx(place), GameTime(self.now.0 - seconds)));
            self.ties.push(Relationships::default());
            self.social_need.push(50.0);
            self.staff.push(None);
            self.eats.push(true);
            i
        }

        fn tie(&mut self, a: RosterIdx, b: RosterIdx, strength: f32) {
            for (x, y) in [(a, b), (b, a)] {
                *self.ties[x.i()].entry(&self.roster.id_of(y).clone(), y) = Relationship {
                    with: self.roster.id_of(y).clone(),
                    with_idx: y,
                    kind: RelationKind::Acquaintance,
                    strength,
                    impression: Default::default(),
                    interactions: 0,
                    last_interaction: Default::default(),
                    met: Default::default(),
                    last_talk: None,
                    talk_days: Default::default(),
                };
            }
        }

        fn run(&self) -> Encounters {
            // Staff stand at their workplace, working; everyone has extraversion 50.
            let mut census = self.census.clone();
            census.traits = (0..self.roster.len())
                .map(|i| {
                    Some(Traits {
                        extraversion: 50.0,
                        work: self.staff[i].as_ref().map(|(p, r, _)| (*p, Some(*r))),
                        home: crate::scenario::LocIdx(0),
                        eats: self.eats[i],
                    })
                })
                .collect();
            census.greeters = self
                .roster
                .indices()
                .filter(|i| self.staff[i.i()].is_some())
                .collect();
            for (i, e) in census.entries.iter_mut().enumerate() {
                e.social = 100.0 - self.social_need[i];
                if self.staff[i].is_some() {
                    (e.kind, e.underway) = (Some(ActivityKind::Work), true);
                }
            }
            let cx = CrowdView {
                now: self.now,
                step_minutes: 1,
                tuning: &self.tuning,
                census: &census,
                roster: &self.roster,
                state: &self.state,
                meetings: &self.meetings,
                lookup: self,
                gatherings: &self.gatherings,
            };
            plan_encounters(&cx, &mut ChaCha8Rng::seed_from_u64(1))
        }
    }

    impl Lookup for World0 {
        fn ties(&self, idx: RosterIdx) -> Option<&Relationships> {
            self.ties.get(idx.i())
        }
        fn greets(&self, idx: RosterIdx) -> &[ResidentId] {
            self.staff[idx.i()].as_ref().map_or(&[], |s| s.2.as_slice())
        }
    }

    /// Chance meetings always happen, every step (to test the gates, not the odds).
    fn certain() -> SocialTuning {
        let mut t = SocialTuning::default();
        t.proximity.base_probability = 1.0;
        t.proximity.modifiers.stranger = 10.0;
        t.proximity.reroll_minutes = 1;
        t
    }

    fn pairs(e: &Encounters) -> Vec<(RosterIdx, RosterIdx, Trigger)> {
        e.found.iter().map(|x| (x.a, x.b, x.trigger)).collect()
    }

    #[test]
    fn each_pair_rolls_once_per_window_whatever_the_step() {
        for (step, every) in [(1, 30), (5, 30), (7, 30), (1, 1), (60, 30), (30, 30)] {
            for (a, b) in [(0, 1), (5, 900), (42, 7)] {
                let minutes = 24 * 60;
                let rolls = (0..minutes / step)
                    .filter(|k| {
                        RollClock::new(GameTime((k * step) as i64 * 60), step, every)
                            .rolls(RosterIdx(a.min(b)))
                    })
                    .count() as u32;
                let want = if step >= every {
                    minutes / step
                } else {
                    minutes / every
                };
                assert!(
                    rolls.abs_diff(want) <= 1,
                    "step {step}, every {every}: {rolls} rolls, want {want}"
                );
            }
        }
    }

    #[test]
    fn proximity_needs_distance_time_and_freedom() {
        let mut w = World0::new(certain());
        let a = w.add(0, (0.0, 0.0), 60);
        let b = w.add(0, (40.0, 0.0), 60);
        assert_eq!(pairs(&w.run()), [(a, b, Trigger::Proximity)]);
        // Too far apart.
        w.census.entries[b.i()].pos = Vec2::new(51.0, 0.0);
        assert!(w.run().found.is_empty());
        w.census.entries[b.i()].pos = Vec2::new(30.0, 30.0);
        assert_eq!(w.run().found.len(), 1);
        // Not long enough (30 s).
        w.state.stood[b.i()] = Some((LocIdx(0), GameTime(w.now.0 - 20)));
        assert!(w.run().found.is_empty());
        w.state.stood[b.i()] = Some((LocIdx(0), GameTime(w.now.0 - 30)));
        assert_eq!(w.run().found.len(), 1);
        // Talked within the cooldown; rolled lately; resting; talking; asleep.
        w.state.pair_ready.insert((a, b), GameTime(w.now.0 + 1));
        assert!(w.run().found.is_empty());
        w.state.pair_ready.clear();
        w.state.pause_until[a.i()] = GameTime(w.now.0 + 60);
        assert!(w.run().found.is_empty());
        w.state.pause_until[a.i()] = w.now;
        w.state.talking[b.i()] = Some(9);
        assert!(w.run().found.is_empty());
        w.state.talking[b.i()] = None;
        w.census.entries[b.i()].kind = Some(ActivityKind::Sleep);
        w.census.entries[b.i()].underway = true;
        assert!(w.run().found.is_empty());
    }

    #[test]
    fn the_grid_pairs_only_neighbours_and_misses_none() {
        use rand::RngExt;
        let mut w = World0::new(certain());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..800 {
            let pos = (rng.random_range(0.0..2000.0), rng.random_range(0.0..2000.0));
            w.add(0, pos, 60);
        }
        let found = w.run().found;
        let mut paired = vec![false; 800];
        for e in &found {
            let d = w.census.entries[e.a.i()]
                .pos
                .distance(w.census.entries[e.b.i()].pos);
            assert!(d <= 50.0, "paired at {d}");
            paired[e.a.i()] = true;
            paired[e.b.i()] = true;
        }
        // With certain odds the pass is maximal: no two unpaired residents are in range.
        for i in 0..800 {
            for j in i + 1..800 {
                let d = w.census.entries[i].pos.distance(w.census.entries[j].pos);
                assert!(
                    paired[i] || paired[j] || d > 50.0,
                    "{i} and {j} at {d} were left alone"
                );
            }
        }
        assert!(found.len() > 100, "{}", found.len());
    }

    #[test]
    fn the_lonely_approach_friends_first() {
        let mut w = World0::new(SocialTuning::default());
        let lonely = w.add(0, (0.0, 0.0), 60);
        let stranger = w.add(0, (5.0, 0.0), 60);
        let acquaintance = w.add(0, (70.0, 0.0), 60);
        let friend = w.add(0, (90.0, 0.0), 60);
        let _elsewhere = w.add(1, (0.0, 0.0), 60);
        w.tie(lonely, acquaintance, 30.0);
        w.tie(lonely, friend, 65.0);
        w.social_need[lonely.i()] = 80.0;
        let first = |w: &World0| {
            pairs(&w.run())
                .into_iter()
                .find(|p| p.2 == Trigger::Approach)
        };
        assert_eq!(first(&w), Some((lonely, friend, Trigger::Approach)));
        w.state.talking[friend.i()] = Some(1);
        assert_eq!(first(&w), Some((lonely, acquaintance, Trigger::Approach)));
        w.state.talking[acquaintance.i()] = Some(1);
        assert_eq!(first(&w), Some((lonely, stranger, Trigger::Approach)));
        // Not lonely enough: no approach.
        w.social_need[lonely.i()] = 70.0;
        assert_eq!(first(&w), None);
    }

    #[test]
    fn one_who_came_to_chat_goes_up_to_that_one_after_settling_in() {
        let mut w = World0::new(SocialTuning::default());
        // Far apart (no chance meeting), content (no loneliness).
        let seeker = w.add(0, (0.0, 0.0), 20 * 60);
        let friend = w.add(0, (400.0, 0.0), 3600);
        let closer = w.add(0, (300.0, 0.0), 3600);
        w.tie(seeker, friend, 40.0);
        w.tie(seeker, closer, 70.0);
        w.social_need[seeker.i()] = 20.0;
        let approach = |w: &World0| {
            pairs(&w.run())
                .into_iter()
                .find(|p| p.2 == Trigger::Approach)
        };
        assert_eq!(approach(&w), None, "nobody sought, nobody lonely");
        w.census.entries[seeker.i()].seeking = Some(friend);
        assert_eq!(approach(&w), Some((seeker, friend, Trigger::Approach)));
        // Just arrived: settles in first (chance meetings may come first).
        w.state.stood[seeker.i()] = Some((LocIdx(0), GameTime(w.now.0 - 5 * 60)));
        assert_eq!(approach(&w), None);
        w.state.stood[seeker.i()] = Some((LocIdx(0), GameTime(w.now.0 - 20 * 60)));
        // Busy or just talked with: nobody else is taken instead.
        w.state.talking[friend.i()] = Some(1);
        assert_eq!(approach(&w), None);
        w.state.talking[friend.i()] = None;
        w.state
            .pair_ready
            .insert((seeker, friend), w.now.plus_minutes(10));
        assert_eq!(approach(&w), None);
    }

    #[test]
    fn staff_greet_each_customer_once_per_visit() {
        let mut w = World0::new(SocialTuning::default());
        let waiter = w.add(0, (0.0, 0.0), 3600);
        let guest = w.add(0, (100.0, 0.0), 10);
        w.staff[waiter.i()] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        assert_eq!(pairs(&w.run()), [(waiter, guest, Trigger::Work)]);
        // Greeted on this visit: not again.
        w.state.greeted.insert((guest, LocIdx(0)), w.now);
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
        // Nor on a visit soon after; a visit six hours later is greeted again.
        w.state.stood[guest.i()] = Some((LocIdx(0), GameTime(w.now.0 + 1)));
        w.now = GameTime(w.now.0 + 60);
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
        w.now = GameTime(w.now.0 + 6 * 3600);
        w.state.stood[guest.i()] = Some((LocIdx(0), GameTime(w.now.0 - 10)));
        assert_eq!(pairs(&w.run())[0], (waiter, guest, Trigger::Work));
        // One who has sat there for an hour is not welcomed in.
        w.state.greeted.clear();
        w.state.stood[guest.i()] = Some((LocIdx(0), GameTime(w.now.0 - 3600)));
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
        // A waiter takes no order from one who does not eat.
        w.state.stood[guest.i()] = Some((LocIdx(0), GameTime(w.now.0 - 10)));
        w.eats[guest.i()] = false;
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
        w.eats[guest.i()] = true;
        // Nor a colleague who works here (arriving for a shift).
        let mut shop = World0::new(SocialTuning::default());
        let (s2, c2) = (shop.add(0, (0.0, 0.0), 3600), shop.add(0, (10.0, 0.0), 10));
        shop.staff[s2.i()] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        shop.staff[c2.i()] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        assert!(pairs(&shop.run()).iter().all(|p| p.2 != Trigger::Work));
        // A teacher greets only her students.
        w.staff[waiter.i()] = Some((
            LocIdx(0),
            WorkRole::Teacher,
            vec![ResidentId::new("someone else")],
        ));
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
    }

    #[test]
    fn appointments_come_first_and_interrupt() {
        use super::super::meetings::Meeting;
        let mut w = World0::new(certain());
        let a = w.add(0, (0.0, 0.0), 600);
        let b = w.add(0, (200.0, 0.0), 600);
        let c = w.add(0, (10.0, 0.0), 600);
        w.state.talking[a.i()] = Some(5);
        w.state.talking[c.i()] = Some(5);
        w.meetings.list.push(Meeting {
            id: 1,
            a,
            b,
            place: LocIdx(0),
            at: w.now,
            made: GameTime(0),
            keep: [true, true],
            showed: [false; 2],
            status: MeetingStatus::Pending,
        });
        let e = w.run();
        assert_eq!(e.found[0].trigger, Trigger::Appointment);
        assert_eq!((e.found[0].a, e.found[0].b), (a, b));
        assert_eq!(e.found[0].interrupts, [5]);
        // Too early (more than 30 minutes before) or elsewhere: nothing.
        w.meetings.list[0].at = GameTime(w.now.0 + 31 * 60);
        assert!(
            w.run()
                .found
                .iter()
                .all(|e| e.trigger != Trigger::Appointment)
        );
        w.meetings.list[0].at = w.now;
        w.meetings.list[0].place = LocIdx(1);
        assert!(
            w.run()
                .found
                .iter()
                .all(|e| e.trigger != Trigger::Appointment)
        );
    }
}
