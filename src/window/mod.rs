//! The window: the same simulation plugins as `heartvale sim`, stepped in real
//! time, drawn as a 2D town with egui panels. Everything here only reads the
//! sim, except the controls a player or designer uses on purpose: speed and
//! pause, the tuning sliders, hot reload, and the LLM focus on the selection.
//!
//! Systems run in [`ViewSet`] order after the simulation's steps of the frame.
//! The logic that is not pixels (gliding along paths, bubbles, selection and
//! follow, controls, tuning, reload) lives in plain functions and systems that
//! the unit tests below each module run under `MinimalPlugins`.

mod art;
mod autosave;
mod bubbles;
mod camera;
mod capture;
mod chat;
mod counsel;
mod demo;
mod drawlist;
mod feed;
mod frames;
mod hud;
mod labels;
mod map;
mod night;
mod panels;
mod people;
mod reload;
mod select;
mod stage;
mod tuning;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::EguiPlugin;

pub(crate) use capture::CapturePlan;
pub(crate) use frames::FrameStatsPlan;

use crate::llm::LlmSettings;
use crate::scenario::Scenario;
use crate::sim::clock::{DriveSteps, StepMode};
use crate::sim::event_log::EventLog;
use crate::sim::{self, RunSettings};

/// The CJK-capable font of the map, labels and panels (see `assets/fonts/`).
pub(crate) const FONT: &str = "fonts/DroidSansFallbackFull.ttf";

/// Map units → world units: the map's origin is its top-left corner, y down;
/// the world's is its centre, y up.
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct MapFrame {
    pub(crate) size: Vec2,
}

impl MapFrame {
    pub(crate) fn world(&self, map: Vec2) -> Vec2 {
        Vec2::new(map.x - self.size.x / 2.0, self.size.y / 2.0 - map.y)
    }
}

/// The window's systems, in order, after the frame's simulation steps.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ViewSet {
    /// Keys and clicks: speed, selection, panel toggles.
    Input,
    /// Read what the steps produced (events, positions) into view state.
    Sync,
    /// Move, animate and fade what is drawn; the camera last.
    Present,
}

/// What `heartvale window` was asked for besides the town.
#[derive(Default)]
pub(crate) struct WindowOptions {
    /// The folder to watch for hot reload (`None`: a generated town).
    pub(crate) scenario_dir: Option<PathBuf>,
    pub(crate) capture: Option<CapturePlan>,
    pub(crate) frame_stats: Option<FrameStatsPlan>,
    pub(crate) llm: Option<LlmSettings>,
    /// Embeddings for every memory and for a model's recall (`--embed`).
    pub(crate) embed: Option<crate::llm::embed::EmbedSettings>,
    pub(crate) log: Option<EventLog>,
    /// Start at this speed multiplier (1–300).
    pub(crate) speed: Option<f32>,
    /// Start with this resident selected and followed.
    pub(crate) select: Option<String>,
    /// Start with the chat open with this resident.
    pub(crate) chat: Option<String>,
    /// Start with the counselling talk under way with this resident.
    pub(crate) counsel: Option<String>,
    /// Start with only these panels open (`None`: inspector and events).
    pub(crate) panels: Option<Vec<String>>,
    /// Start in demo mode (`--demo`).
    pub(crate) demo: bool,
    /// The saved state to go on from (`--load`).
    pub(crate) resume: Option<crate::save::TownSnapshot>,
    /// A date booked at the start (`--date A,B`).
    pub(crate) date: Option<(crate::scenario::ResidentId, crate::scenario::ResidentId)>,
    /// Autosave here, with the scenario as a save keeps it.
    pub(crate) autosave: Option<(crate::save::SaveTarget, crate::save::TownSource)>,
}

/// Where `assets/` is: under `BEVY_ASSET_ROOT` when set; else beside the
/// executable (a desktop build); else in the source tree (`cargo run`, tests,
/// and binaries run straight from the target folder).
pub(crate) fn asset_root() -> PathBuf {
    if let Some(root) = std::env::var_os("BEVY_ASSET_ROOT") {
        return PathBuf::from(root).join("assets");
    }
    let beside_exe = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("assets")));
    match beside_exe {
        Some(dir) if dir.join(FONT).is_file() => dir,
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets"),
    }
}

/// Whether a window can open here, and if not why: on Linux an X server must
/// answer at `DISPLAY` (the build has no Wayland backend, and XWayland sets
/// `DISPLAY`) — a stale or empty one does not count — and must let us in
/// (a wrong `XAUTHORITY`, `sudo`, `ssh -X` without its cookie are refused
/// there, where the window would otherwise panic).
pub(crate) fn display_problem() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let display = std::env::var("DISPLAY").unwrap_or_default();
    if !x_server_answers(&display) {
        return Some("no usable display: set DISPLAY to a running X server".into());
    }
    x_connection::refused(&display)
}

