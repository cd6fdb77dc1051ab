//! Who starts talking to whom this step. In priority order: appointments due,
//! staff greeting customers, lonely residents approaching someone, and chance
//! meetings of residents standing near each other (found through a uniform
//! grid, so the pass stays linear in the number of residents).

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use rand::RngExt;

use super::analysis::{self, Stage};
use super::meetings::{MeetingStatus, Meetings};
use super::{
    Conversation, ConversationState, ForcedEncounters, Proposal, SocialRng, SocialState, Talking,
    Trigger,
};
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, LocationKind, ResidentId, Service, SocialTuning, Town, WorkRole};
use crate::sim::brain::Topic;
use crate::sim::clock::Clock;
use crate::sim::event_log::{EventBody, SimEvent};
use crate::sim::residents::{
    ActivityKind, Agenda, Census, Persona, Relationships, Resident, Roster,
};
use crate::sim::town::{ActiveTuning, Gatherings};

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
    pub a: u32,
    pub b: u32,
    pub trigger: Trigger,
    /// Conversations this one cuts short.
    pub interrupts: Vec<u64>,
    /// The appointment being kept.
    pub meeting: Option<u32>,
}

/// One resident as the trigger pass sees it.
#[derive(Debug, Clone, Copy)]
pub struct PersonView {
    pub extraversion: f32,
    pub social_need: f32,
    /// Working its shift at its workplace, with a greeting role.
    pub staff: Option<(LocIdx, WorkRole)>,
    /// Where the resident works (colleagues are not greeted as customers there).
    pub workplace: Option<LocIdx>,
}

/// What the pass reads of a resident only when a pair gets that far: ties and
/// greeting lists sit scattered in memory, so nobody's are read every step.
pub trait Lookup {
    fn ties(&self, idx: u32) -> Option<&Relationships>;
    /// Whom staff greet (empty: every customer).
    fn greets(&self, idx: u32) -> &[ResidentId];
}

/// Everything the trigger pass reads.
pub struct CrowdView<'a> {
    pub now: GameTime,
    pub step_minutes: u32,
    pub tuning: &'a SocialTuning,
    pub census: &'a Census,
    pub roster: &'a Roster,
    pub state: &'a SocialState,
    pub meetings: &'a Meetings,
    pub lookup: &'a dyn Lookup,
}

type PeopleQuery<'w, 's> =
    Query<'w, 's, (&'static Resident, &'static Persona, &'static Relationships)>;

/// [`Lookup`] through the residents' components.
struct QueryLookup<'a, 'w, 's> {
    roster: &'a Roster,
    people: &'a PeopleQuery<'w, 's>,
}

impl Lookup for QueryLookup<'_, '_, '_> {
    fn ties(&self, idx: u32) -> Option<&Relationships> {
        let e = *self.roster.entities.get(idx as usize)?;
        self.people.get(e).ok().map(|(_, _, r)| r)
    }

    fn greets(&self, idx: u32) -> &[ResidentId] {
        let e = self.roster.entities.get(idx as usize);
        e.and_then(|&e| self.people.get(e).ok())
            .and_then(|(_, p, _)| p.work.as_ref())
            .map_or(&[], |w| w.greets.as_slice())
    }
}

impl CrowdView<'_> {
    /// From the census: dense, in roster order.
    fn person(&self, i: u32) -> Option<PersonView> {
        let t = (*self.census.traits.get(i as usize)?)?;
        let e = self.census.entries.get(i as usize)?;
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
        })
    }

    /// `a`'s view of `b`.
    fn strength(&self, a: u32, b: u32) -> f32 {
        self.lookup
            .ties(a)
            .and_then(|t| t.by_idx(b))
            .map_or(0.0, |r| r.strength)
    }

    /// The pair's stage, from the mean of both views.
    fn stage(&self, a: u32, b: u32) -> Stage {
        let s = (self.strength(a, b) + self.strength(b, a)) / 2.0;
        Stage::of(s, &self.tuning.relationship)
    }

    fn awake_here(&self, i: u32) -> Option<(LocIdx, GameTime)> {
        if self.census.asleep(i) {
            return None;
        }
        self.state.stood.get(i as usize).copied().flatten()
    }

    /// Standing long enough, awake, and free.
    fn settled(&self, i: u32) -> Option<LocIdx> {
        let (at, since) = self.awake_here(i)?;
        let long = since.0 + self.tuning.proximity.seconds as i64 <= self.now.0;
        (long && self.state.free(i, self.now)).then_some(at)
    }

    fn pos(&self, i: u32) -> Vec2 {
        self.census.entries[i as usize].pos
    }
}

