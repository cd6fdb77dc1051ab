//! The scenario files as written by designers: one struct per YAML file.
//! Unknown fields are rejected so a typo never silently does nothing.
//! Ids that other entries refer to are `Spanned` so semantic errors
//! (dangling connection, unknown home …) can still point at `file:line:col`.

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

/// `town.yaml`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TownFile {
    pub(super) name: String,
    #[serde(default)]
    pub(super) description: String,
    /// `"YYYY-MM-DD HH:MM"`, the first moment of the run.
    pub(super) start: Spanned<String>,
    pub(super) days: u32,
    /// Game minutes per real second at speed 1× (the window uses it; `sim` runs flat out).
    pub(super) minutes_per_second: f32,
    pub(super) map: MapSize,
    /// Seed used when the command line gives none.
    #[serde(default)]
    pub(super) seed: Option<u64>,
    /// An LLM endpoint for the residents' minds (flags and environment override it).
    #[serde(default)]
    pub(super) llm: Option<LlmSpec>,
}

/// `llm:` in `town.yaml`. Keys never go in files: name the environment variable.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LlmSpec {
    /// e.g. `http://127.0.0.1:8089/v1`, or several servers (a pool).
    #[serde(default)]
    pub(crate) base_url: Option<super::Urls>,
    /// The model to ask for.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Environment variable holding the API key.
    #[serde(default)]
    pub(crate) api_key_env: Option<String>,
    /// Seconds before a call is given up.
    #[serde(default)]
    pub(crate) timeout_secs: Option<f64>,
    /// Calls in flight at once.
    #[serde(default)]
    pub(crate) concurrency: Option<usize>,
    /// Calls a game day may make; past it, the built-in brain answers.
    #[serde(default)]
    pub(crate) max_calls_per_day: Option<u32>,
    /// Sampling temperature.
    #[serde(default)]
    pub(crate) temperature: Option<f32>,
    /// Stream conversation lines (SSE).
    #[serde(default)]
    pub(crate) stream: Option<bool>,
    /// Only these resident ids use the LLM (default: all).
    #[serde(default)]
    pub(crate) residents: Option<Vec<String>>,
    /// Queued calls beyond which unwatched residents use the built-in brain.
    #[serde(default)]
    pub(crate) lod_queue: Option<usize>,
    /// The largest answer read from a server, in KiB (default 1024).
    #[serde(default)]
    pub(crate) max_body_kib: Option<usize>,
}

/// The map's size in map units.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MapSize {
    /// Width.
    pub(crate) width: f32,
    /// Height.
    pub(crate) height: f32,
}

/// `locations.yaml`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LocationsFile {
    pub(super) locations: Vec<LocationSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LocationSpec {
    pub(super) id: Spanned<String>,
    pub(super) name: String,
    #[serde(default)]
    pub(super) description: String,
    pub(super) kind: LocationKind,
    /// Centre of the place on the map.
    pub(super) position: [f32; 2],
    /// Width and height of its area; residents spread out inside it.
    #[serde(default = "default_area")]
    pub(super) size: [f32; 2],
    #[serde(default)]
    pub(super) connections: Vec<Spanned<String>>,
    #[serde(default = "default_capacity")]
    pub(super) capacity: u32,
    #[serde(default)]
    pub(super) services: Vec<Service>,
    /// How the window draws it; inferred from `kind` and `services` when absent.
    #[serde(default)]
    pub(super) look: Option<super::look::PlaceLook>,
}

fn default_area() -> [f32; 2] {
    [80.0, 60.0]
}
fn default_capacity() -> u32 {
    20
}

/// serde's default for a field that is on unless said otherwise.
fn yes() -> bool {
    true
}

/// What kind of place a location is; decides what residents do there and how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationKind {
    /// Where someone lives.
    Home,
    /// A workplace.
    Work,
    /// Where meals are served.
    Food,
    /// A square, a library: open to all.
    Public,
    /// A riverside, a pine wood.
    Nature,
    /// Out of the way: a camp, the old mine.
    Wild,
}

/// What a place offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    /// Meals.
    Food,
    /// A bed.
    Sleep,
    /// A notice board.
    NoticeBoard,
    /// Books to read.
    Books,
}

