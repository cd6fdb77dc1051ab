//! Residents on the map: a coloured token each with its name, moving smoothly
//! towards where the simulation puts them (no teleporting between steps).

use bevy::prelude::*;

use super::{FONT, MapFrame};
use crate::sim::residents::{MapPosition, Resident};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, (add_tokens, follow_sim).chain());
}

/// How fast a token closes the gap to its simulated position (per second).
const CATCH_UP: f32 = 6.0;

/// A distinct colour per resident, spread around the hue circle.
fn hue(idx: u32) -> Color {
    Color::hsl((idx as f32 * 137.508) % 360.0, 0.65, 0.45)
}

/// Gives each new resident its token and label.
fn add_tokens(
    mut commands: Commands,
    new: Query<(Entity, &Resident, &MapPosition, &crate::sim::residents::Persona), Added<Resident>>,
    frame: Res<MapFrame>,
    assets: Res<AssetServer>,
) {
    let font: Handle<Font> = assets.load(FONT);
    for (entity, r, pos, persona) in &new {
        commands.entity(entity).insert((
            Sprite::from_color(hue(r.idx), Vec2::splat(18.0)),
            Transform::from_translation(frame.world(pos.0).extend(10.0)),
            Visibility::default(),
        ));
        commands.entity(entity).with_children(|c| {
            c.spawn((
                Text2d::new(persona.name.clone()),
                TextFont {
                    font: font.clone().into(),
                    font_size: FontSize::Px(16.0),
                    ..default()
                },
                TextColor(Color::srgb(0.1, 0.1, 0.1)),
                Transform::from_xyz(0.0, -20.0, 1.0),
            ));
        });
    }
}

/// Eases each token towards its simulated position.
fn follow_sim(time: Res<Time<Real>>, frame: Res<MapFrame>, mut q: Query<(&MapPosition, &mut Transform), With<Resident>>) {
    let t = 1.0 - (-CATCH_UP * time.delta_secs()).exp();
    for (pos, mut transform) in &mut q {
        let target = frame.world(pos.0);
        let now = transform.translation.truncate();
        transform.translation = now.lerp(target, t).extend(transform.translation.z);
    }
}
