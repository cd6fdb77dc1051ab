//! Talking with a counsellor resident (the valley's guardian spirit): the
//! inspector's "talk" button starts its HEART RULE session; the chat panel
//! shows the lines, option buttons and a text box; the script-state panel
//! shows where the session is, the goal queues (inserted goals marked) and
//! every variable by scope, as the design's debugging page does.
//!
//! LLM steps go to the configured endpoint through a bridge of their own
//! (never blocking a frame); with none, or when a call fails, the engine's
//! built-in offline answers serve.

use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::ViewSet;
use crate::base::time::GameTime;
use crate::llm::bridge::{Bridge, BridgeSettings, Job};
use crate::llm::client::Endpoint;
use crate::llm::script::step_request;
use crate::scenario::{Profile, ResidentId};
use crate::script::engine::{Script, Var};
use crate::script::host::{Host, Prompt, Shown};
use crate::sim::clock::Clock;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CounselPanel>()
        .add_systems(Update, (reload_script, drive).chain().in_set(ViewSet::Sync))
        .add_systems(EguiPrimaryContextPass, (chat_panel, state_panel));
}

/// The talk in progress (at most one) and the panels' state.
#[derive(Resource, Default)]
pub(crate) struct CounselPanel {
    pub session: Option<Session>,
    /// What the player is typing.
    pub text: String,
    pub show_state: bool,
    /// Why the last talk could not start (script diagnostics included).
    pub error: Option<String>,
}

pub(crate) struct Session {
    pub resident: ResidentId,
    pub name: String,
    /// The script set's folder, re-read when it changes on disk.
    pub dir: std::path::PathBuf,
    pub script: Arc<Script>,
    /// The set on disk is broken: its diagnostics (the session runs on the
    /// last good version).
    pub script_error: Option<String>,
    pub host: Host,
    /// The bridge job under way and the engine request it answers.
    inflight: Option<(u64, u64)>,
}

/// The endpoint counselling calls go to, when an LLM is configured.
#[derive(Resource)]
pub(crate) struct CounselMind {
    bridge: Bridge,
    endpoint: Arc<Endpoint>,
    temperature: f32,
    next_job: u64,
}

impl CounselMind {
    pub fn new(settings: &crate::llm::LlmSettings) -> Option<Self> {
        let endpoint = settings.default.clone()?;
        let bridge = Bridge::start(
            BridgeSettings {
                concurrency: 1,
                timeout: settings.timeout,
                worker_threads: 1,
                ..default()
            },
            None,
        )
        .ok()?;
        Some(Self {
            bridge,
            endpoint: Arc::new(endpoint),
            temperature: settings.temperature,
            next_job: 0,
        })
    }
}

