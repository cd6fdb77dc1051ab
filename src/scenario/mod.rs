//! Scenario folders: YAML files → a validated [`Scenario`].
//!
//! Loading never panics: every problem becomes a [`Diagnostic`] that names
//! `file:line:col`, the field and, where one helps, a hint.

pub mod dialogue;
pub mod generate;
mod generate_people;
mod look;
mod planner_tuning;
mod profile;
mod resolve;
mod social_tuning;
mod spec;
mod town;
pub(crate) mod urls;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::base::{Diagnostic, Diagnostics, parse_yaml};

pub use social_tuning::{
    AppointmentTuning, ConversationTuning, GroupTuning, ImportanceTuning, KeywordTable,
    ProximityTuning, RelationshipTuning, SocialTuning, StageValues,
};
pub use spec::{
    BigFive, BrainOverride, DurationTuning, HostRole, LlmSpec, LocationKind, MapSize, NeedRates,
    NeedsTuning, PlannerTuning, RelationKind, Service, Tuning, WorkRole, key_name_allowed,
};

pub use dialogue::PhraseBank;
pub use look::PlaceLook;
pub use profile::{
    CONVERSE_FIELDS, Converse, ConverseSkill, Counsel, Gathering, GatheringIdx, Goal, Hobby,
    InitialRelationship, KnownAspect, LoadedSet, Profile, ResidentId, WorkShift,
};
pub(crate) use resolve::tuning_problems;
pub use town::{LocIdx, Location, LocationId, Town};
pub use urls::Urls;

use crate::base::time::GameTime;

/// The files of a scenario folder, in load order (`dialogue.yaml` may be
/// left out: the default town's phrase bank is built in).
pub const FILES: [&str; 6] = [
    "town.yaml",
    "locations.yaml",
    "residents.yaml",
    "tuning.yaml",
    dialogue::FILE,
    crate::companion::bank::FILE,
];

/// A validated scenario, ready to spawn.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The folder it was loaded from.
    pub(crate) dir: PathBuf,
    /// The town's name (`town.yaml`).
    pub(crate) name: String,
    /// A line about the town.
    pub description: String,
    /// When the run begins.
    pub(crate) start: GameTime,
    /// Game days a run lasts unless told otherwise.
    pub(crate) days: u32,
    /// Game minutes per real second in the window at 1×.
    pub(crate) minutes_per_second: f32,
    /// The map's size in map units.
    pub(crate) map: MapSize,
    /// The seed a run uses unless given one.
    pub(crate) seed: u64,
    /// The places and the paths between them.
    pub town: Town,
    /// Everyone, in `residents.yaml` order.
    pub residents: Vec<Arc<Profile>>,
    /// The get-togethers residents' goals organise.
    pub(crate) gatherings: Vec<Gathering>,
    /// Every number a designer may turn (`tuning.yaml`).
    pub tuning: Tuning,
    /// The `llm:` block of `town.yaml`.
    pub(crate) llm: Option<LlmSpec>,
    /// What the built-in brain says (`dialogue.yaml`, else the built-in bank).
    pub dialogue: Arc<PhraseBank>,
    /// What residents say to the player in a chat (`chat.yaml`, else the built-in bank).
    pub chat: Arc<crate::companion::ChatBank>,
}

impl Scenario {
    /// Every resident's and place's name (the words memory search keeps whole).
    pub fn names(&self) -> Vec<String> {
        let residents = self.residents.iter().map(|p| p.name.clone());
        let places = self.town.indices().map(|l| self.town.name(l).to_string());
        residents.chain(places).collect()
    }

    /// The resident called `who`, by id or by name.
    pub fn resident(&self, who: &str) -> Option<&Arc<Profile>> {
        self.residents
            .iter()
            .find(|p| p.id.as_str() == who || p.name == who)
    }

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
        let dialogue = load_dialogue(dir, &mut diags);
        let chat = load_chat(dir, &mut diags);
        match resolve::resolve(files, &mut diags) {
            Some(mut s) if diags.is_empty() => {
                s.dialogue = dialogue;
                s.chat = chat;
                Ok(s)
            }
            _ => Err(diags),
        }
    }
}

