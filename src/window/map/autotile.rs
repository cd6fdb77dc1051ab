//! Autotiling by quarters, as RPG-style tilesets are laid out: each 16×16
//! cell is drawn from four 8×8 quarters, and each quarter is chosen by the
//! two neighbours beside it and the one on its diagonal. A terrain's sheet
//! gives a 3×3 patch (outer corners, edges, fill) and a 2×2 block of inner
//! corners; every one of the 256 neighbour patterns comes out of those.

/// One of a cell's four quarters (and the corner it points to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Corner {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

impl Corner {
    pub(crate) const ALL: [Corner; 4] = [
        Corner::TopLeft,
        Corner::TopRight,
        Corner::BottomLeft,
        Corner::BottomRight,
    ];

    /// Column and row offsets of this corner's side: (-1 or 1, -1 or 1), y down.
    pub(crate) fn sides(self) -> (i32, i32) {
        match self {
            Corner::TopLeft => (-1, -1),
            Corner::TopRight => (1, -1),
            Corner::BottomLeft => (-1, 1),
            Corner::BottomRight => (1, 1),
        }
    }

    /// Pixel offset of this quarter inside a 16×16 tile.
    pub(crate) fn offset(self) -> (u32, u32) {
        match self {
            Corner::TopLeft => (0, 0),
            Corner::TopRight => (8, 0),
            Corner::BottomLeft => (0, 8),
            Corner::BottomRight => (8, 8),
        }
    }
}

/// What a quarter shows, by whether its neighbours share the terrain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Piece {
    /// Neither side neighbour does: a rounded outer corner.
    Outer,
    /// Only the one beside it (left/right) does: the top or bottom edge.
    EdgeAcross,
    /// Only the one above/below does: the left or right edge.
    EdgeAlong,
    /// Both sides do but the diagonal does not: an inner corner.
    Inner,
    /// All three do: fill.
    Fill,
}

/// The eight neighbours of a cell, one bit each: whether it has the same
/// terrain. Bit order: NW, N, NE, W, E, SW, S, SE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Neighbours(pub u8);

impl Neighbours {
    /// Reads the neighbours of (`x`, `y`) with `same(x, y)`.
    pub(crate) fn of(x: i32, y: i32, same: impl Fn(i32, i32) -> bool) -> Self {
        let mut bits = 0u8;
        for (k, (dx, dy)) in OFFSETS.iter().enumerate() {
            if same(x + dx, y + dy) {
                bits |= 1 << k;
            }
        }
        Self(bits)
    }

    fn has(self, dx: i32, dy: i32) -> bool {
        let k = OFFSETS
            .iter()
            .position(|&o| o == (dx, dy))
            .expect("a neighbour offset");
        self.0 & (1 << k) != 0
    }

    /// The piece each quarter shows, in [`Corner::ALL`] order.
    pub(crate) fn pieces(self) -> [Piece; 4] {
        Corner::ALL.map(|c| self.piece(c))
    }

    fn piece(self, corner: Corner) -> Piece {
        let (dx, dy) = corner.sides();
        let across = self.has(dx, 0);
        let along = self.has(0, dy);
        match (across, along) {
            (false, false) => Piece::Outer,
            (true, false) => Piece::EdgeAcross,
            (false, true) => Piece::EdgeAlong,
            (true, true) if self.has(dx, dy) => Piece::Fill,
            (true, true) => Piece::Inner,
        }
    }
}

const OFFSETS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Where a terrain's pieces are in the tileset, in tiles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TerrainSheet {
    /// Top-left tile of the 3×3 patch.
    pub(crate) patch: (u32, u32),
    /// Top-left tile of the 2×2 inner-corner block (`None`: fill instead).
    pub(crate) inner: Option<(u32, u32)>,
}

impl TerrainSheet {
    /// The tile (column, row) a quarter's pixels come from. Inner corners
    /// sit diagonally opposite in their block: the block's top-left tile has
    /// its hole at the bottom right.
    pub(crate) fn source(&self, corner: Corner, piece: Piece) -> (u32, u32) {
        let (px, py) = self.patch;
        let (dx, dy) = corner.sides();
        // Column/row of the 3×3 patch: 0 and 2 are the sides, 1 the middle.
        let side = |d: i32| if d < 0 { 0 } else { 2 };
        match piece {
            Piece::Outer => (px + side(dx), py + side(dy)),
            Piece::EdgeAcross => (px + 1, py + side(dy)),
            Piece::EdgeAlong => (px + side(dx), py + 1),
            Piece::Fill => (px + 1, py + 1),
            Piece::Inner => match self.inner {
                Some((ix, iy)) => (ix + u32::from(dx < 0), iy + u32::from(dy < 0)),
                None => (px + 1, py + 1),
            },
        }
    }
}

