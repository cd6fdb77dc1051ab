//! The map, drawn from the town: grass, dirt paths between connected places,
//! buildings with a roof, door and windows (see `night`), a stone square with
//! its notice board, groves of trees for nature and the wild, and every
//! place's name. Drawn again when a reload changes the town.

use bevy::prelude::*;

use super::night::spawn_windows;
use super::{FONT, MapFrame};
use crate::scenario::{Location, Town};
use crate::scenario::{LocationKind, Service};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, draw_ground).add_systems(
        Update,
        redraw
            .run_if(resource_changed::<Town>)
            .in_set(super::ViewSet::Present),
    );
}

/// Everything drawn for the places (despawned and drawn again on change).
#[derive(Component)]
pub(crate) struct MapPiece;

/// The walls of a building, by its kind.
fn wall(kind: LocationKind) -> Color {
    match kind {
        LocationKind::Home => Color::srgb(0.90, 0.78, 0.58),
        LocationKind::Work => Color::srgb(0.70, 0.56, 0.40),
        LocationKind::Food => Color::srgb(0.86, 0.52, 0.38),
        LocationKind::Public => Color::srgb(0.80, 0.80, 0.76),
        LocationKind::Nature => Color::srgb(0.46, 0.66, 0.38),
        LocationKind::Wild => Color::srgb(0.32, 0.44, 0.30),
    }
}

fn roof(kind: LocationKind) -> Color {
    match kind {
        LocationKind::Home => Color::srgb(0.66, 0.30, 0.24),
        LocationKind::Work => Color::srgb(0.36, 0.32, 0.36),
        LocationKind::Food => Color::srgb(0.52, 0.22, 0.18),
        _ => Color::srgb(0.40, 0.40, 0.46),
    }
}

fn draw_ground(mut commands: Commands, frame: Res<MapFrame>) {
    commands.spawn((
        Sprite::from_color(Color::srgb(0.56, 0.73, 0.44), frame.size * 3.0),
        Transform::from_xyz(0.0, 0.0, -10.0),
    ));
    // Lighter patches of meadow, placed by a fixed pattern (not random: the
    // same town always looks the same).
    for k in 0..60u32 {
        let x = ((k * 7919) % 997) as f32 / 997.0 - 0.5;
        let y = ((k * 104_729) % 991) as f32 / 991.0 - 0.5;
        let s = 30.0 + ((k * 31) % 50) as f32;
        commands.spawn((
            Sprite::from_color(Color::srgba(0.66, 0.80, 0.50, 0.35), Vec2::new(s * 1.6, s)),
            Transform::from_xyz(x * frame.size.x * 1.2, y * frame.size.y * 1.2, -9.0),
        ));
    }
}

/// What a redraw replaces.
type Drawn = Or<(With<MapPiece>, With<super::night::WindowLight>)>;

fn redraw(
    mut commands: Commands,
    town: Res<Town>,
    frame: Res<MapFrame>,
    old: Query<Entity, Drawn>,
    assets: Res<AssetServer>,
) {
    for e in &old {
        commands.entity(e).despawn();
    }
    let font: Handle<Font> = assets.load(FONT);
    // Paths: one strip per connection, under the places.
    for a in town.indices() {
        for &b in &town.get(a).neighbours {
            if b.0 < a.0 {
                continue;
            }
            let (pa, pb) = (
                frame.world(town.get(a).position),
                frame.world(town.get(b).position),
            );
            let d = pb - pa;
            let angle = Quat::from_rotation_z(d.y.atan2(d.x));
            for (width, colour, z) in [
                (16.0, Color::srgb(0.70, 0.62, 0.44), -6.0),
                (11.0, Color::srgb(0.84, 0.76, 0.56), -5.0),
            ] {
                commands.spawn((
                    MapPiece,
                    Sprite::from_color(colour, Vec2::new(d.length(), width)),
                    Transform::from_translation(((pa + pb) / 2.0).extend(z)).with_rotation(angle),
                ));
            }
        }
    }
    for i in town.indices() {
        let loc = town.get(i);
        let at = frame.world(loc.position);
        draw_place(&mut commands, loc, at, i.0);
        commands.spawn((
            MapPiece,
            Text2d::new(loc.name.clone()),
            TextFont {
                font: font.clone().into(),
                font_size: FontSize::Px(20.0),
                ..default()
            },
            TextColor(Color::srgb(0.12, 0.10, 0.08)),
            bevy::sprite::Text2dShadow {
                offset: Vec2::new(1.0, -1.0),
                color: Color::srgba(1.0, 1.0, 0.95, 0.9),
            },
            // Above the darkness, so names stay readable at night.
            Transform::from_translation(
                (at + Vec2::new(0.0, loc.size.y / 2.0 + 14.0)).extend(32.0),
            ),
        ));
    }
    spawn_windows(&mut commands, &frame, &town);
}

