//! Scenario folders: YAML files → a validated [`Scenario`].
//!
//! Loading never panics: every problem becomes a [`Diagnostic`] that names
//! `file:line:col`, the field and, where one helps, a hint.

pub mod generate;
mod planner_tuning;
mod profile;
mod resolve;
mod social_tuning;
mod spec;
mod town;
mod urls;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::base::{Diagnostic, Diagnostics, parse_yaml};

pub use social_tuning::{
    AppointmentTuning, ConversationTuning, GroupTuning, ImportanceTuning, KeywordTable,
    ProximityTuning, RelationshipTuning, SocialTuning, StageValues,
};
pub use spec::{
    BigFive, BrainOverride, DurationTuning, LlmSpec, LocationKind, MapSize, NeedRates, NeedsTuning,
    PlannerTuning, RelationKind, Service, Tuning, WorkRole, key_name_allowed,
};

pub use profile::{
    CONVERSE_FIELDS, Converse, ConverseSkill, Counsel, Gathering, Goal, Hobby, InitialRelationship,
    Profile, ResidentId, WorkShift,
};
pub use town::{LocIdx, Location, LocationId, Town};
pub use urls::Urls;

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
}

impl Scenario {
    /// Every resident's and place's name (the words memory search keeps whole).
    pub fn names(&self) -> Vec<String> {
        let residents = self.residents.iter().map(|p| p.name.clone());
        let places = self.town.indices().map(|l| self.town.name(l).to_string());
        residents.chain(places).collect()
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
