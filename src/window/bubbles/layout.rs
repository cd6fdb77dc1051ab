//! Where bubbles go: a few per place, the most important first, each just
//! over its speaker and moved up past anything already there — another
//! bubble, or the name of a place where people are (so a busy place's label
//! stays readable).

use bevy::prelude::*;

use crate::scenario::LocIdx;

use super::WIDTH;

/// A bubble to place: where its speaker's head is, its box, and how much
/// it matters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Want {
    /// The point over the speaker's head (world units).
    pub(crate) head: Vec2,
    /// Half the box's size (world units, zoom included).
    pub(crate) half: Vec2,
    /// The place the speaker is at (`None`: on the road).
    pub(crate) place: Option<LocIdx>,
    /// Lower goes first: the selected resident, then conversation lines,
    /// then the newest.
    pub(crate) rank: (bool, bool, f32),
}

/// Shown per place at once; the rest are in the feed.
pub(crate) const PER_PLACE: usize = 2;

/// Where each bubble goes (its centre), or `None` when its place already
/// shows `per_place` more important ones. Boxes start just over their
/// speaker and move up past any placed box they would cover, so none
/// overlaps another or any of `keep_clear` (centre, half size: the names of
/// occupied places).
pub(crate) fn layout(
    wants: &[Want],
    per_place: usize,
    keep_clear: &[(Vec2, Vec2)],
) -> Vec<Option<Vec2>> {
    let mut order: Vec<usize> = (0..wants.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (wants[a].rank, wants[b].rank);
        (x.0, x.1).cmp(&(y.0, y.1)).then(x.2.total_cmp(&y.2))
    });
    let mut shown: std::collections::HashMap<Option<LocIdx>, usize> = Default::default();
    let mut kept = Vec::new();
    for i in order {
        let w = &wants[i];
        let n = shown.entry(w.place).or_default();
        // On the road, bubbles are few and far apart: no cap there.
        if w.place.is_some() && *n >= per_place {
            continue;
        }
        *n += 1;
        kept.push(i);
    }
    let boxes = kept
        .iter()
        .map(|&i| (wants[i].head + Vec2::Y * wants[i].half.y, wants[i].half))
        .collect();
    let mut out = vec![None; wants.len()];
    for (i, centre) in kept.into_iter().zip(stack(boxes, keep_clear)) {
        out[i] = Some(centre);
    }
    out
}

/// The size a line takes at the bubbles' font (14 px: a CJK character is
/// square, a Latin letter about half), wrapped at `WIDTH`.
pub(crate) fn estimated_size(text: &str) -> Vec2 {
    let width: f32 = text
        .chars()
        .map(|c| if c.is_ascii() { 7.5 } else { 14.0 })
        .sum();
    let lines = (width / WIDTH).ceil().max(1.0);
    Vec2::new(width.min(WIDTH), lines * 18.0)
}

/// How much bubbles grow as the camera zooms out (so they stay readable)
/// and shrink as it zooms in (so they do not bury the figures).
pub(crate) fn bubble_zoom(projection: &Projection) -> f32 {
    match projection {
        Projection::Orthographic(o) => o.scale.clamp(0.6, 1.8),
        _ => 1.0,
    }
}

/// Gap between stacked bubbles, in world units.
const STACK_GAP: f32 = 4.0;

