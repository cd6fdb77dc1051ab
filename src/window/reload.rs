//! Hot reload: the scenario folder is an asset source (`scenario://`) watched
//! by Bevy's file watcher. When one of its YAML files changes, the whole
//! folder is loaded and checked again, exactly as at start; a good version is
//! applied to the running town (persona text, tuning, new residents and
//! places), a broken one is shown with `file:line:col` and the town keeps
//! running on the last good one. Fixing the file clears the error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::io::{AssetSourceBuilder, Reader};
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;

use super::ViewSet;
use crate::scenario::Scenario;
use crate::sim::clock::Clock;
use crate::sim::residents::RosterIdx;
use crate::sim::residents::{Persona, Roster, spawn_residents};
use crate::sim::town::{ActiveTuning, Gatherings};
use crate::sim::{LoadedScenario, RunSettings};

/// The files a scenario folder is made of (as `Scenario::load` reads them).
const FILES: [&str; 4] = [
    "town.yaml",
    "locations.yaml",
    "residents.yaml",
    "tuning.yaml",
];
/// Editors save in several writes: wait this long after the last change.
const SETTLE_SECS: f32 = 0.2;

/// Registers the folder as the `scenario://` asset source; call before the
/// asset plugin is added.
pub(crate) fn register_source(app: &mut App, dir: &Path) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let files = watched_files(&dir);
    app.insert_resource(ScenarioWatch {
        dir: dir.clone(),
        handles: Vec::new(),
        loaded: Vec::new(),
        seen: read_files(&dir, &files),
        files,
        changed_at: None,
        generation: 0,
    });
    app.register_asset_source(
        "scenario",
        AssetSourceBuilder::platform_default(&dir.to_string_lossy(), None),
    );
}

pub(crate) fn plugin(app: &mut App) {
    app.init_asset::<ScenarioFile>()
        .init_asset_loader::<ScenarioFileLoader>()
        .init_resource::<ReloadStatus>()
        .add_systems(Startup, watch_files)
        .add_systems(
            Update,
            (note_changes, reload_when_settled)
                .chain()
                .in_set(ViewSet::Input),
        );
}

/// A watched scenario file. Only its events matter: the folder is read and
/// checked from disk as a whole, the way `Scenario::load` does at start.
#[derive(Asset, TypePath, Debug)]
pub(crate) struct ScenarioFile;

#[derive(Default, TypePath)]
struct ScenarioFileLoader;

impl AssetLoader for ScenarioFileLoader {
    type Asset = ScenarioFile;
    type Settings = ();
    type Error = std::io::Error;

    async fn load(
        &self,
        _reader: &mut dyn Reader,
        _settings: &(),
        _cx: &mut LoadContext<'_>,
    ) -> Result<ScenarioFile, Self::Error> {
        Ok(ScenarioFile)
    }

    fn extensions(&self) -> &[&str] {
        &["yaml", "yml"]
    }
}

/// The scenario's files and its script sets' YAML (`scripts/SET/*.yaml`),
/// relative to the folder. Files added later are seen after a restart.
fn watched_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    // The phrase bank is optional: watched when the folder has one.
    for bank in [
        crate::scenario::dialogue::FILE,
        crate::companion::bank::FILE,
    ] {
        if dir.join(bank).is_file() {
            files.push(bank.to_string());
        }
    }
    let mut scripts = Vec::new();
    for set in std::fs::read_dir(dir.join("scripts"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(name) = set.file_name().into_string() else {
            continue;
        };
        for f in std::fs::read_dir(set.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let Ok(file) = f.file_name().into_string() else {
                continue;
            };
            if file.ends_with(".yaml") || file.ends_with(".yml") {
                scripts.push(format!("scripts/{name}/{file}"));
            }
        }
    }
    scripts.sort();
    files.extend(scripts);
    files
}

/// The watched folder and what was last seen of each file.
#[derive(Resource, Debug)]
pub(crate) struct ScenarioWatch {
    pub(crate) dir: PathBuf,
    /// The watched files, relative to `dir`.
    files: Vec<String>,
    /// Counts changes on disk that settled (the counsel panel re-reads its
    /// script set when this moves, good reload or not).
    pub(crate) generation: u32,
    handles: Vec<Handle<ScenarioFile>>,
    /// Each file's first load was seen (later events are edits).
    loaded: Vec<bool>,
    /// The text of each file on disk when last reloaded (or at start).
    seen: Vec<Option<String>>,
    /// Real time of the latest change not yet reloaded.
    changed_at: Option<f32>,
}

