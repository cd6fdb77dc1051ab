//! The player's free chat with a resident ("💬 聊天" in the inspector): the
//! affection bar with the stage's name, the key moments kept verbatim, the
//! chat so far and a text box. With an LLM configured, the resident's model
//! answers (`mind`: off the frame, through the run's calls); without one, or when
//! it fails, the built-in brain answers between frames, in character.

mod mind;

pub(crate) use mind::ChatMind;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::ViewSet;
use crate::companion::affection::MAX_AFFECTION;
use crate::companion::session::{ReplyContext, Speaker};
use crate::companion::{CompanionState, builtin};
use crate::scenario::ResidentId;
use crate::sim::companion::{Companions, chat_answered, chat_turn};

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
    /// A message the model is answering.
    waiting: Option<mind::Waiting>,
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

/// Takes the turn of a message the model has answered, and sends (or, with
/// no model, answers) the message sent this frame. The turn needs the whole
/// world: the resident's memories, the clock, the companions.
fn answer(world: &mut World) {
    // Most frames have nothing to do: no mutable borrow (and no change) then.
    let idle = world
        .get_resource::<ChatPanel>()
        .is_none_or(|p| p.waiting.is_none() && p.sent.is_none());
    if idle {
        return;
    }
    let waiting = world
        .get_resource_mut::<ChatPanel>()
        .and_then(|mut p| p.waiting.take());
    if let Some(w) = waiting {
        let Some(reply) = mind::answered(world, &w) else {
            world.resource_mut::<ChatPanel>().waiting = Some(w);
            return;
        };
        let reply = reply.unwrap_or_else(|why| {
            warn!("the chat's model did not answer ({why}); the built-in brain does");
            let candidates = w.turn.candidates();
            builtin::reply(&w.turn.reply_context(&candidates))
        });
        chat_answered(world, w.turn, &reply, &mut |_: &ReplyContext<'_>| {
            String::new()
        });
    }
    let Some((id, text)) = world.get_resource_mut::<ChatPanel>().and_then(|mut p| {
        let text = p.sent.take()?;
        Some((p.with.as_ref()?.0.clone(), text))
    }) else {
        return;
    };
    match mind::ask(world, &id, &text) {
        Some(w) => world.resource_mut::<ChatPanel>().waiting = Some(w),
        None => {
            // A plain resident answers a question about the town from its facts.
            let town = crate::builtin::interview::town_answer(world, &id, &text);
            chat_turn(world, &id, (&text, None), &mut |cx: &ReplyContext<'_>| {
                town.clone().unwrap_or_else(|| builtin::reply(cx))
            });
        }
    }
}

