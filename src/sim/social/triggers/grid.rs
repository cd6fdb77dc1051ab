//! Where the chance-meeting pass looks: a dense grid of residents by cell,
//! and the clock that says which residents roll this step.

use bevy::prelude::Vec2;

use crate::base::time::GameTime;
use crate::sim::residents::roster::RosterIdx;

/// A uniform grid of cells `size` wide: everyone within `size` of a point is in
/// the 3×3 cells around it. The cells cover the residents' bounding box in one
/// array, and residents are kept grouped by cell in another (a counting sort:
/// linear, no hashing, and in roster order within each cell), so a cell is a
/// contiguous slice.
pub(in crate::sim::social) struct Grid<T = (RosterIdx, Vec2)> {
    size: f32,
    /// Key of the bounding box's first cell, and the box's width and height in cells.
    origin: (i32, i32),
    dims: (i32, i32),
    /// The items (each with its position), grouped by cell.
    items: Vec<T>,
    /// Cell `c` holds `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each resident's cell, and each cell's next free slot, while filling.
    cells: Vec<u32>,
    next: Vec<u32>,
}

/// What a grid holds: anything with a place on the map. A pass that reads
/// more of each neighbour than its position keeps it in the item, so the
/// cells around a resident are one contiguous read rather than a lookup per
/// neighbour scattered over a large town's arrays.
pub(in crate::sim::social) trait Placed: Copy {
    /// Where it stands.
    fn pos(&self) -> Vec2;
}

impl Placed for (RosterIdx, Vec2) {
    fn pos(&self) -> Vec2 {
        self.1
    }
}

impl<T> Default for Grid<T> {
    fn default() -> Self {
        Self {
            size: 0.0,
            origin: (0, 0),
            dims: (0, 0),
            items: Vec::new(),
            starts: Vec::new(),
            cells: Vec::new(),
            next: Vec::new(),
        }
    }
}

/// At most this many cells (or four per resident, if more): a crowd spread
/// thinly over a huge map gets coarser cells, which only adds candidates that
/// the distance check then drops.
pub(super) const GRID_CELLS: u64 = 1 << 16;

impl<T: Placed> Grid<T> {
    #[cfg(test)]
    pub(super) fn new(size: f32, residents: &[T]) -> Self {
        let mut grid = Self::default();
        grid.fill(size, residents);
        grid
    }

    /// Sorts `residents` (in roster order) into cells, reusing the buffers.
    pub(in crate::sim::social) fn fill(&mut self, size: f32, residents: &[T]) {
        let mut size = size.max(1.0);
        let (lo, hi) = residents.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), r| (lo.min(r.pos()), hi.max(r.pos())),
        );
        let budget = GRID_CELLS.max(4 * residents.len() as u64);
        let (origin, dims) = loop {
            if residents.is_empty() {
                break ((0, 0), (0, 0));
            }
            let (a, b) = (Self::key(size, lo), Self::key(size, hi));
            let w = (b.0 as i64 - a.0 as i64 + 1) as u64;
            let h = (b.1 as i64 - a.1 as i64 + 1) as u64;
            if w * h <= budget {
                break (a, (w as i32, h as i32));
            }
            size *= 2.0;
        };
        (self.size, self.origin, self.dims) = (size, origin, dims);
        // Count per cell, then turn counts into starts, then place.
        self.starts.clear();
        self.starts.resize((dims.0 * dims.1) as usize + 1, 0);
        self.cells.clear();
        for r in residents {
            let c = self.cell(Self::key(size, r.pos())).expect("inside the box");
            self.cells.push(c as u32);
            self.starts[c + 1] += 1;
        }
        for c in 1..self.starts.len() {
            self.starts[c] += self.starts[c - 1];
        }
        self.next.clear();
        self.next.extend_from_slice(&self.starts);
        // Every slot is written once below; the first resident fills the rest.
        self.items.clear();
        if let Some(&first) = residents.first() {
            self.items.resize(residents.len(), first);
        }
        for (&c, &item) in self.cells.iter().zip(residents) {
            self.items[self.next[c as usize] as usize] = item;
            self.next[c as usize] += 1;
        }
    }

    fn key(size: f32, v: Vec2) -> (i32, i32) {
        (floor_i32(v.x / size), floor_i32(v.y / size))
    }

    /// The index of the cell with key `k`, if it lies in the box.
    fn cell(&self, k: (i32, i32)) -> Option<usize> {
        let (x, y) = (k.0 - self.origin.0, k.1 - self.origin.1);
        ((0..self.dims.0).contains(&x) && (0..self.dims.1).contains(&y))
            .then(|| (y * self.dims.0 + x) as usize)
    }

    /// The 3×3 cells around `pos`, as slices.
    pub(in crate::sim::social) fn around(&self, pos: Vec2) -> impl Iterator<Item = &[T]> + '_ {
        let (cx, cy) = Self::key(self.size, pos);
        (-1..=1)
            .flat_map(move |dx| (-1..=1).map(move |dy| (cx + dx, cy + dy)))
            .filter_map(|k| self.cell(k))
            .map(|c| &self.items[self.starts[c] as usize..self.starts[c + 1] as usize])
    }
}