/// Every distinct set of pieces a cell can show, in a fixed order (the 47
/// tiles of a "blob" tileset); a cell's tile is its position here.
pub(crate) fn distinct_pieces() -> Vec<[Piece; 4]> {
    let mut out: Vec<[Piece; 4]> = Vec::new();
    for bits in 0..=255u8 {
        let p = Neighbours(bits).pieces();
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every one of the 256 patterns: each quarter follows the rule of its
    /// two sides and diagonal, and the neighbours on the far side never matter.
    #[test]
    fn every_neighbour_pattern_picks_the_right_quarters() {
        let all = distinct_pieces();
        assert_eq!(all.len(), 47, "a blob tileset has 47 tiles");
        for bits in 0..=255u8 {
            let n = Neighbours(bits);
            for (corner, piece) in Corner::ALL.into_iter().zip(n.pieces()) {
                let (dx, dy) = corner.sides();
                let expected = match (n.has(dx, 0), n.has(0, dy), n.has(dx, dy)) {
                    (false, false, _) => Piece::Outer,
                    (true, false, _) => Piece::EdgeAcross,
                    (false, true, _) => Piece::EdgeAlong,
                    (true, true, false) => Piece::Inner,
                    (true, true, true) => Piece::Fill,
                };
                assert_eq!(piece, expected, "pattern {bits:08b}, {corner:?}");
                // Flipping a neighbour on the other side changes nothing here.
                for (k, &(ox, oy)) in OFFSETS.iter().enumerate() {
                    let touches = (ox == dx || ox == 0) && (oy == dy || oy == 0);
                    if !touches {
                        let other = Neighbours(bits ^ (1 << k)).piece(corner);
                        assert_eq!(other, piece, "{bits:08b}: {corner:?} read ({ox},{oy})");
                    }
                }
            }
            assert!(all.contains(&n.pieces()));
        }
        // The two ends: alone, all outer corners; surrounded, all fill.
        assert_eq!(Neighbours(0).pieces(), [Piece::Outer; 4]);
        assert_eq!(Neighbours(255).pieces(), [Piece::Fill; 4]);
    }

    #[test]
    fn neighbours_are_read_around_the_cell() {
        // A plus sign: the four sides, no diagonals.
        let plus = |x: i32, y: i32| x == 5 || y == 5;
        let n = Neighbours::of(5, 5, plus);
        assert_eq!(n.pieces(), [Piece::Inner; 4]);
        // The end of a horizontal line: only the west neighbour.
        let line = |x: i32, y: i32| y == 0 && x <= 3;
        let end = Neighbours::of(3, 0, line);
        assert_eq!(
            end.pieces(),
            [
                Piece::EdgeAcross,
                Piece::Outer,
                Piece::EdgeAcross,
                Piece::Outer
            ]
        );
    }

    #[test]
    fn quarters_come_from_the_patch_and_the_inner_block() {
        let sheet = TerrainSheet {
            patch: (20, 15),
            inner: Some((18, 15)),
        };
        use Corner::*;
        assert_eq!(sheet.source(TopLeft, Piece::Outer), (20, 15));
        assert_eq!(sheet.source(BottomRight, Piece::Outer), (22, 17));
        assert_eq!(sheet.source(TopRight, Piece::EdgeAcross), (21, 15));
        assert_eq!(sheet.source(BottomLeft, Piece::EdgeAcross), (21, 17));
        assert_eq!(sheet.source(TopLeft, Piece::EdgeAlong), (20, 16));
        assert_eq!(sheet.source(BottomRight, Piece::EdgeAlong), (22, 16));
        assert_eq!(sheet.source(TopLeft, Piece::Fill), (21, 16));
        // The hole at a bottom-right corner is in the block's top-left tile.
        assert_eq!(sheet.source(BottomRight, Piece::Inner), (18, 15));
        assert_eq!(sheet.source(TopLeft, Piece::Inner), (19, 16));
        let no_inner = TerrainSheet {
            inner: None,
            ..sheet
        };
        assert_eq!(no_inner.source(TopLeft, Piece::Inner), (21, 16));
    }
}
