//! Procedural pixel art: each resident's sprite sheet is drawn in code from
//! its roster index (no image files, so nothing to license), 16×24 pixels a
//! frame, four frames: standing, left foot forward, standing, right foot.

use bevy::asset::RenderAssetUsages;
use bevy::image::ImageSampler;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

pub(crate) const FRAME_W: u32 = 16;
pub(crate) const FRAME_H: u32 = 24;
pub(crate) const FRAMES: u32 = 4;

type Rgba = [u8; 4];

const SKIN: [Rgba; 4] = [
    [248, 214, 184, 255],
    [232, 190, 150, 255],
    [205, 158, 118, 255],
    [160, 112, 80, 255],
];
const HAIR: [Rgba; 6] = [
    [40, 30, 26, 255],
    [92, 58, 34, 255],
    [150, 104, 56, 255],
    [210, 180, 110, 255],
    [120, 120, 126, 255],
    [150, 52, 40, 255],
];
const TROUSERS: [Rgba; 4] = [
    [52, 60, 92, 255],
    [70, 62, 52, 255],
    [44, 44, 50, 255],
    [96, 84, 64, 255],
];
const OUTLINE: Rgba = [34, 28, 30, 255];
const EYE: Rgba = [30, 30, 40, 255];

/// The shirt colour of resident `idx`: hues spread by the golden angle, so
/// neighbours in the roster never look alike.
pub(crate) fn shirt(idx: u32) -> Color {
    Color::hsl((idx as f32 * 137.508) % 360.0, 0.6, 0.5)
}

fn rgba(c: Color) -> Rgba {
    c.to_srgba().to_u8_array()
}

/// A small deterministic mix of `idx`, to pick hair, skin and clothes apart.
fn pick(idx: u32, salt: u32, n: usize) -> usize {
    let mut h = idx.wrapping_mul(0x9E37_79B9) ^ salt.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    (h as usize) % n
}

/// The RGBA pixels of resident `idx`'s sheet (`FRAMES` frames side by side).
pub(crate) fn sheet_pixels(idx: u32) -> Vec<u8> {
    let w = FRAME_W * FRAMES;
    let mut px = vec![0u8; (w * FRAME_H * 4) as usize];
    let skin = SKIN[pick(idx, 1, SKIN.len())];
    let hair = HAIR[pick(idx, 2, HAIR.len())];
    let trousers = TROUSERS[pick(idx, 3, TROUSERS.len())];
    let shirt = rgba(shirt(idx));
    let long_hair = pick(idx, 4, 2) == 0;
    for frame in 0..FRAMES {
        let mut put = |x: i32, y: i32, c: Rgba| {
            if (0..FRAME_W as i32).contains(&x) && (0..FRAME_H as i32).contains(&y) {
                let i = ((y as u32 * w + frame * FRAME_W + x as u32) * 4) as usize;
                px[i..i + 4].copy_from_slice(&c);
            }
        };
        let bob = i32::from(frame % 2 == 1); // the body dips a pixel mid-stride
        // Head: rows 2–9, with hair on top and at the sides.
        for y in 2..10 {
            for x in 4..12 {
                put(x, y + bob, skin);
            }
        }
        for x in 4..12 {
            put(x, 1 + bob, hair);
            put(x, 2 + bob, hair);
        }
        for y in 3..if long_hair { 10 } else { 6 } {
            put(4, y + bob, hair);
            put(11, y + bob, hair);
        }
        put(6, 5 + bob, EYE);
        put(9, 5 + bob, EYE);
        // Body and arms: rows 10–16.
        for y in 10..17 {
            for x in 4..12 {
                put(x, y + bob, shirt);
            }
        }
        let swing = match frame {
            1 => 1,
            3 => -1,
            _ => 0,
        };
        for y in 11..16 {
            put(3, y + bob + swing, shirt);
            put(12, y + bob - swing, shirt);
        }
        put(3, 16 + bob + swing, skin);
        put(12, 16 + bob - swing, skin);
        // Legs: rows 17–22; one steps forward on frames 1 and 3.
        let (left, right) = match frame {
            1 => (-1, 1),
            3 => (1, -1),
            _ => (0, 0),
        };
        for y in 17..23 {
            let stretch = |d: i32| if y >= 21 { d } else { 0 };
            put(5 + stretch(left), y, trousers);
            put(6 + stretch(left), y, trousers);
            put(9 + stretch(right), y, trousers);
            put(10 + stretch(right), y, trousers);
        }
        for (x, d) in [(5, left), (6, left), (9, right), (10, right)] {
            put(x + d, 23, OUTLINE);
        }
    }
    px
}

/// Resident `idx`'s sheet as an image with crisp (nearest) sampling.
pub(crate) fn sheet_image(idx: u32) -> Image {
    let mut image = Image::new(
        Extent3d {
            width: FRAME_W * FRAMES,
            height: FRAME_H,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        sheet_pixels(idx),
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.sampler = ImageSampler::nearest();
    image
}

/// The atlas every sheet shares.
pub(crate) fn sheet_layout() -> TextureAtlasLayout {
    TextureAtlasLayout::from_grid(UVec2::new(FRAME_W, FRAME_H), FRAMES, 1, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheets_differ_between_residents_and_frames_differ_while_walking() {
        let a = sheet_pixels(0);
        let b = sheet_pixels(1);
        assert_ne!(a, b, "two residents look alike");
        let frame = |px: &[u8], f: u32| -> Vec<u8> {
            let w = (FRAME_W * FRAMES * 4) as usize;
            (0..FRAME_H as usize)
                .flat_map(|y| {
                    let start = y * w + (f * FRAME_W * 4) as usize;
                    px[start..start + (FRAME_W * 4) as usize].to_vec()
                })
                .collect()
        };
        assert_eq!(
            frame(&a, 0),
            frame(&a, 2),
            "both standing frames are the same"
        );
        assert_ne!(frame(&a, 0), frame(&a, 1), "a step changes the legs");
        assert_ne!(frame(&a, 1), frame(&a, 3), "left and right steps differ");
        // Opaque pixels in every frame: a figure, not an empty cell.
        for f in 0..FRAMES {
            assert!(frame(&a, f).chunks(4).filter(|p| p[3] == 255).count() > 100);
        }
        let image = sheet_image(3);
        assert_eq!(image.width(), FRAME_W * FRAMES);
        assert_eq!(image.height(), FRAME_H);
    }
}
