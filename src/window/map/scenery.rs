//! The town's surroundings, so the map reads as a place and not as a few
//! houses on a lawn: woods frame the map's edges (drawn in the ground, so
//! they cost no sprites); the open meadow between the places gets farm
//! plots, copses, cottages with their gardens,
//! and here and there a rock or a haystack; a market street of stalls runs
//! from the square to the inn, and stone lanterns line the paths out of the
//! square. Worked out from the town alone (a hash of the cells, no
//! randomness), so every town — generated or reloaded — gets it with no
//! hand work, and the same town always looks the same.

use bevy::math::{IVec2, Rect, Vec2};

use super::ground::{Ground, GroundGrid, TILE, area};
use super::places::Prop;
use super::sheet::{cell_hash, tiles};
use crate::scenario::{LocIdx, PlaceLook, Town};

const BROAD_TREE: Rect = tiles((3, 9), (5, 11));
const BLOSSOM: Rect = tiles((4, 16), (6, 18));
const COTTAGE: Rect = tiles((8, 0), (12, 3));
const THATCHED: Rect = tiles((0, 0), (4, 3));
const HUT: Rect = tiles((16, 0), (19, 2));
const FENCE: Rect = tiles((7, 27), (9, 28));
const ROCK: Rect = tiles((1, 7), (2, 8));
const HAY_CART: Rect = tiles((7, 8), (9, 10));
const TABLE: Rect = tiles((18, 38), (20, 39));
const CRATE: Rect = tiles((12, 4), (13, 5));
const BASKET: Rect = tiles((11, 4), (12, 5));
const POT: Rect = tiles((15, 3), (16, 4));
const STONE_LANTERN: Rect = tiles((3, 4), (4, 5));
const LAUNDRY: Rect = tiles((8, 4), (10, 5));

/// How deep the forest frame reaches into the map (map units).
const FRAME: f32 = 110.0;
/// Side of a block of open meadow that gets one piece of scenery.
const BLOCK: f32 = TILE * 4.0;
/// Scenery keeps this far from any place (where residents stand).
const CLEAR: f32 = 56.0;

/// Dresses the map: farm plots go into the ground; the props to draw come
/// back (each with the place nearest it).
pub(crate) fn dress(town: &Town, map: Vec2, grid: &mut GroundGrid) -> Vec<Prop> {
    let places: Vec<Rect> = town
        .indices()
        .map(|i| area(town, i).inflate(CLEAR))
        .collect();
    let mut out = Dresser {
        town,
        grid,
        places,
        out: Vec::new(),
    };
    out.market();
    out.lanterns();
    out.meadow(map);
    out.frame(map);
    out.out
}

struct Dresser<'a> {
    town: &'a Town,
    grid: &'a mut GroundGrid,
    places: Vec<Rect>,
    out: Vec<Prop>,
}

