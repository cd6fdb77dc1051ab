//! The relationships matrix and plot (R).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{Panels, PlottedPairs};
use crate::sim::residents::RosterIdx;
use crate::sim::residents::{Relationships, Resident, Roster};
use crate::window::feed::RelationHistory;
use crate::window::select::Selection;

/// Colour of a tie's strength in the matrix (grey → green).
fn strength_colour(s: f32) -> egui::Color32 {
    let t = (s / 100.0).clamp(0.0, 1.0);
    egui::Color32::from_rgb(
        (200.0 - 150.0 * t) as u8,
        (200.0 - 20.0 * t) as u8,
        (200.0 - 130.0 * t) as u8,
    )
}

const PLOT_COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(220, 80, 60),
    egui::Color32::from_rgb(60, 120, 220),
    egui::Color32::from_rgb(60, 170, 90),
    egui::Color32::from_rgb(200, 150, 40),
    egui::Color32::from_rgb(150, 80, 200),
    egui::Color32::from_rgb(40, 170, 180),
];

/// The relationships matrix and plot (R): rows' views of columns, a click
/// adds the pair to the plot of strength over time.
pub(super) fn relations(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    roster: Res<Roster>,
    residents: Query<(&Resident, &Relationships)>,
    history: Res<RelationHistory>,
    mut plotted: ResMut<PlottedPairs>,
    selection: Res<Selection>,
) -> Result {
    if !panels.relations {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let shown = shown_rows(&roster, &residents, &selection);
    let strength = strengths(&shown, &residents);
    egui::Window::new("关系")
        .open(&mut panels.relations)
        .default_pos([8.0, 44.0])
        .default_width(560.0)
        .vscroll(true)
        .show(ctx, |ui| {
            ui.label("行对列的看法（0–100）。点格子把这一对加入下方的曲线。");
            egui::Grid::new("matrix")
                .spacing([2.0, 2.0])
                .show(ui, |ui| {
                    matrix(ui, &shown, &strength, &roster, &mut plotted)
                });
            ui.separator();
            plot(ui, &history, &plotted.0, &roster);
        });
    Ok(())
}

/// Rows shown: in a big town the selected resident and its strongest ties,
/// else the first 20.
fn shown_rows(
    roster: &Roster,
    residents: &Query<(&Resident, &Relationships)>,
    selection: &Selection,
) -> Vec<RosterIdx> {
    let shown: Vec<RosterIdx> = roster.indices().take(20).collect();
    if roster.len() <= 20 {
        return shown;
    }
    let Some(sel) = selection.resident.as_ref().and_then(|id| roster.idx(id)) else {
        return shown;
    };
    let Some((_, rel)) = residents.iter().find(|(r, _)| r.idx == sel) else {
        return shown;
    };
    let mut ties: Vec<_> = rel.iter().collect();
    ties.sort_by(|a, b| b.strength.total_cmp(&a.strength));
    std::iter::once(sel)
        .chain(ties.iter().map(|t| t.with_idx))
        .take(20)
        .collect()
}

/// Each shown row's view of each shown column: only those, as a big
/// town's full matrix would not fit.
fn strengths(
    shown: &[RosterIdx],
    residents: &Query<(&Resident, &Relationships)>,
) -> Vec<Vec<Option<f32>>> {
    let column = |idx: RosterIdx| shown.iter().position(|&s| s == idx);
    let mut strength = vec![vec![None; shown.len()]; shown.len()];
    for (r, rel) in residents {
        let Some(row) = column(r.idx) else {
            continue;
        };
        for t in rel.iter() {
            if let Some(col) = column(t.with_idx) {
                strength[row][col] = Some(t.strength);
            }
        }
    }
    strength
}

/// The matrix's cells, coloured by strength; clicking one plots (or unplots) the pair.
fn matrix(
    ui: &mut egui::Ui,
    shown: &[RosterIdx],
    strength: &[Vec<Option<f32>>],
    roster: &Roster,
    plotted: &mut PlottedPairs,
) {
    ui.label("");
    for &b in shown {
        let name: String = roster.name_of(b).chars().take(2).collect();
        ui.label(egui::RichText::new(name).small());
    }
    ui.end_row();
    for (row, &a) in shown.iter().enumerate() {
        ui.label(egui::RichText::new(roster.name_of(a)).small());
        for (col, &b) in shown.iter().enumerate() {
            let s = strength[row][col];
            let text = s.map_or(String::new(), |s| format!("{s:.0}"));
            let picked = plotted.0.contains(&(a, b));
            let button = egui::Button::new(
                egui::RichText::new(text)
                    .small()
                    .color(egui::Color32::BLACK),
            )
            .fill(if a == b {
                egui::Color32::DARK_GRAY
            } else {
                s.map_or(egui::Color32::from_gray(235), strength_colour)
            })
            .stroke(if picked {
                egui::Stroke::new(2.0, egui::Color32::RED)
            } else {
                egui::Stroke::NONE
            })
            .min_size(egui::vec2(28.0, 18.0));
            if ui.add_enabled(a != b, button).clicked() {
                if picked {
                    plotted.0.retain(|p| *p != (a, b));
                } else {
                    plotted.0.push((a, b));
                    if plotted.0.len() > PLOT_COLOURS.len() {
                        plotted.0.remove(0);
                    }
                }
            }
        }
        ui.end_row();
    }
}

/// Strength over game time of the plotted pairs (hourly samples).
fn plot(
    ui: &mut egui::Ui,
    history: &RelationHistory,
    pairs: &[(RosterIdx, RosterIdx)],
    roster: &Roster,
) {
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(ui.available_width().max(300.0), 160.0),
        egui::Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(250));
    for y in [0.0, 50.0, 100.0] {
        let py = rect.bottom() - rect.height() * y / 100.0;
        painter.line_segment(
            [egui::pos2(rect.left(), py), egui::pos2(rect.right(), py)],
            egui::Stroke::new(1.0, egui::Color32::from_gray(215)),
        );
    }
    let n = history.samples.len().max(2) - 1;
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let colour = PLOT_COLOURS[k % PLOT_COLOURS.len()];
        let series = history.series(a, b);
        let points: Vec<egui::Pos2> = series
            .iter()
            .map(|(t, s)| {
                let i = history.samples.iter().position(|x| x.0 == *t).unwrap_or(0);
                egui::pos2(
                    rect.left() + rect.width() * i as f32 / n as f32,
                    rect.bottom() - rect.height() * s / 100.0,
                )
            })
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(2.0, colour)));
        ui.colored_label(
            colour,
            format!(
                "{} 对 {}：{}",
                roster.name_of(a),
                roster.name_of(b),
                series.last().map_or("—".into(), |(_, s)| format!("{s:.0}"))
            ),
        );
    }
    if pairs.is_empty() {
        ui.label("（还没有选择要画的一对）");
    }
}