/// The folder's `dialogue.yaml`, checked; the built-in bank when there is none.
fn load_dialogue(dir: &Path, diags: &mut Diagnostics) -> Arc<PhraseBank> {
    let path = dir.join(dialogue::FILE);
    if !path.exists() {
        return PhraseBank::shared_builtin();
    }
    match PhraseBank::load(&path) {
        Ok(bank) => Arc::new(bank),
        Err(found) => {
            diags.0.extend(found.0);
            PhraseBank::shared_builtin()
        }
    }
}

/// The folder's `chat.yaml`, checked; the built-in bank when there is none.
fn load_chat(dir: &Path, diags: &mut Diagnostics) -> Arc<crate::companion::ChatBank> {
    use crate::companion::ChatBank;
    let path = dir.join(crate::companion::bank::FILE);
    if !path.exists() {
        return ChatBank::shared_builtin();
    }
    match ChatBank::load(&path) {
        Ok(bank) => Arc::new(bank),
        Err(found) => {
            diags.0.extend(found.0);
            ChatBank::shared_builtin()
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
    let text = match crate::base::files::read_text(&path, crate::base::files::MAX_FILE) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return None,
        Err(e) => {
            let hint = (e.kind() == std::io::ErrorKind::NotFound)
                .then_some("every scenario needs town.yaml, locations.yaml and residents.yaml");
            diags.push(Diagnostic::file(
                &path,
                &format!("cannot read file: {e}"),
                hint,
            ));
            return None;
        }
    };
    if let Some(d) = cut_off(&path, &text) {
        diags.push(d);
        return None;
    }
    match parse_yaml::<T>(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.push(e.in_file(&path));
            None
        }
    }
}

/// The line a file may promise on its first line (`… the last line is
/// "# end of tuning.yaml" …`) and must then end with: a copy cut off by a
/// crash or a full disk would otherwise read as a short file, its missing
/// fields silently at their defaults. Heartvale writes it in the tuning files
/// it writes; a file that promises nothing is read as it is.
pub(crate) fn end_line(name: &str) -> String {
    format!("# end of {name}")
}