/// Boxes (centre, half size) in priority order, each moved up just above any
/// earlier one (or fixed one) it would cover; the centres where they end up.
pub(crate) fn stack(boxes: Vec<(Vec2, Vec2)>, fixed: &[(Vec2, Vec2)]) -> Vec<Vec2> {
    let mut done: Vec<(Vec2, Vec2)> = fixed.to_vec();
    for (mut c, half) in boxes {
        // Each move clears one box; at most as many moves as boxes placed.
        for _ in 0..=done.len() {
            let Some(top) = done
                .iter()
                .filter(|(d, h)| {
                    (c.x - d.x).abs() < half.x + h.x && (c.y - d.y).abs() < half.y + h.y
                })
                .map(|(d, h)| d.y + h.y)
                .reduce(f32::max)
            else {
                break;
            };
            c.y = top + half.y + STACK_GAP;
        }
        done.push((c, half));
    }
    done.into_iter().skip(fixed.len()).map(|(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_bubbles_stack_upwards_in_priority_order() {
        let half = Vec2::new(50.0, 10.0);
        let at = |x: f32, y: f32| (Vec2::new(x, y), half);
        let placed = stack(
            vec![at(0.0, 0.0), at(10.0, 5.0), at(300.0, 0.0), at(0.0, 2.0)],
            &[],
        );
        assert_eq!(placed[0], Vec2::new(0.0, 0.0), "the first keeps its place");
        assert_eq!(placed[1], Vec2::new(10.0, 24.0), "moved above the first");
        assert_eq!(placed[2], Vec2::new(300.0, 0.0), "far away: untouched");
        assert_eq!(placed[3], Vec2::new(0.0, 48.0), "above both");
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                let apart = (a.x - b.x).abs() >= 100.0 || (a.y - b.y).abs() >= 20.0;
                assert!(apart, "{a} and {b} overlap");
            }
        }
    }

    /// Crowds of 2 to 30 speakers at one place, and a few on the road:
    /// no two shown bubbles overlap, a place shows at most `PER_PLACE`, and
    /// the selected resident's is always among them.
    #[test]
    fn crowded_places_show_a_few_bubbles_none_over_another() {
        let overlap = |a: (Vec2, Vec2), b: (Vec2, Vec2)| {
            (a.0.x - b.0.x).abs() < a.1.x + b.1.x - 0.01
                && (a.0.y - b.0.y).abs() < a.1.y + b.1.y - 0.01
        };
        for n in 2..=30usize {
            for per_place in [PER_PLACE, usize::MAX] {
                let wants: Vec<Want> = (0..n)
                    .map(|k| {
                        let h = (k as u32).wrapping_mul(2_654_435_761);
                        let jitter =
                            Vec2::new((h % 120) as f32 - 60.0, ((h >> 8) % 80) as f32 - 40.0);
                        Want {
                            head: Vec2::new(100.0, 50.0) + jitter,
                            half: Vec2::new(
                                60.0 + (k % 3) as f32 * 20.0,
                                12.0 + (k % 2) as f32 * 10.0,
                            ),
                            place: (k % 7 != 6).then_some(LocIdx(0)),
                            rank: (k != n / 2, k % 2 == 0, -(k as f32)),
                        }
                    })
                    .collect();
                // A place's name in the middle of the crowd stays clear.
                let name = (Vec2::new(100.0, 90.0), Vec2::new(40.0, 10.0));
                let placed = layout(&wants, per_place, &[name]);
                let shown: Vec<(usize, Vec2)> = placed
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| p.map(|c| (i, c)))
                    .collect();
                for (x, &(i, a)) in shown.iter().enumerate() {
                    // Never below its speaker's head: the tail points down.
                    assert!(a.y - wants[i].half.y >= wants[i].head.y - 0.01);
                    assert!(!overlap((a, wants[i].half), name), "{n}: over the name");
                    for &(j, b) in &shown[x + 1..] {
                        assert!(
                            !overlap((a, wants[i].half), (b, wants[j].half)),
                            "{n}: {i} and {j}"
                        );
                    }
                }
                let at_place = shown
                    .iter()
                    .filter(|(i, _)| wants[*i].place.is_some())
                    .count();
                assert!(at_place <= per_place, "{n}: {at_place} at one place");
                assert!(
                    placed[n / 2].is_some(),
                    "{n}: the selected resident's is hidden"
                );
                if per_place == usize::MAX {
                    assert_eq!(shown.len(), n, "nothing hidden without a cap");
                }
            }
        }
    }

    #[test]
    fn a_line_not_yet_laid_out_gets_a_box_that_fits_it() {
        assert_eq!(estimated_size("好"), Vec2::new(14.0, 18.0));
        let long = estimated_size(&"字".repeat(30));
        assert_eq!(
            long,
            Vec2::new(WIDTH, 3.0 * 18.0),
            "420 px wraps to three lines"
        );
    }
}
