//! What stands on each place, by its look: houses, the inn, the library, the
//! forge, the clinic, the square's old tree and notice board, the research
//! shed and hay in the fields, pines round a forest clearing, a tent at the
//! camp, the mine's mouth among rocks, the guardian's willow and gate. Each
//! is one sprite cut from the tileset, anchored at its foot so residents
//! walk in front of and behind it.

use bevy::color::Color;
use bevy::math::{Rect, Vec2};

use super::ground::{Ground, GroundGrid, TILE, area};
use super::sheet::{cell_hash, tiles};
use crate::scenario::{LocIdx, PlaceLook, Service, Town};

/// One thing drawn from the sheet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prop {
    /// Its pixels on the sheet.
    pub(crate) rect: Rect,
    /// Where its foot stands (map units, the middle of its bottom edge).
    pub(crate) foot: Vec2,
    /// World units per sheet pixel.
    pub(crate) scale: f32,
    /// The place it belongs to.
    pub(crate) place: LocIdx,
    /// A building whose windows light up at night (see `night`).
    pub(crate) windows: bool,
    /// Multiplied into its pixels: homes of one sprite differ in colour.
    pub(crate) tint: Color,
}

impl Prop {
    /// Its size in world units.
    pub(crate) fn size(&self) -> Vec2 {
        self.rect.size() * self.scale
    }
}

const HOUSES: [Rect; 4] = [
    tiles((0, 0), (4, 3)),
    tiles((4, 0), (8, 3)),
    tiles((8, 0), (12, 3)),
    tiles((12, 0), (16, 3)),
];
const THATCHED: Rect = HOUSES[0];
const STONE: Rect = HOUSES[1];
const COTTAGE: Rect = HOUSES[2];
const TILED: Rect = HOUSES[3];
const HUT: Rect = tiles((16, 0), (19, 2));
const OLD_TREE: Rect = tiles((11, 8), (13, 10));
const BROAD_TREE: Rect = tiles((3, 9), (5, 11));
const PINE: Rect = tiles((6, 10), (8, 12));
const DARK_PINE: Rect = tiles((8, 10), (10, 12));
const ROUND_TREE: Rect = tiles((0, 10), (2, 12));
const CAVE: Rect = tiles((8, 21), (10, 24));
const GATE: Rect = tiles((0, 3), (3, 5));
const NOTICE: Rect = tiles((14, 3), (15, 4));
const WELL: Rect = tiles((5, 7), (6, 8));
const BARREL: Rect = tiles((13, 3), (14, 4));
const CART: Rect = tiles((5, 8), (7, 10));
const ROCK: Rect = tiles((1, 7), (2, 8));
const BOULDER: Rect = tiles((7, 21), (8, 22));
const HAY: Rect = tiles((8, 37), (10, 40));
const LOGS: Rect = tiles((16, 2), (17, 3));
const FENCE: Rect = tiles((7, 27), (9, 28));
const HERB_LINE: Rect = tiles((8, 4), (10, 5));
const STONE_LANTERN: Rect = tiles((3, 4), (4, 5));
const SIGNS: Rect = tiles((14, 8), (16, 9));
const CRATE: Rect = tiles((12, 4), (13, 5));

/// Everything standing on the town's places; no tree grows on a path or
/// in water.
pub(crate) fn props(town: &Town, grid: &GroundGrid) -> Vec<Prop> {
    let mut out = Vec::new();
    for i in town.indices() {
        place_props(town, i, &mut out);
    }
    out.retain(|p| {
        !TREES.contains(&p.rect) || grid.at(GroundGrid::cell_of(p.foot)) == Ground::Grass
    });
    out
}

const TREES: [Rect; 3] = [PINE, DARK_PINE, ROUND_TREE];

/// A building's scale: about as wide as its place, kept between 2× (the
/// residents' own scale: a house four people wide) and 3× (in quarter
/// steps, so pixels stay even).
fn building_scale(rect: Rect, width_px: f32) -> f32 {
    ((rect.width() / width_px * 4.0).round() / 4.0).clamp(2.0, 3.0)
}

