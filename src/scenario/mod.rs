//! Scenario folders: YAML files → a validated [`Scenario`].
//!
//! Loading never panics: every problem becomes a [`Diagnostic`] that names
//! `file:line:col`, the field and, where one helps, a hint.

pub mod generate;
mod planner_tuning;
mod resolve;
mod social_tuning;
pub mod spec;
mod town;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::base::{Diagnostic, Diagnostics, parse_yaml};

pub use spec::{
    BigFive, LocationKind, MapSize, PlannerTuning, RelationKind, Service, SocialTuning, Tuning,
    WorkRole,
};

pub use town::{LocIdx, Location, LocationId, Town};

use crate::base::time::GameTime;

/// The files of a scenario folder, in load order.
pub const FILES: [&str; 4] = [
    "town.yaml",
    "locations.yaml",
    "residents.yaml",
    "tuning.yaml",
];

/// A validated scenario, ready to spawn.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub dir: PathBuf,
    pub name: String,
    pub description: String,
    pub start: GameTime,
    pub days: u32,
    pub minutes_per_second: f32,
    pub map: MapSize,
    pub seed: u64,
    pub town: Town,
    pub residents: Vec<Arc<Profile>>,
    pub gatherings: Vec<Gathering>,
    pub tuning: Tuning,
    /// The `llm:` block of `town.yaml`.
    pub llm: Option<spec::LlmSpec>,
}

/// A resident's persona with every place resolved to an index.
#[derive(Debug, Clone)]
pub struct Profile {
    pub id: ResidentId,
    pub name: String,
    pub age: u32,
    pub gender: String,
    pub occupation: String,
    pub home: LocIdx,
    pub work: Option<WorkShift>,
    pub personality: BigFive,
    pub traits: Vec<String>,
    pub quote: String,
    pub goals: Vec<Goal>,
    pub memories: Vec<String>,
    pub relationships: Vec<InitialRelationship>,
    /// Minutes after midnight.
    pub wake: u32,
    /// Minutes after midnight; may exceed 1440 for after-midnight bedtimes.
    pub bedtime: u32,
    pub late_night_chance: f32,
    pub hobbies: Vec<Hobby>,
    pub topics: Vec<String>,
    pub brain: Option<spec::BrainOverride>,
    /// The script set the player talks with this resident through.
    pub counsel: Option<Counsel>,
    /// Skills this resident runs in its conversations with other residents.
    pub converse: Option<Converse>,
}

impl Profile {
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
#[derive(Clone)]
pub struct Converse {
    pub dir: PathBuf,
    /// The set, loaded and checked with the scenario.
    pub script: Arc<crate::script::engine::Script>,
    pub chance: f32,
    /// Partner relations it runs them with; any when empty.
    pub with: Vec<spec::RelationKind>,
    /// In order; each runs once per partner.
    pub skills: Vec<ConverseSkill>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConverseSkill {
    pub skill: String,
    /// (skill variable, template over [`CONVERSE_FIELDS`])
    pub input: Vec<(String, String)>,
}

// The loaded script shows and compares by its hash: a reload of the same
// text is no change (its condition table is a HashMap, unordered in Debug).
impl std::fmt::Debug for Converse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Converse")
            .field("dir", &self.dir)
            .field("script", &format_args!("{:x}", self.script.hash))
            .field("chance", &self.chance)
            .field("with", &self.with)
            .field("skills", &self.skills)
            .finish()
    }
}