/// `residents.yaml`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResidentsFile {
    pub(super) residents: Vec<ResidentSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResidentSpec {
    pub(super) id: Spanned<String>,
    pub(super) name: String,
    pub(super) age: u32,
    pub(super) gender: String,
    pub(super) occupation: String,
    pub(super) home: Spanned<String>,
    #[serde(default)]
    pub(super) work: Option<WorkSpec>,
    pub(super) personality: BigFive,
    #[serde(default)]
    pub(super) traits: Vec<String>,
    #[serde(default)]
    pub(super) quote: String,
    #[serde(default)]
    pub(super) goals: Vec<GoalSpec>,
    #[serde(default)]
    pub(super) memories: Vec<String>,
    #[serde(default)]
    pub(super) relationships: Vec<RelationshipSpec>,
    /// Daily rhythm; derived from personality when absent.
    #[serde(default)]
    pub(super) schedule: Option<ScheduleSpec>,
    /// Things this resident likes to do in free time.
    #[serde(default)]
    pub(super) hobbies: Vec<HobbySpec>,
    /// What this resident likes to talk about.
    #[serde(default)]
    pub(super) topics: Vec<String>,
    /// Dishes this resident likes (what it orders by name at an eatery).
    #[serde(default)]
    pub(super) food: Vec<String>,
    /// `false` for one without a body to feed (a willow spirit): it is never
    /// hungry and never goes for a meal.
    #[serde(default = "yes")]
    pub(super) eats: bool,
    /// What this resident knows of everyone it has a tie with, beyond their
    /// trade and family (a keeper who remembers what everyone eats: `[food]`).
    #[serde(default)]
    pub(super) knows: Vec<super::profile::KnownAspect>,
    /// The character sheet the window draws (`"1"` … `"25"`).
    #[serde(default)]
    pub(super) sprite: Option<Spanned<String>>,
    /// Drive this resident with another brain or model (used by the LLM brain).
    #[serde(default)]
    pub(super) brain: Option<BrainOverride>,
    /// The player can talk with this resident through a HEART RULE script set
    /// (the window's "talk" button).
    #[serde(default)]
    pub(super) counsel: Option<CounselSpec>,
    /// This resident runs skills of a HEART RULE script set in its own
    /// conversations with other residents.
    #[serde(default)]
    pub(super) converse: Option<ConverseSpec>,
    /// The player's companion: affection, stages, key moments.
    #[serde(default)]
    pub(super) companion: Option<Spanned<crate::companion::CompanionSpec>>,
    /// A host role in town (`cupid`: this resident hosts dates).
    #[serde(default)]
    pub(super) host: Option<HostRole>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConverseSpec {
    /// The script folder, relative to the scenario folder.
    pub(super) scripts: Spanned<String>,
    /// The chance (0–1) that a conversation this resident opens or joins as
    /// one of two runs the next skill due with that partner.
    #[serde(default = "default_converse_chance")]
    pub(super) chance: f32,
    /// Only with partners it sees this way (by strength: stranger,
    /// acquaintance, friend, close_friend); anyone when empty.
    #[serde(default)]
    pub(super) with: Vec<RelationKind>,
    /// Skills in the order they are run with each partner (each once per partner).
    pub(super) skills: Vec<ConverseSkillSpec>,
}

fn default_converse_chance() -> f32 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConverseSkillSpec {
    /// A goal of the set's `skills:`.
    pub(super) skill: Spanned<String>,
    /// Skill variable → value; `{对方}` and the other conversation fields
    /// (see `docs/heart-rule.md`) are filled in when the skill starts.
    #[serde(default)]
    pub(super) input: std::collections::BTreeMap<String, Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CounselSpec {
    /// The script folder, relative to the scenario folder.
    pub(super) scripts: Spanned<String>,
    /// The session to play (default: the script set's first).
    #[serde(default)]
    pub(super) session: Option<String>,
    /// The session of every later visit (default: `session` again).
    #[serde(default)]
    pub(super) next: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkSpec {
    pub(super) place: Spanned<String>,
    /// `"HH:MM-HH:MM"`
    pub(super) hours: Spanned<String>,
    /// Weekdays worked: `mon`…`sun`; every day when absent.
    #[serde(default)]
    pub(super) days: Vec<Weekday>,
    /// What working looks like, e.g. "Serve drinks at the bar".
    #[serde(default)]
    pub(super) action: Option<String>,
    #[serde(default)]
    pub(super) emoji: Option<String>,
    /// A service role: on shift, the resident must greet whoever comes in.
    #[serde(default)]
    pub(super) role: Option<WorkRole>,
    /// With `role`: only these residents are greeted (e.g. a teacher's students); everyone when empty.
    #[serde(default)]
    pub(super) greets: Vec<Spanned<String>>,
}

/// What a resident may host in town.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostRole {
    /// Cupid, the dating host: hosts dates between two residents.
    Cupid,
}

/// Work roles that must greet (the design's waiter–customer, teacher–student, seller–customer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkRole {
    /// Serves guests.
    Waiter,
    /// Teaches.
    Teacher,
    /// Sells.
    Seller,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

/// Big Five personality, each 0–100.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BigFive {
    /// Openness to experience.
    pub(crate) openness: f32,
    /// Conscientiousness.
    pub(crate) conscientiousness: f32,
    /// Extraversion.
    pub(crate) extraversion: f32,
    /// Agreeableness.
    pub(crate) agreeableness: f32,
    /// Neuroticism.
    pub(crate) neuroticism: f32,
}

/// A goal is a line of text, optionally with a gathering to organise and a notice to post.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GoalSpec {
    pub(super) text: String,
    #[serde(default)]
    pub(super) gathering: Option<GatheringSpec>,
    /// Text to post on a notice board (once).
    #[serde(default)]
    pub(super) notice: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GatheringSpec {
    pub(super) title: String,
    pub(super) location: Spanned<String>,
    /// Day of the run, 1-based.
    pub(super) day: u32,
    /// `"HH:MM"`
    pub(super) from: Spanned<String>,
    pub(super) to: Spanned<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RelationshipSpec {
    pub(super) with: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) kind: RelationKind,
    pub(super) strength: f32,
    #[serde(default)]
    pub(super) impression: String,
}

/// How one resident sees another: the stages a tie grows through, and the
/// fixed kinds a scenario may set (family, colleagues).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    /// Never really talked.
    Stranger,
    /// Knows the other to talk to.
    Acquaintance,
    /// A friend.
    Friend,
    /// A close friend.
    CloseFriend,
    /// Family, whatever the strength.
    Family,
    /// Works at the same place.
    Colleague,
}