mod x_connection;

/// Connects to the X server `display` names (`:0`, `:1.0`, `unix:2`,
/// `host:0`): its local socket, or TCP port 6000 + N on a host.
fn x_server_answers(display: &str) -> bool {
    let Some((host, rest)) = display.rsplit_once(':') else {
        return false;
    };
    let Ok(n) = rest.split('.').next().unwrap_or("").parse::<u16>() else {
        return false;
    };
    if host.is_empty() || host == "unix" {
        return unix_socket_answers(n);
    }
    let timeout = std::time::Duration::from_millis(500);
    use std::net::ToSocketAddrs;
    (host, 6000u16.saturating_add(n))
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|a| std::net::TcpStream::connect_timeout(&a, timeout).is_ok())
}

#[cfg(unix)]
fn unix_socket_answers(n: u16) -> bool {
    std::os::unix::net::UnixStream::connect(format!("/tmp/.X11-unix/X{n}")).is_ok()
}

#[cfg(not(unix))]
fn unix_socket_answers(_: u16) -> bool {
    false
}

/// Opens the window on `scenario`; returns the exit code when it is closed,
/// or why it could not open.
pub(crate) fn run(
    scenario: Arc<Scenario>,
    settings: RunSettings,
    options: WindowOptions,
) -> Result<ExitCode, String> {
    let mut app = App::new();
    if let Some(plan) = options.capture.clone() {
        app.insert_resource(plan);
    }
    if let Some(plan) = options.frame_stats.clone() {
        app.insert_resource(plan);
    }
    // The scenario folder is an asset source of its own, so the file watcher
    // sees its YAML (it must exist before the asset plugin is built).
    if let Some(dir) = &options.scenario_dir {
        reload::register_source(&mut app, dir);
    }
    add_plugins(&mut app, &scenario, options.log);
    if options.scenario_dir.is_some() {
        app.add_plugins(reload::plugin);
    }
    sim::setup_world(app.world_mut(), scenario, settings);
    if let Some(snap) = options.resume {
        crate::save::restore(app.world_mut(), snap)?;
    }
    if let Some((path, source)) = options.autosave {
        let now = app.world().resource::<crate::sim::clock::Clock>().now;
        app.insert_resource(autosave::Autosave::new(path, source, now));
    }
    if let Some(speed) = options.speed {
        app.world_mut()
            .resource_mut::<crate::sim::clock::SimSpeed>()
            .multiplier = speed.clamp(0.1, 300.0);
    }
    start_views(&mut app, options.panels, options.select, options.demo)?;
    if let Some(pair) = options.date {
        let mut requests = app
            .world_mut()
            .resource_mut::<crate::sim::dating::DateRequests>();
        requests.0.push(pair);
    }
    if let Some(settings) = options.embed {
        let embeddings =
            crate::llm::embed::town::TownEmbeddings::start(settings).map_err(|e| e.to_string())?;
        app.insert_resource(embeddings);
    }
    if let Some(llm) = options.llm {
        // Counselling talks call the same endpoint, through calls of their own
        // (recorded with the town's).
        if let Some(mind) = counsel::CounselMind::new(&llm) {
            app.insert_resource(mind);
        }
        // … and so does the player's chat.
        if let Some(mind) = chat::ChatMind::new(&llm) {
            app.insert_resource(mind);
        }
        crate::llm::attach(app.world_mut(), llm).map_err(|e| e.to_string())?;
        // The 💘 panel shows a model's answers as they are written.
        if let Some(mut dates) = app
            .world_mut()
            .get_resource_mut::<crate::sim::dating::ModelDates>()
        {
            dates.stream = true;
        }
    }
    // Last: a counselling talk's prompts are cut for the model, if any.
    open_talks(&mut app, options.chat, options.counsel)?;
    Ok(match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    })
}

/// Bevy's window and assets, egui, the simulation, and the view.
fn add_plugins(app: &mut App, scenario: &Scenario, log: Option<EventLog>) {
    let root = asset_root();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("心谷 Heartvale — {}", scenario.name),
                    resolution: (1280, 800).into(),
                    ..default()
                }),
                ..default()
            })
            .set(AssetPlugin {
                file_path: root.to_string_lossy().into_owned(),
                ..default()
            }),
    )
    .add_plugins(EguiPlugin::default())
    .add_plugins((sim::plugin, crate::builtin::plugin, crate::llm::plugin))
    .insert_resource(StepMode::Realtime)
    .insert_resource(log.unwrap_or_else(EventLog::in_memory))
    .insert_resource(MapFrame {
        size: Vec2::new(scenario.map.width, scenario.map.height),
    })
    .insert_resource(AssetDir(root))
    .add_plugins(plugin);
}