impl CounselPanel {
    /// Starts `profile`'s session; script errors end up in `error`.
    pub fn start(&mut self, profile: &Profile, now: GameTime) {
        self.error = None;
        self.session = None;
        let Some(counsel) = &profile.counsel else {
            return;
        };
        let script = match Script::load_clean(&counsel.dir) {
            Ok(s) => Arc::new(s),
            Err(errors) => {
                self.error = Some(errors.join("\n"));
                return;
            }
        };
        match Host::start(&script, counsel.session.as_deref(), &now.seconds_text()) {
            Ok(host) => {
                self.session = Some(Session {
                    resident: profile.id.clone(),
                    name: profile.name.clone(),
                    dir: counsel.dir.clone(),
                    script,
                    script_error: None,
                    host,
                    inflight: None,
                });
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }
}

impl Session {
    /// Re-reads the script set after an edit on disk. A clean set replaces the
    /// running one and the session goes on at the same action (the engine
    /// finds it by its id); a broken one is reported and the last good
    /// version runs on.
    pub fn reload(&mut self) {
        let script = match Script::load_clean(&self.dir) {
            Ok(s) => s,
            Err(errors) => {
                self.script_error = Some(errors.join("\n"));
                return;
            }
        };
        self.script_error = None;
        if script.hash != self.script.hash {
            self.script = Arc::new(script);
            self.host.shown.push(Shown::Note {
                text: "— 脚本已更新，从原处继续 —".into(),
            });
        }
    }
}

/// After a settled change on disk, the open session re-reads its script set.
fn reload_script(
    watch: Option<Res<super::reload::ScenarioWatch>>,
    mut seen: Local<u32>,
    mut panel: ResMut<CounselPanel>,
) {
    let Some(watch) = watch else {
        return;
    };
    if watch.generation == *seen {
        return;
    }
    *seen = watch.generation;
    if let Some(s) = panel.session.as_mut() {
        s.reload();
    }
}

/// Answers the session's LLM steps: through the bridge when there is a
/// model, else (or on failure) offline.
fn drive(
    mut panel: ResMut<CounselPanel>,
    clock: Res<Clock>,
    mut mind: Option<ResMut<CounselMind>>,
) {
    let now = clock.now.seconds_text();
    let Some(s) = panel.session.as_mut() else {
        return;
    };
    if let (Some(mind), Some((job, request))) = (mind.as_mut(), s.inflight) {
        while let Some(done) = mind.bridge.try_recv() {
            if done.id != job {
                continue;
            }
            s.inflight = None;
            let r = match done.result {
                Ok(reply) => s.host.reply(&s.script, &now, request, reply.content),
                Err(e) => {
                    warn!("counselling call failed, answering offline: {e}");
                    s.host.reply_offline(&s.script, &now)
                }
            };
            if let Err(e) = r {
                warn!("counselling session: {e}");
            }
        }
        return;
    }
    let Some(req) = s.host.pending().cloned() else {
        return;
    };
    match mind {
        Some(mut mind) => {
            mind.next_job += 1;
            let job = mind.next_job;
            let request = step_request(
                req.prompt.clone(),
                400,
                req.schema.as_ref(),
                mind.temperature,
            );
            let endpoint = mind.endpoint.clone();
            mind.bridge.send(Job {
                id: job,
                priority: 255,
                endpoint,
                request,
            });
            s.inflight = Some((job, req.id));
        }
        None => {
            if let Err(e) = s.host.reply_offline(&s.script, &now) {
                warn!("counselling session: {e}");
            }
        }
    }
}

fn chat_panel(
    mut contexts: EguiContexts,
    mut panel: ResMut<CounselPanel>,
    clock: Res<Clock>,
) -> Result {
    if panel.session.is_none() && panel.error.is_none() {
        return Ok(());
    }
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
                ui.label(format!("会谈：{}", s.host.state.session));
                if ui.selectable_label(panel.show_state, "脚本状态").clicked() {
                    panel.show_state = !panel.show_state;
                }
            });
            ui.separator();
            egui::ScrollArea::vertical()
                .max_height(360.0)
                .stick_to_bottom(true)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for line in &s.host.shown {
                        match line {
                            Shown::Line { role, text } => {
                                ui.horizontal_wrapped(|ui| {
                                    ui.strong(format!("{role}："));
                                    ui.label(text);
                                });
                            }
                            Shown::Player { text } => {
                                ui.with_layout(
                                    egui::Layout::right_to_left(egui::Align::TOP),
                                    |ui| {
                                        ui.label(
                                            egui::RichText::new(text)
                                                .color(egui::Color32::from_rgb(60, 120, 200)),
                                        );
                                    },
                                );
                            }
                            Shown::Note { text } => {
                                ui.label(egui::RichText::new(text).italics().weak());
                            }
                        }
                    }
                });
            ui.separator();
            let result = match s.host.prompt.clone() {
                Prompt::Continue(text) => {
                    if ui.button(format!("▶ {text}")).clicked() {
                        Some(s.host.click(&s.script, &now))
                    } else {
                        None
                    }
                }
                Prompt::Choose(options) => {
                    let mut picked = None;
                    for (key, text) in &options {
                        if ui.button(text).clicked() {
                            picked = Some(key.clone());
                        }
                    }
                    picked.map(|k| s.host.choose(&s.script, &now, &k))
                }
                Prompt::Type => {
                    let mut send = false;
                    ui.horizontal(|ui| {
                        let edit = ui.add(
                            egui::TextEdit::singleline(&mut panel.text)
                                .hint_text("说点什么…")
                                .desired_width(300.0),
                        );
                        send = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        send |= ui.button("发送").clicked();
                    });
                    let text = panel.text.trim().to_string();
                    if send && !text.is_empty() {
                        panel.text.clear();
                        Some(s.host.say(&s.script, &now, &text))
                    } else {
                        None
                    }
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
            };
            if let Some(Err(e)) = result {
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

fn var_rows(ui: &mut egui::Ui, scope: &str, vars: &std::collections::BTreeMap<String, Var>) {
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

fn state_panel(mut contexts: EguiContexts, mut panel: ResMut<CounselPanel>) -> Result {
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
            egui::CollapsingHeader::new("话题队列")
                .default_open(true)
                .show(ui, |ui| {
                    for f in st.frames.iter().rev() {
                        ui.label(format!("▶ 进行中：{}/{}", f.stage, f.goal.goal));
                        for g in &f.before {
                            ui.label(format!("    ＋ 先做：{}", g.goal));
                        }
                    }
                    for run in &st.stages {
                        ui.label(format!(
                            "{} {}",
                            if run.entered { "●" } else { "○" },
                            run.stage
                        ));
                        for g in &run.queue {
                            let inserted = if g.skill.is_some() { "＋ 插入 " } else { "" };
                            ui.label(format!("    {inserted}{}", g.goal));
                        }
                    }
                });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::residents::Persona;

    /// The guardian spirit of the default town: a talk started as the
    /// inspector's button does, driven to the end by the player's inputs with
    /// the LLM steps answered offline by the `drive` system.
    #[test]
    fn the_player_talks_with_the_guardian_to_the_end() {
        let mut app = crate::window::testing::view_app();
        app.add_plugins(plugin);
        app.update();
        let world = app.world_mut();
        let guardian = world
            .query::<&Persona>()
            .iter(world)
            .find(|p| p.counsel.is_some())
            .expect("a counsellor in the default town")
            .0
            .clone();
        assert_eq!(guardian.name, "守望精灵");
        let now = world.resource::<Clock>().now;
        world.resource_mut::<CounselPanel>().start(&guardian, now);
        assert!(world.resource::<CounselPanel>().error.is_none());
        let mut turns = 0;
        loop {
            app.update();
            turns += 1;
            assert!(turns < 400, "stuck");
            let mut panel = app.world_mut().resource_mut::<CounselPanel>();
            let s = panel.session.as_mut().unwrap();
            let now = "2026-04-06 10:00:00";
            match s.host.prompt.clone() {
                Prompt::Done => break,
                Prompt::Thinking => {}
                Prompt::Continue(_) => s.host.click(&s.script, now).unwrap(),
                Prompt::Choose(o) => s.host.choose(&s.script, now, &o[0].0).unwrap(),
                Prompt::Type => s
                    .host
                    .say(&s.script, now, "我最近睡不好，总担心考试。")
                    .unwrap(),
            }
        }
        let panel = app.world().resource::<CounselPanel>();
        let s = panel.session.as_ref().unwrap();
        assert!(
            s.host.offline_replies > 0,
            "the drive system answered the LLM steps"
        );
        assert!(
            s.host
                .shown
                .iter()
                .filter(|l| matches!(l, Shown::Line { .. }))
                .count()
                > 3
        );
    }

    /// The panel after "talk" on a resident whose counsel scripts are in `dir`.
    fn started(dir: &std::path::Path) -> CounselPanel {
        let mut profile = (*crate::headless::default_scenario().residents[0]).clone();
        profile.counsel = Some(crate::scenario::Counsel {
            dir: dir.to_path_buf(),
            session: None,
        });
        let mut panel = CounselPanel::default();
        panel.start(&profile, GameTime(0));
        panel
    }

    #[test]
    fn a_broken_script_set_is_reported_not_started() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.yaml"), "sessions:\n- session: 坏\n  stages:\n  - stage: 一\n    steps:\n    - goal: 开场\n      actions:\n      - say: 你好\n        tone: 温和\n").unwrap();
        let panel = started(dir.path());
        assert!(panel.session.is_none());
        let error = panel.error.unwrap();
        assert!(
            error.contains("s.yaml:") && error.contains("error["),
            "{error}"
        );
    }

    /// A script edited on disk mid-session is picked up where the session
    /// stands; a broken edit is reported and the last good version runs on.
    #[test]
    fn an_edited_script_set_goes_on_mid_session_and_a_broken_edit_is_held_off() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.yaml");
        let script = |second: &str| {
            format!(
                "sessions:\n- session: 试\n  stages:\n  - stage: 一\n    steps:\n    - goal: 开场\n      actions:\n      - say: 你好\n      - user_say: 好的\n      - say: {second}\n      - user_say: 继续\n      - say: 结束\n"
            )
        };
        std::fs::write(&file, script("第二句")).unwrap();
        let mut panel = started(dir.path());
        let s = panel.session.as_mut().expect("started");
        let now = "2026-04-06 10:00:00";
        assert_eq!(s.host.prompt, Prompt::Continue("好的".into()));
        // An unchanged set is no reload.
        s.reload();
        assert_eq!(s.host.shown.len(), 1);
        std::fs::write(&file, script("改过的第二句")).unwrap();
        s.reload();
        assert!(s.script_error.is_none());
        s.host.click(&s.script, now).unwrap();
        let said = |s: &Session, text: &str| {
            s.host
                .shown
                .iter()
                .any(|l| matches!(l, Shown::Line { text: t, .. } if t == text))
        };
        assert!(said(s, "改过的第二句"), "{:?}", s.host.shown);
        std::fs::write(&file, script("坏的\n        tone: 温和")).unwrap();
        s.reload();
        let error = s.script_error.clone().expect("reported");
        assert!(error.contains("s.yaml:"), "{error}");
        s.host.click(&s.script, now).unwrap();
        assert!(said(s, "结束"), "the last good version runs on");
        assert_eq!(s.host.prompt, Prompt::Done);
    }
}
