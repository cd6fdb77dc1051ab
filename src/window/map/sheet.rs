//! The Ninja Adventure tileset (CC0, Pixel-boy; `assets/ninja/`): where each
//! ground tile and each building or prop is on the sheet, and the ground's
//! array texture, one layer per tile the autotiler can ask for.

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
use bevy::math::{IVec2, Rect, Vec2};
use bevy::prelude::Image;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use super::autotile::{Corner, Neighbours, Piece, TerrainSheet, distinct_pieces};
use super::ground::Ground;

/// The tileset, relative to `assets/`.
pub(crate) const TILESET: &str = "ninja/tileset.png";
/// Pixels per tile side on the sheet.
pub(crate) const PX: u32 = 16;

/// Dirt paths on light grass: the patch and its inner corners.
const DIRT: TerrainSheet = TerrainSheet {
    patch: (20, 15),
    inner: Some((18, 15)),
};
/// Tilled earth in a hedge of dark grass.
const FIELD: TerrainSheet = TerrainSheet {
    patch: (25, 15),
    inner: Some((23, 15)),
};
/// A pond with sandy shores (the sheet has no inner corners for it).
const WATER: TerrainSheet = TerrainSheet {
    patch: (19, 7),
    inner: None,
};
/// Meadow: plain grass, then variations (leaves, pebbles, a bare patch).
const GRASS: [(u32, u32); 4] = [(19, 17), (13, 16), (15, 16), (16, 16)];
/// Trees of the woods, each two cells by two: the top-left tile of a pine,
/// a dark pine and a round tree.
const WOODS: [(u32, u32); 3] = [(6, 10), (8, 10), (0, 10)];
/// Small flowers drawn over plain grass.
const FLOWERS: [(u32, u32); 2] = [(1, 8), (2, 8)];

/// The decoded sheet (RGBA8, row by row).
pub(crate) struct Sheet {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Sheet {
    /// Decodes `bytes` (the tileset's PNG).
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, String> {
        let image = Image::from_buffer(
            bytes,
            ImageType::Extension("png"),
            CompressedImageFormats::NONE,
            true,
            ImageSampler::nearest(),
            RenderAssetUsages::MAIN_WORLD,
        )
        .map_err(|e| format!("the tileset does not decode: {e}"))?;
        let image = image
            .convert(TextureFormat::Rgba8UnormSrgb)
            .ok_or("the tileset is not an RGBA image")?;
        Ok(Self {
            width: image.width(),
            height: image.height(),
            pixels: image.data.unwrap_or_default(),
        })
    }

    /// The whole sheet as a picture to cut sprites from (crisp pixels).
    pub(crate) fn image(&self) -> Image {
        let mut image = Image::new(
            Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            self.pixels.clone(),
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::RENDER_WORLD,
        );
        image.sampler = ImageSampler::nearest();
        image
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels
            .get(i..i + 4)
            .map_or([0; 4], |p| [p[0], p[1], p[2], p[3]])
    }

    /// The 16×16 tile at (`col`, `row`), RGBA.
    pub(crate) fn tile(&self, (col, row): (u32, u32)) -> Vec<u8> {
        let mut out = Vec::with_capacity((PX * PX * 4) as usize);
        for y in 0..PX {
            for x in 0..PX {
                out.extend(self.pixel(col * PX + x, row * PX + y));
            }
        }
        out
    }

