//! The map, drawn from the town with the Ninja Adventure tileset (CC0,
//! Pixel-boy): autotiled ground in chunks (meadow, dirt paths along every
//! connection, tilled fields, water), what stands on each place (see
//! `places`), and every place's name on a label. Drawn again when a reload
//! changes the town, so new places get their ground and buildings at once.

mod autotile;
pub(crate) mod ground;
pub(crate) mod places;
mod scenery;
pub(crate) mod sheet;

use bevy::math::IVec2;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::sprite_render::{AlphaMode2d, TileData, TilemapChunk, TilemapChunkTileData};

use self::autotile::Neighbours;
use self::ground::{GroundGrid, TILE};
use self::sheet::{GroundLayers, Sheet, cell_hash};
use super::night::spawn_windows;
use super::people::depth;
use super::{AssetDir, FONT, MapFrame};
use crate::scenario::{LocIdx, Town};

pub(super) fn plugin(app: &mut App) {
    // Meadow green beyond the tiles: the clear colour costs nothing, where a
    // backdrop sprite would be one more full-screen pass for a software
    // renderer.
    app.insert_resource(ClearColor(Color::srgb(0.45, 0.68, 0.16)))
        .add_systems(Startup, load_tileset)
        .add_systems(
            Update,
            redraw
                .run_if(resource_changed::<Town>)
                .in_set(super::ViewSet::Present),
        );
}

/// Cells per side of a ground chunk (one mesh and one draw each).
const CHUNK: i32 = 32;

/// Everything drawn for the places (despawned and drawn again on change).
#[derive(Component)]
pub(crate) struct MapPiece;

/// A place's name on the map.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct PlaceLabel(pub(crate) LocIdx);

/// Something standing on the map (a building, a tree, a prop), and the
/// place it belongs to: for the draw list.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct MapProp {
    pub(crate) place: LocIdx,
}

/// The tileset as a picture (buildings, props) and the ground's array
/// texture with its layers.
#[derive(Resource)]
pub(crate) struct Tileset {
    pub(crate) image: Handle<Image>,
    ground: Handle<Image>,
    layers: GroundLayers,
}

/// Reads the tileset once, from the asset folder (its pixels are needed to
/// put the autotiles together, so not through the asset server).
fn load_tileset(mut commands: Commands, dir: Res<AssetDir>, mut images: ResMut<Assets<Image>>) {
    let path = dir.0.join(sheet::TILESET);
    let sheet = match std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|b| Sheet::decode(&b))
    {
        Ok(s) => s,
        Err(e) => {
            error!("{}: {e}; the map is drawn without tiles", path.display());
            return;
        }
    };
    let layers = GroundLayers::build(&sheet);
    commands.insert_resource(Tileset {
        image: images.add(sheet.image()),
        ground: images.add(layers.image()),
        layers,
    });
}

/// What a redraw replaces.
type Drawn = Or<(With<MapPiece>, With<super::night::WindowLight>)>;

fn redraw(
    mut commands: Commands,
    town: Res<Town>,
    frame: Res<MapFrame>,
    tileset: Option<Res<Tileset>>,
    old: Query<Entity, Drawn>,
    assets: Res<AssetServer>,
) {
    for e in &old {
        commands.entity(e).despawn();
    }
    let mut grid = ground::paint(&town, frame.size);
    let mut props = places::props(&town, &grid);
    props.extend(scenery::dress(&town, frame.size, &mut grid));
    if let Some(tileset) = tileset {
        spawn_chunks(&mut commands, &frame, &grid, &tileset);
        spawn_props(&mut commands, &frame, &props, &tileset);
    }
    let font: Handle<Font> = assets.load(FONT);
    for i in town.indices() {
        let loc = town.get(i);
        let top = props
            .iter()
            .filter(|p| p.place == i && p.windows)
            .map(|p| p.foot.y - p.size().y)
            .fold(loc.position.y - loc.size.y / 2.0, f32::min);
        let at = frame.world(Vec2::new(loc.position.x, top - 10.0));
        commands.spawn((PlaceLabel(i), place_label(&loc.name, at, font.clone())));
    }
    spawn_windows(&mut commands, &frame, &props);
}

/// A place's name, above the darkness so it stays readable at night.
fn place_label(name: &str, at: Vec2, font: Handle<Font>) -> impl Bundle {
    (
        MapPiece,
        Text2d::new(name.to_string()),
        TextFont {
            font: font.into(),
            font_size: FontSize::Px(18.0),
            ..default()
        },
        TextColor(Color::srgb(1.0, 0.98, 0.90)),
        bevy::sprite::Text2dShadow {
            offset: Vec2::new(1.5, -1.5),
            color: Color::srgba(0.12, 0.08, 0.04, 0.95),
        },
        Transform::from_translation(at.extend(32.0)),
    )
}

/// The ground in chunks of `CHUNK`² cells, one mesh each.
fn spawn_chunks(commands: &mut Commands, frame: &MapFrame, grid: &GroundGrid, tileset: &Tileset) {
    let chunks = (grid.size + IVec2::splat(CHUNK - 1)) / CHUNK;
    for ky in 0..chunks.y {
        for kx in 0..chunks.x {
            let origin = IVec2::new(kx, ky) * CHUNK;
            let tiles = chunk_tiles(grid, origin, &tileset.layers);
            // The chunk's centre, from the centre of its middle cells.
            let centre =
                GroundGrid::centre_of(origin) + Vec2::splat((CHUNK as f32 - 1.0) * TILE / 2.0);
            commands.spawn((
                MapPiece,
                TilemapChunk {
                    chunk_size: UVec2::splat(CHUNK as u32),
                    tile_display_size: UVec2::splat(TILE as u32),
                    tileset: tileset.ground.clone(),
                    alpha_mode: AlphaMode2d::Opaque,
                },
                TilemapChunkTileData(tiles),
                Transform::from_translation(frame.world(centre).extend(-10.0)),
            ));
        }
    }
}

/// The layers of one chunk's cells, row by row from the bottom (as the
/// chunk's mesh reads them; the grid's rows go down the map).
fn chunk_tiles(grid: &GroundGrid, origin: IVec2, layers: &GroundLayers) -> Vec<Option<TileData>> {
    (0..CHUNK)
        .rev()
        .flat_map(|y| (0..CHUNK).map(move |x| origin + IVec2::new(x, y)))
        .map(|cell| {
            let ground = grid.at(cell);
            let same = Neighbours::of(cell.x, cell.y, |x, y| grid.at(IVec2::new(x, y)) == ground);
            let layer = layers.layer(ground, same, cell_hash(cell), cell);
            Some(TileData::from_tileset_index(layer))
        })
        .collect()
}

/// Buildings, trees and props, each one sprite standing on its foot.
fn spawn_props(
    commands: &mut Commands,
    frame: &MapFrame,
    props: &[places::Prop],
    tileset: &Tileset,
) {
    for p in props {
        let foot = frame.world(p.foot);
        commands.spawn((
            MapPiece,
            MapProp { place: p.place },
            Sprite {
                image: tileset.image.clone(),
                rect: Some(p.rect),
                custom_size: Some(p.size()),
                color: p.tint,
                ..default()
            },
            Anchor::BOTTOM_CENTER,
            Transform::from_translation(foot.extend(depth(foot.y))),
        ));
    }
}