/// The outcome of the last reload, for the on-screen message.
#[derive(Resource, Debug, Default, Clone)]
pub(crate) struct ReloadStatus {
    /// `file:line:col: …` lines while the files on disk are broken.
    pub(crate) error: Option<String>,
    /// What the last good reload changed.
    pub(crate) applied: Vec<String>,
    /// How many good reloads so far.
    pub(crate) reloads: u32,
}

fn watch_files(assets: Res<AssetServer>, mut watch: ResMut<ScenarioWatch>) {
    watch.handles = watch
        .files
        .iter()
        .map(|f| assets.load(format!("scenario://{f}")))
        .collect();
    watch.loaded = vec![false; watch.files.len()];
}

/// Any event on a watched file (re)starts the settle timer; the first load
/// of each file only marks it seen. (The asset's text may predate the last
/// write of a save, so what changed is read from disk once things settle.)
fn note_changes(
    mut events: MessageReader<AssetEvent<ScenarioFile>>,
    time: Res<Time<Real>>,
    mut watch: ResMut<ScenarioWatch>,
) {
    for event in events.read() {
        let (AssetEvent::Added { id } | AssetEvent::Modified { id }) = event else {
            continue;
        };
        let Some(i) = watch.handles.iter().position(|h| h.id() == *id) else {
            continue;
        };
        if watch.loaded[i] {
            watch.changed_at = Some(time.elapsed_secs());
        }
        watch.loaded[i] = true;
    }
}

/// The text of each scenario file on disk (`None`: missing or unreadable).
fn read_files(dir: &Path, files: &[String]) -> Vec<Option<String>> {
    files
        .iter()
        .map(|f| crate::base::files::read_text(&dir.join(f), crate::base::files::MAX_FILE).ok())
        .collect()
}

fn reload_when_settled(world: &mut World) {
    let now = world.resource::<Time<Real>>().elapsed_secs();
    let dir = {
        let watch = world.resource::<ScenarioWatch>();
        match watch.changed_at {
            Some(t) if now - t >= SETTLE_SECS => watch.dir.clone(),
            _ => return,
        }
    };
    let mut watch = world.resource_mut::<ScenarioWatch>();
    let texts = read_files(&dir, &watch.files);
    watch.changed_at = None;
    if texts == watch.seen {
        return;
    }
    watch.seen = texts;
    watch.generation += 1;
    let outcome = Scenario::load(&dir)
        .map_err(|d| d.to_string())
        .and_then(|s| apply(world, s));
    let mut status = world.resource_mut::<ReloadStatus>();
    match outcome {
        Ok(changes) => {
            info!("scenario reloaded: {}", changes.join("; "));
            status.error = None;
            status.applied = changes;
            status.reloads += 1;
        }
        Err(e) => {
            warn!("scenario not reloaded, still running the last good version:\n{e}");
            status.error = Some(e);
        }
    }
}

/// Applies a freshly loaded scenario to the running town. Places and
/// residents may be edited or added (at the end of their file); removing or
/// reordering them needs a restart, as saved ids and indices point at them.
/// The tuning, the phrase bank and the gatherings, where they changed.
fn apply_settings(
    world: &mut World,
    (old, new): (&Scenario, &Scenario),
    changes: &mut Vec<String>,
) {
    if old.tuning != new.tuning {
        // Only a changed file overrides the sliders' live values.
        world.insert_resource(ActiveTuning(new.tuning.clone()));
        changes.push("tuning".into());
    }
    if !Arc::ptr_eq(&old.dialogue, &new.dialogue)
        && format!("{:?}", old.dialogue) != format!("{:?}", new.dialogue)
    {
        // Read from the loaded scenario as each line is written.
        changes.push("dialogue".into());
    }
    if format!("{:?}", old.chat) != format!("{:?}", new.chat) {
        // Read from the loaded scenario at each chat turn.
        changes.push("chat".into());
    }
    if format!("{:?}", old.gatherings) != format!("{:?}", new.gatherings) {
        world.insert_resource(Gatherings(new.gatherings.clone()));
        changes.push("gatherings".into());
    }
}

