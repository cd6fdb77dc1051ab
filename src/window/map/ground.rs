//! The ground under the town, cell by cell: meadow everywhere, tilled earth
//! for fields, packed earth for squares, clearings and every path between
//! connected places, and water below a river's bank with a stream to the
//! nearest edge of the map. Worked out from `locations.yaml` alone, so every
//! town — generated or reloaded — gets its ground with no hand work.

use bevy::math::{IVec2, Rect, Vec2};

use crate::scenario::{LocIdx, PlaceLook, Town};

/// World (and map) units per cell: a 16-pixel tile drawn at 2×.
pub(crate) const TILE: f32 = 32.0;
/// Cells of meadow around the map, so the camera never sees its edge.
pub(crate) const MARGIN: i32 = 12;
/// Half the width of a path, in cells.
const PATH_HALF_WIDTH: f32 = 0.8;

/// What a cell is covered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Ground {
    Grass,
    Dirt,
    Field,
    Water,
    /// Trees close together (the forest round the town, groves): drawn in
    /// the ground, two cells a tree, so a forest costs no sprites.
    Woods,
}

/// The ground of the whole map and its margin, row by row from the top.
#[derive(Debug, Clone)]
pub(crate) struct GroundGrid {
    pub(crate) size: IVec2,
    cells: Vec<Ground>,
}

impl GroundGrid {
    /// Meadow over a map of `map` units plus the margin.
    pub(crate) fn meadow(map: Vec2) -> Self {
        let size = IVec2::new(
            (map.x / TILE).ceil() as i32 + 2 * MARGIN,
            (map.y / TILE).ceil() as i32 + 2 * MARGIN,
        );
        Self {
            size,
            cells: vec![Ground::Grass; (size.x * size.y) as usize],
        }
    }

    /// The ground at a cell; outside the grid, meadow.
    pub(crate) fn at(&self, cell: IVec2) -> Ground {
        self.index(cell).map_or(Ground::Grass, |i| self.cells[i])
    }

    fn index(&self, c: IVec2) -> Option<usize> {
        let inside = c.x >= 0 && c.y >= 0 && c.x < self.size.x && c.y < self.size.y;
        inside.then(|| (c.y * self.size.x + c.x) as usize)
    }

    pub(super) fn set(&mut self, cell: IVec2, ground: Ground) {
        if let Some(i) = self.index(cell) {
            self.cells[i] = ground;
        }
    }

    /// The cell a map point falls in.
    pub(crate) fn cell_of(map: Vec2) -> IVec2 {
        (map / TILE).floor().as_ivec2() + IVec2::splat(MARGIN)
    }

    /// The map point at a cell's centre.
    pub(crate) fn centre_of(cell: IVec2) -> Vec2 {
        (cell - IVec2::splat(MARGIN)).as_vec2() * TILE + Vec2::splat(TILE / 2.0)
    }

    /// Every cell whose centre is inside `rect` (map units).
    pub(super) fn cells_in(rect: Rect) -> impl Iterator<Item = IVec2> {
        let (lo, hi) = (Self::cell_of(rect.min), Self::cell_of(rect.max));
        (lo.y..=hi.y)
            .flat_map(move |y| (lo.x..=hi.x).map(move |x| IVec2::new(x, y)))
            .filter(move |&c| rect.contains(Self::centre_of(c)))
    }

    fn fill(&mut self, rect: Rect, ground: Ground) {
        for c in Self::cells_in(rect) {
            self.set(c, ground);
        }
    }
}

/// A place's area on the map.
pub(crate) fn area(town: &Town, i: LocIdx) -> Rect {
    let loc = town.get(i);
    Rect::from_center_size(loc.position, loc.size)
}

/// The ground of `town`: places first, then water, then paths between.
pub(crate) fn paint(town: &Town, map: Vec2) -> GroundGrid {
    let mut grid = GroundGrid::meadow(map);
    for i in town.indices() {
        let rect = area(town, i);
        match town.get(i).look {
            PlaceLook::Field => grid.fill(rect.inflate(-TILE * 0.3), Ground::Field),
            PlaceLook::Square => grid.fill(rect, Ground::Dirt),
            PlaceLook::Camp | PlaceLook::Mine => grid.fill(
                Rect::from_center_size(rect.center(), rect.size() * 0.6),
                Ground::Dirt,
            ),
            _ => {}
        }
    }
    for i in town.indices() {
        if town.get(i).look == PlaceLook::River {
            river(&mut grid, town, i, map);
        }
    }
    for a in town.indices() {
        for &b in &town.get(a).neighbours {
            if b.0 > a.0 {
                path(&mut grid, town.get(a).position, town.get(b).position);
            }
        }
    }
    grid
}

/// A dirt path about two cells wide from `a` to `b`, around fields and
/// stepping across water (stones, not a dam).
fn path(grid: &mut GroundGrid, a: Vec2, b: Vec2) {
    let steps = (a.distance(b) / (TILE / 4.0)).ceil().max(1.0) as i32;
    for k in 0..=steps {
        let p = a.lerp(b, k as f32 / steps as f32);
        let r = PATH_HALF_WIDTH * TILE;
        for c in GroundGrid::cells_in(Rect::from_center_half_size(p, Vec2::splat(r))) {
            if grid.at(c) == Ground::Grass {
                grid.set(c, Ground::Dirt);
            }
        }
    }
}

