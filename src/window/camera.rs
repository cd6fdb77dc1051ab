//! The camera: pan with the arrow keys, WASD or a drag; zoom with the wheel,
//! within limits; follow the selected resident (F); glide to an event's
//! resident when the event stream asks.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;

use super::select::{CameraGoal, Selection, UiWantsInput};
use super::{MapFrame, ViewSet};
use crate::sim::residents::Roster;

/// Zoom limits (world units per pixel).
pub(crate) const MIN_SCALE: f32 = 0.25;
pub(crate) const MAX_SCALE: f32 = 4.0;
/// Pan speed with keys, in screen pixels per second.
const KEY_PAN: f32 = 600.0;
/// How quickly the camera closes on what it follows (per second).
const FOLLOW_RATE: f32 = 5.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera).add_systems(
        Update,
        (
            pan_and_zoom.in_set(ViewSet::Input),
            follow.in_set(ViewSet::Present),
            read_along.in_set(ViewSet::Input),
        ),
    );
}

/// Game minutes per real second while the followed resident talks: a line
/// comes every 15–80 game seconds, so at this rate each stays about 1–7
/// real seconds and the bubbles' queue (3 s a line) stays in step with the
/// talk (1× is 2 game minutes a second).
pub(crate) const READING_RATE: f32 = 0.2;

/// Following a resident who is talking slows time to reading speed (the HUD
/// says so); the speed chosen comes back when the talk ends or the camera
/// lets go. Unfollowed talks are read from their bubbles' queue instead.
fn read_along(
    selection: Res<Selection>,
    roster: Res<Roster>,
    talking: Query<(), With<crate::sim::social::Talking>>,
    mut speed: ResMut<crate::sim::clock::SimSpeed>,
) {
    let reading = selection.follow
        && selection
            .resident
            .as_ref()
            .and_then(|id| roster.entity(id))
            .is_some_and(|e| talking.contains(e));
    let cap = reading.then_some(READING_RATE);
    if speed.reading_cap != cap {
        speed.reading_cap = cap;
    }
}

fn spawn_camera(mut commands: Commands, frame: Res<MapFrame>) {
    // Fit the whole map in a 1280×800 window at the start.
    let scale = (frame.size.x / 1200.0)
        .max(frame.size.y / 720.0)
        .clamp(MIN_SCALE, MAX_SCALE);
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale,
            ..OrthographicProjection::default_2d()
        }),
    ));
}

/// The zoom after one wheel movement of `lines` (up = closer).
pub(crate) fn zoomed(scale: f32, lines: f32) -> f32 {
    let factor = (1.0 - lines.clamp(-3.0, 3.0) * 0.1).max(0.5);
    (scale * factor).clamp(MIN_SCALE, MAX_SCALE)
}

/// One frame of easing from `from` towards `to`.
pub(crate) fn ease(from: Vec2, to: Vec2, dt: f32) -> Vec2 {
    from.lerp(to, 1.0 - (-FOLLOW_RATE * dt).exp())
}

/// What the player does with keys, buttons, the mouse and the wheel.
type Controls<'w> = (
    Res<'w, ButtonInput<KeyCode>>,
    Res<'w, ButtonInput<MouseButton>>,
    Res<'w, AccumulatedMouseMotion>,
    Res<'w, AccumulatedMouseScroll>,
);

fn pan_and_zoom(
    (keys, buttons, motion, scroll): Controls,
    time: Res<Time<Real>>,
    ui: Res<UiWantsInput>,
    mut selection: ResMut<Selection>,
    mut goal: ResMut<CameraGoal>,
    mut camera: Query<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let Ok((mut transform, mut projection)) = camera.single_mut() else {
        return;
    };
    let Projection::Orthographic(ortho) = &mut *projection else {
        return;
    };
    let mut dir = Vec2::ZERO;
    if !ui.keyboard {
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
    }
    let mut pan = dir * KEY_PAN * time.delta_secs() * ortho.scale;
    if !ui.pointer && buttons.pressed(MouseButton::Left) {
        // Dragging moves the map with the pointer.
        pan += Vec2::new(-motion.delta.x, motion.delta.y) * ortho.scale;
    }
    if pan != Vec2::ZERO {
        // Steering by hand stops following and any glide.
        selection.follow = false;
        goal.0 = None;
        transform.translation += pan.extend(0.0);
    }
    if !ui.pointer && scroll.delta.y != 0.0 {
        ortho.scale = zoomed(ortho.scale, scroll.delta.y);
    }
}

/// Keeps the followed resident in the middle, or glides to a requested spot.
fn follow(
    time: Res<Time<Real>>,
    selection: Res<Selection>,
    roster: Res<Roster>,
    mut goal: ResMut<CameraGoal>,
    figures: Query<&Transform, Without<Camera2d>>,
    mut camera: Query<&mut Transform, With<Camera2d>>,
) {
    let Ok(mut cam) = camera.single_mut() else {
        return;
    };
    let target = if selection.follow {
        selection
            .resident
            .as_ref()
            .and_then(|id| roster.entity(id))
            .and_then(|e| figures.get(e).ok())
            .map(|t| t.translation.truncate())
    } else {
        goal.0
    };
    let Some(target) = target else {
        return;
    };
    let now = ease(cam.translation.truncate(), target, time.delta_secs());
    if goal.0.is_some() && now.distance(target) < 1.0 {
        goal.0 = None;
    }
    cam.translation = now.extend(cam.translation.z);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_stays_within_limits_and_follow_closes_in() {
        let mut s = 1.0;
        for _ in 0..50 {
            s = zoomed(s, 3.0);
        }
        assert_eq!(s, MIN_SCALE);
        for _ in 0..50 {
            s = zoomed(s, -3.0);
        }
        assert_eq!(s, MAX_SCALE);
        assert!(zoomed(1.0, 1.0) < 1.0, "wheel up zooms in");
        let mut at = Vec2::ZERO;
        let target = Vec2::new(100.0, -50.0);
        let mut last = at.distance(target);
        for _ in 0..120 {
            at = ease(at, target, 1.0 / 60.0);
            let d = at.distance(target);
            assert!(d < last);
            last = d;
        }
        assert!(last < 1.0, "follows within two seconds");
    }
}
