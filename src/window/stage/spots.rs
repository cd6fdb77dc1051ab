//! Where figures stand at a place: each resident there takes a spot of its
//! own — the nearest free one to the place's middle (in front of a
//! building, round the square's tree) — on a staggered grid wide enough for
//! a name under each figure, and keeps it until it leaves. A crowd larger
//! than its place's spots collapses: the rest are out of sight and the place
//! shows one marker with how many more are there.

use bevy::math::{Rect, Vec2};

use crate::scenario::{LocIdx, Town};
use crate::window::map::ground::area;

/// Between two spots side by side: a figure and room for a three-character
/// name (15 px a character).
pub(crate) const ACROSS: f32 = 56.0;
/// Between two rows: a figure (32) and its name under it (17).
pub(crate) const DOWN: f32 = 50.0;
/// Most spots a place offers; more residents collapse into its marker.
pub(crate) const MOST: usize = 16;

/// The spots of a place, nearest its middle first (map units).
pub(crate) fn spots_of(town: &Town, place: LocIdx) -> Vec<Vec2> {
    let loc = town.get(place);
    let rect = area(town, place);
    // A building stands at the back of its area: people stand in its yard.
    let (focus, field) = if loc.look.is_building() {
        let yard = Rect::from_corners(
            Vec2::new(rect.min.x - ACROSS, rect.center().y - rect.height() * 0.05),
            Vec2::new(rect.max.x + ACROSS, rect.max.y + DOWN * 1.5),
        );
        (
            Vec2::new(rect.center().x, rect.center().y + rect.height() * 0.3),
            yard,
        )
    } else {
        (rect.center(), rect.inflate(ACROSS * 0.75))
    };
    let mut out = Vec::new();
    let rows = (field.height() / DOWN).floor() as i32;
    let cols = (field.width() / ACROSS).floor() as i32;
    for r in 0..=rows {
        let stagger = if r % 2 == 1 { ACROSS / 2.0 } else { 0.0 };
        for c in 0..=cols {
            let p = field.min + Vec2::new(c as f32 * ACROSS + stagger, r as f32 * DOWN);
            if field.contains(p) {
                out.push(p);
            }
        }
    }
    // Nearest the middle first; ties broken by position, so it is stable.
    out.sort_by(|a, b| {
        a.distance_squared(focus)
            .total_cmp(&b.distance_squared(focus))
            .then(a.y.total_cmp(&b.y))
            .then(a.x.total_cmp(&b.x))
    });
    out.truncate(MOST);
    out
}

/// The spots taken at each place: `None` a free one.
#[derive(Debug, Default, Clone)]
pub(crate) struct Taken(Vec<Vec<Option<u32>>>);

impl Taken {
    /// Takes the first free spot of `place` (of `count`) for `who`; `None`
    /// when all are taken (the crowd is full).
    pub(crate) fn take(&mut self, place: LocIdx, count: usize, who: u32) -> Option<usize> {
        if self.0.len() <= place.i() {
            self.0.resize(place.i() + 1, Vec::new());
        }
        let row = &mut self.0[place.i()];
        row.resize(count.max(row.len()), None);
        let k = row.iter().take(count).position(Option::is_none)?;
        row[k] = Some(who);
        Some(k)
    }

    pub(crate) fn free(&mut self, place: LocIdx, spot: usize) {
        if let Some(s) = self.0.get_mut(place.i()).and_then(|r| r.get_mut(spot)) {
            *s = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every place of the default town has distinct spots far enough apart
    /// that names under the figures cannot overlap; a building's are in
    /// front of it.
    #[test]
    fn spots_are_apart_and_in_front() {
        let s = crate::headless::default_scenario();
        for i in s.town.indices() {
            let spots = spots_of(&s.town, i);
            assert!(
                spots.len() >= 6,
                "{}: {} spots",
                s.town.get(i).id,
                spots.len()
            );
            for (k, a) in spots.iter().enumerate() {
                for b in &spots[k + 1..] {
                    // A row apart, or a figure and a name apart in a row.
                    let apart =
                        (a.y - b.y).abs() >= DOWN - 0.01 || (a.x - b.x).abs() >= ACROSS - 0.01;
                    assert!(apart, "{}: {a} and {b}", s.town.get(i).id);
                }
            }
            if s.town.get(i).look.is_building() {
                let r = area(&s.town, i);
                assert!(spots.iter().all(|p| p.y >= r.min.y), "behind the building");
            }
        }
    }

    #[test]
    fn spots_are_taken_in_order_and_given_back() {
        let mut t = Taken::default();
        let p = LocIdx(2);
        assert_eq!(t.take(p, 2, 7), Some(0));
        assert_eq!(t.take(p, 2, 8), Some(1));
        assert_eq!(t.take(p, 2, 9), None, "full: the crowd's marker");
        t.free(p, 0);
        assert_eq!(t.take(p, 2, 9), Some(0));
    }
}
