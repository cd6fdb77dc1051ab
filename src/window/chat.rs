//! The player's free chat with a resident ("💬 聊天" in the inspector): the
//! affection bar with the stage's name, the key moments kept verbatim, the
//! chat so far and a text box. A message is answered between frames by the
//! built-in brain, in character (a model's companion replies are the
//! terminal's for now: `heartvale chat`).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::ViewSet;
use crate::companion::affection::MAX_AFFECTION;
use crate::companion::session::Speaker;
use crate::companion::{CompanionState, builtin};
use crate::scenario::ResidentId;
use crate::sim::companion::{Companions, chat_turn};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ChatPanel>()
        .add_systems(Update, answer.in_set(ViewSet::Sync))
        .add_systems(EguiPrimaryContextPass, chat_panel);
}

/// The chat window: with whom, what is being typed, what waits for an answer.
#[derive(Resource, Default)]
pub(crate) struct ChatPanel {
    with: Option<(ResidentId, String, bool)>,
    text: String,
    sent: Option<String>,
}

impl ChatPanel {
    /// Opens the chat with a resident (`companion`: it has the full system).
    pub(crate) fn open(&mut self, id: ResidentId, name: String, companion: bool) {
        self.with = Some((id, name, companion));
    }

    /// Whether the chat is open with this resident.
    pub(crate) fn is_with(&self, id: &ResidentId) -> bool {
        self.with.as_ref().is_some_and(|(w, ..)| w == id)
    }
}

/// Answers the message sent this frame (the turn needs the whole world:
/// the resident's memories, the clock, the companions).
fn answer(world: &mut World) {
    let Some((id, text)) = world.get_resource_mut::<ChatPanel>().and_then(|mut p| {
        let text = p.sent.take()?;
        Some((p.with.as_ref()?.0.clone(), text))
    }) else {
        return;
    };
    chat_turn(world, &id, (&text, None), &mut builtin::reply);
}

fn chat_panel(
    mut contexts: EguiContexts,
    mut panel: ResMut<ChatPanel>,
    companions: Option<Res<Companions>>,
) -> Result {
    let Some((id, name, companion)) = panel.with.clone() else {
        return Ok(());
    };
    // Borrowed, not copied: the chat can grow long and this runs every frame.
    let none = CompanionState::default();
    let state = companions
        .as_deref()
        .and_then(|c| c.0.get(&id))
        .unwrap_or(&none);
    let ctx = contexts.ctx_mut()?;
    let mut open = true;
    egui::Window::new(format!("聊天 · {name}"))
        .id(egui::Id::new("companion_chat"))
        .open(&mut open)
        .default_pos([360.0, 80.0])
        .default_size([400.0, 520.0])
        .show(ctx, |ui| {
            affection_bar(ui, state, companion);
            if companion {
                key_moments(ui, state);
            }
            ui.separator();
            history(ui, state, &name);
            ui.separator();
            input(ui, &mut panel);
        });
    if !open {
        panel.with = None;
    }
    Ok(())
}

/// 好感度 as a bar, with the chapter and stage.
fn affection_bar(ui: &mut egui::Ui, state: &CompanionState, companion: bool) {
    let a = &state.affection;
    let stage = a.stage();
    let text = format!(
        "好感度 {} · 第{}章：{}",
        a.value(),
        stage.chapter(),
        stage.name()
    );
    ui.add(egui::ProgressBar::new(a.value() as f32 / MAX_AFFECTION as f32).text(text));
    let mut line = format!("聊了 {} 句 · 连续 {} 天", state.messages, a.streak());
    if let Some(n) = &state.profile.nickname {
        line.push_str(&format!(" · 称呼你「{n}」"));
    }
    if !companion {
        line.push_str(" · 没有陪伴设定：只是闲聊");
    }
    ui.label(line);
}

/// The key moments, verbatim.
fn key_moments(ui: &mut egui::Ui, state: &CompanionState) {
    egui::CollapsingHeader::new(format!("关键时刻（{}）", state.moments.len()))
        .id_salt("companion_moments")
        .default_open(!state.moments.is_empty())
        .show(ui, |ui| {
            for m in state.moments.iter().rev() {
                ui.strong(format!(
                    "✨ {} · 第{}章 · {:+}",
                    m.name, m.chapter, m.gained
                ));
                ui.label(format!("你：{}", m.user));
                ui.label(format!("TA：{}", m.reply));
            }
        });
}

/// The chat so far, newest at the bottom.
fn history(ui: &mut egui::Ui, state: &CompanionState, name: &str) {
    egui::ScrollArea::vertical()
        .max_height(300.0)
        .stick_to_bottom(true)
        .show(ui, |ui| {
            if state.lines.is_empty() {
                ui.weak("（还没有说过话。说点什么吧。）");
            }
            for l in state.lines.iter().rev().take(200).rev() {
                let who = match l.speaker {
                    Speaker::Player => "你",
                    Speaker::Companion => name,
                };
                let mut text = format!("{who}：{}", l.content);
                if l.key_moment.is_some() && l.speaker == Speaker::Companion {
                    text.push_str(" ✨");
                }
                ui.label(text);
            }
        });
}

/// The text box; Enter or the button sends.
fn input(ui: &mut egui::Ui, panel: &mut ChatPanel) {
    ui.horizontal(|ui| {
        let edit = ui.add(
            egui::TextEdit::singleline(&mut panel.text)
                .hint_text("说点什么…")
                .desired_width(280.0),
        );
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("发送").clicked() || enter) && !panel.text.trim().is_empty() {
            panel.sent = Some(panel.text.trim().to_string());
            panel.text.clear();
            edit.request_focus();
        }
    });
}
