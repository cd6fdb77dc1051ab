//! Day and night: dusk darkens the map from 18:00, night is darkest from
//! 22:00 to 05:00, dawn clears it by 07:00. Buildings' windows glow at night
//! while someone inside is awake.

use bevy::prelude::*;

use super::map::places::{Prop, windows};
use super::{MapFrame, ViewSet};
use crate::scenario::LocationKind;
use crate::scenario::Town;
use crate::sim::clock::Clock;
use crate::sim::residents::Census;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_overlay)
        .add_systems(Update, (shade, light_windows).in_set(ViewSet::Present));
}

/// The darkest the night gets (alpha of the blue overlay).
pub(crate) const NIGHT: f32 = 0.85;

/// How dark the map is at `minute` of the day (0 = day, `NIGHT` = deep night).
pub(crate) fn darkness(minute: u32) -> f32 {
    let h = minute as f32 / 60.0;
    let ramp = |from: f32, to: f32| ((h - from) / (to - from)).clamp(0.0, 1.0);
    if h < 5.0 {
        NIGHT
    } else if h < 7.0 {
        NIGHT * (1.0 - ramp(5.0, 7.0))
    } else if h < 18.0 {
        0.0
    } else if h < 22.0 {
        NIGHT * ramp(18.0, 22.0)
    } else {
        NIGHT
    }
}

/// Whether a place's windows glow: a building, after dusk, with someone awake inside.
pub(crate) fn lit(kind: LocationKind, dark: f32, awake_inside: usize) -> bool {
    let building = matches!(
        kind,
        LocationKind::Home | LocationKind::Work | LocationKind::Food | LocationKind::Public
    );
    building && dark > 0.15 && awake_inside > 0
}

#[derive(Component)]
struct Darkness;

/// A window of the building at place `place`.
#[derive(Component)]
pub(crate) struct WindowLight {
    pub(crate) place: crate::scenario::LocIdx,
}

const GLOW: Color = Color::srgb(1.0, 0.86, 0.45);

fn spawn_overlay(mut commands: Commands, frame: Res<MapFrame>) {
    commands.spawn((
        Darkness,
        Sprite::from_color(Color::srgba(0.03, 0.05, 0.16, 0.0), frame.size * 4.0),
        Transform::from_xyz(0.0, 0.0, 30.0),
    ));
}

/// A glow over each window of each building (the map draws them with the
/// places); clear by day, so the building's own windows show.
pub(crate) fn spawn_windows(commands: &mut Commands, frame: &MapFrame, props: &[Prop]) {
    for prop in props.iter().filter(|p| p.windows) {
        for (centre, size) in windows(prop) {
            commands.spawn((
                WindowLight { place: prop.place },
                Sprite::from_color(Color::NONE, size),
                // Above the darkness: a lit window shines through it.
                Transform::from_translation(frame.world(centre).extend(31.0)),
            ));
        }
    }
}

fn shade(clock: Res<Clock>, mut overlay: Query<(&mut Sprite, &mut Visibility), With<Darkness>>) {
    let dark = darkness(clock.now.minute_of_day());
    for (mut sprite, mut vis) in &mut overlay {
        sprite.color.set_alpha(dark);
        // By day it is not drawn at all: a clear full-screen sprite still
        // costs a software renderer a pass.
        vis.set_if_neq(if dark > 0.0 {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}

fn light_windows(
    clock: Res<Clock>,
    town: Res<Town>,
    census: Res<Census>,
    mut windows: Query<(&WindowLight, &mut Sprite)>,
) {
    let dark = darkness(clock.now.minute_of_day());
    for (window, mut sprite) in &mut windows {
        let awake = census
            .standing_at(window.place)
            .iter()
            .filter(|&&r| !census.asleep(r))
            .count();
        let on = window.place.i() < town.len() && lit(town.get(window.place).kind, dark, awake);
        sprite.color = if on { GLOW } else { Color::NONE };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn night_darkens_from_dusk_and_clears_by_morning() {
        assert_eq!(darkness(12 * 60), 0.0);
        assert_eq!(darkness(17 * 60 + 59), 0.0);
        assert!(darkness(19 * 60) > 0.0 && darkness(19 * 60) < darkness(21 * 60));
        assert_eq!(darkness(23 * 60), NIGHT);
        assert_eq!(darkness(3 * 60), NIGHT);
        assert!(darkness(6 * 60) < NIGHT && darkness(6 * 60) > 0.0);
        assert_eq!(darkness(7 * 60), 0.0);
        // Windows: buildings with someone awake, after dusk only.
        assert!(lit(LocationKind::Home, NIGHT, 1));
        assert!(!lit(LocationKind::Home, NIGHT, 0), "everyone asleep: dark");
        assert!(!lit(LocationKind::Home, 0.0, 3), "daytime: no glow");
        assert!(
            !lit(LocationKind::Wild, NIGHT, 2),
            "a tent in the woods has no windows"
        );
    }
}
