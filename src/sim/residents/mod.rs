//! Residents as ECS components, the roster of strong ids, and the per-step census.
//!
//! - `roster`: strong ids, names and entities by [`RosterIdx`];
//! - `census`: who is where doing what, once per step;
//! - `spawn`: residents from the scenario.

pub(crate) mod census;
pub(crate) mod roster;
pub(crate) mod spawn;
mod talk_days;

use std::sync::Arc;

use bevy::prelude::*;
use rand_chacha::ChaCha8Rng;

pub use census::{Census, CensusEntry, Traits};
pub use roster::{Roster, RosterIdx};
pub(in crate::sim) use spawn::spawn_all;
pub use spawn::{spawn_residents, spread_position};
pub use talk_days::{TALK_DAYS_KEPT, TalkDays};

use super::knowledge::facts::Knowledge;
use super::memory::store::Memories;
use super::{SimSet, SimStep};
use crate::base::time::{GameTime, MaybeTime};
use crate::scenario::{GatheringIdx, LocIdx, Profile, RelationKind, ResidentId};
use census::take_census;

/// A resident of the town. `idx` is its dense index in the [`Roster`].
#[derive(Component, Debug, Clone)]
#[require(Needs, Memories, Relationships, Agenda, Tally, NightState, Knowledge)]
pub struct Resident {
    /// The id used in logs, saves and prompts.
    pub id: ResidentId,
    /// Its dense index in the [`Roster`].
    pub(crate) idx: RosterIdx,
}

/// Who the resident is: the scenario's persona, shared.
#[derive(Component, Debug, Clone, Deref)]
pub struct Persona(pub Arc<Profile>);

/// Needs, 0–100, 100 = fully satisfied. `hunger` 100 means well fed.
#[derive(Component, Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Needs {
    /// Rest: falls while awake, restored by sleep.
    pub energy: f32,
    /// Fullness: falls over time, restored by meals.
    pub(crate) hunger: f32,
    /// Company: falls alone, restored by talk and company.
    pub(crate) social: f32,
    /// Fun: falls over time, restored by leisure.
    pub(crate) fun: f32,
    /// When the resident last finished eating.
    pub(crate) last_meal: GameTime,
}

impl Needs {
    /// Needs read back from a save: energy, hunger, social, fun; the last meal.
    pub(crate) fn from_parts([energy, hunger, social, fun]: [f32; 4], last_meal: GameTime) -> Self {
        Self {
            energy,
            hunger,
            social,
            fun,
            last_meal,
        }
    }

    /// Fullness, 0–100 (0: starving).
    pub fn hunger(&self) -> f32 {
        self.hunger
    }

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
    /// Keeps every need within 0–100.
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

/// The words that say what kind an action is; an action with words of two
/// kinds is the earlier kind.
const ACTION_WORDS: [(ActivityKind, &[&str]); 7] = [
    (
        ActivityKind::PostNotice,
        &["post notice", "post a notice", "发布公告", "贴公告"],
    ),
    (ActivityKind::Sleep, &["sleep", "睡觉", "睡"]),
    (
        ActivityKind::Attend,
        &[
            "attend",
            "party",
            "gathering",
            "get-together",
            "聚会",
            "联谊",
        ],
    ),
    (
        ActivityKind::Eat,
        &[
            "eat",
            "breakfast",
            "lunch",
            "dinner",
            "supper",
            "meal",
            "吃",
            "饭",
        ],
    ),
    (
        ActivityKind::Work,
        &[
            "work", "serve", "treat", "teach", "research", "forage", "工作", "上班",
        ],
    ),
    (
        ActivityKind::Socialise,
        &[
            "chat", "talk", "socialis", "socializ", "visit", "meet", "hang out", "聊",
        ],
    ),
    (ActivityKind::Idle, &["idle", "look around", "wait", "发呆"]),
];

/// [`ACTION_WORDS`] in one automaton (every word sought in one pass, where
/// a search per word cost a planner a few microseconds per pastime), and
/// each word's place in it.
static ACTION_MATCHER: std::sync::LazyLock<(aho_corasick::AhoCorasick, Vec<usize>)> =
    std::sync::LazyLock::new(|| {
        let (words, kind_of): (Vec<&str>, Vec<usize>) = ACTION_WORDS
            .iter()
            .enumerate()
            .flat_map(|(k, (_, words))| words.iter().map(move |&w| (w, k)))
            .unzip();
        let matcher = aho_corasick::AhoCorasick::new(words).expect("a few plain words");
        (matcher, kind_of)
    });

/// What an action is, derived from its English verb phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    /// Sleeping.
    Sleep,
    /// Working a shift.
    Work,
    /// Having a meal.
    Eat,
    /// Seeking or keeping company.
    Socialise,
    /// At a gathering.
    Attend,
    /// A hobby, a walk, reading.
    Leisure,
    /// Posting a notice.
    PostNotice,
    /// Resting, looking around, waiting.
    Idle,
}