/// `x.floor() as i32`, without the library call that `floor` is on the
/// default x86-64 target (no SSE4.1): a cell's key is found for everyone
/// standing about, every step.
fn floor_i32(x: f32) -> i32 {
    // Toward zero (saturating, NaN → 0), then down one for a negative fraction.
    let t = x as i32;
    if (t as f32) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// When pairs roll for a chance meeting: once in every window of `every` game
/// minutes, at the minute of the window fixed by the pair's lower roster index.
/// So each step only residents whose minute it is look around (with partners
/// above them in the roster), and nothing needs to be remembered per pair.
#[derive(Debug, Clone, Copy)]
pub struct RollClock {
    /// This step's minute within the window.
    minute: u32,
    every: u32,
    step: u32,
}

impl RollClock {
    /// The roll clock for a step at `now`, `step` minutes long, rolling once every `every` minutes.
    pub fn new(now: GameTime, step: u32, every: u32) -> Self {
        let every = every.max(1);
        Self {
            minute: now.0.div_euclid(60).rem_euclid(every as i64) as u32,
            every,
            step: step.max(1),
        }
    }

    /// Whether resident `a` rolls with its higher-indexed neighbours at this step.
    pub fn rolls(&self, a: RosterIdx) -> bool {
        if self.step >= self.every {
            return true;
        }
        let h = (a.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // A phase in 0..every by multiply-shift.
        let phase = (((h >> 32) * self.every as u64) >> 32) as u32;
        let mut at = self.minute + phase;
        if at >= self.every {
            at -= self.every;
        }
        // The window starts during the `step` minutes that end at this one.
        at < self.step
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn floor_i32_is_floor() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -3.0,
            2.999_999,
            -2.999_999,
            1.0e9,
            -1.0e9,
            3.0e9,
            -3.0e9,
            2_147_483_520.0,
            -2_147_483_648.0,
            -2_147_483_904.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ];
        let random = (0..10_000).map(|_| rng.random_range(-1.0e5f32..1.0e5));
        for x in edges.into_iter().chain(random) {
            assert_eq!(floor_i32(x), x.floor() as i32, "{x}");
        }
    }

    #[test]
    fn the_grid_finds_everyone_within_reach_and_nobody_twice() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // A dense crowd, a spread-out town, and a few residents on a huge map
        // (coarser cells), with points on cell borders and negative coordinates.
        for (count, span) in [(400, 300.0), (2_000, 5_000.0), (50, 1.0e7)] {
            let people: Vec<(RosterIdx, Vec2)> = (0..count)
                .map(|i| {
                    let p = Vec2::new(rng.random_range(-span..span), rng.random_range(-span..span));
                    (
                        RosterIdx(i),
                        if i % 7 == 0 {
                            (p / 50.0).round() * 50.0
                        } else {
                            p
                        },
                    )
                })
                .collect();
            let grid = Grid::new(50.0, &people);
            assert!(grid.starts.len() as u64 <= GRID_CELLS + 1);
            for &(a, pa) in &people {
                let mut found: Vec<RosterIdx> = grid
                    .around(pa)
                    .flatten()
                    .filter(|(_, pb)| pa.distance_squared(*pb) <= 2500.0)
                    .map(|&(b, _)| b)
                    .collect();
                let n = found.len();
                found.sort_unstable();
                found.dedup();
                assert_eq!(n, found.len(), "{a} sees someone twice");
                let want: Vec<RosterIdx> = people
                    .iter()
                    .filter(|(_, pb)| pa.distance_squared(*pb) <= 2500.0)
                    .map(|&(b, _)| b)
                    .collect();
                assert_eq!(found, want, "{a} at {pa}");
            }
        }
        let empty: Grid = Grid::new(50.0, &[]);
        assert!(empty.around(Vec2::ZERO).next().is_none());
    }
}
