//! The window (issue 4, in progress): the same simulation plugins as
//! `heartvale sim`, stepped in real time, drawn as a 2D town with egui panels.
//! Everything here only reads the sim, except the speed controls.
//!
//! Done so far: the map (ground, paths, places with their names), residents
//! moving smoothly between simulation steps with name labels, a top bar with
//! the date, time, speed and counts, and the time controls (Space, 1–5, `.`),
//! camera pan and zoom. See the README for what is still to come.

mod camera;
mod capture;
mod hud;
mod map;
mod people;

use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::EguiPlugin;

pub use capture::CapturePlan;

use crate::scenario::Scenario;
use crate::sim::clock::StepMode;
use crate::sim::{self, RunSettings};

/// The CJK-capable font the map, labels and panels use (see `assets/fonts/`).
pub(crate) const FONT: &str = "fonts/DroidSansFallbackFull.ttf";

/// Map units → world units: the map's origin is its top-left corner, y down;
/// the world's is its centre, y up.
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct MapFrame {
    pub size: Vec2,
}

impl MapFrame {
    pub fn world(&self, map: Vec2) -> Vec2 {
        Vec2::new(map.x - self.size.x / 2.0, self.size.y / 2.0 - map.y)
    }
}

/// Opens the window on `scenario`; returns when it is closed.
pub fn run(scenario: Arc<Scenario>, settings: RunSettings, capture: Option<CapturePlan>) -> i32 {
    let mut app = App::new();
    if let Some(plan) = capture {
        app.insert_resource(plan);
    }
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: format!("心谷 Heartvale — {}", scenario.name),
            resolution: (1280, 800).into(),
            ..default()
        }),
        ..default()
    }))
    .add_plugins(EguiPlugin::default())
    .add_plugins((sim::plugin, crate::llm::plugin))
    .insert_resource(StepMode::Realtime)
    .insert_resource(crate::sim::event_log::EventLog::in_memory())
    .insert_resource(MapFrame {
        size: Vec2::new(scenario.map.width, scenario.map.height),
    })
    .add_plugins(plugin);
    sim::setup_world(app.world_mut(), scenario, settings);
    match app.run() {
        AppExit::Success => 0,
        AppExit::Error(code) => code.get() as i32,
    }
}

pub(crate) fn plugin(app: &mut App) {
    app.add_plugins((
        camera::plugin,
        map::plugin,
        people::plugin,
        hud::plugin,
        capture::plugin,
    ));
}