impl ActivityKind {
    /// What one does, in Chinese, at `place` (for memories and the player).
    pub fn doing_zh(self, place: &str) -> String {
        match self {
            Self::Sleep => format!("回{place}睡觉"),
            Self::Work => format!("在{place}干活"),
            Self::Eat => format!("在{place}吃饭"),
            Self::Socialise => format!("去{place}找人说说话"),
            Self::Attend => format!("去{place}参加聚会"),
            Self::Leisure => format!("在{place}消遣"),
            Self::PostNotice => format!("在{place}贴公告"),
            Self::Idle => format!("在{place}歇一会儿"),
        }
    }

    /// Classifies a plan's action text (from any brain): the earliest kind
    /// one of whose words it holds (lower-cased), else leisure.
    pub fn from_action(action: &str) -> Self {
        let (words, kind_of) = &*ACTION_MATCHER;
        words
            .find_overlapping_iter(&action.to_lowercase())
            .map(|m| kind_of[m.pattern().as_usize()])
            .min()
            .map_or(Self::Leisure, |k| ACTION_WORDS[k].0)
    }
}

/// What the resident says it is doing: kept apart from [`Activity`] so the
/// per-step scans over every resident touch a small component.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActivityText {
    /// The action as an English verb phrase ("Eat lunch at the tavern").
    pub(crate) action: String,
    /// What the resident says about it.
    pub(crate) dialogue: String,
    /// The emoji shown over it.
    pub(crate) emoji: String,
}

/// The resident's current action.
#[derive(Component, Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Activity {
    /// What it says it is doing.
    pub(crate) text: Box<ActivityText>,
    /// What kind of action it is.
    pub(crate) kind: ActivityKind,
    /// Where it is done.
    pub(crate) target: LocIdx,
    /// Duration of the action itself, in minutes, once there.
    pub(crate) duration: u32,
    /// When the resident will want a new plan.
    pub busy_until: GameTime,
    /// Reached the target and doing it (false while walking there).
    pub(crate) underway: bool,
    /// It walked to the target for this action (false: it was there
    /// already): one who stays on where it was has not just come in.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) walked: bool,
    /// Whom it is done with ("Chat with 阿朵": 阿朵), if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) with: Option<RosterIdx>,
}