impl PartialEq for Converse {
    fn eq(&self, o: &Self) -> bool {
        self.dir == o.dir
            && self.script.hash == o.script.hash
            && self.chance == o.chance
            && self.with == o.with
            && self.skills == o.skills
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
    pub dir: PathBuf,
    /// The session to play (`None`: the first).
    pub session: Option<String>,
}

/// Strong, human-readable resident id as written in the scenario; used in logs and prompts.
#[derive(Debug, Clone, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ResidentId(pub Arc<str>);

// Hash the text, as `Eq` compares it (the pointer check is only a shortcut).
impl std::hash::Hash for ResidentId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for ResidentId {
    fn eq(&self, other: &Self) -> bool {
        // Ids are shared Arcs, so the pointer check settles most comparisons.
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl ResidentId {
    pub fn new(id: &str) -> Self {
        Self(Arc::from(id))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ResidentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone)]
pub struct WorkShift {
    pub place: LocIdx,
    pub start: u32,
    pub end: u32,
    /// Indexed Monday = 0.
    pub days: [bool; 7],
    pub action: String,
    pub emoji: String,
    /// Must greet who comes in while on shift.
    pub role: Option<spec::WorkRole>,
    /// Whom the role greets; everyone when empty.
    pub greets: Vec<ResidentId>,
}

impl WorkShift {
    /// Whether `minute` of weekday `weekday` falls in this shift.
    pub fn covers(&self, weekday: usize, minute: u32) -> bool {
        self.days[weekday] && minute >= self.start && minute < self.end
    }
}

#[derive(Debug, Clone)]
pub struct Goal {
    pub text: String,
    /// Index into [`Scenario::gatherings`].
    pub gathering: Option<usize>,
    pub notice: Option<String>,
}

#[derive(Debug, Clone)]
pub struct InitialRelationship {
    pub with: ResidentId,
    pub kind: RelationKind,
    pub strength: f32,
    pub impression: String,
}

#[derive(Debug, Clone)]
pub struct Hobby {
    pub action: String,
    pub place: LocIdx,
    pub emoji: String,
    pub says: Option<String>,
    pub evening: bool,
}

/// A get-together a resident organises (from a goal).
#[derive(Debug, Clone)]
pub struct Gathering {
    pub id: usize,
    pub title: String,
    pub organiser: ResidentId,
    pub location: LocIdx,
    pub starts: GameTime,
    pub ends: GameTime,
}

impl Scenario {
    /// Loads and validates a scenario folder. Problems come in file order
    /// (town, locations, residents, tuning), then by line and column.
    pub fn load(dir: impl AsRef<Path>) -> Result<Scenario, Diagnostics> {
        Self::load_unsorted(dir.as_ref()).map_err(|mut d| {
            d.0.sort_by_key(|x| {
                let name = x.file.file_name().and_then(|n| n.to_str()).unwrap_or("");
                (FILES.iter().position(|f| *f == name), x.line, x.col)
            });
            d
        })
    }

    fn load_unsorted(dir: &Path) -> Result<Scenario, Diagnostics> {
        let mut diags = Diagnostics::default();
        if !dir.is_dir() {
            diags.push(Diagnostic::file(
                dir,
                "scenario folder not found",
                Some("pass a folder holding town.yaml, locations.yaml, residents.yaml and tuning.yaml"),
            ));
            return Err(diags);
        }
        let town: Option<spec::TownFile> = read_yaml(dir, "town.yaml", true, &mut diags);
        let locations: Option<spec::LocationsFile> =
            read_yaml(dir, "locations.yaml", true, &mut diags);
        let residents: Option<spec::ResidentsFile> =
            read_yaml(dir, "residents.yaml", true, &mut diags);
        let tuning: Option<Tuning> = read_yaml(dir, "tuning.yaml", false, &mut diags);
        let (town, locations, residents) = match (town, locations, residents) {
            (Some(t), Some(l), Some(r)) => (t, l, r),
            (t, l, _) => {
                // Still check the map when only the residents failed to parse, so
                // one run of `check` reports every problem it can.
                if let (Some(t), Some(l)) = (t, l) {
                    resolve::check_map(dir, &t, &l, &mut diags);
                }
                return Err(diags);
            }
        };
        let files = resolve::Files {
            dir,
            town,
            locations,
            residents,
            tuning: tuning.unwrap_or_default(),
        };
        match resolve::resolve(files, &mut diags) {
            Some(s) if diags.is_empty() => Ok(s),
            _ => Err(diags),
        }
    }
}

/// Reads one YAML file; on failure records a diagnostic with the field path.
fn read_yaml<T: DeserializeOwned>(
    dir: &Path,
    name: &str,
    required: bool,
    diags: &mut Diagnostics,
) -> Option<T> {
    let path = dir.join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return None,
        Err(e) => {
            diags.push(Diagnostic::file(
                &path,
                &format!("cannot read file: {e}"),
                Some("every scenario needs town.yaml, locations.yaml and residents.yaml"),
            ));
            return None;
        }
    };
    match parse_yaml::<T>(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.push(e.in_file(&path));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_town_loads() {
        let s = crate::headless::default_scenario();
        assert!(s.residents.len() >= 8);
        assert!(s.town.len() >= 10);
        assert_eq!(s.start.minute_of_day(), 6 * 60, "the run starts at 06:00");
        for kind in [
            "square",
            "tavern",
            "library",
            "clinic",
            "workshop",
            "mine",
            "forest_camp",
        ] {
            assert!(s.town.find(kind).is_some(), "{kind}");
        }
        assert_eq!(s.gatherings.len(), 1);
        assert_eq!(s.gatherings[0].starts.to_string(), "2026-04-08 18:00");
    }

    #[test]
    fn type_errors_name_the_field_path() {
        let e = parse_yaml::<spec::LocationsFile>(
            "locations:\n  - id: a\n    name: A\n    kind: shop\n    position: [1, 2]\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.col), (4, 11));
        assert_eq!(e.field, "locations[0].kind");
        assert!(
            e.message.starts_with("unknown variant `shop`"),
            "{}",
            e.message
        );
        assert!(e.hint.is_some());
    }
}
