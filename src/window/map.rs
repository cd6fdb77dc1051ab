//! The map, drawn once: grass, paths between connected places, each place as
//! a coloured block by its kind with its name.

use bevy::prelude::*;

use super::{FONT, MapFrame};
use crate::scenario::spec::LocationKind;
use crate::scenario::Town;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, draw_map);
}

/// Colours by kind of place: homes warm, work wood, food red, public stone,
/// nature green, the wild dark.
fn colour(kind: LocationKind) -> Color {
    match kind {
        LocationKind::Home => Color::srgb(0.86, 0.72, 0.52),
        LocationKind::Work => Color::srgb(0.62, 0.48, 0.34),
        LocationKind::Food => Color::srgb(0.80, 0.42, 0.32),
        LocationKind::Public => Color::srgb(0.78, 0.78, 0.72),
        LocationKind::Nature => Color::srgb(0.42, 0.62, 0.36),
        LocationKind::Wild => Color::srgb(0.30, 0.40, 0.28),
    }
}

fn draw_map(mut commands: Commands, town: Res<Town>, frame: Res<MapFrame>, assets: Res<AssetServer>) {
    let font: Handle<Font> = assets.load(FONT);
    commands.spawn((
        Sprite::from_color(Color::srgb(0.55, 0.72, 0.45), frame.size + Vec2::splat(400.0)),
        Transform::from_xyz(0.0, 0.0, -10.0),
    ));
    // Paths: one thin strip per connection, drawn under the places.
    for a in town.indices() {
        for &b in &town.get(a).neighbours {
            if b.0 < a.0 {
                continue;
            }
            let (pa, pb) = (frame.world(town.get(a).position), frame.world(town.get(b).position));
            let d = pb - pa;
            commands.spawn((
                Sprite::from_color(Color::srgb(0.82, 0.74, 0.56), Vec2::new(d.length(), 10.0)),
                Transform::from_translation(((pa + pb) / 2.0).extend(-5.0))
                    .with_rotation(Quat::from_rotation_z(d.y.atan2(d.x))),
            ));
        }
    }
    for i in town.indices() {
        let loc = town.get(i);
        let at = frame.world(loc.position);
        commands.spawn((
            Sprite::from_color(colour(loc.kind), loc.size),
            Transform::from_translation(at.extend(-2.0)),
        ));
        commands.spawn((
            Text2d::new(loc.name.clone()),
            TextFont {
                font: font.clone().into(),
                font_size: FontSize::Px(22.0),
                ..default()
            },
            TextColor(Color::srgb(0.15, 0.12, 0.10)),
            Transform::from_translation((at + Vec2::new(0.0, loc.size.y / 2.0 + 14.0)).extend(5.0)),
        ));
    }
}