/// The resident is waiting for its brain to produce a plan.
/// Sparse storage: it comes and goes every plan, without moving table rows.
#[derive(Component, Debug, Clone)]
#[component(storage = "SparseSet")]
pub struct Thinking {
    /// The request's number, so a late answer to an older request is dropped.
    pub(crate) request: u64,
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
#[derive(Component, Debug, Clone, serde::Serialize, serde::Deserialize)]
#[component(storage = "SparseSet")]
pub struct Walking {
    /// Places still to reach, next first; the last is the destination.
    pub(crate) route: Vec<LocIdx>,
    /// Map units walked on the current leg.
    pub(crate) progress: f32,
}

/// Position on the map (for drawing and distances).
#[derive(Component, Debug, Clone, Copy, PartialEq, Deref)]
pub struct MapPosition(pub Vec2);

/// What one thinks of another, shared between ties (first impressions come
/// from a few templates, and a big town holds a million ties).
pub type Impression = Arc<str>;

/// One resident's view of another.
#[derive(Debug, Clone)]
pub struct Relationship {
    /// Whom the view is of.
    pub(crate) with: ResidentId,
    /// `with`'s roster index, cached for cheap lookups in the census.
    pub(crate) with_idx: RosterIdx,
    /// The tie's stage or kind.
    pub kind: RelationKind,
    /// How strong, 0–100.
    pub strength: f32,
    /// What the resident thinks of the other.
    pub(crate) impression: Impression,
    /// Conversations they have had.
    pub(crate) interactions: u32,
    /// When they last talked.
    pub(crate) last_interaction: MaybeTime,
    /// When they first talked in this run (None: before it, or never).
    pub(crate) met: MaybeTime,
    /// What their last real talk was about and how it went.
    pub(crate) last_talk: Option<Box<LastTalk>>,
    /// The days they talked, the latest [`TALK_DAYS_KEPT`].
    pub(crate) talk_days: TalkDays,
}

/// What the last real talk with someone was about and how it went (being
/// served and a host's welcome do not count): what one may bring up on
/// meeting again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LastTalk {
    /// Its subject: a topic's label in the phrase bank (美食, 小镇新闻 …),
    /// shared with the bank (a big town keeps close to a million of these).
    pub(crate) subject: Arc<str>,
    /// What was said then, in a few words (修水车, 矿洞里的亮光): the
    /// phrase bank's `gist` of the exchange the talk was mostly about.
    #[serde(default)]
    pub(crate) gist: Option<Arc<str>>,
    /// How it went, as this side heard it.
    pub(crate) outcome: TalkOutcome,
}

/// How a conversation went, as one side heard it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TalkOutcome {
    /// An angry word: a quarrel.
    Argued,
    /// The other was low.
    Down,
    /// It went well (happy words, or the tie rose markedly).
    Warm,
    /// Nothing much either way.
    Plain,
}

/// One resident's ties, sorted by the other's roster index (built with
/// [`Relationships::new`] and grown with [`Relationships::entry`], which keep
/// it so).
#[derive(Component, Debug, Clone, Default)]
pub struct Relationships {
    ties: Vec<Relationship>,
    /// Each tie's `with_idx`, in the same order. The step looks ties up by
    /// index thousands of times (who joins a talk, who meets whom): in a big
    /// town a binary search over these few bytes costs a cache miss or two,
    /// over the ties themselves one per probe.
    keys: Vec<RosterIdx>,
}

impl Relationship {
    /// A tie read back from a save (its roster index is set when it is put back).
    pub(crate) fn restored(
        with: ResidentId,
        kind: RelationKind,
        strength: f32,
        impression: String,
        interactions: u32,
        (last_interaction, met): (Option<GameTime>, Option<GameTime>),
        (last_talk, talk_days): (Option<LastTalk>, TalkDays),
    ) -> Self {
        Self {
            with,
            with_idx: RosterIdx::default(),
            kind,
            strength,
            impression: Impression::from(impression.as_str()),
            interactions,
            last_interaction: last_interaction.into(),
            met: met.into(),
            last_talk: last_talk.map(Box::new),
            talk_days,
        }
    }

    /// A first view of `with` (roster index `idx`): strangers, never met.
    pub(crate) fn stranger(with: ResidentId, idx: RosterIdx) -> Self {
        Self {
            with,
            with_idx: idx,
            kind: RelationKind::Stranger,
            strength: 5.0,
            impression: Impression::default(),
            interactions: 0,
            last_interaction: MaybeTime::NEVER,
            met: MaybeTime::NEVER,
            last_talk: None,
            talk_days: TalkDays::default(),
        }
    }