/// A diagnostic when `text` promises its [`end_line`] on its first line and
/// does not end with it.
fn cut_off(path: &Path, text: &str) -> Option<Diagnostic> {
    let name = path.file_name()?.to_str()?;
    let end = end_line(name);
    let first = text.lines().next()?;
    let promised = first.starts_with('#') && first.contains(&format!("\"{end}\""));
    if !promised || text.trim_end().lines().last() == Some(end.as_str()) {
        return None;
    }
    let mut d = Diagnostic::file(
        path,
        &format!(
            "the file is cut off: its first line promises the last line \"{end}\", and it ends without it"
        ),
        Some(&format!(
            "restore {name}.bak (the version before the last write), or add the missing lines back"
        )),
    );
    d.line = text.lines().count().max(1) as u64;
    Some(d)
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
    fn a_cut_off_file_is_told_from_a_short_one() {
        let path = Path::new("tuning.yaml");
        let whole = "# tuning — the last line is \"# end of tuning.yaml\"\na: 1\nb: 2\n# end of tuning.yaml\n";
        assert_eq!(cut_off(path, whole), None);
        let cut = &whole[..whole.find("b: 2").unwrap() + 3];
        let d = cut_off(path, cut).unwrap();
        assert!(d.message.contains("cut off"), "{d}");
        assert_eq!(d.line, 3);
        assert!(d.hint.as_deref().unwrap().contains("tuning.yaml.bak"));
        // A short file that promises nothing is read as it is.
        assert_eq!(cut_off(path, "a: 1\n"), None);
        assert_eq!(cut_off(path, ""), None);
    }

    /// The shipped file keeps its promise, and cut anywhere it is refused.
    #[test]
    fn the_shipped_tuning_is_whole_and_any_cut_is_caught() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let path = dir.join("tuning.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(cut_off(&path, &text), None);
        assert!(
            text.lines()
                .next()
                .unwrap()
                .contains("\"# end of tuning.yaml\"")
        );
        // A cut inside the first line loses the promise too: such a file has
        // no field left, and reads as the defaults it says nothing about.
        let first = text.find('\n').unwrap() + 1;
        for (at, _) in text.char_indices().skip(first).step_by(97) {
            let cut = &text[..at];
            if cut.trim_end().ends_with("# end of tuning.yaml") {
                continue;
            }
            assert!(cut_off(&path, cut).is_some(), "cut at byte {at} passed");
        }
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

    /// YAML words that make a scenario file say something else.
    const YAML_VOCABULARY: &[&str] = &[
        "- ", ": ", "&a ", "*a", "!!str ", "? ", "|\n", ">-\n", "---\n", "...\n", "~", ".nan",
        ".inf", "-.inf", "0x10", "1e999", "[", "]", "{", "}", "#", "\n  ", "\n    - ", "<<: *a",
    ];

    /// Property: a spec file edited anywhere parses or is refused with a
    /// place inside the file and a message of bounded length, never a panic.
    #[test]
    fn fuzzed_scenario_files_parse_or_are_refused_with_a_place() {
        use crate::base::fuzz::{Bounds, fuzz};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let text = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        let (town, places, people, tuning) = (
            text("town.yaml"),
            text("locations.yaml"),
            text("residents.yaml"),
            text("tuning.yaml"),
        );
        fn refused_well(text: &str, e: Diagnostic) {
            let lines = text.lines().count() as u64 + 1;
            assert!(
                (1..=lines.max(1)).contains(&e.line),
                "line {} of {lines}",
                e.line
            );
            assert!(e.col >= 1);
            assert!(
                e.to_string().chars().count() <= 1_300,
                "{}",
                e.to_string().len()
            );
        }
        fn probe<T: DeserializeOwned>(text: &str) {
            if let Err(e) = parse_yaml::<T>(text) {
                refused_well(text, e);
            }
        }
        let bounds = Bounds::cases(2_000);
        fuzz(
            31,
            &[town.as_str()],
            YAML_VOCABULARY,
            bounds,
            probe::<spec::TownFile>,
        );
        fuzz(
            32,
            &[places.as_str()],
            YAML_VOCABULARY,
            bounds,
            probe::<spec::LocationsFile>,
        );
        fuzz(
            33,
            &[people.as_str()],
            YAML_VOCABULARY,
            bounds,
            probe::<spec::ResidentsFile>,
        );
        fuzz(
            34,
            &[tuning.as_str()],
            YAML_VOCABULARY,
            bounds,
            probe::<Tuning>,
        );
    }

    /// Property: a scenario with one file edited anywhere loads, or is
    /// refused with diagnostics, never a panic (what `check` and `sim` do).
    #[test]
    fn fuzzed_scenarios_load_or_are_refused() {
        use crate::base::fuzz::{Bounds, fuzz};
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let tmp = tempfile::tempdir().unwrap();
        crate::headless::copy_dir(&shipped, tmp.path()).unwrap();
        for (seed, name) in [
            (41, "locations.yaml"),
            (42, "residents.yaml"),
            (43, "tuning.yaml"),
        ] {
            let path = tmp.path().join(name);
            let original = std::fs::read_to_string(&path).unwrap();
            let bounds = Bounds::cases(150);
            fuzz(
                seed,
                &[original.as_str()],
                YAML_VOCABULARY,
                bounds,
                |text| {
                    std::fs::write(&path, text).unwrap();
                    if let Err(problems) = Scenario::load(tmp.path()) {
                        assert!(!problems.is_empty());
                    }
                },
            );
            std::fs::write(&path, original).unwrap();
        }
    }
}