    /// A cell's tile put together from the four quarters its pieces name.
    fn composed(&self, sheet: TerrainSheet, pieces: [Piece; 4]) -> Vec<u8> {
        let mut out = vec![0u8; (PX * PX * 4) as usize];
        for (corner, piece) in Corner::ALL.into_iter().zip(pieces) {
            let (col, row) = sheet.source(corner, piece);
            let (ox, oy) = corner.offset();
            for y in oy..oy + PX / 2 {
                for x in ox..ox + PX / 2 {
                    let i = ((y * PX + x) * 4) as usize;
                    out[i..i + 4].copy_from_slice(&self.pixel(col * PX + x, row * PX + y));
                }
            }
        }
        out
    }
}

/// `over` drawn on `base` where it is not transparent.
fn overlay(mut base: Vec<u8>, over: &[u8]) -> Vec<u8> {
    for (b, o) in base.chunks_mut(4).zip(over.chunks(4)) {
        if o[3] > 127 {
            b.copy_from_slice(o);
        }
    }
    base
}

/// The ground's layers and which layer each cell shows.
pub(crate) struct GroundLayers {
    /// Every tile, 16×16 RGBA each, stacked.
    pub(crate) pixels: Vec<u8>,
    pub(crate) count: u32,
    /// Each neighbour pattern's blob tile (its place in every terrain's block).
    blob_of: [u16; 256],
    /// Blob tiles per terrain.
    blobs: u16,
}

/// Layers of the meadow before the terrains' blocks: grass then flowers.
const MEADOW_LAYERS: u16 = (GRASS.len() + FLOWERS.len()) as u16;

impl GroundLayers {
    pub(crate) fn build(sheet: &Sheet) -> Self {
        let blob = distinct_pieces();
        let mut pixels = Vec::new();
        for at in GRASS {
            pixels.extend(sheet.tile(at));
        }
        for at in FLOWERS {
            pixels.extend(overlay(sheet.tile(GRASS[0]), &sheet.tile(at)));
        }
        for terrain in [DIRT, FIELD, WATER] {
            for pieces in &blob {
                pixels.extend(sheet.composed(terrain, *pieces));
            }
        }
        // Each tree's four quarters over grass, after the terrains (so
        // their layers keep their numbers).
        for (col, row) in WOODS {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                pixels.extend(overlay(
                    sheet.tile(GRASS[0]),
                    &sheet.tile((col + dx, row + dy)),
                ));
            }
        }
        let count = (pixels.len() / (PX * PX * 4) as usize) as u32;
        let blob_of = std::array::from_fn(|bits| {
            let pieces = Neighbours(bits as u8).pieces();
            blob.iter().position(|p| *p == pieces).unwrap_or(0) as u16
        });
        Self {
            pixels,
            count,
            blob_of,
            blobs: blob.len() as u16,
        }
    }

    /// The layer of a cell of `ground` with these neighbours; `hash` varies
    /// the meadow (the same cell always looks the same). A cell of woods
    /// shows its quarter of the tree whose two-by-two block it is in (the
    /// tree's kind from `tree`, the hash of that block).
    pub(crate) fn layer(
        &self,
        ground: Ground,
        neighbours: Neighbours,
        hash: u32,
        cell: IVec2,
    ) -> u16 {
        let block = |k: u16| MEADOW_LAYERS + k * self.blobs + self.blob_of[neighbours.0 as usize];
        match ground {
            Ground::Grass => meadow_layer(hash),
            Ground::Dirt => block(0),
            Ground::Field => block(1),
            Ground::Water => block(2),
            Ground::Woods => {
                let tree = cell_hash(cell.div_euclid(IVec2::splat(2))) as u16 % WOODS.len() as u16;
                let quarter = cell.x.rem_euclid(2) + 2 * cell.y.rem_euclid(2);
                MEADOW_LAYERS + 3 * self.blobs + tree * 4 + quarter as u16
            }
        }
    }