impl RelationKind {
    /// The Chinese word players and prompts read: 陌生人, 熟人, 朋友 …
    pub fn label(self) -> &'static str {
        match self {
            RelationKind::Stranger => "陌生人",
            RelationKind::Acquaintance => "熟人",
            RelationKind::Friend => "朋友",
            RelationKind::CloseFriend => "好友",
            RelationKind::Family => "家人",
            RelationKind::Colleague => "同事",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScheduleSpec {
    pub(super) wake: Spanned<String>,
    pub(super) bedtime: Spanned<String>,
    /// Chance (0–1) of staying out past bedtime on a given evening.
    #[serde(default)]
    pub(super) late_night_chance: Option<f32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HobbySpec {
    /// English verb phrase, e.g. "Explore the old mine".
    pub(super) action: String,
    pub(super) place: Spanned<String>,
    #[serde(default)]
    pub(super) emoji: Option<String>,
    /// A Chinese line the resident might say while at it.
    #[serde(default)]
    pub(super) says: Option<String>,
    /// What it is, in Chinese words others would use ("在柳溪边吹长笛"):
    /// what is known and told of the resident's pastime.
    #[serde(default)]
    pub(super) does: Option<String>,
    /// Only in the evening (18:00 on) — e.g. a late walk.
    #[serde(default)]
    pub(super) evening: bool,
    /// The share of days it comes to mind at all (1: every day; 0.3: now
    /// and then — a forager who comes to town now and then).
    #[serde(default)]
    pub(super) often: Option<Spanned<f32>>,
}

/// What an `api_key_env` may name: an API key, not any secret of the user's.
pub(super) const KEY_SUFFIX: &str = "_API_KEY";

/// Whether a scenario's `api_key_env` names a variable it may read.
pub fn key_name_allowed(name: &str) -> bool {
    name.len() > KEY_SUFFIX.len() && name.ends_with(KEY_SUFFIX)
}

/// The diagnostic's hint for a name [`key_name_allowed`] refuses.
pub(crate) fn key_name_hint() -> String {
    format!(
        "name the environment variable that holds this endpoint's key, ending in {KEY_SUFFIX} \
         (e.g. DEEPSEEK_API_KEY); no other variable is ever read"
    )
}

/// A resident's own brain: its own endpoint, or always the built-in one.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BrainOverride {
    /// This resident's own OpenAI-compatible base URL, or several (a pool).
    #[serde(default)]
    pub(crate) endpoint: Option<super::Urls>,
    /// The model to ask for.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Environment variable holding the key for `endpoint`.
    #[serde(default)]
    pub(crate) api_key_env: Option<String>,
    /// Always the built-in brain, even when an LLM is configured.
    #[serde(default)]
    pub(crate) builtin: bool,
}

/// `tuning.yaml` — every number a designer may want to turn.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Tuning {
    /// Game minutes per simulation step.
    pub(crate) step_minutes: u32,
    /// Map units walked per game minute.
    pub(crate) walk_speed: f32,
    /// How needs fall and rise.
    pub(crate) needs: NeedsTuning,
    /// Conversations and ties.
    pub(crate) social: SocialTuning,
    /// How long actions last.
    pub durations: DurationTuning,
    /// The built-in planner's utilities.
    pub planner: PlannerTuning,
    /// How memory retrieval weighs relevance, importance and recency.
    pub memory: crate::recall::RecallTuning,
    /// LLM prompts' token budget, layer by layer.
    pub prompt: crate::context::PromptBudget,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            step_minutes: 1,
            walk_speed: 60.0,
            needs: NeedsTuning::default(),
            social: SocialTuning::default(),
            durations: DurationTuning::default(),
            planner: PlannerTuning::default(),
            memory: crate::recall::RecallTuning::default(),
            prompt: crate::context::PromptBudget::default(),
        }
    }
}