    /// Whether they talked on `day` (a [`GameTime::social_day`]).
    pub fn talked_on(&self, day: i64) -> bool {
        self.talk_days.contains(day as i32)
    }
}

impl Relationships {
    /// The ties, in the others' roster order.
    pub fn iter(&self) -> std::slice::Iter<'_, Relationship> {
        self.ties.iter()
    }

    /// The ties, to change what they hold; whom each is with stays.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Relationship> {
        self.ties.iter_mut()
    }

    /// The ties as a slice, in the others' roster order.
    pub fn as_slice(&self) -> &[Relationship] {
        &self.ties
    }

    /// How many ties.
    pub fn len(&self) -> usize {
        self.ties.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ties.is_empty()
    }

    /// The relationship with `other`, if any.
    pub fn get(&self, other: &ResidentId) -> Option<&Relationship> {
        self.ties.iter().find(|r| &r.with == other)
    }

    /// The relationship with the resident at roster index `idx` (a binary
    /// search of the keys: see [`Relationships`]).
    pub fn by_idx(&self, idx: RosterIdx) -> Option<&Relationship> {
        self.slot(idx).map(|i| &self.ties[i])
    }

    /// Where the tie with roster index `idx` is, if there is one.
    fn slot(&self, idx: RosterIdx) -> Option<usize> {
        self.keys.binary_search(&idx).ok()
    }

    /// [`Relationships::by_idx`], to change (which ties there are stays).
    pub fn by_idx_mut(&mut self, idx: RosterIdx) -> Option<&mut Relationship> {
        self.slot(idx).map(|i| &mut self.ties[i])
    }

    /// The strength of the tie with `other` (0 when none).
    pub fn strength(&self, other: &ResidentId) -> f32 {
        self.get(other).map_or(0.0, |r| r.strength)
    }

    /// The relationship with `other` (roster index `idx`), created as strangers if new.
    pub fn entry(&mut self, other: &ResidentId, idx: RosterIdx) -> &mut Relationship {
        let i = match self.keys.binary_search(&idx) {
            Ok(i) => i,
            Err(i) => {
                crate::base::room_for_one(&mut self.ties);
                crate::base::room_for_one(&mut self.keys);
                self.keys.insert(i, idx);
                self.ties
                    .insert(i, Relationship::stranger(other.clone(), idx));
                i
            }
        };
        &mut self.ties[i]
    }

    /// Builds the list from ties in any order (one per other resident: the
    /// first of any with the same index is kept).
    pub fn new(mut ties: Vec<Relationship>) -> Self {
        ties.sort_by_key(|r| r.with_idx);
        ties.dedup_by_key(|r| r.with_idx);
        ties.shrink_to_fit();
        let keys = ties.iter().map(|r| r.with_idx).collect();
        Self { ties, keys }
    }
}

/// How the resident learnt of a gathering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Heard {
    /// It organises the gathering.
    Organiser,
    /// It read a notice.
    Notice,
    /// The organiser asked it in a conversation.
    Invitation,
    /// Someone else told it in a conversation.
    Told,
}

/// A gathering the resident knows of, and whether it means to go.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Appointment {
    /// Index into the scenario's gatherings.
    pub(crate) gathering: GatheringIdx,
    /// How it learnt of it.
    pub(crate) heard: Heard,
    /// Whether it means to go.
    pub(crate) will_attend: bool,
}

/// An appointment with another resident, as one side remembers it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct MeetingNote {
    /// The appointment's number.
    pub(crate) appointment: u32,
    /// Roster idx of the other side.
    pub(crate) with: RosterIdx,
    /// Where.
    pub(crate) place: LocIdx,
    /// When.
    pub(crate) at: GameTime,
    /// Whether this side means to come.
    pub(crate) keep: bool,
}

