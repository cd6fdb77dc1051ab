//! Residents as ECS components, the roster of strong ids, and the per-step census.

use bevy::platform::collections::HashMap;
use std::sync::Arc;

use bevy::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::memory::Memories;
use super::{RunSettings, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, Profile, RelationKind, ResidentId, Scenario, Town, WorkRole};

/// A resident of the town. `idx` is its dense index in the [`Roster`].
#[derive(Component, Debug, Clone)]
#[require(Needs, Memories, Relationships, Agenda, Tally, NightState)]
pub struct Resident {
    pub id: ResidentId,
    pub idx: u32,
}

/// Who the resident is: the scenario's persona, shared.
#[derive(Component, Debug, Clone, Deref)]
pub struct Persona(pub Arc<Profile>);

/// Needs, 0–100, 100 = fully satisfied. `hunger` 100 means well fed.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Needs {
    pub energy: f32,
    pub hunger: f32,
    pub social: f32,
    pub fun: f32,
    /// When the resident last finished eating.
    pub last_meal: GameTime,
}

impl Needs {
    /// How the resident feels: the most pressing need first.
    pub fn mood(&self) -> Mood {
        if self.energy < LOW_NEED {
            Mood::Tired
        } else if self.hunger < LOW_NEED {
            Mood::Hungry
        } else if self.social < LOW_NEED {
            Mood::Lonely
        } else if self.fun < LOW_NEED {
            Mood::Bored
        } else if self.energy > 70.0 && self.hunger > 60.0 {
            Mood::Lively
        } else {
            Mood::Calm
        }
    }
}

/// Below this, a need sets the mood.
const LOW_NEED: f32 = 30.0;

/// A resident's mood, from its needs: what its lines and prompts carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mood {
    /// Low on energy.
    Tired,
    /// Hungry.
    Hungry,
    /// Wants company.
    Lonely,
    /// Wants something to do.
    Bored,
    /// Rested and fed.
    Lively,
    /// Nothing pressing.
    Calm,
}

impl Mood {
    /// The mood in a word or two, for prompts: 疲惫, 饿了 …
    pub fn label(self) -> &'static str {
        match self {
            Mood::Tired => "疲惫",
            Mood::Hungry => "饿了，有点烦躁",
            Mood::Lonely => "想找人说说话",
            Mood::Bored => "有点闷",
            Mood::Lively => "精神不错",
            Mood::Calm => "平静",
        }
    }
}

impl Default for Needs {
    fn default() -> Self {
        Self {
            energy: 90.0,
            hunger: 70.0,
            social: 60.0,
            fun: 60.0,
            last_meal: GameTime(0),
        }
    }
}

impl Needs {
    pub fn clamp(&mut self) {
        for v in [
            &mut self.energy,
            &mut self.hunger,
            &mut self.social,
            &mut self.fun,
        ] {
            *v = v.clamp(0.0, 100.0);
        }
    }
}

/// What an action is, derived from its English verb phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    Sleep,
    Work,
    Eat,
    Socialise,
    Attend,
    Leisure,
    PostNotice,
    Idle,
}

impl ActivityKind {
    /// Classifies a plan's action text (from any brain).
    pub fn from_action(action: &str) -> Self {
        let a = action.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| a.contains(w));
        if has(&["post notice", "post a notice", "发布公告", "贴公告"]) {
            Self::PostNotice
        } else if has(&["sleep", "睡觉", "睡"]) {
            Self::Sleep
        } else if has(&[
            "attend",
            "party",
            "gathering",
            "get-together",
            "聚会",
            "联谊",
        ]) {
            Self::Attend
        } else if has(&[
            "eat",
            "breakfast",
            "lunch",
            "dinner",
            "supper",
            "meal",
            "吃",
            "饭",
        ]) {
            Self::Eat
        } else if has(&[
            "work", "serve", "treat", "teach", "research", "forage", "工作", "上班",
        ]) {
            Self::Work
        } else if has(&[
            "chat", "talk", "socialis", "socializ", "visit", "meet", "hang out", "聊",
        ]) {
            Self::Socialise
        } else if has(&["idle", "look around", "wait", "发呆"]) {
            Self::Idle
        } else {
            Self::Leisure
        }
    }
}

/// What the resident says it is doing: kept apart from [`Activity`] so the
/// per-step scans over every resident touch a small component.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityText {
    pub action: String,
    pub dialogue: String,
    pub emoji: String,
}