impl Dresser<'_> {
    fn nearest(&self, p: Vec2) -> LocIdx {
        self.town
            .indices()
            .min_by(|&a, &b| {
                let d = |i| self.town.get(i).position.distance_squared(p);
                d(a).total_cmp(&d(b))
            })
            .unwrap_or(LocIdx(0))
    }

    fn put(&mut self, rect: Rect, foot: Vec2, scale: f32) {
        let place = self.nearest(foot);
        self.out.push(Prop {
            rect,
            foot,
            scale,
            place,
            windows: false,
            tint: bevy::color::Color::WHITE,
        });
    }

    /// Open meadow: grass under the whole box, away from every place.
    fn open(&self, r: Rect) -> bool {
        !self.places.iter().any(|p| !p.intersect(r).is_empty())
            && GroundGrid::cells_in(r).all(|c| self.grid.at(c) == Ground::Grass)
    }

    /// Woods on every open two-by-two block of cells near the map's edges
    /// and over the margin the camera may see.
    fn frame(&mut self, map: Vec2) {
        let inside = Rect::new(FRAME, FRAME, map.x - FRAME, map.y - FRAME);
        for by in 0..self.grid.size.y / 2 {
            for bx in 0..self.grid.size.x / 2 {
                let cell = IVec2::new(bx, by) * 2;
                let centre = GroundGrid::centre_of(cell) + Vec2::splat(TILE / 2.0);
                if !inside.contains(centre) {
                    self.woods(cell);
                }
            }
        }
    }

    /// A tree of the woods on the two-by-two block from `cell`, if it is
    /// open meadow.
    fn woods(&mut self, cell: IVec2) {
        let centre = GroundGrid::centre_of(cell) + Vec2::splat(TILE / 2.0);
        if !self.open(Rect::from_center_half_size(centre, Vec2::splat(TILE * 0.9))) {
            return;
        }
        for d in [IVec2::ZERO, IVec2::X, IVec2::Y, IVec2::ONE] {
            self.grid.set(cell + d, Ground::Woods);
        }
    }

    /// Blocks of open meadow inside the frame: a farm plot, a grove, a
    /// cottage with its garden, a rock or a hay cart, or nothing.
    fn meadow(&mut self, map: Vec2) {
        let (cols, rows) = ((map.x / BLOCK) as i32, (map.y / BLOCK) as i32);
        for by in 0..rows {
            for bx in 0..cols {
                let block = Rect::from_corners(
                    Vec2::new(bx as f32, by as f32) * BLOCK,
                    Vec2::new(bx as f32 + 1.0, by as f32 + 1.0) * BLOCK,
                );
                let inner = block.inflate(-TILE * 0.25);
                if block.min.x < FRAME * 0.5 || block.min.y < FRAME * 0.5 || !self.open(inner) {
                    continue;
                }
                let h = cell_hash(IVec2::new(bx * 31 + 5, by * 17 + 3));
                match h % 10 {
                    0..=2 => self.plot(inner),
                    3..=5 => self.grove(inner, h),
                    6 | 7 => self.cottage(inner, h),
                    8 => {
                        let rect = if h & 0x100 == 0 { ROCK } else { HAY_CART };
                        self.put(rect, inner.center(), 2.0);
                    }
                    _ => self.put(BLOSSOM, inner.center(), 2.0),
                }
            }
        }
    }

    /// Tilled earth with a fence along its foot.
    fn plot(&mut self, r: Rect) {
        let bed = r.inflate(-TILE * 0.4);
        for c in GroundGrid::cells_in(bed) {
            self.grid.set(c, Ground::Field);
        }
        self.put(
            FENCE,
            Vec2::new(bed.center().x - 24.0, bed.max.y + 12.0),
            1.5,
        );
        self.put(
            FENCE,
            Vec2::new(bed.center().x + 24.0, bed.max.y + 12.0),
            1.5,
        );
    }

    /// A copse of woods: some of the block's two-by-two spots, and a
    /// broad tree drawn standing.
    fn grove(&mut self, r: Rect, h: u32) {
        let first = GroundGrid::cell_of(r.min + Vec2::splat(TILE * 0.5));
        let first = first - IVec2::new(first.x.rem_euclid(2), first.y.rem_euclid(2));
        for k in 0..4 {
            if (h >> (8 + k)) & 1 == 1 || k == 0 {
                self.woods(first + IVec2::new(k % 2, k / 2) * 2);
            }
        }
        if h & 0x4000 != 0 {
            self.put(BROAD_TREE, Vec2::new(r.max.x - 12.0, r.max.y - 4.0), 2.0);
        }
    }

    /// A cottage nobody in the story lives in, with a fence and a line of
    /// washing or a pot by the door.
    fn cottage(&mut self, r: Rect, h: u32) {
        let house = [COTTAGE, THATCHED, HUT][h as usize % 3];
        let foot = Vec2::new(r.center().x, r.max.y - TILE * 0.6);
        self.put(house, foot, 1.5);
        let side = house.width() * 0.85;
        self.put(FENCE, foot + Vec2::new(side + 16.0, 4.0), 1.5);
        if h & 0x200 == 0 {
            self.put(LAUNDRY, foot + Vec2::new(-side - 22.0, 6.0), 1.5);
        } else {
            self.put(POT, foot + Vec2::new(-side - 10.0, 6.0), 2.0);
        }
    }

    /// Stalls on both sides of the path from the square to the inn (the
    /// first inn the square connects to), every 80 units, where there is room.
    fn market(&mut self) {
        let Some((square, inn)) = self.square_and(PlaceLook::Inn) else {
            return;
        };
        let (a, b) = (self.town.get(square).position, self.town.get(inn).position);
        let dir = (b - a).normalize_or_zero();
        let side = dir.perp() * 46.0;
        let length = a.distance(b);
        let mut along = 60.0;
        let mut k = 0;
        while along < length - 50.0 {
            for s in [side, -side] {
                let at = a + dir * along + s;
                let r = Rect::from_center_half_size(at, Vec2::new(28.0, 16.0));
                let free = GroundGrid::cells_in(r).all(|c| self.grid.at(c) != Ground::Water)
                    && !self
                        .places
                        .iter()
                        .any(|p| p.inflate(-CLEAR * 0.8).contains(at));
                if free {
                    self.put(TABLE, at, 1.5);
                    let goods = [CRATE, BASKET, POT][k % 3];
                    self.put(goods, at + Vec2::new(18.0, -12.0), 1.5);
                    k += 1;
                }
            }
            along += 80.0;
        }
    }

    /// Stone lanterns along each path out of the square.
    fn lanterns(&mut self) {
        let Some(square) = self
            .town
            .indices()
            .find(|&i| self.town.get(i).look == PlaceLook::Square)
        else {
            return;
        };
        let from = self.town.get(square).position;
        let neighbours = self.town.get(square).neighbours.clone();
        for n in neighbours {
            let to = self.town.get(n).position;
            let dir = (to - from).normalize_or_zero();
            let at = from + dir * (from.distance(to) * 0.5) + dir.perp() * 40.0;
            if !self.places.iter().any(|p| p.inflate(-CLEAR).contains(at)) {
                self.put(STONE_LANTERN, at, 2.0);
            }
        }
    }

    fn square_and(&self, look: PlaceLook) -> Option<(LocIdx, LocIdx)> {
        let square = self
            .town
            .indices()
            .find(|&i| self.town.get(i).look == PlaceLook::Square)?;
        let other = self
            .town
            .get(square)
            .neighbours
            .iter()
            .copied()
            .find(|&n| self.town.get(n).look == look)?;
        Some((square, other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default town is framed by trees, its meadow has plots and
    /// groves, the square has a market street; nothing stands in a place
    /// where residents stand.
    #[test]
    fn the_town_is_dressed_and_its_places_kept_clear() {
        let s = crate::headless::default_scenario();
        let map = Vec2::new(s.map.width, s.map.height);
        let mut grid = super::super::ground::paint(&s.town, map);
        let before = (0..grid.size.y)
            .flat_map(|y| (0..grid.size.x).map(move |x| IVec2::new(x, y)))
            .filter(|&c| grid.at(c) == Ground::Field)
            .count();
        let props = dress(&s.town, map, &mut grid);
        let after = (0..grid.size.y)
            .flat_map(|y| (0..grid.size.x).map(move |x| IVec2::new(x, y)))
            .filter(|&c| grid.at(c) == Ground::Field)
            .count();
        assert!(after > before + 20, "farm plots: {before} → {after} cells");
        let woods = |x: f32, y: f32| grid.at(GroundGrid::cell_of(Vec2::new(x, y))) == Ground::Woods;
        let edge = (0..50).filter(|k| woods(*k as f32 * 32.0, 20.0)).count();
        assert!(edge > 25, "woods along the top edge: {edge} of 50 points");
        assert!(
            props.iter().filter(|p| p.rect == TABLE).count() >= 2,
            "market stalls"
        );
        assert!(
            props
                .iter()
                .any(|p| p.rect == COTTAGE || p.rect == THATCHED || p.rect == HUT)
        );
        for p in &props {
            for i in s.town.indices() {
                assert!(
                    !area(&s.town, i).contains(p.foot),
                    "{:?} in {}",
                    p.rect,
                    s.town.get(i).id
                );
            }
        }
    }
}