fn piece(commands: &mut Commands, colour: Color, size: Vec2, at: Vec2, z: f32) {
    commands.spawn((
        MapPiece,
        Sprite::from_color(colour, size),
        Transform::from_translation(at.extend(z)),
    ));
}

/// A place as its kind looks: a grove (with a tent where one sleeps), a
/// paved square (with a notice board, or a reading room), or a house.
fn draw_place(commands: &mut Commands, loc: &Location, at: Vec2, seed: u32) {
    match loc.kind {
        LocationKind::Nature | LocationKind::Wild => grove(commands, loc, at, seed),
        LocationKind::Public => {
            // Paving, with a border.
            let border = loc.size + Vec2::splat(6.0);
            piece(commands, Color::srgb(0.62, 0.60, 0.56), border, at, -4.1);
            piece(commands, wall(loc.kind), loc.size, at, -4.0);
            if loc.has(Service::NoticeBoard) {
                notice_board(
                    commands,
                    at + Vec2::new(loc.size.x * 0.28, loc.size.y * 0.18),
                );
            }
            if loc.has(Service::Books) {
                house(commands, loc.kind, loc.size * 0.7, at);
            }
        }
        _ => house(commands, loc.kind, loc.size, at),
    }
}

/// Trees at fixed pseudo-random spots, and a tent where one can sleep.
fn grove(commands: &mut Commands, loc: &Location, at: Vec2, seed: u32) {
    let size = loc.size;
    piece(commands, wall(loc.kind), size, at, -4.0);
    let trees = ((size.x * size.y) / 2500.0).clamp(3.0, 14.0) as u32;
    let canopy = if loc.kind == LocationKind::Wild {
        Color::srgb(0.16, 0.32, 0.18)
    } else {
        Color::srgb(0.24, 0.46, 0.22)
    };
    let trunk = Color::srgb(0.40, 0.28, 0.18);
    for k in 0..trees {
        let h = (seed + 1)
            .wrapping_mul(2_654_435_761)
            .wrapping_add(k * 40_503);
        let fx = ((h >> 8) % 1000) as f32 / 1000.0 - 0.5;
        let fy = ((h >> 18) % 1000) as f32 / 1000.0 - 0.5;
        let p = at + Vec2::new(fx * size.x * 0.85, fy * size.y * 0.85);
        piece(
            commands,
            trunk,
            Vec2::new(5.0, 10.0),
            p - Vec2::Y * 8.0,
            -3.0,
        );
        piece(commands, canopy, Vec2::splat(18.0), p, -2.9);
    }
    if loc.has(Service::Sleep) {
        let (canvas, opening) = (Color::srgb(0.78, 0.62, 0.30), Color::srgb(0.30, 0.22, 0.14));
        piece(commands, canvas, Vec2::new(34.0, 22.0), at, -2.5);
        piece(
            commands,
            opening,
            Vec2::new(8.0, 14.0),
            at - Vec2::Y * 4.0,
            -2.4,
        );
    }
}

/// A notice board on two posts, two notices pinned to it.
fn notice_board(commands: &mut Commands, board: Vec2) {
    let wood = Color::srgb(0.45, 0.30, 0.18);
    let post = Vec2::new(4.0, 26.0);
    piece(commands, wood, post, board - Vec2::new(12.0, 12.0), -3.0);
    piece(commands, wood, post, board - Vec2::new(-12.0, 12.0), -3.0);
    let panel = Color::srgb(0.62, 0.44, 0.26);
    piece(commands, panel, Vec2::new(40.0, 24.0), board, -2.9);
    let (white, cream) = (Color::srgb(0.96, 0.94, 0.86), Color::srgb(0.98, 0.90, 0.70));
    piece(
        commands,
        white,
        Vec2::new(12.0, 14.0),
        board - Vec2::X * 8.0,
        -2.8,
    );
    piece(
        commands,
        cream,
        Vec2::new(10.0, 12.0),
        board + Vec2::X * 9.0,
        -2.8,
    );
}

/// Walls, a roof along the top, a door at the bottom (windows: `night`).
fn house(commands: &mut Commands, kind: LocationKind, size: Vec2, at: Vec2) {
    piece(
        commands,
        Color::srgba(0.0, 0.0, 0.0, 0.18),
        size + Vec2::new(6.0, 6.0),
        at - Vec2::new(-3.0, 4.0),
        -4.2,
    );
    piece(commands, wall(kind), size, at, -4.0);
    let roof_h = size.y * 0.32;
    piece(
        commands,
        roof(kind),
        Vec2::new(size.x + 8.0, roof_h),
        at + Vec2::Y * (size.y / 2.0 - roof_h / 2.0 + 4.0),
        -3.9,
    );
    piece(
        commands,
        Color::srgb(0.38, 0.26, 0.16),
        Vec2::new((size.x * 0.14).clamp(10.0, 18.0), size.y * 0.3),
        at - Vec2::Y * (size.y / 2.0 - size.y * 0.15),
        -3.8,
    );
}
