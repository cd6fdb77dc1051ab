//! The counselling panels: the chat (lines, option buttons, a text box) and
//! the script's state (where the session is, the goal queues, every variable
//! by scope).

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{CounselPanel, Session};
use crate::script::engine::{EngineError, State, Var};
use crate::script::host::{Prompt, Shown};
use crate::sim::clock::Clock;

/// The chat window of the talk in progress (or why it could not start).
pub(super) fn chat_panel(
    mut contexts: EguiContexts,
    mut panel: ResMut<CounselPanel>,
    clock: Res<Clock>,
    (roster, personas, assets): (
        Res<crate::sim::residents::Roster>,
        Query<&crate::sim::residents::Persona>,
        Res<AssetServer>,
    ),
) -> Result {
    if panel.session.is_none() && panel.error.is_none() {
        return Ok(());
    }
    let face = panel
        .session
        .as_ref()
        .and_then(|s| roster.entity(&s.resident))
        .and_then(|e| personas.get(e).ok())
        .map(|p| crate::window::art::portrait(&mut contexts, &assets, &p.0));
    let ctx = contexts.ctx_mut()?;
    let now = clock.now.seconds_text();
    let mut open = true;
    let title = panel
        .session
        .as_ref()
        .map_or("交谈".to_string(), |s| format!("与{}交谈", s.name));
    let panel = &mut *panel;
    egui::Window::new(title)
        .id(egui::Id::new("counsel_chat"))
        .open(&mut open)
        .default_pos([360.0, 60.0])
        .default_size([420.0, 520.0])
        .show(ctx, |ui| {
            if let Some(error) = &panel.error {
                ui.colored_label(egui::Color32::from_rgb(220, 60, 50), "脚本有错，无法开始：");
                ui.monospace(error);
                return;
            }
            let Some(s) = panel.session.as_mut() else {
                return;
            };
            if let Some(error) = &s.script_error {
                ui.colored_label(
                    egui::Color32::from_rgb(220, 60, 50),
                    "脚本改动有错，仍按上一版继续：",
                );
                ui.monospace(error);
            }
            ui.horizontal(|ui| {
                if let Some(face) = face {
                    ui.image((face, egui::Vec2::splat(crate::window::art::PORTRAIT)));
                }
                ui.label(format!("会谈：{}", s.host.state.session));
                if ui.selectable_label(panel.show_state, "脚本状态").clicked() {
                    panel.show_state = !panel.show_state;
                }
            });
            ui.separator();
            transcript(ui, &s.host.shown);
            ui.separator();
            if let Some(Err(e)) = controls(ui, s, &mut panel.text, &now) {
                warn!("counselling session: {e}");
            }
        });
    if !open {
        panel.session = None;
        panel.error = None;
        panel.show_state = false;
    }
    Ok(())
}

/// The talk so far: the roles' lines, the player's on the right, notes faint.
fn transcript(ui: &mut egui::Ui, shown: &[Shown]) {
    egui::ScrollArea::vertical()
        .max_height(360.0)
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for line in shown {
                match line {
                    Shown::Line { role, text } => {
                        ui.horizontal_wrapped(|ui| {
                            ui.strong(format!("{role}："));
                            ui.label(text);
                        });
                    }
                    Shown::Player { text } => {
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::TOP), |ui| {
                            let blue = egui::Color32::from_rgb(60, 120, 200);
                            ui.label(egui::RichText::new(text).color(blue));
                        });
                    }
                    Shown::Note { text } => {
                        ui.label(egui::RichText::new(text).italics().weak());
                    }
                }
            }
        });
}

/// What the player can do now: click on, choose, type, or wait; the engine's
/// answer to what was done (none when nothing was).
fn controls(
    ui: &mut egui::Ui,
    s: &mut Session,
    text: &mut String,
    now: &str,
) -> Option<Result<(), EngineError>> {
    match s.host.prompt.clone() {
        Prompt::Continue(line) => ui
            .button(format!("▶ {line}"))
            .clicked()
            .then(|| s.host.click(&s.script, now)),
        Prompt::Choose(options) => {
            let mut picked = None;
            for (key, text) in &options {
                if ui.button(text).clicked() {
                    picked = Some(key.clone());
                }
            }
            picked.map(|k| s.host.choose(&s.script, now, &k))
        }
        Prompt::Type => {
            let mut send = false;
            ui.horizontal(|ui| {
                let edit = ui.add(
                    egui::TextEdit::singleline(text)
                        .hint_text("说点什么…")
                        .desired_width(300.0),
                );
                send = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                send |= ui.button("发送").clicked();
            });
            let said = text.trim().to_string();
            (send && !said.is_empty()).then(|| {
                text.clear();
                s.host.say(&s.script, now, &said)
            })
        }
        Prompt::Thinking => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{}在想…", s.name));
            });
            None
        }
        Prompt::Done => {
            ui.label("会谈结束。");
            None
        }
    }
}