/// Water along the bottom of a river place's bank (three cells deep), and
/// a stream two cells wide from there to the nearest edge of the map that
/// keeps clear of the other places.
fn river(grid: &mut GroundGrid, town: &Town, i: LocIdx, map: Vec2) {
    let bank = area(town, i);
    let pool = Rect::new(bank.min.x, bank.max.y, bank.max.x, bank.max.y + TILE * 3.0);
    let others: Vec<Rect> = town
        .indices()
        .filter(|&j| j != i)
        .map(|j| area(town, j))
        .collect();
    let clear = |p: Vec2| !others.iter().any(|r| r.contains(p));
    for c in GroundGrid::cells_in(pool) {
        if clear(GroundGrid::centre_of(c)) {
            grid.set(c, Ground::Water);
        }
    }
    let start = Vec2::new(pool.center().x, pool.max.y - TILE);
    let (dir, length) = nearest_edge(start, map);
    let side = dir.perp();
    let steps = (length / (TILE / 4.0)).ceil() as i32;
    for k in 0..=steps {
        let along = k as f32 * TILE / 4.0;
        // A gentle meander, so the stream is not ruled with a ruler.
        let p = start + dir * along + side * (along / 160.0).sin() * TILE;
        if !clear(p) {
            continue;
        }
        for c in GroundGrid::cells_in(Rect::from_center_half_size(p, Vec2::splat(TILE))) {
            grid.set(c, Ground::Water);
        }
    }
}

/// The way to the map edge nearest `p`, and how far past it to go (into the
/// margin, so the stream runs off the screen).
fn nearest_edge(p: Vec2, map: Vec2) -> (Vec2, f32) {
    let past = MARGIN as f32 * TILE;
    [
        (Vec2::NEG_X, p.x),
        (Vec2::X, map.x - p.x),
        (Vec2::NEG_Y, p.y),
        (Vec2::Y, map.y - p.y),
    ]
    .into_iter()
    .min_by(|a, b| a.1.total_cmp(&b.1))
    .map(|(d, l)| (d, l.max(0.0) + past))
    .expect("four edges")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn town() -> (std::sync::Arc<crate::scenario::Scenario>, Vec2) {
        let s = crate::headless::default_scenario();
        let map = Vec2::new(s.map.width, s.map.height);
        (s, map)
    }

    #[test]
    fn every_connection_is_a_dirt_path_and_fields_are_tilled() {
        let (s, map) = town();
        let grid = paint(&s.town, map);
        for a in s.town.indices() {
            for &b in &s.town.get(a).neighbours {
                let (pa, pb) = (s.town.get(a).position, s.town.get(b).position);
                let mut dirt = 0;
                for k in 0..=20 {
                    let c = GroundGrid::cell_of(pa.lerp(pb, k as f32 / 20.0));
                    let g = grid.at(c);
                    // Never meadow: dirt, or a field or stream it goes by.
                    assert_ne!(g, Ground::Grass, "{a:?}→{b:?} at {c}");
                    dirt += usize::from(g == Ground::Dirt);
                }
                assert!(dirt >= 10, "{a:?}→{b:?}: {dirt} of 21 points on dirt");
            }
        }
        let fields = s
            .town
            .indices()
            .find(|&i| s.town.get(i).look == PlaceLook::Field);
        let centre = GroundGrid::cell_of(area(&s.town, fields.unwrap()).center() + Vec2::X * 60.0);
        assert_eq!(grid.at(centre), Ground::Field);
    }

    #[test]
    fn the_river_has_water_below_its_bank_that_runs_off_the_map() {
        let (s, map) = town();
        let grid = paint(&s.town, map);
        let river = s
            .town
            .indices()
            .find(|&i| s.town.get(i).look == PlaceLook::River)
            .unwrap();
        let bank = area(&s.town, river);
        // Residents stand on the bank (inside the area): no water there.
        for c in GroundGrid::cells_in(bank) {
            assert_ne!(grid.at(c), Ground::Water, "water on the bank at {c}");
        }
        let below = Vec2::new(bank.center().x - 50.0, bank.max.y + TILE * 1.5);
        assert_eq!(grid.at(GroundGrid::cell_of(below)), Ground::Water);
        // The stream reaches the bottom edge (the nearest) and the margin.
        let edge = GroundGrid::cell_of(Vec2::new(bank.center().x, map.y));
        let wet =
            (edge.x - 2..=edge.x + 2).any(|x| grid.at(IVec2::new(x, edge.y)) == Ground::Water);
        assert!(wet, "no stream at the map's edge");
        // No other place is flooded.
        for j in s.town.indices().filter(|&j| j != river) {
            let c = GroundGrid::cell_of(s.town.get(j).position);
            assert_ne!(
                grid.at(c),
                Ground::Water,
                "{} under water",
                s.town.get(j).id
            );
        }
    }

    #[test]
    fn a_generated_town_of_hundreds_gets_its_ground() {
        let s = crate::scenario::generate::generated_town(300, 1);
        let map = Vec2::new(s.map.width, s.map.height);
        let grid = paint(&s.town, map);
        assert!(grid.size.x > 2 * MARGIN && grid.size.y > 2 * MARGIN);
        let dirt = grid.cells.iter().filter(|g| **g == Ground::Dirt).count();
        assert!(dirt > 100, "paths: {dirt} cells");
    }
}
