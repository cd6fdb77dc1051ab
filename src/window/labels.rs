//! Name labels that do not collide: in a crowd each resident's name goes
//! under its figure if there is room, else just below the name in the way,
//! else (a packed crowd) it is left out until there is room again; the
//! selected resident's name always shows.

use bevy::prelude::*;

use super::ViewSet;
use super::people::NameLabel;
use super::select::Selection;
use crate::sim::residents::Resident;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        place_labels
            .after(super::people::PeopleSet)
            .in_set(ViewSet::Present),
    );
}

/// Label height (the 15 px font's laid-out line, 18–19 units, and a gap)
/// and the width of one character, in world units.
const LINE: f32 = 20.0;
const CHAR: f32 = 15.0;
/// Where a label sits under its figure's centre.
pub(crate) const UNDER: f32 = -25.0;

/// A name to place: the figure's centre, the label's half width, priority.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameBox {
    pub(crate) figure: Vec2,
    pub(crate) half_width: f32,
    /// Lower goes first (the selected resident is 0).
    pub(crate) rank: u32,
}

/// Each label's offset from its figure, or `None` when it is left out.
/// Tried in turn: under the figure, one line lower, two lines lower.
pub(crate) fn layout(names: &[NameBox]) -> Vec<Option<Vec2>> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| names[i].rank);
    let mut placed: Vec<(Vec2, f32)> = Vec::new();
    let mut out = vec![None; names.len()];
    for i in order {
        let n = names[i];
        let free = |c: Vec2| {
            placed
                .iter()
                .all(|(p, hw)| (c.x - p.x).abs() >= n.half_width + hw || (c.y - p.y).abs() >= LINE)
        };
        let offsets = [0.0, -LINE, -2.0 * LINE].map(|dy| Vec2::new(0.0, UNDER + dy));
        let spot = offsets.into_iter().find(|o| free(n.figure + *o));
        // The selected resident's name shows even when it must overlap.
        let spot = spot.or((n.rank == 0).then_some(offsets[0]));
        if let Some(o) = spot {
            placed.push((n.figure + o, n.half_width));
            out[i] = Some(o);
        }
    }
    out
}

/// A name label's text, offset and visibility.
type LabelView<'a> = (&'a Text2d, &'a mut Transform, &'a mut Visibility);

fn place_labels(
    residents: Query<(&Resident, &Transform, &Children, &ViewVisibility)>,
    mut labels: Query<LabelView, (With<NameLabel>, Without<Resident>)>,
    selection: Option<Res<Selection>>,
) {
    let selected = selection.as_ref().and_then(|s| s.resident.clone());
    let mut boxes = Vec::new();
    let mut owners = Vec::new();
    for (r, t, children, shown) in &residents {
        // Out of sight (asleep indoors, off screen): no room taken.
        if !shown.get() {
            continue;
        }
        let Some(label) = children.iter().find(|c| labels.contains(*c)) else {
            continue;
        };
        let chars = labels
            .get(label)
            .map_or(2, |(text, ..)| text.0.chars().count());
        let rank = if selected.as_ref() == Some(&r.id) {
            0
        } else {
            1 + r.idx.0
        };
        boxes.push(NameBox {
            figure: t.translation.truncate(),
            half_width: chars as f32 * CHAR / 2.0 + 2.0,
            rank,
        });
        owners.push(label);
    }
    for (label, spot) in owners.into_iter().zip(layout(&boxes)) {
        let Ok((_, mut t, mut vis)) = labels.get_mut(label) else {
            continue;
        };
        match spot {
            Some(o) => {
                t.translation.x = o.x;
                t.translation.y = o.y;
                vis.set_if_neq(Visibility::Inherited);
            }
            None => {
                vis.set_if_neq(Visibility::Hidden);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Crowds of 2 to 30: no two shown labels overlap, the selected name
    /// always shows, and a spread-out town shows every name where it belongs.
    #[test]
    fn names_in_a_crowd_never_overlap_and_the_selected_one_shows() {
        for n in 2..=30u32 {
            let names: Vec<NameBox> = (0..n)
                .map(|k| {
                    let h = k.wrapping_mul(2_654_435_761);
                    NameBox {
                        figure: Vec2::new((h % 90) as f32, ((h >> 8) % 60) as f32),
                        half_width: 24.0 + (k % 3) as f32 * 8.0,
                        rank: if k == n / 2 { 0 } else { k + 1 },
                    }
                })
                .collect();
            let out = layout(&names);
            assert!(
                out[(n / 2) as usize].is_some(),
                "{n}: the selected name is hidden"
            );
            let shown: Vec<(Vec2, f32, u32)> = out
                .iter()
                .zip(&names)
                .filter_map(|(o, b)| o.map(|o| (b.figure + o, b.half_width, b.rank)))
                .collect();
            for (i, a) in shown.iter().enumerate() {
                for b in &shown[i + 1..] {
                    let apart = (a.0.x - b.0.x).abs() >= a.1 + b.1 || (a.0.y - b.0.y).abs() >= LINE;
                    assert!(apart || a.2 == 0 || b.2 == 0, "{n}: labels overlap");
                }
            }
        }
        let spread: Vec<NameBox> = (0..10)
            .map(|k| NameBox {
                figure: Vec2::new(k as f32 * 200.0, 0.0),
                half_width: 30.0,
                rank: k + 1,
            })
            .collect();
        assert!(
            layout(&spread)
                .iter()
                .all(|o| *o == Some(Vec2::new(0.0, UNDER)))
        );
    }
}