/// Homes take these in turn (the stone house is the library's), each round
/// in another colour, so no two homes of a town of up to fifteen look alike.
const HOMES: [Rect; 3] = [THATCHED, COTTAGE, TILED];
const HOME_TINTS: [Color; 5] = [
    Color::WHITE,
    Color::srgb(1.0, 0.82, 0.78),
    Color::srgb(0.8, 0.95, 0.8),
    Color::srgb(0.82, 0.88, 1.0),
    Color::srgb(1.0, 0.93, 0.72),
];

/// The `k`-th home's sprite and colour.
fn home_look(k: usize) -> (Rect, Color) {
    (
        HOMES[k % HOMES.len()],
        HOME_TINTS[(k / HOMES.len()) % HOME_TINTS.len()],
    )
}

fn place_props(town: &Town, i: LocIdx, out: &mut Vec<Prop>) {
    let loc = town.get(i);
    // Which home this is, counted in the town's order.
    let home = town
        .indices()
        .take_while(|&j| j != i)
        .filter(|&j| town.get(j).look == PlaceLook::House)
        .count();
    let mut at = Placer {
        out,
        place: i,
        rect: area(town, i),
    };
    let first = at.out.len();
    if loc.look.is_building() {
        building(&mut at, loc.look, home);
    } else {
        setting(&mut at, loc.look, loc.has(Service::NoticeBoard));
    }
    if matches!(loc.look, PlaceLook::Forest | PlaceLook::Camp) {
        trees_round(at.rect, i, at.out);
    }
    // A building is drawn first: its windows light up at night.
    if loc.look.is_building()
        && let Some(p) = at.out.get_mut(first)
    {
        p.windows = true;
    }
}

/// Puts a place's props down.
struct Placer<'a> {
    out: &'a mut Vec<Prop>,
    place: LocIdx,
    rect: Rect,
}

impl Placer<'_> {
    fn put(&mut self, rect: Rect, foot: Vec2, scale: f32) {
        self.out.push(Prop {
            rect,
            foot,
            scale,
            place: self.place,
            windows: false,
            tint: Color::WHITE,
        });
    }

    /// Offset from the place's middle by fractions of its half size.
    fn at(&self, fx: f32, fy: f32) -> Vec2 {
        self.rect.center() + self.rect.half_size() * Vec2::new(fx, fy)
    }
}

/// A building stands at the back of its place (its foot near the top of the
/// area), so the residents there stand in its yard, in front of it; props
/// beside it by its kind.
fn building(at: &mut Placer, look: PlaceLook, home: usize) {
    let (sprite, bonus, tint) = match look {
        PlaceLook::Inn => (TILED, 0.25, Color::WHITE),
        PlaceLook::Library => (STONE, 0.25, Color::WHITE),
        // The clinic's walls whitewashed, its roof the cottage's.
        PlaceLook::Clinic => (COTTAGE, 0.0, Color::srgb(1.0, 1.0, 0.94)),
        PlaceLook::Forge | PlaceLook::Workshop => (THATCHED, 0.0, Color::srgb(0.85, 0.78, 0.7)),
        _ => {
            let (sprite, tint) = home_look(home);
            (sprite, 0.0, tint)
        }
    };
    let scale = building_scale(at.rect, sprite.width()) + bonus;
    let foot = at.at(0.0, -0.95);
    at.put(sprite, foot, scale);
    if let Some(p) = at.out.last_mut() {
        p.tint = tint;
    }
    let side = sprite.width() * scale * 0.55;
    match look {
        PlaceLook::Inn => {
            at.put(BARREL, foot + Vec2::new(side, 0.0), 2.0);
            at.put(BARREL, foot + Vec2::new(side + 26.0, 4.0), 2.0);
        }
        PlaceLook::Forge => {
            at.put(CART, foot + Vec2::new(side + 8.0, 6.0), 1.5);
            at.put(BARREL, foot + Vec2::new(-side - 4.0, 2.0), 2.0);
        }
        // Herbs drying on a line in the yard, and the well.
        PlaceLook::Clinic => {
            at.put(WELL, foot + Vec2::new(side + 4.0, 4.0), 2.0);
            at.put(HERB_LINE, foot + Vec2::new(-side - 16.0, 6.0), 1.5);
        }
        // Stone lanterns either side of the door, a board of notices.
        PlaceLook::Library => {
            at.put(STONE_LANTERN, foot + Vec2::new(side, 4.0), 2.0);
            at.put(STONE_LANTERN, foot + Vec2::new(-side, 4.0), 2.0);
            at.put(SIGNS, foot + Vec2::new(side + 30.0, 8.0), 1.5);
        }
        PlaceLook::Workshop => {
            at.put(LOGS, foot + Vec2::new(side + 8.0, 4.0), 2.0);
            at.put(CRATE, foot + Vec2::new(-side - 4.0, 4.0), 2.0);
        }
        // A garden fence either side of a home's front.
        PlaceLook::House => {
            let below = Vec2::Y * 12.0;
            at.put(FENCE, foot + below + Vec2::X * (side + 20.0), 1.5);
            at.put(FENCE, foot + below - Vec2::X * (side + 20.0), 1.5);
        }
        _ => {}
    }
}