/// This step's encounters.
#[derive(Debug, Default)]
pub struct Encounters {
    pub found: Vec<Encounter>,
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
    settled: Vec<(u32, LocIdx)>,
    near: Vec<(u32, Vec2)>,
    grid: Grid,
}

/// [`plan_encounters`], with requested pairs (roster idx) first.
fn plan_with(
    cx: &CrowdView,
    requested: &[(u32, u32)],
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
    let mut out = Vec::new();
    let now = cx.now;
    // Who stands settled, awake and free (where), in roster order: one pass over
    // everyone; the approach and chance-meeting passes below visit only these.
    settled.clear();
    settled.extend(
        (0..n as u32)
            .filter_map(|i| Some((i, cx.settled(i)?)))
            .filter(|&(i, _)| {
                cx.census
                    .traits
                    .get(i as usize)
                    .is_some_and(Option::is_some)
            }),
    );

    for &(a, b) in requested {
        let (Some((pa, _)), Some((pb, _))) = (cx.awake_here(a), cx.awake_here(b)) else {
            continue;
        };
        let busy = |i: u32| taken[i as usize] || cx.state.talking[i as usize].is_some();
        if a == b || pa != pb || busy(a) || busy(b) {
            continue;
        }
        pair_up(
            taken,
            &mut out,
            Encounter {
                a,
                b,
                trigger: Trigger::Requested,
                interrupts: Vec::new(),
                meeting: None,
            },
        );
    }

    // 1. Appointments: both at the place around the hour; they cut short any other talk.
    let a = &cx.tuning.appointments;
    for m in cx.meetings.list.iter().filter(|m| {
        m.status == MeetingStatus::Pending
            && now.0 >= m.at.0 - 30 * 60
            && now.0 <= m.at.0 + a.wait_minutes as i64 * 60
    }) {
        let here = |i: u32| cx.awake_here(i).is_some_and(|(at, _)| at == m.place);
        if !here(m.a) || !here(m.b) || taken[m.a as usize] || taken[m.b as usize] {
            continue;
        }
        let busy = |i: u32| cx.state.talking[i as usize];
        let together = busy(m.a).is_some() && busy(m.a) == busy(m.b);
        let interrupts: Vec<u64> = if together {
            Vec::new()
        } else {
            [busy(m.a), busy(m.b)].into_iter().flatten().collect()
        };
        pair_up(
            taken,
            &mut out,
            Encounter {
                a: m.a,
                b: m.b,
                trigger: Trigger::Appointment,
                interrupts,
                meeting: Some(m.id),
            },
        );
    }

    // 2. Staff on shift greet each customer once per visit.
    for &s in &cx.census.greeters {
        let Some((place, _)) = cx.person(s).and_then(|p| p.staff) else {
            continue;
        };
        if taken[s as usize] || cx.state.talking[s as usize].is_some() {
            continue;
        }
        let greets = cx.lookup.greets(s);
        let customer = cx
            .census
            .at_place
            .get(place.i())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&c| c != s && !taken[c as usize] && cx.state.talking[c as usize].is_none())
            .filter(|&c| cx.person(c).is_some_and(|p| p.workplace != Some(place)))
            .filter(|&c| greets.is_empty() || greets.contains(&cx.roster.ids[c as usize]))
            .filter_map(|c| {
                let (at, since) = cx.awake_here(c)?;
                let greeted = cx
                    .state
                    .greeted
                    .get(&(c, place))
                    .is_some_and(|&t| t >= since);
                (at == place && !greeted).then_some((since, c))
            })
            .min();
        if let Some((_, c)) = customer {
            pair_up(
                taken,
                &mut out,
                Encounter {
                    a: s,
                    b: c,
                    trigger: Trigger::Work,
                    interrupts: Vec::new(),
                    meeting: None,
                },
            );
        }
    }

    // 3. The lonely seek company where they are: friends first, then acquaintances,
    // then anyone. Their own ties are scanned first, so the crowd is only
    // searched when nobody they know is free.
    for &(s, place) in settled.iter() {
        let Some(me) = cx.person(s) else { continue };
        if me.social_need <= cx.tuning.approach_need || taken[s as usize] {
            continue;
        }
        let available = |o: u32| {
            o != s
                && !taken[o as usize]
                && cx.state.free(o, now)
                && cx.awake_here(o).is_some_and(|(at, _)| at == place)
                && cx.state.pair_ready(s, o, now)
        };
        let dist = |o: u32| cx.pos(s).distance_squared(cx.pos(o));
        let stage = |strength: f32| Stage::of(strength, &cx.tuning.relationship);
        let known = cx
            .lookup
            .ties(s)
            .into_iter()
            .flat_map(|t| t.0.iter())
            .filter(|r| (r.with_idx as usize) < n && available(r.with_idx))
            .max_by(|x, y| {
                stage(x.strength)
                    .cmp(&stage(y.strength))
                    .then(x.strength.total_cmp(&y.strength))
                    .then(dist(y.with_idx).total_cmp(&dist(x.with_idx)))
                    .then(y.with_idx.cmp(&x.with_idx))
            })
            .map(|r| r.with_idx);
        let best = known.or_else(|| {
            cx.census.at_place[place.i()]
                .iter()
                .copied()
                .filter(|&o| available(o))
                .min_by(|&x, &y| dist(x).total_cmp(&dist(y)).then(x.cmp(&y)))
        });
        if let Some(o) = best {
            pair_up(
                taken,
                &mut out,
                Encounter {
                    a: s,
                    b: o,
                    trigger: Trigger::Approach,
                    interrupts: Vec::new(),
                    meeting: None,
                },
            );
        }
    }

    // 4. Chance meetings of residents standing near each other.
    let p = &cx.tuning.proximity;
    // In roster order, so the pass (and its random draws) are the same every run.
    near.clear();
    near.extend(
        settled
            .iter()
            .filter(|&&(i, _)| !taken[i as usize])
            .map(|&(i, _)| (i, cx.pos(i))),
    );
    grid.fill(p.distance, near);
    let d2 = p.distance * p.distance;
    let clock = RollClock::new(now, cx.step_minutes, p.reroll_minutes);
    let best_stage = [
        Stage::Stranger,
        Stage::Acquaintance,
        Stage::Friend,
        Stage::CloseFriend,
    ]
    .into_iter()
    .max_by(|x, y| x.pick(&p.modifiers).total_cmp(&y.pick(&p.modifiers)))
    .expect("four stages");
    for &(a, pa) in near.iter() {
        if taken[a as usize] || !clock.rolls(a) {
            continue;
        }
        'near: for cellmates in grid.around(pa) {
            for &(b, pb) in cellmates {
                if b <= a || taken[b as usize] || pa.distance_squared(pb) > d2 {
                    continue;
                }
                let (x, y) = (
                    cx.person(a).expect("settled"),
                    cx.person(b).expect("settled"),
                );
                let chance = |stage| {
                    analysis::proximity_chance(
                        cx.tuning,
                        stage,
                        (x.extraversion, y.extraversion),
                        (x.social_need, y.social_need),
                    )
                };
                // Most draws fail even for the closest tie: they stop here, before
                // the ties and cooldowns (scattered in memory) are looked up.
                let draw = rng.random::<f32>();
                if draw >= chance(best_stage) || !cx.state.pair_ready(a, b, now) {
                    continue;
                }
                if draw < chance(cx.stage(a, b)) {
                    // The more outgoing one opens.
                    let (a, b) = if y.extraversion > x.extraversion {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    pair_up(
                        taken,
                        &mut out,
                        Encounter {
                            a,
                            b,
                            trigger: Trigger::Proximity,
                            interrupts: Vec::new(),
                            meeting: None,
                        },
                    );
                    break 'near;
                }
            }
        }
    }
    Encounters { found: out }
}

