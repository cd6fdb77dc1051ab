//! Residents' character sheets from the Ninja Adventure pack (CC0,
//! Pixel-boy; `assets/ninja/characters/`): 16×16 frames, one column per
//! direction (down, up, left, right), the walk cycle down the first four
//! rows. A resident's `sprite:` names its sheet; without one it gets a
//! stable pick from its id, and its portrait is the matching `faceset/`.

use bevy::math::{UVec2, Vec2};
use bevy::prelude::TextureAtlasLayout;

use crate::scenario::ResidentId;

/// Pixels per frame side.
pub(crate) const FRAME: u32 = 16;
/// Columns (directions) and rows of a sheet.
const COLUMNS: u32 = 4;
const ROWS: u32 = 7;
/// Walk-cycle frames (rows 0–3).
pub(crate) const WALK_FRAMES: u32 = 4;
/// Sheets a resident without `sprite:` may get: every sheet but the
/// spirit's (11) and the skeleton (23), which would look like a ghost town.
const TOWNSFOLK: [u32; 23] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25,
];

/// Which way a figure faces; its sheet column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Facing {
    #[default]
    Down,
    Up,
    Left,
    Right,
}

impl Facing {
    /// The way a step of `moved` (world units, y up) goes, by its larger
    /// axis; `None` for no movement (keep facing as before).
    pub(crate) fn of(moved: Vec2) -> Option<Self> {
        if moved.length_squared() < 1e-6 {
            return None;
        }
        Some(if moved.x.abs() > moved.y.abs() {
            if moved.x > 0.0 {
                Self::Right
            } else {
                Self::Left
            }
        } else if moved.y > 0.0 {
            Self::Up
        } else {
            Self::Down
        })
    }

    fn column(self) -> u32 {
        match self {
            Self::Down => 0,
            Self::Up => 1,
            Self::Left => 2,
            Self::Right => 3,
        }
    }
}

/// The atlas index of a frame: `step` of the walk cycle (0 standing), facing.
pub(crate) fn frame_index(facing: Facing, step: u32) -> usize {
    ((step % WALK_FRAMES) * COLUMNS + facing.column()) as usize
}

/// The atlas every sheet shares.
pub(crate) fn sheet_layout() -> TextureAtlasLayout {
    TextureAtlasLayout::from_grid(UVec2::splat(FRAME), COLUMNS, ROWS, None, None)
}

/// The sheet of a resident: its own `sprite:`, else a stable pick by id.
pub(crate) fn sheet_name(id: &ResidentId, sprite: Option<&str>) -> String {
    if let Some(s) = sprite {
        return s.to_string();
    }
    // FNV-1a of the id: the same resident gets the same look every run.
    let h = id.as_str().bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    TOWNSFOLK[h as usize % TOWNSFOLK.len()].to_string()
}

/// The sheet's path under `assets/`.
pub(crate) fn sheet_path(name: &str) -> String {
    format!("ninja/characters/{name}.png")
}

/// The portrait's path under `assets/`.
pub(crate) fn portrait_path(name: &str) -> String {
    format!("ninja/faceset/{name}.png")
}

/// A resident's portrait as an egui texture (the same texture every frame).
pub(crate) fn portrait(
    contexts: &mut bevy_egui::EguiContexts,
    assets: &bevy::asset::AssetServer,
    profile: &crate::scenario::Profile,
) -> bevy_egui::egui::TextureId {
    let name = sheet_name(&profile.id, profile.sprite.as_deref());
    let image = assets.load(portrait_path(&name));
    contexts.add_image(bevy_egui::EguiTextureHandle::Strong(image))
}

/// Width and height of a portrait in a panel.
pub(crate) const PORTRAIT: f32 = 48.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_faces_the_way_it_walks() {
        assert_eq!(Facing::of(Vec2::new(5.0, 1.0)), Some(Facing::Right));
        assert_eq!(Facing::of(Vec2::new(-5.0, 1.0)), Some(Facing::Left));
        // World y is up: a step up the screen shows the back.
        assert_eq!(Facing::of(Vec2::new(1.0, 5.0)), Some(Facing::Up));
        assert_eq!(Facing::of(Vec2::new(1.0, -5.0)), Some(Facing::Down));
        assert_eq!(Facing::of(Vec2::ZERO), None);
        // Columns: down, up, left, right; rows: the walk cycle.
        assert_eq!(frame_index(Facing::Down, 0), 0);
        assert_eq!(frame_index(Facing::Right, 0), 3);
        assert_eq!(frame_index(Facing::Up, 2), 9);
        assert_eq!(frame_index(Facing::Left, 5), 6, "the cycle wraps");
        let layout = sheet_layout();
        assert_eq!(layout.textures.len(), 28);
        assert!(frame_index(Facing::Right, 3) < layout.textures.len());
    }

    #[test]
    fn sheets_are_stable_picks_unless_named_and_all_ship() {
        let a = ResidentId::new("zhong");
        assert_eq!(sheet_name(&a, None), sheet_name(&a, None));
        assert_eq!(sheet_name(&a, Some("11")), "11");
        let picks: std::collections::HashSet<String> = (0..200)
            .map(|i| sheet_name(&ResidentId::new(&format!("r{i}")), None))
            .collect();
        assert!(picks.len() > 15, "a crowd has many looks: {}", picks.len());
        assert!(!picks.contains("11"), "only the spirit is a spirit");
        let root = crate::window::asset_root();
        for n in 1..=25 {
            let name = n.to_string();
            assert!(root.join(sheet_path(&name)).is_file(), "sheet {n}");
            assert!(root.join(portrait_path(&name)).is_file(), "portrait {n}");
        }
    }
}