/// Places that are not a building: what marks each kind of setting.
fn setting(at: &mut Placer, look: PlaceLook, notice_board: bool) {
    match look {
        PlaceLook::Square => {
            at.put(OLD_TREE, at.at(-0.45, -0.1), 2.5);
            at.put(WELL, at.at(0.5, 0.5), 2.0);
            if notice_board {
                at.put(NOTICE, at.at(0.3, -0.25), 3.0);
            }
        }
        PlaceLook::Field => {
            let shed = at.rect.min + Vec2::new(HUT.width(), HUT.height() * 2.0);
            at.put(HUT, shed, 2.0);
            for k in 0..3 {
                at.put(HAY, at.at(0.05 + 0.3 * k as f32, 0.6), 1.0);
            }
            // A fence along the field's foot, one length every 48 units.
            let (y, from, to) = (at.rect.max.y + 10.0, at.rect.min.x, at.rect.max.x);
            let mut x = from + 24.0;
            while x < to - 12.0 {
                at.put(FENCE, Vec2::new(x, y), 1.5);
                x += 48.0;
            }
        }
        PlaceLook::River => {
            at.put(ROUND_TREE, at.at(-0.85, -0.5), 2.0);
            at.put(ROCK, at.at(0.8, 0.9), 2.0);
        }
        PlaceLook::Camp => {
            at.put(HUT, at.at(0.0, -0.1), 1.5);
            at.put(LOGS, at.at(0.35, 0.35), 2.0);
        }
        PlaceLook::Mine => {
            at.put(CAVE, at.at(0.0, -0.05), 2.0);
            at.put(BOULDER, at.at(-0.6, 0.1), 2.0);
            at.put(ROCK, at.at(0.6, 0.3), 2.0);
            at.put(CART, at.at(0.75, -0.3), 1.5);
        }
        PlaceLook::Shrine => {
            at.put(BROAD_TREE, at.at(0.0, -0.2), 3.0);
            at.put(GATE, at.at(0.0, 0.75), 1.5);
        }
        PlaceLook::Meadow => {
            at.put(ROUND_TREE, at.at(-0.8, -0.4), 2.0);
            at.put(BROAD_TREE, at.at(0.8, -0.3), 2.0);
        }
        // Forests are their trees (`trees_round`); buildings are drawn above.
        _ => {}
    }
}

/// The two windows either side of a building's door, as (centre, size) in
/// map units (the houses on the sheet all have their door in the middle).
pub(crate) fn windows(prop: &Prop) -> [(Vec2, Vec2); 2] {
    let k = prop.scale;
    let up = prop.foot - Vec2::Y * 9.0 * k;
    let size = Vec2::new(8.0, 7.0) * k;
    [
        (up - Vec2::X * 24.0 * k, size),
        (up + Vec2::X * 24.0 * k, size),
    ]
}