/// A uniform grid of cells `size` wide: everyone within `size` of a point is in
/// the 3×3 cells around it. The cells cover the residents' bounding box in one
/// array, and residents are kept grouped by cell in another (a counting sort:
/// linear, no hashing, and in roster order within each cell), so a cell is a
/// contiguous slice.
#[derive(Default)]
struct Grid {
    size: f32,
    /// Key of the bounding box's first cell, and the box's width and height in cells.
    origin: (i32, i32),
    dims: (i32, i32),
    /// (roster idx, position), grouped by cell.
    items: Vec<(u32, Vec2)>,
    /// Cell `c` holds `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each resident's cell, and each cell's next free slot, while filling.
    cells: Vec<u32>,
    next: Vec<u32>,
}

/// At most this many cells (or four per resident, if more): a crowd spread
/// thinly over a huge map gets coarser cells, which only adds candidates that
/// the distance check then drops.
const GRID_CELLS: u64 = 1 << 16;

impl Grid {
    #[cfg(test)]
    fn new(size: f32, residents: &[(u32, Vec2)]) -> Self {
        let mut grid = Self::default();
        grid.fill(size, residents);
        grid
    }

    /// Sorts `residents` (in roster order) into cells, reusing the buffers.
    fn fill(&mut self, size: f32, residents: &[(u32, Vec2)]) {
        let mut size = size.max(1.0);
        let (lo, hi) = residents.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), &(_, p)| (lo.min(p), hi.max(p)),
        );
        let budget = GRID_CELLS.max(4 * residents.len() as u64);
        let (origin, dims) = loop {
            if residents.is_empty() {
                break ((0, 0), (0, 0));
            }
            let (a, b) = (Self::key(size, lo), Self::key(size, hi));
            let w = (b.0 as i64 - a.0 as i64 + 1) as u64;
            let h = (b.1 as i64 - a.1 as i64 + 1) as u64;
            if w * h <= budget {
                break (a, (w as i32, h as i32));
            }
            size *= 2.0;
        };
        (self.size, self.origin, self.dims) = (size, origin, dims);
        // Count per cell, then turn counts into starts, then place.
        self.starts.clear();
        self.starts.resize((dims.0 * dims.1) as usize + 1, 0);
        self.cells.clear();
        for &(_, p) in residents {
            let c = self.cell(Self::key(size, p)).expect("inside the box");
            self.cells.push(c as u32);
            self.starts[c + 1] += 1;
        }
        for c in 1..self.starts.len() {
            self.starts[c] += self.starts[c - 1];
        }
        self.next.clear();
        self.next.extend_from_slice(&self.starts);
        self.items.clear();
        self.items.resize(residents.len(), (0, Vec2::ZERO));
        for (&c, &item) in self.cells.iter().zip(residents) {
            self.items[self.next[c as usize] as usize] = item;
            self.next[c as usize] += 1;
        }
    }

    fn key(size: f32, v: Vec2) -> (i32, i32) {
        ((v.x / size).floor() as i32, (v.y / size).floor() as i32)
    }

    /// The index of the cell with key `k`, if it lies in the box.
    fn cell(&self, k: (i32, i32)) -> Option<usize> {
        let (x, y) = (k.0 - self.origin.0, k.1 - self.origin.1);
        ((0..self.dims.0).contains(&x) && (0..self.dims.1).contains(&y))
            .then(|| (y * self.dims.0 + x) as usize)
    }

    /// The 3×3 cells around `pos`, as slices.
    fn around(&self, pos: Vec2) -> impl Iterator<Item = &[(u32, Vec2)]> + '_ {
        let (cx, cy) = Self::key(self.size, pos);
        (-1..=1)
            .flat_map(move |dx| (-1..=1).map(move |dy| (cx + dx, cy + dy)))
            .filter_map(|k| self.cell(k))
            .map(|c| &self.items[self.starts[c] as usize..self.starts[c + 1] as usize])
    }
}

