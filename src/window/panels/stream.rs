//! The event stream (E).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{Panels, StreamFilter, clock_text};
use crate::sim::residents::Roster;
use crate::window::feed::{EventFeed, strands};

/// The event stream (E): every event told, filtered by strand and
/// resident; a click selects the first resident and looks at it.
pub(super) fn event_stream(
    mut contexts: EguiContexts,
    (mut panels, mut filter): (ResMut<Panels>, ResMut<StreamFilter>),
    (feed, roster): (Res<EventFeed>, Res<Roster>),
    mut look: super::LookAt,
) -> Result {
    if !panels.events {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let bottom = ctx.viewport_rect().bottom();
    egui::Window::new("事件")
        .open(&mut panels.events)
        .default_pos([8.0, bottom - 300.0])
        .default_size([620.0, 240.0])
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                egui::ComboBox::from_id_salt("kind")
                    .selected_text(filter.kind.map_or("全部类型", |s| s.label()))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut filter.kind, None, "全部类型");
                        for s in strands() {
                            ui.selectable_value(&mut filter.kind, Some(s), s.label());
                        }
                    });
                let who = filter
                    .resident
                    .as_ref()
                    .map_or("全部居民".to_string(), |id| roster.name(id).to_string());
                egui::ComboBox::from_id_salt("resident")
                    .selected_text(who)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut filter.resident, None, "全部居民");
                        for (id, name) in roster.ids().iter().zip(roster.names()) {
                            ui.selectable_value(&mut filter.resident, Some(id.clone()), name);
                        }
                    });
                ui.label(format!("共 {} 条", feed.total));
            });
            ui.separator();
            let entries: Vec<_> = feed
                .entries
                .iter()
                .filter(|e| filter.kind.is_none_or(|k| e.told.strand == k))
                .filter(|e| {
                    filter
                        .resident
                        .as_ref()
                        .is_none_or(|r| e.told.residents.contains(r))
                })
                .collect();
            let start = entries.len().saturating_sub(500);
            egui::ScrollArea::vertical()
                .stick_to_bottom(true)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for e in &entries[start..] {
                        let (strand, text) = (e.told.strand.label(), &e.told.text);
                        let line = format!("{} [{strand}] {text}", clock_text(e.time));
                        if ui.selectable_label(false, line).clicked()
                            && let Some(first) = e.told.residents.first()
                        {
                            look.resident(first);
                            look.selection.conversation = e.told.conversation;
                        }
                    }
                });
        });
    Ok(())
}