/// Trees on a jittered ring round a place: at and just beyond its edge,
/// leaving the middle (where residents gather) open.
fn trees_round(rect: Rect, i: LocIdx, out: &mut Vec<Prop>) {
    let outer = rect.inflate(TILE);
    let step = TILE * 1.6;
    let (cols, rows) = (
        (outer.width() / step).ceil() as i32,
        (outer.height() / step).ceil() as i32,
    );
    for y in 0..=rows {
        for x in 0..=cols {
            let at = outer.min + Vec2::new(x as f32, y as f32) * step;
            let rel = (at - rect.center()) / rect.half_size();
            // The clearing: an ellipse a little wider than where people stand.
            if rel.length() < 0.8 {
                continue;
            }
            let h = cell_hash(bevy::math::IVec2::new(x + i.0 as i32 * 97, y));
            let jitter = Vec2::new((h % 13) as f32 - 6.0, ((h >> 8) % 13) as f32 - 6.0);
            let tree = [PINE, DARK_PINE, PINE, ROUND_TREE][(h >> 16) as usize % 4];
            out.push(Prop {
                rect: tree,
                foot: at + jitter,
                scale: 2.0,
                place: i,
                windows: false,
                tint: Color::WHITE,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_has_something_standing_on_it_that_fits_its_look() {
        let s = crate::headless::default_scenario();
        let grid = super::super::ground::paint(&s.town, Vec2::new(s.map.width, s.map.height));
        let all = props(&s.town, &grid);
        for p in all.iter().filter(|p| TREES.contains(&p.rect)) {
            assert_eq!(
                grid.at(GroundGrid::cell_of(p.foot)),
                Ground::Grass,
                "a tree off the meadow"
            );
        }
        for i in s.town.indices() {
            let rect = area(&s.town, i).inflate(TILE * 2.0);
            let mine: Vec<&Prop> = all.iter().filter(|p| rect.contains(p.foot)).collect();
            assert!(!mine.is_empty(), "nothing on {}", s.town.get(i).id);
        }
        let look = |id: &str| {
            let i = s
                .town
                .indices()
                .find(|&i| s.town.get(i).id.as_str() == id)
                .unwrap();
            (s.town.get(i).look, area(&s.town, i))
        };
        let (l, r) = look("pine_forest");
        assert_eq!(l, PlaceLook::Forest);
        let pines = all
            .iter()
            .filter(|p| p.rect == PINE && r.inflate(TILE * 2.0).contains(p.foot));
        assert!(pines.count() >= 6, "a forest has trees");
        let (l, r) = look("tavern");
        assert_eq!(l, PlaceLook::Inn);
        let inn = all
            .iter()
            .find(|p| p.rect == TILED && r.contains(p.foot))
            .unwrap();
        let home = all
            .iter()
            .find(|p| p.windows && s.town.get(p.place).look == PlaceLook::House)
            .unwrap();
        // Homes differ from each other and from the library's stone house.
        let homes: Vec<(Rect, [u8; 4])> = all
            .iter()
            .filter(|p| p.windows && s.town.get(p.place).look == PlaceLook::House)
            .map(|p| {
                (
                    p.rect,
                    bevy::color::ColorToPacked::to_u8_array(p.tint.to_srgba()),
                )
            })
            .collect();
        for (k, h) in homes.iter().enumerate() {
            assert_ne!(h.0, STONE, "a home in the library's stone house");
            assert!(!homes[k + 1..].contains(h), "two homes alike");
        }
        assert!(
            inn.scale * inn.rect.width() > home.scale * home.rect.width(),
            "the inn is bigger"
        );
        assert!(all.iter().any(|p| p.rect == CAVE), "the mine's mouth");
        assert!(all.iter().any(|p| p.rect == NOTICE), "the notice board");
        assert!(
            all.iter().filter(|p| p.rect == FENCE).count() >= 10,
            "fences"
        );
    }

    /// Where residents stand at a building's place (its spread, up to 0.45
    /// of the area from the middle) is in front of the building, not behind.
    #[test]
    fn residents_at_a_building_stand_in_front_of_it() {
        let s = crate::headless::default_scenario();
        let grid = super::super::ground::paint(&s.town, Vec2::new(s.map.width, s.map.height));
        for p in props(&s.town, &grid).iter().filter(|p| p.windows) {
            let spot = crate::sim::residents::spread_position;
            for k in 0..64 {
                let at = spot(&s.town, p.place, crate::sim::residents::RosterIdx(k));
                // Map y grows down: in front is at or below the foot.
                assert!(at.y >= p.foot.y - 0.5, "{} stands behind its building", k);
            }
        }
    }

    #[test]
    fn scales_stay_in_even_steps() {
        for w in [40.0, 80.0, 120.0, 300.0] {
            let k = building_scale(Rect::from_center_size(Vec2::ZERO, Vec2::new(w, 60.0)), 64.0);
            assert!((2.0..=3.0).contains(&k));
            assert_eq!((k * 4.0).fract(), 0.0);
        }
    }
}
