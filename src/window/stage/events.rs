//! Events on the map: a gathering's lanterns, tables and banner (with its
//! title) stand at its place from half an hour before it starts until half
//! an hour after it ends; a couple on a date stand side by side with a small
//! heart over them while the date is under way.

use bevy::prelude::*;
use bevy::sprite::Anchor;

use super::Spot;
use crate::scenario::{GatheringIdx, LocIdx, Town};
use crate::sim::clock::Clock;
use crate::sim::dating::TownDates;
use crate::sim::residents::Roster;
use crate::sim::town::Gatherings;
use crate::window::map::Tileset;
use crate::window::map::ground::area;
use crate::window::map::sheet::tiles;
use crate::window::people::{PeopleSet, depth};
use crate::window::{FONT, MapFrame, ViewSet};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            pair_up.after(super::assign_spots).before(PeopleSet),
            (stage_gatherings, show_hearts).after(PeopleSet),
        )
            .in_set(ViewSet::Present),
    );
}

/// A prop put up for a gathering at `place`.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct PartyProp {
    pub(crate) place: LocIdx,
    /// Which gathering.
    gathering: GatheringIdx,
}

/// The heart over a couple on a date.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct DateHeart {
    pair: [Entity; 2],
}

const LANTERN: Rect = tiles((12, 3), (13, 4));
const TABLE: Rect = tiles((18, 38), (20, 39));
const BANNER: Rect = tiles((14, 6), (17, 7));
const CRATE: Rect = tiles((12, 4), (13, 5));
const HEART: &str = "emoji/1f495.png";
/// Game minutes the props stand before a gathering starts and after it ends.
const SETTING_UP: i64 = 30;

/// Where a gathering's props go, by fractions of its place's half size:
/// (sprite, offset, scale).
fn party_layout() -> Vec<(Rect, Vec2, f32)> {
    let mut out = vec![
        (BANNER, Vec2::new(0.1, -0.55), 2.5),
        (TABLE, Vec2::new(-0.45, 0.55), 2.0),
        (TABLE, Vec2::new(0.45, 0.55), 2.0),
        (CRATE, Vec2::new(0.8, 0.7), 2.0),
    ];
    // Lanterns strung along both sides.
    for k in 0..4 {
        let y = -0.8 + k as f32 * 0.5;
        out.push((LANTERN, Vec2::new(-1.05, y), 2.0));
        out.push((LANTERN, Vec2::new(1.05, y), 2.0));
    }
    out
}

/// Puts each gathering's props up for its hours and takes them down after.
#[allow(clippy::too_many_arguments)]
fn stage_gatherings(
    mut commands: Commands,
    clock: Res<Clock>,
    town: Res<Town>,
    frame: Res<MapFrame>,
    gatherings: Option<Res<Gatherings>>,
    tileset: Option<Res<Tileset>>,
    props: Query<(Entity, &PartyProp)>,
    assets: Res<AssetServer>,
) {
    let (Some(gatherings), Some(tileset)) = (gatherings, tileset) else {
        return;
    };
    for gathering in gatherings.iter() {
        let g = gathering.id;
        let on = gathering.starts.plus_minutes(-SETTING_UP) <= clock.now
            && clock.now < gathering.ends.plus_minutes(SETTING_UP)
            && gathering.location.i() < town.len();
        let up: Vec<Entity> = props
            .iter()
            .filter(|(_, p)| p.gathering == g)
            .map(|(e, _)| e)
            .collect();
        if on != up.is_empty() {
            continue;
        }
        if !on {
            for e in up {
                commands.entity(e).try_despawn();
            }
            continue;
        }
        let place = gathering.location;
        let rect = area(&town, place);
        let tag = PartyProp {
            place,
            gathering: g,
        };
        for (sprite, offset, scale) in party_layout() {
            let foot = frame.world(rect.center() + rect.half_size() * offset);
            commands.spawn((
                tag,
                Sprite {
                    image: tileset.image.clone(),
                    rect: Some(sprite),
                    custom_size: Some(sprite.size() * scale),
                    ..default()
                },
                Anchor::BOTTOM_CENTER,
                Transform::from_translation(foot.extend(depth(foot.y))),
            ));
        }
        // The title on the banner.
        let board = frame.world(rect.center() + rect.half_size() * Vec2::new(0.1, -0.55));
        commands.spawn((
            tag,
            Text2d::new(gathering.title.clone()),
            TextFont {
                font: assets.load(FONT).into(),
                font_size: FontSize::Px(14.0),
                ..default()
            },
            TextColor(Color::srgb(0.45, 0.12, 0.05)),
            Transform::from_translation(
                (board + Vec2::Y * BANNER.height() * 1.25).extend(depth(board.y) + 0.01),
            ),
        ));
    }
}

/// A couple on a date under way, both at its place, stand side by side:
/// the second next to the first.
fn pair_up(dates: Option<Res<TownDates>>, roster: Res<Roster>, mut spots: Query<&mut Spot>) {
    let Some(dates) = dates else {
        return;
    };
    for (pair, place) in dates.under_way() {
        let [Some(&a), Some(&b)] = pair.map(|i| roster.entities().get(i.i())) else {
            continue;
        };
        let Ok([first, mut second]) = spots.get_many_mut([a, b]) else {
            continue;
        };
        let beside = first.at + Vec2::new(34.0, 0.0);
        if first.place == place && second.place == place && second.at != beside {
            second.at = beside;
        }
    }
}

/// A small heart over each couple on a date under way.
fn show_hearts(
    mut commands: Commands,
    dates: Option<Res<TownDates>>,
    roster: Res<Roster>,
    figures: Query<&Transform, Without<DateHeart>>,
    mut hearts: Query<(Entity, &DateHeart, &mut Transform)>,
    assets: Res<AssetServer>,
) {
    let pairs: Vec<[Entity; 2]> = dates
        .iter()
        .flat_map(|d| d.under_way().collect::<Vec<_>>())
        .filter_map(|(pair, _)| {
            let a = *roster.entities().get(pair[0].i())?;
            let b = *roster.entities().get(pair[1].i())?;
            Some([a, b])
        })
        .collect();
    for (e, heart, mut t) in &mut hearts {
        let (true, Ok([a, b])) = (pairs.contains(&heart.pair), figures.get_many(heart.pair)) else {
            commands.entity(e).try_despawn();
            continue;
        };
        let mid = (a.translation + b.translation).truncate() / 2.0;
        t.translation = (mid + Vec2::Y * 34.0).extend(26.0);
    }
    for pair in pairs {
        if hearts.iter().any(|(_, h, _)| h.pair == pair) {
            continue;
        }
        commands.spawn((
            DateHeart { pair },
            Sprite {
                image: assets.load(HEART),
                custom_size: Some(Vec2::splat(18.0)),
                ..default()
            },
            Transform::from_xyz(0.0, 0.0, 26.0),
        ));
    }
}