pub(crate) fn apply(world: &mut World, new: Scenario) -> Result<Vec<String>, String> {
    let old = world.resource::<LoadedScenario>().0.clone();
    let place_ids = |s: &Scenario| {
        s.town
            .indices()
            .map(|i| s.town.id(i).clone())
            .collect::<Vec<_>>()
    };
    let (old_places, new_places) = (place_ids(&old), place_ids(&new));
    if !new_places.starts_with(&old_places) {
        return Err(format!(
            "{}: places were removed or reordered; that needs a restart (add new places at the end)",
            new.dir.join("locations.yaml").display()
        ));
    }
    let old_people: Vec<_> = old.residents.iter().map(|p| p.id.clone()).collect();
    let new_people: Vec<_> = new.residents.iter().map(|p| p.id.clone()).collect();
    if !new_people.starts_with(&old_people) {
        return Err(format!(
            "{}: residents were removed or reordered; that needs a restart (add new residents at the end)",
            new.dir.join("residents.yaml").display()
        ));
    }
    let mut changes = Vec::new();
    if format!("{:?}", old.town.locations) != format!("{:?}", new.town.locations) {
        changes.push(match new_places.len() - old_places.len() {
            0 => "places edited".to_string(),
            n => format!("{n} new place(s)"),
        });
        world.insert_resource(new.town.clone());
    }
    apply_settings(world, (&old, &new), &mut changes);
    let mut edited = Vec::new();
    for (i, profile) in new.residents.iter().enumerate().take(old_people.len()) {
        if format!("{:?}", old.residents[i]) == format!("{profile:?}") {
            continue;
        }
        let Some(entity) = world.resource::<Roster>().entities().get(i).copied() else {
            continue;
        };
        world.entity_mut(entity).insert(Persona(profile.clone()));
        world
            .resource_mut::<Roster>()
            .rename(RosterIdx(i as u32), profile.name.clone());
        edited.push(profile.name.clone());
    }
    if !edited.is_empty() {
        changes.push(format!("persona of {}", edited.join("、")));
    }
    let seed = world.resource::<RunSettings>().seed;
    let now = world.resource::<Clock>().now;
    let added: Vec<String> = new.residents[old_people.len()..]
        .iter()
        .map(|p| p.name.clone())
        .collect();
    spawn_residents(
        world,
        &new,
        old_people.len()..new.residents.len(),
        seed,
        now,
    );
    if !added.is_empty() {
        changes.push(format!("new resident(s) {}", added.join("、")));
    }
    if changes.is_empty() {
        changes.push("no change".into());
    }
    world.insert_resource(LoadedScenario(Arc::new(new)));
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::residents::Resident;
    use std::time::{Duration, Instant};

    /// A copy of the default town, its script sets included.
    fn copy_town(to: &Path) {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        crate::headless::copy_dir(&from, to).unwrap();
    }

    /// A headless town with the watcher on a copy of the default scenario.
    fn watched_app(dir: &Path) -> App {
        let scenario = Arc::new(Scenario::load(dir).unwrap());
        let mut app = App::new();
        register_source(&mut app, dir);
        app.add_plugins((
            MinimalPlugins,
            bevy::asset::AssetPlugin {
                watch_for_changes_override: Some(true),
                ..default()
            },
        ))
        .add_plugins((
            crate::sim::plugin,
            crate::builtin::plugin,
            crate::llm::plugin,
        ))
        .configure_sets(Update, ViewSet::Input.after(crate::sim::clock::DriveSteps))
        .add_plugins(plugin);
        crate::sim::setup_world(app.world_mut(), scenario, RunSettings { seed: 7, days: 3 });
        app
    }

    /// Updates until `done` holds (the watcher runs on its own thread).
    fn until(app: &mut App, what: &str, done: impl Fn(&World) -> bool) {
        let start = Instant::now();
        while !done(app.world()) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}: {:?}",
                app.world().resource::<ReloadStatus>()
            );
            app.update();
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for a refused reload and returns its message.
    fn reload_error(app: &mut App, what: &str) -> String {
        until(app, what, |w| w.resource::<ReloadStatus>().error.is_some());
        app.world()
            .resource::<ReloadStatus>()
            .error
            .clone()
            .unwrap()
    }

    fn edit(dir: &Path, file: &str, f: impl FnOnce(String) -> String) {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, f(text)).unwrap();
    }

    #[test]
    fn edits_apply_live_and_a_broken_file_keeps_the_last_good_town() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        copy_town(dir);
        let mut app = watched_app(dir);
        // Every file loaded once before editing.
        until(&mut app, "the first load", |w| {
            w.resource::<ScenarioWatch>().loaded.iter().all(|l| *l)
        });
        let residents = app.world().resource::<Roster>().len();
        let places = app.world().resource::<crate::scenario::Town>().len();

        // 1. Tuning.
        edit(dir, "tuning.yaml", |t| {
            t.replace("hunger: 0.13", "hunger: 0.5")
        });
        until(&mut app, "the tuning reload", |w| {
            w.resource::<ReloadStatus>().reloads == 1
        });
        assert_eq!(
            app.world().resource::<ActiveTuning>().needs.decay.hunger,
            0.5
        );

        // 2. A broken edit: reported with file:line:col, nothing applied.
        edit(dir, "residents.yaml", |t| t.replacen("age: ", "age: 老", 1));
        let error = reload_error(&mut app, "the error");
        assert!(error.contains("residents.yaml:"), "{error}");
        let location = error.split("residents.yaml:").nth(1).unwrap();
        let mut nums = location.split(':').take(2).map(|n| n.trim().parse::<u32>());
        assert!(
            nums.all(|n| n.is_ok_and(|n| n > 0)),
            "line and column in {error}"
        );
        assert!(error.contains("age"), "names the field: {error}");
        assert_eq!(
            app.world().resource::<ActiveTuning>().needs.decay.hunger,
            0.5
        );
        // The town runs on meanwhile.
        let steps = app.world().resource::<Clock>().steps;
        app.update();
        assert!(app.world().resource::<Clock>().steps > steps);

        // 3. Fixed, with a persona edit, a new resident and a new place.
        edit(dir, "residents.yaml", |t| t.replacen("age: 老", "age: ", 1));
        edit(dir, "locations.yaml", |t| {
            format!(
                "{t}\n  - id: pavilion\n    name: 柳溪亭\n    description: 溪边新修的小亭子。\n    kind: public\n    position: [500, 900]\n    size: [60, 40]\n    connections: [square]\n"
            )
        });
        edit(dir, "residents.yaml", |t| {
            let quote = t
                .lines()
                .find(|l| l.trim_start().starts_with("quote:"))
                .unwrap()
                .to_string();
            let t = t.replacen(&quote, "    quote: \"热重载后的新台词。\"", 1);
            format!(
                "{t}\n  - id: newcomer\n    name: 新来的小周\n    age: 24\n    gender: 男\n    occupation: 旅人\n    home: tavern\n    personality: {{ openness: 80, conscientiousness: 40, extraversion: 70, agreeableness: 60, neuroticism: 30 }}\n    quote: \"路过心谷，歇歇脚。\"\n"
            )
        });
        until(&mut app, "the fix", |w| {
            let s = w.resource::<ReloadStatus>();
            s.error.is_none() && s.reloads >= 2 && w.resource::<Roster>().len() == residents + 1
        });
        let world = app.world_mut();
        assert_eq!(world.resource::<crate::scenario::Town>().len(), places + 1);
        let roster = world.resource::<Roster>().clone();
        assert_eq!(roster.names().last().unwrap(), "新来的小周");
        let quotes: Vec<String> = world
            .query::<(&Resident, &Persona)>()
            .iter(world)
            .map(|(_, p)| p.quote.clone())
            .collect();
        assert!(
            quotes.iter().any(|q| q == "热重载后的新台词。"),
            "{quotes:?}"
        );
        // The newcomer lives: it plans like everyone else.
        for _ in 0..120 {
            app.update();
        }
        let newcomer = roster.entities()[residents];
        assert!(
            app.world()
                .get::<crate::sim::residents::Activity>(newcomer)
                .is_some()
        );

        // 4. A script set is watched too: an edit reaches the resident that
        // runs its skills, and a broken one is reported, the last good kept.
        let guardian = roster
            .entity(&crate::scenario::ResidentId::new("guardian"))
            .unwrap();
        let hash = |w: &World| {
            w.get::<Persona>(guardian)
                .and_then(|p| p.converse.as_ref().map(|c| c.script.hash))
                .unwrap()
        };
        let (before, generation) = (
            hash(app.world()),
            app.world().resource::<ScenarioWatch>().generation,
        );
        edit(dir, "scripts/guardian/town-skills.yaml", |t| {
            t.replace("柳溪今天很安静", "柳溪今天格外安静")
        });
        until(&mut app, "the script reload", |w| hash(w) != before);
        assert!(app.world().resource::<ScenarioWatch>().generation > generation);
        let edited = hash(app.world());
        edit(dir, "scripts/guardian/town-skills.yaml", |t| {
            t.replacen("max_rounds: 2", "max_rounds: 20", 1)
        });
        let error = reload_error(&mut app, "the script error");
        assert!(
            error.contains("residents.yaml:") && error.contains("town-skills.yaml:"),
            "{error}"
        );
        assert_eq!(hash(app.world()), edited, "the last good set runs on");
    }

    #[test]
    fn removing_a_resident_is_refused_until_restart() {
        let tmp = tempfile::tempdir().unwrap();
        copy_town(tmp.path());
        let mut app = watched_app(tmp.path());
        app.update();
        let mut fewer = Scenario::load(tmp.path()).unwrap();
        fewer.residents.remove(0);
        let e = apply(app.world_mut(), fewer).unwrap_err();
        assert!(e.contains("residents.yaml") && e.contains("restart"), "{e}");
    }
}
