//! A resident as the simulation sees it: persona, shifts, ties, hobbies and
//! the script sets it runs, every place resolved to an index.

use std::path::PathBuf;
use std::sync::Arc;

use super::{BigFive, BrainOverride, LocIdx, RelationKind, WorkRole};
use crate::base::time::GameTime;

/// A resident's persona with every place resolved to an index.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The id used in logs, saves and prompts.
    pub id: ResidentId,
    /// The display name (Chinese).
    pub(crate) name: String,
    /// Age in years.
    pub(crate) age: u32,
    /// As the scenario writes it.
    pub(crate) gender: String,
    /// What they do for a living.
    pub(crate) occupation: String,
    /// Where they sleep.
    pub home: LocIdx,
    /// Their job's place and hours, if they have one.
    pub work: Option<WorkShift>,
    /// Big Five personality, each 0–100.
    pub(crate) personality: BigFive,
    /// A few words about them (善良、健谈 …).
    pub(crate) traits: Vec<String>,
    /// Something they would say, in their voice.
    pub(crate) quote: String,
    /// What they want.
    pub(crate) goals: Vec<Goal>,
    /// What they remember at the start.
    pub(crate) memories: Vec<String>,
    /// Ties they start with.
    pub(crate) relationships: Vec<InitialRelationship>,
    /// Minutes after midnight.
    pub(crate) wake: u32,
    /// Minutes after midnight; may exceed 1440 for after-midnight bedtimes.
    pub(crate) bedtime: u32,
    /// Chance (0–1) of staying out past bedtime on a given evening.
    pub(crate) late_night_chance: f32,
    /// What they like to do in their free time.
    pub(crate) hobbies: Vec<Hobby>,
    /// What they like to talk about.
    pub(crate) topics: Vec<String>,
    /// Dishes they like.
    pub(crate) food: Vec<String>,
    /// Whether they eat at all (a willow spirit does not: never hungry, no meals).
    pub(crate) eats: bool,
    /// What they know of everyone they have a tie with, beyond trade and family.
    pub(crate) knows: Vec<KnownAspect>,
    /// Their own LLM endpoint, or `builtin`; the town's otherwise.
    pub(crate) brain: Option<BrainOverride>,
    /// The script set the player talks with this resident through.
    pub(crate) counsel: Option<Counsel>,
    /// Skills this resident runs in its conversations with other residents.
    pub(crate) converse: Option<Converse>,
    /// The companion system the player talks with (affection, stages, key moments).
    pub companion: Option<std::sync::Arc<crate::companion::CompanionSpec>>,
    /// A host role in town (Cupid's dates), if any.
    pub host: Option<super::HostRole>,
    /// The character sheet the window draws (`sprite:`; else a stable pick).
    pub(crate) sprite: Option<String>,
    /// Which of the lines' persona words it has, as far as asked.
    pub(crate) word_memo: super::dialogue::WordMemo,
}

/// Something one may know of the people one has ties with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownAspect {
    /// What they like to eat.
    Food,
    /// What they do in their free time.
    Hobbies,
}

impl Profile {
    /// The display name (Chinese).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it eats at all (`eats: false`: a willow spirit).
    pub fn eats(&self) -> bool {
        self.eats
    }

    /// Whether `word` describes this resident: it is part of the occupation,
    /// a trait, a topic, or a hobby's Chinese words (what a first-person line
    /// about a trade or a pastime needs of its speaker).
    pub fn has_word(&self, word: &str) -> bool {
        // A hobby's own words, not what one says at it (「这些草药何医生用得上」
        // does not make a doctor).
        let hobby = |h: &Hobby| h.does.as_ref().is_some_and(|t| t.contains(word));
        self.occupation.contains(word)
            || self.traits.iter().any(|t| t.contains(word))
            || self.topics.iter().any(|t| t.contains(word))
            || self.hobbies.iter().any(hobby)
    }

    /// What the hobby is called in Chinese: its own words, else where it is done.
    pub fn hobby_words(&self, i: usize, place: &str) -> String {
        self.hobbies
            .get(i)
            .map(|h| {
                h.does
                    .as_deref()
                    .map_or_else(|| format!("去{place}"), str::to_owned)
            })
            .unwrap_or_default()
    }