/// The resident's current action.
#[derive(Component, Debug, Clone)]
pub struct Activity {
    pub text: Box<ActivityText>,
    pub kind: ActivityKind,
    pub target: LocIdx,
    /// Duration of the action itself, in minutes, once there.
    pub duration: u32,
    pub planned_at: GameTime,
    /// When the resident will want a new plan.
    pub busy_until: GameTime,
    /// Reached the target and doing it (false while walking there).
    pub underway: bool,
}

/// The resident is waiting for its brain to produce a plan.
/// Sparse storage: it comes and goes every plan, without moving table rows.
#[derive(Component, Debug, Clone)]
#[component(storage = "SparseSet")]
pub struct Thinking {
    pub since: GameTime,
    pub request: u64,
}

/// This resident's plans, lines and summaries come from an asynchronous mind
/// (an LLM endpoint, see `crate::llm`), which always answers, falling back to
/// the built-in brain itself when it must.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncMind;

/// The last place the resident stood at (where it is, unless walking).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Whereabouts(pub LocIdx);

/// Walking along a route of connected places (sparse: added and removed often).
#[derive(Component, Debug, Clone)]
#[component(storage = "SparseSet")]
pub struct Walking {
    /// Places still to reach, next first; the last is the destination.
    pub route: Vec<LocIdx>,
    /// Map units walked on the current leg.
    pub progress: f32,
}

/// Position on the map (for drawing and distances).
#[derive(Component, Debug, Clone, Copy, PartialEq, Deref)]
pub struct MapPosition(pub Vec2);

/// One resident's view of another.
#[derive(Debug, Clone)]
pub struct Relationship {
    pub with: ResidentId,
    /// `with`'s roster index, cached for cheap lookups in the census.
    pub with_idx: u32,
    pub kind: RelationKind,
    pub strength: f32,
    pub impression: String,
    pub interactions: u32,
    pub last_interaction: Option<GameTime>,
    /// When they first talked in this run (None: before it, or never).
    pub met: Option<GameTime>,
}

/// One resident's ties, sorted by the other's roster index (build with
/// [`Relationships::new`] or [`Relationships::entry`] to keep it so).
#[derive(Component, Debug, Clone, Default)]
pub struct Relationships(pub Vec<Relationship>);

impl Relationships {
    pub fn get(&self, other: &ResidentId) -> Option<&Relationship> {
        self.0.iter().find(|r| &r.with == other)
    }

    /// The relationship with the resident at roster index `idx` (a binary search:
    /// the list is kept in roster order, as social triggers look ties up every step).
    pub fn by_idx(&self, idx: u32) -> Option<&Relationship> {
        self.0
            .binary_search_by_key(&idx, |r| r.with_idx)
            .ok()
            .map(|i| &self.0[i])
    }

    pub fn strength(&self, other: &ResidentId) -> f32 {
        self.get(other).map_or(0.0, |r| r.strength)
    }

    /// The relationship with `other` (roster index `idx`), created as strangers if new.
    pub fn entry(&mut self, other: &ResidentId, idx: u32) -> &mut Relationship {
        let i = match self.0.binary_search_by_key(&idx, |r| r.with_idx) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(
                    i,
                    Relationship {
                        with: other.clone(),
                        with_idx: idx,
                        kind: RelationKind::Stranger,
                        strength: 5.0,
                        impression: String::new(),
                        interactions: 0,
                        last_interaction: None,
                        met: None,
                    },
                );
                i
            }
        };
        &mut self.0[i]
    }

    /// Builds the list from ties in any order.
    pub fn new(mut ties: Vec<Relationship>) -> Self {
        ties.sort_by_key(|r| r.with_idx);
        ties.dedup_by_key(|r| r.with_idx);
        Self(ties)
    }
}

/// How the resident learnt of a gathering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Heard {
    Organiser,
    Notice,
    Invitation,
}

/// A gathering the resident knows of, and whether it means to go.
#[derive(Debug, Clone)]
pub struct Appointment {
    pub gathering: usize,
    pub heard: Heard,
    pub will_attend: bool,
}

/// An appointment with another resident, as one side remembers it.
#[derive(Debug, Clone)]
pub struct MeetingNote {
    pub appointment: u32,
    /// Roster idx of the other side.
    pub with: u32,
    pub place: LocIdx,
    pub at: GameTime,
    /// Whether this side means to come.
    pub keep: bool,
}

#[derive(Component, Debug, Clone, Default)]
pub struct Agenda {
    /// Gatherings known of.
    pub appointments: Vec<Appointment>,
    /// Appointments made in conversation.
    pub meetings: Vec<MeetingNote>,
    /// Notice ids already read.
    pub notices_read: Vec<u32>,
}

impl Agenda {
    pub fn knows(&self, gathering: usize) -> bool {
        self.appointments.iter().any(|a| a.gathering == gathering)
    }
}