fn chat_panel(
    mut contexts: EguiContexts,
    mut panel: ResMut<ChatPanel>,
    companions: Option<Res<Companions>>,
    (roster, personas, assets): (
        Res<crate::sim::residents::Roster>,
        Query<&crate::sim::residents::Persona>,
        Res<AssetServer>,
    ),
) -> Result {
    let Some((id, name, companion)) = panel.with.clone() else {
        return Ok(());
    };
    let face = roster
        .entity(&id)
        .and_then(|e| personas.get(e).ok())
        .map(|p| super::art::portrait(&mut contexts, &assets, &p.0));
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
            ui.horizontal(|ui| {
                if let Some(face) = face {
                    ui.image((face, egui::Vec2::splat(super::art::PORTRAIT)));
                }
                ui.vertical(|ui| affection_bar(ui, state, companion));
            });
            if companion {
                key_moments(ui, state);
            }
            ui.separator();
            history(ui, state, &name);
            if let Some(w) = panel.waiting.as_ref().filter(|w| *w.turn.who() == id) {
                ui.label(format!("你：{}", w.turn.message()));
                ui.weak(format!("（{name}在想……）"));
            }
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
        let free = panel.waiting.is_none();
        let send = ui.add_enabled(free, egui::Button::new("发送")).clicked();
        if (send || enter) && free && !panel.text.trim().is_empty() {
            panel.sent = Some(panel.text.trim().to_string());
            panel.text.clear();
            edit.request_focus();
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::llm::LlmSettings;
    use crate::llm::cassette::CassetteMode;
    use crate::llm::fake::{self, FakeReply, FakeRequest, FakeServer};
    use crate::sim::residents::Persona;

    fn server() -> FakeServer {
        FakeServer::start(Arc::new(|req: &FakeRequest| {
            let prompt = req.prompt();
            if prompt.contains("坏掉") {
                FakeReply::Json {
                    status: 400,
                    headers: vec![],
                    body: serde_json::json!({"error": "bad"}),
                }
            } else if prompt.contains("【可能触发的关键时刻】第一次见面") {
                fake::chat("（眨眼）初次见面。【时刻:first_meeting】")
            } else {
                fake::chat("嗯，我在听。")
            }
        }))
    }

    /// A view with the chat open with the guardian, whose model `llm` names.
    fn chatting(llm: &LlmSettings) -> (App, ResidentId) {
        let mut app = crate::window::testing::view_app();
        app.add_plugins(plugin);
        app.insert_resource(ChatMind::new(llm).unwrap());
        app.update();
        let world = app.world_mut();
        let guardian = world
            .query::<&Persona>()
            .iter(world)
            .find(|p| p.companion.is_some())
            .unwrap()
            .id
            .clone();
        let mut panel = world.resource_mut::<ChatPanel>();
        panel.open(guardian.clone(), "守望精灵".into(), true);
        (app, guardian)
    }

    /// Sends `text` and runs frames until the turn is taken.
    fn send(app: &mut App, text: &str) {
        app.world_mut().resource_mut::<ChatPanel>().sent = Some(text.into());
        let start = Instant::now();
        app.update();
        while app.world().resource::<ChatPanel>().waiting.is_some() {
            assert!(start.elapsed() < Duration::from_secs(20), "no answer");
            std::thread::sleep(Duration::from_millis(5));
            app.update();
        }
    }

    /// The guardian's model answers through the bridge (frames go on while it
    /// does), a marked reply makes the key moment, and a failed call is
    /// answered by the built-in brain.
    #[test]
    fn the_residents_model_answers_off_the_frame() {
        let server = server();
        let llm = LlmSettings::for_endpoint(&server.url, "fake-model");
        let (mut app, guardian) = chatting(&llm);
        send(&mut app, "你好");
        send(&mut app, "今天的风很舒服");
        send(&mut app, "坏掉的话会怎样");
        let companions = app.world().resource::<Companions>();
        let state = &companions.0[&guardian];
        let replies: Vec<&str> = state
            .lines
            .iter()
            .filter(|l| l.speaker == Speaker::Companion)
            .map(|l| l.content.as_str())
            .collect();
        assert_eq!(replies[..2], ["（眨眼）初次见面。", "嗯，我在听。"]);
        assert!(!replies[2].is_empty() && replies[2] != "嗯，我在听。");
        assert_eq!(state.moments[0].id, "first_meeting");
        assert_eq!(state.messages, 3);
        assert_eq!(server.requests().len(), 3, "one call a message");
    }

    /// The window's chat is recorded with the run (`--record`), and a replay
    /// answers it with the server gone.
    #[test]
    fn the_windows_chat_is_recorded_and_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let talk = |llm: &LlmSettings| {
            let (mut app, guardian) = chatting(llm);
            send(&mut app, "你好");
            send(&mut app, "坏掉的话会怎样");
            let state = &app.world().resource::<Companions>().0[&guardian];
            state
                .lines
                .iter()
                .map(|l| l.content.clone())
                .collect::<Vec<_>>()
        };
        let server = server();
        let mut llm = LlmSettings::for_endpoint(&server.url, "fake-model");
        llm.cassette = Some(CassetteMode::Record(dir.path().to_path_buf()));
        let recorded = talk(&llm);
        let calls = std::fs::read_to_string(dir.path().join("calls.jsonl")).unwrap();
        assert_eq!(
            calls.lines().count(),
            2,
            "each chat message's call is recorded"
        );
        drop(server);
        let mut llm = LlmSettings::for_endpoint("http://127.0.0.1:9/v1", "fake-model");
        llm.cassette = Some(CassetteMode::Replay(dir.path().to_path_buf()));
        assert_eq!(
            talk(&llm),
            recorded,
            "the replay says the same, with no server"
        );
    }
}
