//! Cupid's panel (L): a town date as the design's sandbox shows it — the
//! host's scenes in grey blocks, each side's decision on a card of its
//! colour (blue for the one asked first, pink for the other, whatever their
//! genders) with its rationale, and the score over the rounds; lines appear
//! as the date produces them.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::Panels;
use crate::cupid::{Message as Line, START_SCORE, Turn};
use crate::scenario::ResidentId;
use crate::sim::dating::{ShownDate, TownDates};
use crate::sim::residents::Roster;
use crate::window::select::Selection;

/// The first side's colour.
const BLUE: egui::Color32 = egui::Color32::from_rgb(214, 232, 255);
/// The second side's.
const PINK: egui::Color32 = egui::Color32::from_rgb(255, 222, 236);
/// The host's scene blocks.
const GREY: egui::Color32 = egui::Color32::from_gray(232);
/// Text on the light blocks, whatever the theme.
const INK: egui::Color32 = egui::Color32::from_gray(35);
/// The score's line.
const SCORE_LINE: egui::Color32 = egui::Color32::from_rgb(214, 60, 110);

/// The date panel: the selected resident's date, else the one under way,
/// else the latest.
pub(super) fn dates_panel(
    mut contexts: EguiContexts,
    mut panels: ResMut<Panels>,
    dates: Res<TownDates>,
    roster: Res<Roster>,
    selection: Res<Selection>,
    (personas, assets): (Query<&crate::sim::residents::Persona>, Res<AssetServer>),
) -> Result {
    if !panels.dates {
        return Ok(());
    }
    let selected = selection.resident.as_ref().and_then(|id| roster.idx(id));
    let shown = dates.shown_for(selected);
    // The two portraits, side by side over the date.
    let faces = shown.as_ref().map(|d| {
        d.pair.map(|i| {
            let entity = roster.entity(roster.id_of(i));
            entity
                .and_then(|e| personas.get(e).ok())
                .map(|p| crate::window::art::portrait(&mut contexts, &assets, &p.0))
        })
    });
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("💘 约会")
        .open(&mut panels.dates)
        .default_pos([8.0, 300.0])
        .default_width(420.0)
        .default_height(560.0)
        .show(ctx, |ui| match shown {
            None => {
                ui.label(
                    "还没有约会。选中一位居民，在检查器里点「💘 约会」，或等主持人傍晚自己牵线。",
                );
            }
            Some(d) => {
                if let Some(faces) = faces {
                    ui.horizontal(|ui| {
                        let side = egui::Vec2::splat(crate::window::art::PORTRAIT);
                        for face in faces.into_iter().flatten() {
                            ui.image((face, side));
                        }
                    });
                }
                date_view(ui, &d, &roster)
            }
        });
    Ok(())
}

fn date_view(ui: &mut egui::Ui, d: &ShownDate<'_>, roster: &Roster) {
    let names = d.pair.map(|i| roster.name_of(i).to_owned());
    let ids = d.pair.map(|i| roster.id_of(i).clone());
    let status = match (d.under_way, d.lines.last()) {
        (_, Some(Line::End { .. })) => "已结束",
        (true, _) => "约会中",
        (false, _) => "已预约，等两人到场",
    };
    ui.heading(format!("{} × {}", names[0], names[1]));
    ui.label(status);
    score_plot(ui, d.lines);
    ui.separator();
    // The newest line stays in view as the date goes on.
    egui::ScrollArea::vertical()
        .stick_to_bottom(true)
        .show(ui, |ui| {
            lines_view(ui, d.lines, &names, &ids[0]);
            if let Some((turn, written)) = d.writing {
                writing_view(ui, turn, written, &names);
            }
        });
}