fn var_rows(ui: &mut egui::Ui, scope: &str, vars: &BTreeMap<String, Var>) {
    for (name, value) in vars {
        ui.label(scope);
        ui.label(name);
        let text = value.text();
        ui.label(if text.is_empty() {
            "（未赋值）".to_string()
        } else {
            text
        });
        ui.end_row();
    }
}

/// The script-state window, as the design's debugging page shows it.
pub(super) fn state_panel(mut contexts: EguiContexts, mut panel: ResMut<CounselPanel>) -> Result {
    if !panel.show_state {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let panel = &mut *panel;
    let Some(s) = panel.session.as_ref() else {
        return Ok(());
    };
    egui::Window::new("脚本状态")
        .open(&mut panel.show_state)
        .default_pos([800.0, 60.0])
        .default_width(380.0)
        .vscroll(true)
        .show(ctx, |ui| {
            let st = &s.host.state;
            position(ui, s);
            egui::CollapsingHeader::new("话题队列")
                .default_open(true)
                .show(ui, |ui| queues(ui, st));
            egui::CollapsingHeader::new("变量")
                .default_open(true)
                .show(ui, |ui| {
                    egui::Grid::new("vars").striped(true).show(ui, |ui| {
                        var_rows(ui, "全局", &st.global);
                        var_rows(ui, "会谈", &st.session_vars);
                        var_rows(ui, "阶段", &st.stage_vars);
                        for f in st.frames.iter().rev() {
                            var_rows(ui, &format!("话题 {}", f.goal.goal), &f.vars);
                        }
                    });
                });
            egui::CollapsingHeader::new("设过的值（含已结束话题）").show(ui, |ui| {
                egui::Grid::new("history").striped(true).show(ui, |ui| {
                    for (place, name, value) in &s.host.vars {
                        ui.label(place);
                        ui.label(name);
                        ui.label(value.text());
                        ui.end_row();
                    }
                });
            });
            if let Some(run) = st.course.as_ref().filter(|c| !c.past.sessions.is_empty()) {
                egui::CollapsingHeader::new(format!(
                    "疗程：往次会谈 {} 次",
                    run.past.sessions.len()
                ))
                .show(ui, |ui| {
                    for past in run.past.sessions.iter().rev() {
                        ui.strong(format!("{}（{}）", past.session, past.started));
                        ui.label(&past.summary);
                    }
                });
            }
            if !st.forms.is_empty() {
                egui::CollapsingHeader::new("表单").show(ui, |ui| {
                    for (form, fields) in &st.forms {
                        ui.strong(form);
                        for (k, v) in fields {
                            ui.label(format!("  {k}：{v}"));
                        }
                    }
                });
            }
        });
    Ok(())
}

/// Where the session is: stage, goal, action, what it waits for, who speaks.
fn position(ui: &mut egui::Ui, s: &Session) {
    let st = &s.host.state;
    let (stage, goal, action) = s.host.position();
    egui::Grid::new("where").show(ui, |ui| {
        for (k, v) in [
            ("会谈", st.session.clone()),
            ("阶段", stage),
            ("话题", goal),
            (
                "动作",
                action.map_or("—".into(), |(i, id)| format!("#{i} {id}")),
            ),
            ("等待", format!("{:?}", st.wait)),
            ("AI 角色", st.ai_role.clone()),
            ("场景", st.scene.clone().unwrap_or_default()),
        ] {
            ui.strong(k);
            ui.label(v);
            ui.end_row();
        }
    });
}

/// Goals running (and those a call put before them), then each stage's queue.
fn queues(ui: &mut egui::Ui, st: &State) {
    for f in st.frames.iter().rev() {
        ui.label(format!("▶ 进行中：{}/{}", f.stage, f.goal.goal));
        for g in &f.before {
            ui.label(format!("    ＋ 先做：{}", g.goal));
        }
    }
    for run in &st.stages {
        ui.label(format!(
            "{} {}",
            if run.entered { "★" } else { "☆" },
            run.stage
        ));
        for g in &run.queue {
            let inserted = if g.skill.is_some() { "＋ 插入 " } else { "" };
            ui.label(format!("    {inserted}{}", g.goal));
        }
    }
}