/// What the resident knows is coming: gatherings, appointments, notices read.
#[derive(Component, Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Agenda {
    /// Gatherings known of.
    pub(crate) appointments: Vec<Appointment>,
    /// Appointments made in conversation.
    pub(crate) meetings: Vec<MeetingNote>,
    /// Notice ids already read.
    pub(crate) notices_read: Vec<u32>,
}

impl Agenda {
    /// Whether it knows of the gathering.
    pub fn knows(&self, gathering: GatheringIdx) -> bool {
        self.appointments.iter().any(|a| a.gathering == gathering)
    }

    /// Whether its organiser would still invite it in person: it has not
    /// heard of the gathering, or only from the notice and means to stay away.
    pub fn may_be_invited(&self, gathering: GatheringIdx) -> bool {
        self.appointments
            .iter()
            .find(|a| a.gathering == gathering)
            .is_none_or(|a| !a.will_attend && a.heard == Heard::Notice)
    }
}

/// Per-night bookkeeping.
#[derive(Component, Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct NightState {
    /// The last night whose memories were consolidated.
    pub(crate) consolidated: Option<chrono::NaiveDate>,
    /// The last night slept.
    pub(crate) slept: Option<chrono::NaiveDate>,
}

/// Counts for the end-of-run summary.
#[derive(Component, Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// Plans made.
    pub(crate) plans: u32,
    /// Plans that needed fixing.
    pub(crate) fixed_plans: u32,
    /// Conversations held.
    pub(crate) conversations: u32,
    /// Notices posted.
    pub(crate) notices: u32,
    /// Nights slept.
    pub(crate) nights: u32,
    /// Meals eaten.
    pub(crate) meals: u32,
    /// Meals set out for on the current day…
    #[serde(default)]
    pub(crate) meals_today: u32,
    /// …which is this day (days since 1970).
    #[serde(default)]
    pub(crate) meal_day: i64,
}

impl Tally {
    /// One more meal, at `now`.
    pub(crate) fn ate(&mut self, now: GameTime) {
        self.meals += 1;
        self.meals_today = self.meals_on(now) + 1;
        self.meal_day = now.day_number();
    }

    /// Meals set out for on the day of `now`.
    pub(crate) fn meals_on(&self, now: GameTime) -> u32 {
        if self.meal_day == now.day_number() {
            self.meals_today
        } else {
            0
        }
    }
}

/// The resident's own random stream, seeded from the run seed and its id, so
/// one resident's choices do not shift when another's change. Kept as where
/// it stands in its ChaCha8 stream (64 bytes, not the generator's 300 with
/// its block buffer: a big town has 100,000), and drawn from through a
/// generator set there, so the draws are the stream's own.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct ResidentRng {
    seed: [u8; 32],
    stream: u64,
    word_pos: u128,
}

impl ResidentRng {
    /// Where `rng` stands.
    pub fn new(rng: &ChaCha8Rng) -> Self {
        Self {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: rng.get_word_pos(),
        }
    }

    /// A generator standing where the stream is.
    pub fn rng(&self) -> ChaCha8Rng {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(self.word_pos);
        rng
    }

    /// Draws from the stream with `f`; the stream goes on from where `f` stopped.
    pub fn draw<R>(&mut self, f: impl FnOnce(&mut ChaCha8Rng) -> R) -> R {
        let mut rng = self.rng();
        let out = f(&mut rng);
        self.word_pos = rng.get_word_pos();
        out
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Roster>()
        .init_resource::<Census>()
        .add_systems(SimStep, take_census.in_set(SimSet::Census));
}

/// Per-resident seed: the run seed mixed with a hash of the id (FNV-1a, stable across builds).
pub fn resident_seed(seed: u64, id: &str) -> u64 {
    crate::base::hash::fnv1a(id) ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
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
        let spots: Vec<Vec2> = (0..20)
            .map(|i| spread_position(&s.town, sq, RosterIdx(i)))
            .collect();
        for (i, a) in spots.iter().enumerate() {
            for b in &spots[i + 1..] {
                assert!(a.distance(*b) > 1.0, "two residents on one spot");
            }
        }
    }
}