    /// A town resident as a playtest persona, in the first person: who they are,
    /// their own words, what they want and what they remember, one sentence each.
    pub fn persona_text(&self) -> String {
        let p = self;
        let mut lines = vec![format!("我叫{}，{}岁，{}。", p.name, p.age, p.occupation)];
        if !p.traits.is_empty() {
            lines.push(format!("我{}。", p.traits.join("、")));
        }
        if !p.quote.is_empty() {
            lines.push(format!(
                "{}。",
                p.quote.trim_end_matches(['。', '！', '？'])
            ));
        }
        for g in &p.goals {
            lines.push(format!("我想{}。", g.text.trim_end_matches('。')));
        }
        for m in &p.memories {
            lines.push(format!("{}。", m.trim_end_matches('。')));
        }
        lines.join("\n")
    }
}

/// A resident that runs HEART RULE skills in its own conversations.
#[derive(Debug, Clone, PartialEq)]
pub struct Converse {
    /// The script folder (resolved against the scenario folder).
    pub(crate) dir: PathBuf,
    /// The set, loaded and checked with the scenario.
    pub(crate) script: LoadedSet,
    /// Chance (0–1) that a conversation runs one of the skills.
    pub(crate) chance: f32,
    /// Partner relations it runs them with; any when empty.
    pub(crate) with: Vec<RelationKind>,
    /// In order; each runs once per partner.
    pub(crate) skills: Vec<ConverseSkill>,
}

/// One skill a resident runs in its conversations.
#[derive(Debug, Clone, PartialEq)]
pub struct ConverseSkill {
    /// The skill's name in the script set.
    pub(crate) skill: String,
    /// (skill variable, template over [`CONVERSE_FIELDS`])
    pub(crate) input: Vec<(String, String)>,
}

/// A script set loaded and checked with the scenario. It shows and compares
/// by its hash: a reload of the same text is no change (its condition table
/// is a HashMap, unordered in Debug).
#[derive(Clone, Default)]
pub struct LoadedSet(pub(crate) Arc<crate::script::engine::Script>);

impl std::ops::Deref for LoadedSet {
    type Target = Arc<crate::script::engine::Script>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::fmt::Debug for LoadedSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x}", self.0.hash)
    }
}

impl PartialEq for LoadedSet {
    fn eq(&self, o: &Self) -> bool {
        self.0.hash == o.0.hash
    }
}

/// What a `converse` skill's `input` templates may use, filled in when the
/// skill starts: (field, meaning).
pub const CONVERSE_FIELDS: &[(&str, &str)] = &[
    ("我", "the resident's own name"),
    ("对方", "the partner's name"),
    ("对方职业", "the partner's occupation"),
    ("对方年龄", "the partner's age"),
    ("地点", "where they talk"),
    (
        "关系",
        "how the resident sees the partner: 陌生人, 熟人, 朋友, 好友, 家人, 同事",
    ),
    (
        "对方亲友",
        "the partner's closest tie (the resident aside), or 家里人",
    ),
    ("对方亲友关系", "that tie's kind: 家人, 朋友 …"),
];

/// A resident the player can talk with through a HEART RULE script set.
#[derive(Debug, Clone, PartialEq)]
pub struct Counsel {
    /// The script folder (resolved against the scenario folder).
    pub(crate) dir: PathBuf,
    /// The set, loaded and checked with the scenario (what a talk plays
    /// when the folder is gone: a town opened from a save).
    pub(crate) script: LoadedSet,
    /// The session to play (`None`: the first).
    pub(crate) session: Option<String>,
    /// The session of every later visit (the player's course goes on with
    /// it; `None`: `session` again).
    pub(crate) next: Option<String>,
}

impl Counsel {
    /// The sessions of the player's course, in order (the last repeats).
    pub(crate) fn order(&self, script: &crate::script::engine::Script) -> Vec<String> {
        let first = self
            .session
            .clone()
            .or_else(|| script.sessions.first().map(|s| s.session.value.clone()));
        first.into_iter().chain(self.next.clone()).collect()
    }
}

