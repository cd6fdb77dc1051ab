//! Staging: the window puts the simulation's people and events on the map
//! so a player can read them. Each resident at a place stands on a spot of
//! its own (see `spots`), a crowd too large for its place shows a marker
//! with its count, a gathering gets its lanterns, tables and banner for its
//! hours, and a couple on a date stand side by side under a small heart.
//! Nothing here changes the simulation.

mod events;
pub(crate) mod spots;

use std::collections::HashMap;

use bevy::prelude::*;

pub(crate) use self::events::{DateHeart, PartyProp};
use self::spots::{Taken, spots_of};
use super::bubbles::{Standing, standing_at};
use super::people::PeopleSet;
use super::{FONT, MapFrame, ViewSet};
use crate::scenario::{LocIdx, Town};
use crate::sim::residents::{Activity, ActivityKind, Resident};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Stage>()
        .add_systems(
            Update,
            (
                assign_spots.before(PeopleSet),
                (hide_crowded, mark_crowds).chain().after(PeopleSet),
            )
                .in_set(ViewSet::Present),
        )
        .add_plugins(events::plugin);
}

/// Where a resident's figure stands at its place (world units).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spot {
    pub(crate) place: LocIdx,
    /// Its number among the place's spots (`None`: the crowd is full).
    index: Option<usize>,
    pub(crate) at: Vec2,
}

/// A crowd's marker: how many more are at the place than it shows.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct CrowdMarker {
    pub(crate) place: LocIdx,
}

/// The spots of each place and who has them.
#[derive(Resource, Default)]
struct Stage {
    spots: Vec<Vec<Vec2>>,
    taken: Taken,
    markers: HashMap<LocIdx, Entity>,
}

/// Gives each resident who has come to a place a free spot there, and
/// takes it back when it leaves; with none free it is out of sight (the
/// place's marker counts it).
fn assign_spots(
    mut commands: Commands,
    town: Res<Town>,
    frame: Res<MapFrame>,
    mut stage: ResMut<Stage>,
    residents: Query<(Entity, &Resident, Standing, Option<&Spot>)>,
) {
    if town.is_changed() || stage.spots.len() != town.len() {
        stage.spots = town.indices().map(|i| spots_of(&town, i)).collect();
        stage.taken = Taken::default();
        for (e, ..) in &residents {
            commands.entity(e).remove::<Spot>();
        }
        return;
    }
    for (entity, r, standing, spot) in &residents {
        let here = standing_at(standing);
        if spot.map(|s| s.place) == here {
            continue;
        }
        if let Some(Spot {
            place,
            index: Some(k),
            ..
        }) = spot
        {
            stage.taken.free(*place, *k);
        }
        let Some(place) = here else {
            commands.entity(entity).remove::<Spot>();
            continue;
        };
        let count = stage.spots[place.i()].len();
        let index = stage.taken.take(place, count, r.idx.0);
        // A full crowd: its last spot (the figure is hidden).
        let map = stage.spots[place.i()]
            .get(index.unwrap_or(count.saturating_sub(1)))
            .copied()
            .unwrap_or(town.get(place).position);
        commands.entity(entity).insert(Spot {
            place,
            index,
            at: frame.world(map),
        });
    }
}

/// Residents beyond their place's spots are out of sight; back in sight
/// when they get one or leave (unless asleep indoors).
fn hide_crowded(
    town: Res<Town>,
    mut q: Query<(Option<&Spot>, &Activity, &mut Visibility), With<Resident>>,
    mut was: Local<Vec<Entity>>,
    entities: Query<Entity, With<Resident>>,
) {
    let mut now = Vec::new();
    for e in &entities {
        let Ok((spot, activity, mut vis)) = q.get_mut(e) else {
            continue;
        };
        let crowded = spot.is_some_and(|s| s.index.is_none());
        if crowded {
            vis.set_if_neq(Visibility::Hidden);
            now.push(e);
        } else if was.contains(&e) {
            let asleep_inside = activity.underway
                && activity.kind == ActivityKind::Sleep
                && activity.target.i() < town.len()
                && town.get(activity.target).look.is_building();
            if !asleep_inside {
                vis.set_if_neq(Visibility::Inherited);
            }
        }
    }
    *was = now;
}

/// One marker per place with residents out of sight: 「另有N人」.
fn mark_crowds(
    mut commands: Commands,
    town: Res<Town>,
    frame: Res<MapFrame>,
    mut stage: ResMut<Stage>,
    spots: Query<&Spot>,
    mut texts: Query<&mut Text2d, With<CrowdMarker>>,
    assets: Res<AssetServer>,
) {
    let mut extra: HashMap<LocIdx, usize> = HashMap::new();
    for s in spots.iter().filter(|s| s.index.is_none()) {
        *extra.entry(s.place).or_default() += 1;
    }
    let gone: Vec<LocIdx> = stage
        .markers
        .keys()
        .filter(|p| !extra.contains_key(p))
        .copied()
        .collect();
    for p in gone {
        if let Some(e) = stage.markers.remove(&p) {
            commands.entity(e).try_despawn();
        }
    }
    for (place, n) in extra {
        let text = format!("另有{n}人");
        if let Some(mut t) = stage
            .markers
            .get(&place)
            .and_then(|&e| texts.get_mut(e).ok())
        {
            if t.0 != text {
                t.0 = text;
            }
            continue;
        }
        if place.i() >= town.len() {
            continue;
        }
        let loc = town.get(place);
        let at = frame.world(loc.position + Vec2::new(0.0, loc.size.y / 2.0 + 30.0));
        let e = commands
            .spawn((
                CrowdMarker { place },
                Text2d::new(text),
                TextFont {
                    font: assets.load(FONT).into(),
                    font_size: FontSize::Px(15.0),
                    ..default()
                },
                TextColor(Color::srgb(1.0, 0.95, 0.7)),
                bevy::sprite::Text2dShadow {
                    offset: Vec2::new(1.0, -1.0),
                    color: Color::srgba(0.1, 0.05, 0.02, 0.95),
                },
                Transform::from_translation(at.extend(33.0)),
            ))
            .id();
        stage.markers.insert(place, e);
    }
}