/// Takes both out of this step's pool and records the encounter.
fn pair_up(taken: &mut [bool], out: &mut Vec<Encounter>, e: Encounter) {
    taken[e.a as usize] = true;
    taken[e.b as usize] = true;
    out.push(e);
}

/// When pairs roll for a chance meeting: once in every window of `every` game
/// minutes, at the minute of the window fixed by the pair's lower roster index.
/// So each step only residents whose minute it is look around (with partners
/// above them in the roster), and nothing needs to be remembered per pair.
#[derive(Debug, Clone, Copy)]
pub struct RollClock {
    /// This step's minute within the window.
    minute: u32,
    every: u32,
    step: u32,
}

impl RollClock {
    pub fn new(now: GameTime, step: u32, every: u32) -> Self {
        let every = every.max(1);
        Self {
            minute: now.0.div_euclid(60).rem_euclid(every as i64) as u32,
            every,
            step: step.max(1),
        }
    }

    /// Whether resident `a` rolls with its higher-indexed neighbours at this step.
    pub fn rolls(&self, a: u32) -> bool {
        if self.step >= self.every {
            return true;
        }
        let h = (a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // A phase in 0..every by multiply-shift.
        let phase = (((h >> 32) * self.every as u64) >> 32) as u32;
        let mut at = self.minute + phase;
        if at >= self.every {
            at -= self.every;
        }
        // The window starts during the `step` minutes that end at this one.
        at < self.step
    }
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
);

/// Runs the trigger pass on a world without changing it; returns how many
/// encounters it found (for benchmarks).
pub fn preview_encounters(
    world: &mut World,
    params: &mut SystemState<TriggerParams<'static, 'static>>,
) -> usize {
    let Ok((clock, tuning, census, roster, state, meetings, rng, q)) = params.get(world) else {
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
    };
    let mut rng = rng.0.clone();
    plan_encounters(&cx, &mut rng).found.len()
}

/// Finds this step's encounters and opens a conversation for each.
#[allow(clippy::too_many_arguments)]
pub(super) fn start_conversations(
    mut commands: Commands,
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    census: Res<Census>,
    roster: Res<Roster>,
    gatherings: Res<Gatherings>,
    mut state: ResMut<SocialState>,
    mut meetings: ResMut<Meetings>,
    mut rng: ResMut<SocialRng>,
    mut forced: ResMut<ForcedEncounters>,
    mut scratch: Local<Scratch>,
    people: PeopleQuery,
    agendas: Query<&Agenda>,
    mut conversations: Query<&mut Conversation>,
    mut events: MessageWriter<SimEvent>,
) {
    let now = clock.now;
    let t = &tuning.social;
    let encounters = {
        let cx = CrowdView {
            now,
            step_minutes: tuning.step_minutes,
            tuning: t,
            census: &census,
            roster: &roster,
            state: &state,
            meetings: &meetings,
            lookup: &QueryLookup {
                roster: &roster,
                people: &people,
            },
        };
        let requested: Vec<(u32, u32)> = forced
            .0
            .drain(..)
            .filter_map(|(a, b)| Some((roster.idx(&a)?, roster.idx(&b)?)))
            .collect();
        plan_with(&cx, &requested, &mut rng, &mut scratch)
    };
    for enc in encounters.found {
        for id in &enc.interrupts {
            if let Some(&e) = state.open.get(id)
                && let Ok(mut c) = conversations.get_mut(e)
                && c.end.is_none()
            {
                c.end = Some(super::EndCause::Interrupted);
                c.state = ConversationState::Closing;
            }
        }
        if let Some(m) = enc.meeting.and_then(|id| meetings.get_mut(id)) {
            m.status = MeetingStatus::Kept;
            events.write(SimEvent {
                time: now,
                body: EventBody::AppointmentKept {
                    appointment: m.id,
                    residents: vec![
                        roster.ids[m.a as usize].clone(),
                        roster.ids[m.b as usize].clone(),
                    ],
                    location: town.id(m.place).clone(),
                    made: m.made,
                },
            });
            // Already talking together: the meeting is kept as it is.
            let both = state.talking[enc.a as usize];
            if both.is_some() && both == state.talking[enc.b as usize] {
                continue;
            }
        }
        let (Ok(pa), Ok(pb)) = (
            people.get(roster.entities[enc.a as usize]),
            people.get(roster.entities[enc.b as usize]),
        ) else {
            continue;
        };
        let place = census.entries[enc.a as usize].at;
        if enc.trigger == Trigger::Work {
            state.greeted.insert((enc.b, place), now);
        }
        let mean_e = (pa.1.personality.extraversion + pb.1.personality.extraversion) / 2.0;
        let c = &t.conversation;
        // Outgoing pairs talk longer; a greeting at work is brief.
        let aim = if enc.trigger == Trigger::Work {
            2 + rng.random_range(0..=2)
        } else {
            (3.0 + mean_e / 25.0).round() as i64 + rng.random_range(-1..=3)
        };
        let planned = aim.clamp(c.min_turns as i64, c.max_turns as i64) as u32;
        let invite = gatherings
            .iter()
            .position(|g| {
                g.organiser == pa.0.id
                    && g.starts > now
                    && agendas
                        .get(roster.entities[enc.b as usize])
                        .is_ok_and(|ag| !ag.knows(g.id))
            })
            .or_else(|| {
                gatherings.iter().position(|g| {
                    g.organiser == pb.0.id
                        && g.starts > now
                        && agendas
                            .get(roster.entities[enc.a as usize])
                            .is_ok_and(|ag| !ag.knows(g.id))
                })
            });
        let close_enough = |x: &Relationships, other: u32| {
            x.by_idx(other)
                .is_some_and(|r| r.strength >= t.relationship.acquaintance)
        };
        let proposal = (enc.trigger != Trigger::Appointment
            && planned >= 3
            && invite.is_none()
            && close_enough(pa.2, enc.b)
            && close_enough(pb.2, enc.a)
            && !meetings.pending_for(enc.a)
            && !meetings.pending_for(enc.b)
            && rng.random::<f32>() < t.appointments.probability)
            .then(|| {
                let turn = planned - 2;
                let (proposer, partner) = if turn.is_multiple_of(2) {
                    (enc.a, enc.b)
                } else {
                    (enc.b, enc.a)
                };
                let hours = t.appointments.from_hour..=t.appointments.to_hour;
                let hour = rng.random_range(hours) as i64;
                let at = GameTime(now.midnight().0 + 86_400 + hour * 3600);
                Proposal {
                    proposer,
                    partner,
                    turn,
                    place: meeting_place(&town, place),
                    at,
                }
            });
        state.next_id += 1;
        let id = state.next_id;
        let role = (enc.trigger == Trigger::Work)
            .then(|| pa.1.work.as_ref().and_then(|w| w.role))
            .flatten();
        let conversation = Conversation {
            id,
            participants: vec![enc.a, enc.b],
            place,
            state: ConversationState::Init,
            trigger: enc.trigger,
            subject: Topic::choose(pa.1, pb.1, town.get(place)),
            topic: "casual".to_string(),
            messages: Vec::new(),
            started: now,
            planned,
            next_turn: now,
            next: None,
            awaiting: None,
            delivered: None,
            invite,
            proposal,
            role,
            end: None,
            join_checked: 0,
            script: None,
            script_checked: false,
        };
        let entity = commands.spawn(conversation).id();
        state.open.insert(id, entity);
        state.started_today += 1;
        for i in [enc.a, enc.b] {
            state.talking[i as usize] = Some(id);
            commands
                .entity(roster.entities[i as usize])
                .insert(Talking { conversation: id });
        }
        events.write(SimEvent {
            time: now,
            body: EventBody::ConversationStart {
                conversation: id,
                participants: vec![pa.0.id.clone(), pb.0.id.clone()],
                location: town.id(place).clone(),
                trigger: enc.trigger,
            },
        });
    }
}

/// Where to meet again: here if it is a place to sit together, else the nearest eatery.
fn meeting_place(town: &Town, here: LocIdx) -> LocIdx {
    let l = town.get(here);
    if matches!(l.kind, LocationKind::Food | LocationKind::Public) {
        here
    } else {
        town.nearest_with(here, Service::Food).unwrap_or(here)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::scenario::RelationKind;
    use crate::sim::residents::{CensusEntry, Relationship, Traits};

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
            }
        }