    /// The array texture (nearest sampling: crisp pixels).
    pub(crate) fn image(&self) -> Image {
        let mut image = Image::new(
            Extent3d {
                width: PX,
                height: PX * self.count,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            self.pixels.clone(),
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::RENDER_WORLD,
        );
        image
            .reinterpret_stacked_2d_as_array(self.count)
            .expect("layers stacked 16 pixels apart");
        image.sampler = ImageSampler::nearest();
        image
    }
}

/// Mostly plain grass; now and then leaves, pebbles, flowers.
fn meadow_layer(hash: u32) -> u16 {
    match hash % 200 {
        0..=181 => 0,
        182..=187 => 1,
        188..=190 => 2,
        191 => 3,
        192..=196 => 4,
        _ => 5,
    }
}

/// A stable hash of a cell, for variation.
pub(crate) fn cell_hash(c: IVec2) -> u32 {
    let mut h = (c.x as u32).wrapping_mul(0x9E37_79B9) ^ (c.y as u32).wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 12)
}

/// A rectangle of the sheet in pixels, from tile columns and rows
/// (`from` inclusive, `to` exclusive).
pub(crate) const fn tiles(from: (u32, u32), to: (u32, u32)) -> Rect {
    Rect {
        min: Vec2::new((from.0 * PX) as f32, (from.1 * PX) as f32),
        max: Vec2::new((to.0 * PX) as f32, (to.1 * PX) as f32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet() -> Sheet {
        let path = crate::window::asset_root().join(TILESET);
        Sheet::decode(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn composed_tiles_match_the_sheet_where_the_sheet_has_them() {
        let sheet = sheet();
        // Surrounded: the patch's fill tile, quarter for quarter.
        assert_eq!(sheet.composed(DIRT, [Piece::Fill; 4]), sheet.tile((21, 16)));
        // A top edge: the patch's top-middle tile.
        let top = Neighbours::of(0, 0, |_, y| y >= 0).pieces();
        assert_eq!(sheet.composed(DIRT, top), sheet.tile((21, 15)));
        // Alone: the four outer corners, a small round patch.
        let alone = sheet.composed(DIRT, [Piece::Outer; 4]);
        assert_eq!(&alone[..4], &sheet.tile((20, 15))[..4]);
        assert_ne!(alone, sheet.tile((21, 16)));
    }

    #[test]
    fn every_cell_gets_a_layer_inside_the_texture() {
        let sheet = sheet();
        let layers = GroundLayers::build(&sheet);
        assert_eq!(layers.count, MEADOW_LAYERS as u32 + 3 * 47 + 12);
        let all = [
            Ground::Grass,
            Ground::Dirt,
            Ground::Field,
            Ground::Water,
            Ground::Woods,
        ];
        for ground in all {
            for bits in 0..=255u8 {
                let cell = IVec2::new(bits as i32 - 100, bits as i32 / 3);
                let l = layers.layer(ground, Neighbours(bits), bits as u32 * 7, cell);
                assert!((l as u32) < layers.count);
            }
        }
        // A tree of the woods is one kind over its two-by-two block, its
        // four quarters in their places.
        let block: Vec<u16> = [(4, 6), (5, 6), (4, 7), (5, 7)]
            .map(|(x, y)| layers.layer(Ground::Woods, Neighbours(0), 0, IVec2::new(x, y)))
            .to_vec();
        assert_eq!(block[1], block[0] + 1);
        assert_eq!(block[3], block[0] + 3);
        // Different patterns, different tiles; grass varies by cell.
        let (a, b) = (Neighbours(0), Neighbours(255));
        assert_ne!(
            layers.layer(Ground::Dirt, a, 0, IVec2::ZERO),
            layers.layer(Ground::Dirt, b, 0, IVec2::ZERO)
        );
        assert_ne!(
            layers.layer(Ground::Dirt, b, 0, IVec2::ZERO),
            layers.layer(Ground::Water, b, 0, IVec2::ZERO)
        );
        let kinds: std::collections::HashSet<u16> = (0..2000)
            .map(|k| layers.layer(Ground::Grass, b, cell_hash(IVec2::new(k, 3)), IVec2::ZERO))
            .collect();
        assert!(kinds.len() >= 4, "meadow varies: {kinds:?}");
        let image = layers.image();
        assert_eq!(
            image.texture_descriptor.size.depth_or_array_layers,
            layers.count
        );
    }
}