/// Per-night bookkeeping.
#[derive(Component, Debug, Clone, Default)]
pub struct NightState {
    /// The last night whose memories were consolidated.
    pub consolidated: Option<chrono::NaiveDate>,
    /// The last night slept.
    pub slept: Option<chrono::NaiveDate>,
}

/// Counts for the end-of-run summary.
#[derive(Component, Debug, Clone, Default)]
pub struct Tally {
    pub plans: u32,
    pub fixed_plans: u32,
    pub conversations: u32,
    pub notices: u32,
    pub nights: u32,
    pub meals: u32,
}

/// The resident's own random stream, seeded from the run seed and its id, so
/// one resident's choices do not shift when another's change.
#[derive(Component, Debug, Clone, Deref, DerefMut)]
pub struct ResidentRng(pub ChaCha8Rng);

/// All residents by strong id, in scenario order.
#[derive(Resource, Debug, Clone, Default)]
pub struct Roster {
    pub ids: Vec<ResidentId>,
    pub names: Vec<String>,
    pub entities: Vec<Entity>,
    by_id: HashMap<ResidentId, u32>,
    /// The same index keyed by the id's shared allocation: ids in events are
    /// clones of the roster's, so most lookups hash a pointer, not a string.
    by_ptr: HashMap<usize, u32>,
}

impl Roster {
    /// Adds a resident at the next index and returns it.
    pub fn push(&mut self, id: ResidentId, name: String, entity: Entity) -> u32 {
        let i = self.ids.len() as u32;
        self.by_id.insert(id.clone(), i);
        self.by_ptr.insert(id.0.as_ptr() as usize, i);
        self.ids.push(id);
        self.names.push(name);
        self.entities.push(entity);
        i
    }