/// Strong, human-readable resident id as written in the scenario; used in logs and prompts.
/// Interned ([`crate::base::intern`]): copies are free, and equal ids are
/// the same pointer.
#[derive(Debug, Clone, Eq, PartialOrd, Ord)]
pub struct ResidentId(&'static str);

crate::interned_serde!(ResidentId);

// Hash the text, as `Ord` orders it (a pointer's hash would change the order
// of maps keyed by ids from run to run).
impl std::hash::Hash for ResidentId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for ResidentId {
    fn eq(&self, other: &Self) -> bool {
        // Interned: the same text is the same pointer.
        std::ptr::eq(self.0, other.0)
    }
}

impl ResidentId {
    /// An id from its text.
    pub fn new(id: &str) -> Self {
        Self(crate::base::intern::intern(id))
    }
    /// The id's text.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
    /// A key as cheap to hash as a number: the id's one copy's address
    /// (for lookups only; never iterated, as it changes from run to run).
    pub fn address(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

impl std::fmt::Display for ResidentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// A resident's job: where, when and what they do there.
#[derive(Debug, Clone)]
pub struct WorkShift {
    /// Where they work.
    pub place: LocIdx,
    /// Minutes after midnight the shift starts.
    pub(crate) start: u32,
    /// Minutes after midnight the shift ends.
    pub(crate) end: u32,
    /// Indexed Monday = 0.
    pub(crate) days: [bool; 7],
    /// What they do on shift (English verb phrase, as in plans).
    pub(crate) action: String,
    /// The emoji shown while on shift.
    pub(crate) emoji: String,
    /// Must greet who comes in while on shift.
    pub(crate) role: Option<WorkRole>,
    /// Whom the role greets; everyone when empty.
    pub(crate) greets: Vec<ResidentId>,
}

impl WorkShift {
    /// Whether `minute` of weekday `weekday` falls in this shift.
    pub fn covers(&self, weekday: usize, minute: u32) -> bool {
        self.days[weekday] && minute >= self.start && minute < self.end
    }
}

/// Something a resident wants.
#[derive(Debug, Clone)]
pub struct Goal {
    /// The goal, in their words.
    pub(crate) text: String,
    /// Index into [`Scenario::gatherings`](super::Scenario::gatherings).
    pub(crate) gathering: Option<GatheringIdx>,
    /// A notice they post (once) for it.
    pub(crate) notice: Option<String>,
}

/// A tie a resident starts with.
#[derive(Debug, Clone)]
pub struct InitialRelationship {
    /// Whom it is with.
    pub(crate) with: ResidentId,
    /// What the tie is.
    pub(crate) kind: RelationKind,
    /// How strong, 0–100.
    pub(crate) strength: f32,
    /// What they think of the other (shared with the resident's tie).
    pub(crate) impression: Arc<str>,
}

/// Something a resident likes to do in their free time.
#[derive(Debug, Clone)]
pub struct Hobby {
    /// English verb phrase, e.g. "Explore the old mine". (Shared text: a
    /// generated town's residents draw their pastimes from a few.)
    pub(crate) action: Arc<str>,
    /// Where.
    pub(crate) place: LocIdx,
    /// The emoji shown while at it.
    pub(crate) emoji: Arc<str>,
    /// A Chinese line they might say while at it.
    pub(crate) says: Option<Arc<str>>,
    /// What it is, in Chinese ("在柳溪边吹长笛").
    pub(crate) does: Option<Arc<str>>,
    /// The share of days it comes to mind (1: every day).
    pub(crate) often: f32,
    /// Only in the evening (18:00 on).
    pub(crate) evening: bool,
}

/// A gathering's place among the scenario's gatherings (`Scenario::gatherings`):
/// a dense index, like `LocIdx` (kept in saves and facts as the number).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct GatheringIdx(pub u16);

impl GatheringIdx {
    /// As an index into the gatherings.
    pub fn i(self) -> usize {
        self.0 as usize
    }
}

/// A get-together a resident organises (from a goal).
#[derive(Debug, Clone)]
pub struct Gathering {
    /// Its index in [`Scenario::gatherings`](super::Scenario::gatherings).
    pub(crate) id: GatheringIdx,
    /// What it is called.
    pub(crate) title: String,
    /// Who organises it.
    pub(crate) organiser: ResidentId,
    /// Where.
    pub(crate) location: LocIdx,
    /// When it starts.
    pub(crate) starts: GameTime,
    /// When it ends.
    pub(crate) ends: GameTime,
}

impl Gathering {
    /// Whether it is under way at `place` at `now`.
    pub(crate) fn under_way_at(&self, place: super::LocIdx, now: GameTime) -> bool {
        self.location == place && self.starts <= now && now < self.ends
    }
}
