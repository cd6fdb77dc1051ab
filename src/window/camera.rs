//! The camera: pan with the arrow keys, WASD or a drag; zoom with the wheel,
//! within limits.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy_egui::EguiContexts;

use super::MapFrame;

/// Zoom limits (world units per pixel).
const MIN_SCALE: f32 = 0.25;
const MAX_SCALE: f32 = 4.0;
/// Pan speed with keys, in screen pixels per second.
const KEY_PAN: f32 = 600.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera)
        .add_systems(Update, (pan_and_zoom,));
}

fn spawn_camera(mut commands: Commands, frame: Res<MapFrame>) {
    // Fit the whole map in a 1280×800 window at the start.
    let scale = (frame.size.x / 1200.0).max(frame.size.y / 720.0).clamp(MIN_SCALE, MAX_SCALE);
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale,
            ..OrthographicProjection::default_2d()
        }),
    ));
}

fn pan_and_zoom(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    time: Res<Time<Real>>,
    mut egui: EguiContexts,
    mut camera: Query<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let Ok((mut transform, mut projection)) = camera.single_mut() else {
        return;
    };
    let Projection::Orthographic(ortho) = &mut *projection else {
        return;
    };
    // Panels keep their own input.
    let over_ui = egui
        .ctx_mut()
        .is_ok_and(|c| c.egui_wants_pointer_input() || c.egui_wants_keyboard_input());
    let mut dir = Vec2::ZERO;
    for (key, d) in [
        (KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::KeyS, Vec2::NEG_Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
        (KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::KeyD, Vec2::X),
        (KeyCode::ArrowRight, Vec2::X),
    ] {
        if keys.pressed(key) {
            dir += d;
        }
    }
    let mut pan = dir * KEY_PAN * time.delta_secs() * ortho.scale;
    if !over_ui && buttons.pressed(MouseButton::Left) {
        // Dragging moves the map with the pointer.
        pan += Vec2::new(-motion.delta.x, motion.delta.y) * ortho.scale;
    }
    transform.translation += pan.extend(0.0);
    if !over_ui && scroll.delta.y != 0.0 {
        let factor = (1.0 - scroll.delta.y.clamp(-3.0, 3.0) * 0.1).max(0.5);
        ortho.scale = (ortho.scale * factor).clamp(MIN_SCALE, MAX_SCALE);
    }
}