/// The model writing the next answer: whose, and the field it is writing
/// (as the pieces stream in), in the colour of the block it will become.
fn writing_view(ui: &mut egui::Ui, turn: Turn, written: &str, names: &[String; 2]) {
    let (who, fill) = match turn {
        Turn::Host => ("主持人".to_string(), GREY),
        Turn::Avatar(k) => (names[k].clone(), [BLUE, PINK][k]),
    };
    let text = match crate::llm::cupid::preview(written) {
        Some((field, text)) => format!("{who}正在写{field}：{text}"),
        None => format!("{who}正在想……"),
    };
    block(ui, fill, |ui| {
        ui.label(egui::RichText::new(text).italics());
    });
}

/// Every line of the date: scenes, decisions, scores, the end.
fn lines_view(ui: &mut egui::Ui, lines: &[Line], names: &[String; 2], first: &ResidentId) {
    for line in lines {
        match line {
            Line::Host(h) => block(ui, GREY, |ui| {
                ui.label(egui::RichText::new(crate::cupid::Timeline::chinese(&h.time)).small());
                ui.label(&h.action.question);
                ui.label(
                    egui::RichText::new(&h.action.answers)
                        .color(INK)
                        .underline(),
                );
                ui.label(
                    egui::RichText::new(format!("主持人：{}", h.rationale))
                        .small()
                        .italics(),
                );
            }),
            Line::Avatar { resident, turn } => {
                let k = usize::from(resident != first);
                let colour = [BLUE, PINK][k];
                block(ui, colour, |ui| {
                    ui.label(
                        egui::RichText::new(format!(
                            "{} 选 {}「{}」",
                            names[k], turn.decision.option, turn.decision.content
                        ))
                        .color(INK)
                        .size(15.0),
                    );
                    ui.label(egui::RichText::new(&turn.rationale).small());
                });
            }
            Line::Score {
                before,
                after,
                reason,
                ..
            } => {
                ui.label(
                    egui::RichText::new(format!(
                        "分数从 {before} 到 {after}（{:+}）",
                        after - before
                    ))
                    .strong(),
                );
                ui.label(egui::RichText::new(reason).small().weak());
            }
            Line::End {
                reason,
                score,
                rounds,
                band,
            } => {
                ui.label(
                    egui::RichText::new(format!(
                        "结局：{}。{rounds} 轮，{score} 分，{}。",
                        reason.label(),
                        band.label()
                    ))
                    .strong(),
                );
            }
        }
    }
}

/// A rounded block of `fill`.
fn block(ui: &mut egui::Ui, fill: egui::Color32, add: impl FnOnce(&mut egui::Ui)) {
    egui::Frame::new()
        .fill(fill)
        .corner_radius(6.0)
        .inner_margin(8.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.visuals_mut().override_text_color = Some(INK);
            add(ui)
        });
    ui.add_space(4.0);
}

/// The score (0–50) after each round, from 25; the bands' edges as lines.
fn score_plot(ui: &mut egui::Ui, lines: &[Line]) {
    let mut scores = vec![START_SCORE];
    scores.extend(lines.iter().filter_map(|l| match l {
        Line::Score { after, .. } => Some(*after),
        _ => None,
    }));
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(ui.available_width().max(300.0), 120.0),
        egui::Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(250));
    let y = |s: f32| rect.bottom() - rect.height() * s / 50.0;
    for edge in [15.0, 30.0, 40.0] {
        painter.line_segment(
            [
                egui::pos2(rect.left(), y(edge)),
                egui::pos2(rect.right(), y(edge)),
            ],
            egui::Stroke::new(1.0, egui::Color32::from_gray(215)),
        );
    }
    // Ten rounds across, so the line grows as the date goes.
    let x = |i: usize| rect.left() + rect.width() * i as f32 / crate::cupid::MAX_ROUNDS as f32;
    let points: Vec<egui::Pos2> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| egui::pos2(x(i), y(s as f32)))
        .collect();
    for p in &points {
        painter.circle_filled(*p, 3.0, SCORE_LINE);
    }
    painter.add(egui::Shape::line(
        points,
        egui::Stroke::new(2.0, SCORE_LINE),
    ));
    ui.label(
        egui::RichText::new("分数 0–50；横线为 15 / 30 / 40（不和谐 · 一般 · 良好 · 高度契合）")
            .small()
            .weak(),
    );
}