    pub fn idx(&self, id: &ResidentId) -> Option<u32> {
        let ptr = id.0.as_ptr() as usize;
        if let Some(&i) = self.by_ptr.get(&ptr)
            && std::sync::Arc::ptr_eq(&self.ids[i as usize].0, &id.0)
        {
            return Some(i);
        }
        self.by_id.get(id).copied()
    }
    pub fn entity(&self, id: &ResidentId) -> Option<Entity> {
        self.idx(id).map(|i| self.entities[i as usize])
    }
    pub fn name<'a>(&'a self, id: &'a ResidentId) -> &'a str {
        self.idx(id)
            .map_or(id.as_str(), |i| &self.names[i as usize])
    }
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Where everyone is and what they do, taken once per step, indexed by roster idx.
#[derive(Resource, Debug, Clone, Default)]
pub struct Census {
    pub entries: Vec<CensusEntry>,
    /// Roster indices of residents standing at each place (not walking), sorted.
    pub at_place: Vec<Vec<u32>>,
    /// How many residents are walking to each place.
    pub heading_to: Vec<u32>,
    /// The few persona fields the step's passes read of everyone, by roster idx;
    /// copied when a persona changes (reading a large town's profiles each step
    /// cost a cache miss per resident). `None` for a resident not spawned yet.
    pub traits: Vec<Option<Traits>>,
    /// Roster indices of residents with a greeting role at work, ascending.
    pub greeters: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
pub struct CensusEntry {
    pub at: LocIdx,
    pub pos: Vec2,
    pub walking: bool,
    pub kind: Option<ActivityKind>,
    pub underway: bool,
    /// Social satisfaction (the need), 0–100.
    pub social: f32,
}

/// See [`Census::traits`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Traits {
    pub extraversion: f32,
    /// Workplace, and the role in which the resident greets people there.
    pub work: Option<(LocIdx, Option<WorkRole>)>,
}

impl Traits {
    pub fn of(p: &Profile) -> Self {
        Self {
            extraversion: p.personality.extraversion,
            work: p.work.as_ref().map(|w| (w.place, w.role)),
        }
    }
}

impl Census {
    pub fn count_at(&self, place: LocIdx) -> usize {
        self.at_place.get(place.i()).map_or(0, Vec::len)
    }
    /// Standing at `place` or on the way there: what its capacity is weighed against.
    pub fn expected_at(&self, place: LocIdx) -> usize {
        self.count_at(place) + self.heading_to.get(place.i()).map_or(0, |&n| n as usize)
    }
    pub fn asleep(&self, idx: u32) -> bool {
        self.entries
            .get(idx as usize)
            .is_some_and(|e| e.underway && e.kind == Some(ActivityKind::Sleep))
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Roster>()
        .init_resource::<Census>()
        .add_systems(SimStep, take_census.in_set(SimSet::Census));
}

/// Per-resident seed: the run seed mixed with a hash of the id (FNV-1a, stable across builds).
pub fn resident_seed(seed: u64, id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Spawns every resident of the scenario at home, asleep or waking.
pub(super) fn spawn_all(world: &mut World, scenario: &Scenario, settings: &RunSettings) {
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
    let index: HashMap<&ResidentId, u32> = scenario
        .residents
        .iter()
        .enumerate()
        .map(|(i, p)| (&p.id, i as u32))
        .collect();
    for i in range {
        spawn_resident(world, scenario, &index, i, seed, now);
    }
}

fn spawn_resident(
    world: &mut World,
    scenario: &Scenario,
    index: &HashMap<&ResidentId, u32>,
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
    let pos = spread_position(&scenario.town, p.home, i as u32);
    let mut entity = world.spawn((
        Resident {
            id: p.id.clone(),
            idx: i as u32,
        },
        Persona(p.clone()),
        Whereabouts(p.home),
        MapPosition(pos),
        memories,
        initial_ties(p, index),
        initial_agenda(p),
        ResidentRng(ChaCha8Rng::seed_from_u64(resident_seed(
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
fn initial_ties(p: &Profile, index: &HashMap<&ResidentId, u32>) -> Relationships {
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
                    last_interaction: None,
                    met: None,
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
        planned_at: start,
        busy_until: start.at_minute(p.wake),
        underway: true,
    })
}

/// A stable spot inside a place's area for resident `idx`, so a crowd spreads out.
pub fn spread_position(town: &Town, place: LocIdx, idx: u32) -> Vec2 {
    let loc = town.get(place);
    // Golden-angle spiral: evenly spread, no two residents on one point.
    let k = (idx % 64) as f32;
    let angle = k * 2.399_963;
    let r = (k / 64.0).sqrt() * 0.45;
    loc.position + Vec2::new(angle.cos() * r * loc.size.x, angle.sin() * r * loc.size.y)
}

/// What the census reads of each resident.
type CensusView<'a> = (
    &'a Resident,
    &'a Whereabouts,
    &'a MapPosition,
    Option<&'a Activity>,
    &'a Needs,
);

fn take_census(
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
        census.traits[r.idx as usize] = Some(Traits::of(&p.0));
        any = true;
    }
    if any {
        census.greeters = (0..roster.len() as u32)
            .filter(|&i| {
                census.traits[i as usize].is_some_and(|t| t.work.is_some_and(|w| w.1.is_some()))
            })
            .collect();
    }
    census.entries.clear();
    census.entries.resize(
        roster.len(),
        CensusEntry {
            at: LocIdx(0),
            pos: Vec2::ZERO,
            walking: false,
            kind: None,
            underway: false,
            social: 0.0,
        },
    );
    census.at_place.resize(town.len(), Vec::new());
    for v in &mut census.at_place {
        v.clear();
    }
    census.heading_to.clear();
    census.heading_to.resize(town.len(), 0);
    for (r, at, pos, act, needs) in &q {
        census.entries[r.idx as usize] = CensusEntry {
            at: at.0,
            pos: pos.0,
            walking: false,
            kind: act.map(|a| a.kind),
            underway: act.is_some_and(|a| a.underway),
            social: needs.social,
        };
    }
    // The walkers apart: with the sparse `Walking` in the main query, Bevy would
    // visit everyone archetype by archetype, in no order in memory.
    for (r, a) in &walkers {
        census.entries[r.idx as usize].walking = true;
        census.heading_to[a.target.i()] += 1;
    }
    // Filled in index order so each list is sorted and the same every run.
    for (i, e) in census.entries.iter().enumerate() {
        if !e.walking {
            census.at_place[e.at.i()].push(i as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_classified() {
        use ActivityKind::*;
        for (text, kind) in [
            ("Sleep", Sleep),
            ("Post Notice", PostNotice),
            ("Have lunch at the tavern", Eat),
            ("Work at the clinic", Work),
            ("Chat with 阿朵", Socialise),
            ("Attend the get-together", Attend),
            ("Explore the old mine", Leisure),
            ("去睡觉", Sleep),
        ] {
            assert_eq!(ActivityKind::from_action(text), kind, "{text}");
        }
    }

    #[test]
    fn crowds_spread_out() {
        let s = crate::headless::default_scenario();
        let sq = s.town.find("square").unwrap();
        let spots: Vec<Vec2> = (0..20).map(|i| spread_position(&s.town, sq, i)).collect();
        for (i, a) in spots.iter().enumerate() {
            for b in &spots[i + 1..] {
                assert!(a.distance(*b) > 1.0, "two residents on one spot");
            }
        }
    }
}