/// `needs:` — how needs fall and what restores them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NeedsTuning {
    /// Points lost per game minute (needs are 0–100, 100 = fully satisfied).
    pub(crate) decay: NeedRates,
    /// Energy per minute asleep.
    pub(crate) sleep_restore: f32,
    /// Hunger per minute eating where food is served.
    pub(crate) eat_restore: f32,
    /// Social need per line spoken or heard in a conversation.
    pub(crate) talk_restore: f32,
    /// Social need per minute spent with others at a gathering, tavern, square.
    pub(crate) company_restore: f32,
    /// Fun per minute of leisure (hobbies, reading, walks, gatherings).
    pub(crate) leisure_restore: f32,
    /// Asleep, hunger and the need for company fall this much as fast.
    pub(crate) asleep_decay: f32,
    /// Walking, energy falls this much as fast.
    pub(crate) walking_decay: f32,
    /// Company restores social need for at most this many others present.
    pub(crate) company_cap: f32,
    /// At a gathering or socialising, fun rises at this share of leisure's rate.
    pub(crate) social_fun: f32,
    /// Idling (resting, looking around), energy rises at this share of its decay.
    pub(crate) idle_energy: f32,
    /// Doing anything else with others there, social need rises at this share
    /// of `company_restore`.
    pub(crate) company_nearby: f32,
}

impl Default for NeedsTuning {
    fn default() -> Self {
        Self {
            decay: NeedRates::default(),
            sleep_restore: 0.22,
            eat_restore: 1.6,
            talk_restore: 6.0,
            company_restore: 0.25,
            leisure_restore: 0.45,
            asleep_decay: 0.35,
            walking_decay: 1.3,
            company_cap: 4.0,
            social_fun: 0.8,
            idle_energy: 0.5,
            company_nearby: 0.25,
        }
    }
}

/// Points per game minute for each need.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NeedRates {
    /// Energy.
    pub(crate) energy: f32,
    /// Hunger (100 = full).
    pub(crate) hunger: f32,
    /// Company.
    pub(crate) social: f32,
    /// Fun.
    pub(crate) fun: f32,
}

impl Default for NeedRates {
    fn default() -> Self {
        Self {
            energy: 0.07,
            hunger: 0.13,
            social: 0.06,
            fun: 0.05,
        }
    }
}

pub use super::planner_tuning::PlannerTuning;
pub(super) use super::social_tuning::*;

/// `durations:` — how long actions last, in game minutes.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DurationTuning {
    /// Shortest action, in game minutes.
    pub min: u32,
    /// Longest action (a full night's sleep fits).
    pub max: u32,
    /// A meal.
    pub(crate) meal: u32,
    /// Posting a notice.
    pub(crate) notice: u32,
    /// Sleep longer than this consolidates the day's memories.
    pub(crate) consolidate_after: u32,
}

impl Default for DurationTuning {
    fn default() -> Self {
        Self {
            min: 50,
            max: 480,
            meal: 50,
            notice: 50,
            consolidate_after: 120,
        }
    }
}