        /// Adds a resident standing at `place`, `pos`, for `seconds`.
        fn add(&mut self, place: u32, pos: (f32, f32), seconds: i64) -> u32 {
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
            });
            while self.census.at_place.len() <= place as usize {
                self.census.at_place.push(Vec::new());
            }
            self.census.at_place[place as usize].push(i);
            self.state.resize(self.roster.len());
            self.state.stood[i as usize] = Some((LocIdx(place), GameTime(self.now.0 - seconds)));
            self.ties.push(Relationships::default());
            self.social_need.push(50.0);
            self.staff.push(None);
            i
        }

        fn tie(&mut self, a: u32, b: u32, strength: f32) {
            for (x, y) in [(a, b), (b, a)] {
                *self.ties[x as usize].entry(&self.roster.ids[y as usize].clone(), y) =
                    Relationship {
                        with: self.roster.ids[y as usize].clone(),
                        with_idx: y,
                        kind: RelationKind::Acquaintance,
                        strength,
                        impression: String::new(),
                        interactions: 0,
                        last_interaction: None,
                        met: None,
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
                    })
                })
                .collect();
            census.greeters = (0..self.roster.len() as u32)
                .filter(|&i| self.staff[i as usize].is_some())
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
            };
            plan_encounters(&cx, &mut ChaCha8Rng::seed_from_u64(1))
        }
    }

    impl Lookup for World0 {
        fn ties(&self, idx: u32) -> Option<&Relationships> {
            self.ties.get(idx as usize)
        }
        fn greets(&self, idx: u32) -> &[ResidentId] {
            self.staff[idx as usize]
                .as_ref()
                .map_or(&[], |s| s.2.as_slice())
        }
    }

    #[test]
    fn the_grid_finds_everyone_within_reach_and_nobody_twice() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // A dense crowd, a spread-out town, and a few residents on a huge map
        // (coarser cells), with points on cell borders and negative coordinates.
        for (count, span) in [(400, 300.0), (2_000, 5_000.0), (50, 1.0e7)] {
            let people: Vec<(u32, Vec2)> = (0..count)
                .map(|i| {
                    let p = Vec2::new(rng.random_range(-span..span), rng.random_range(-span..span));
                    (
                        i,
                        if i % 7 == 0 {
                            (p / 50.0).round() * 50.0
                        } else {
                            p
                        },
                    )
                })
                .collect();
            let grid = Grid::new(50.0, &people);
            assert!(grid.starts.len() as u64 <= GRID_CELLS + 1);
            for &(a, pa) in &people {
                let mut found: Vec<u32> = grid
                    .around(pa)
                    .flatten()
                    .filter(|(_, pb)| pa.distance_squared(*pb) <= 2500.0)
                    .map(|&(b, _)| b)
                    .collect();
                let n = found.len();
                found.sort_unstable();
                found.dedup();
                assert_eq!(n, found.len(), "{a} sees someone twice");
                let want: Vec<u32> = people
                    .iter()
                    .filter(|(_, pb)| pa.distance_squared(*pb) <= 2500.0)
                    .map(|&(b, _)| b)
                    .collect();
                assert_eq!(found, want, "{a} at {pa}");
            }
        }
        assert!(Grid::new(50.0, &[]).around(Vec2::ZERO).next().is_none());
    }

    /// Chance meetings always happen, every step (to test the gates, not the odds).
    fn certain() -> SocialTuning {
        let mut t = SocialTuning::default();
        t.proximity.base_probability = 1.0;
        t.proximity.modifiers.stranger = 10.0;
        t.proximity.reroll_minutes = 1;
        t
    }

    fn pairs(e: &Encounters) -> Vec<(u32, u32, Trigger)> {
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
                            .rolls(a.min(b))
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
        w.census.entries[b as usize].pos = Vec2::new(51.0, 0.0);
        assert!(w.run().found.is_empty());
        w.census.entries[b as usize].pos = Vec2::new(30.0, 30.0);
        assert_eq!(w.run().found.len(), 1);
        // Not long enough (30 s).
        w.state.stood[b as usize] = Some((LocIdx(0), GameTime(w.now.0 - 20)));
        assert!(w.run().found.is_empty());
        w.state.stood[b as usize] = Some((LocIdx(0), GameTime(w.now.0 - 30)));
        assert_eq!(w.run().found.len(), 1);
        // Talked within the cooldown; rolled lately; resting; talking; asleep.
        w.state.pair_ready.insert((a, b), GameTime(w.now.0 + 1));
        assert!(w.run().found.is_empty());
        w.state.pair_ready.clear();
        w.state.pause_until[a as usize] = GameTime(w.now.0 + 60);
        assert!(w.run().found.is_empty());
        w.state.pause_until[a as usize] = w.now;
        w.state.talking[b as usize] = Some(9);
        assert!(w.run().found.is_empty());
        w.state.talking[b as usize] = None;
        w.census.entries[b as usize].kind = Some(ActivityKind::Sleep);
        w.census.entries[b as usize].underway = true;
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
            let d = w.census.entries[e.a as usize]
                .pos
                .distance(w.census.entries[e.b as usize].pos);
            assert!(d <= 50.0, "paired at {d}");
            paired[e.a as usize] = true;
            paired[e.b as usize] = true;
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
        w.social_need[lonely as usize] = 80.0;
        let first = |w: &World0| {
            pairs(&w.run())
                .into_iter()
                .find(|p| p.2 == Trigger::Approach)
        };
        assert_eq!(first(&w), Some((lonely, friend, Trigger::Approach)));
        w.state.talking[friend as usize] = Some(1);
        assert_eq!(first(&w), Some((lonely, acquaintance, Trigger::Approach)));
        w.state.talking[acquaintance as usize] = Some(1);
        assert_eq!(first(&w), Some((lonely, stranger, Trigger::Approach)));
        // Not lonely enough: no approach.
        w.social_need[lonely as usize] = 70.0;
        assert_eq!(first(&w), None);
    }

    #[test]
    fn staff_greet_each_customer_once_per_visit() {
        let mut w = World0::new(SocialTuning::default());
        let waiter = w.add(0, (0.0, 0.0), 3600);
        let guest = w.add(0, (100.0, 0.0), 10);
        w.staff[waiter as usize] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        assert_eq!(pairs(&w.run()), [(waiter, guest, Trigger::Work)]);
        // Greeted on this visit: not again.
        w.state.greeted.insert((guest, LocIdx(0)), w.now);
        assert!(pairs(&w.run()).iter().all(|p| p.2 != Trigger::Work));
        // A later visit is greeted again.
        w.state.stood[guest as usize] = Some((LocIdx(0), GameTime(w.now.0 + 1)));
        w.now = GameTime(w.now.0 + 60);
        assert_eq!(pairs(&w.run())[0], (waiter, guest, Trigger::Work));
        // Nor a colleague who works here (arriving for a shift).
        let mut shop = World0::new(SocialTuning::default());
        let (s2, c2) = (shop.add(0, (0.0, 0.0), 3600), shop.add(0, (10.0, 0.0), 10));
        shop.staff[s2 as usize] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        shop.staff[c2 as usize] = Some((LocIdx(0), WorkRole::Waiter, Vec::new()));
        assert!(pairs(&shop.run()).iter().all(|p| p.2 != Trigger::Work));
        // A teacher greets only her students.
        w.staff[waiter as usize] = Some((
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
        w.state.talking[a as usize] = Some(5);
        w.state.talking[c as usize] = Some(5);
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
