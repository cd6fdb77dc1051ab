//! 今日要闻 (Y): the day's news — friendships and fallings-out, arguments,
//! gatherings and who came, appointments kept or missed, notices, dates.
//! A line selects its first resident and glides the camera there.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{Panels, clock_text};
use crate::sim::clock::Clock;
use crate::sim::residents::{Resident, Roster};
use crate::window::feed::News;
use crate::window::select::{CameraGoal, Selection};

/// The day shown: `None` follows the clock's day.
#[derive(Resource, Debug, Default)]
pub(crate) struct NewsDay(pub(crate) Option<chrono::NaiveDate>);

/// The news panel.
pub(super) fn news_panel(
    mut contexts: EguiContexts,
    (mut panels, mut day): (ResMut<Panels>, ResMut<NewsDay>),
    (news, roster, clock): (Res<News>, Res<Roster>, Res<Clock>),
    (mut selection, mut goal): (ResMut<Selection>, ResMut<CameraGoal>),
    figures: Query<&Transform, With<Resident>>,
) -> Result {
    if !panels.news {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let today = clock.now.date();
    let shown = day.0.unwrap_or(today);
    egui::Window::new("今日要闻")
        .open(&mut panels.news)
        .default_pos([8.0, 44.0])
        .default_size([420.0, 320.0])
        .show(ctx, |ui| {
            day_picker(ui, &news, &mut day, shown, today);
            ui.separator();
            let lines = news.0.of(shown);
            if lines.is_empty() {
                ui.weak("（这一天还没有什么新鲜事。）");
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for h in lines {
                        let line = format!("{} 【{}】{}", clock_text(h.time), h.kind.tag(), h.text);
                        if ui.selectable_label(false, line).clicked()
                            && let Some(first) = h.residents.first()
                        {
                            selection.select(first.clone());
                            if let Some(t) = roster.entity(first).and_then(|e| figures.get(e).ok())
                            {
                                goal.0 = Some(t.translation.truncate());
                            }
                        }
                    }
                });
        });
    Ok(())
}

/// ◀ the date ▶ over the days with news; "今天" goes back to following.
fn day_picker(
    ui: &mut egui::Ui,
    news: &News,
    day: &mut NewsDay,
    shown: chrono::NaiveDate,
    today: chrono::NaiveDate,
) {
    let days: Vec<_> = news.0.days().collect();
    let before = days.iter().rev().find(|d| **d < shown).copied();
    let after = days.iter().find(|d| **d > shown && **d <= today).copied();
    ui.horizontal(|ui| {
        if ui
            .add_enabled(before.is_some(), egui::Button::new("◀"))
            .clicked()
        {
            day.0 = before;
        }
        let label = if shown == today {
            format!("{shown} · 今天")
        } else {
            shown.to_string()
        };
        ui.strong(label);
        if ui
            .add_enabled(after.is_some(), egui::Button::new("▶"))
            .clicked()
        {
            day.0 = after.filter(|d| *d != today);
        }
        if day.0.is_some() && ui.button("今天").clicked() {
            day.0 = None;
        }
    });
}