/// The panels, the selection and demo mode the command line asked for.
fn start_views(
    app: &mut App,
    panels: Option<Vec<String>>,
    select: Option<String>,
    demo: bool,
) -> Result<(), String> {
    if let Some(names) = panels {
        app.insert_resource(panels::Panels::only(&names)?);
    }
    if let Some(id) = select {
        select_at_start(app, &id)?;
    }
    if demo {
        let world = app.world_mut();
        let mut panels = world.resource::<panels::Panels>().clone();
        world
            .resource_mut::<demo::Director>()
            .set(true, &mut panels);
        world.insert_resource(panels);
    }
    Ok(())
}

/// The profile of resident `id` (for panels opened from the command line).
fn scenario_profile(app: &App, id: &str) -> Result<Arc<crate::scenario::Profile>, String> {
    let id = crate::scenario::ResidentId::new(id);
    let w = app.world();
    let entity = w
        .resource::<crate::sim::residents::Roster>()
        .entity(&id)
        .ok_or_else(|| format!("no resident `{id}` in this town"))?;
    w.get::<crate::sim::residents::Persona>(entity)
        .map(|p| p.0.clone())
        .ok_or_else(|| format!("no resident `{id}` in this town"))
}

/// `--chat ID` and `--counsel ID`: the player's chat open, the counselling
/// talk under way, from the first frame.
fn open_talks(app: &mut App, chat: Option<String>, counsel: Option<String>) -> Result<(), String> {
    if let Some(id) = chat {
        let profile = scenario_profile(app, &id)?;
        let companion = profile.companion.is_some();
        let mut chat = app.world_mut().resource_mut::<chat::ChatPanel>();
        chat.open(profile.id.clone(), profile.name.clone(), companion);
    }
    if let Some(id) = counsel {
        let profile = scenario_profile(app, &id)?;
        counsel::start_at_launch(app.world_mut(), &profile)?;
    }
    Ok(())
}

/// Selects (and follows) resident `id` from the first frame.
fn select_at_start(app: &mut App, id: &str) -> Result<(), String> {
    let id = crate::scenario::ResidentId::new(id);
    let roster = app.world().resource::<crate::sim::residents::Roster>();
    if roster.idx(&id).is_none() {
        return Err(format!("no resident `{id}` in this town"));
    }
    let mut selection = app.world_mut().resource_mut::<select::Selection>();
    selection.select(id);
    selection.follow = true;
    Ok(())
}

/// The folder `assets/` was found in (for files read outside the asset server).
#[derive(Resource, Clone, Debug)]
pub(crate) struct AssetDir(pub PathBuf);

/// Everything drawn and every panel (the reload plugin comes apart: it needs
/// the scenario folder registered as an asset source first).
pub(crate) fn plugin(app: &mut App) {
    view_sets(app);
    app.add_plugins((
        camera::plugin,
        map::plugin,
        people::plugin,
        bubbles::plugin,
        select::plugin,
        night::plugin,
        feed::plugin,
        hud::plugin,
        panels::plugin,
        capture::plugin,
        frames::plugin,
        counsel::plugin,
        chat::plugin,
        autosave::plugin,
    ))
    .add_plugins((
        demo::plugin,
        labels::plugin,
        stage::plugin,
        drawlist::plugin,
    ));
}

/// Orders the view's sets after the frame's simulation steps.
fn view_sets(app: &mut App) {
    app.configure_sets(
        Update,
        (ViewSet::Input, ViewSet::Sync, ViewSet::Present)
            .chain()
            .after(DriveSteps),
    );
}

#[cfg(test)]
pub(crate) mod testing {
    //! A town with the window's logic but no renderer, for the unit tests.
    use super::*;

    /// The default town under `MinimalPlugins` with the sim in real-time mode,
    /// a `MapFrame`, and input resources the view systems read.
    pub(crate) fn view_app() -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, bevy::asset::AssetPlugin::default()))
            .add_plugins((sim::plugin, crate::builtin::plugin, crate::llm::plugin))
            .init_asset::<Image>()
            .init_asset::<bevy::text::Font>()
            .init_asset::<TextureAtlasLayout>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<ButtonInput<MouseButton>>()
            .insert_resource(StepMode::Headless)
            .insert_resource(EventLog::in_memory())
            .insert_resource(AssetDir(asset_root()));
        let scenario = crate::headless::default_scenario();
        app.insert_resource(MapFrame {
            size: Vec2::new(scenario.map.width, scenario.map.height),
        });
        view_sets(&mut app);
        sim::setup_world(app.world_mut(), scenario, RunSettings { seed: 7, days: 3 });
        app
    }

    /// Presses and releases `key` around one update.
    pub(crate) fn press(app: &mut App, key: KeyCode) {
        app.world_mut()
            .resource_mut::<ButtonInput<KeyCode>>()
            .press(key);
        app.update();
        let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        keys.release(key);
        keys.clear();
    }
}
