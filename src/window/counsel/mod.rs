//! Talking with a counsellor resident (the valley's guardian spirit): the
//! inspector's "talk" button starts its HEART RULE session; the chat panel
//! shows the lines, option buttons and a text box; the script-state panel
//! shows where the session is, the goal queues (inserted goals marked) and
//! every variable by scope, as the design's debugging page does.
//!
//! LLM steps go to the configured endpoint through the run's calls
//! (recorded with them; never blocking a frame); with none, or when a call fails, the engine's
//! built-in offline answers serve.

mod panels;

use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

use super::ViewSet;
use crate::base::time::GameTime;
use crate::context::{Budgeting, PromptBudget};
use crate::llm::calls::{Calls, Ticket};
use crate::llm::pool::Pool;
use crate::llm::script::step_request;
use crate::scenario::{Profile, ResidentId};
use crate::script::engine::Course;
use crate::script::engine::Script;
use crate::script::host::{Host, Shown};
use crate::sim::clock::Clock;
use crate::sim::companion::CounselCourses;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CounselPanel>()
        .init_resource::<CounselCourses>()
        .add_systems(
            Update,
            (reload_script, drive, keep_record, log_warnings)
                .chain()
                .in_set(ViewSet::Sync),
        )
        .add_systems(
            EguiPrimaryContextPass,
            (panels::chat_panel, panels::state_panel),
        );
}

/// The talk in progress (at most one) and the panels' state.
#[derive(Resource, Default)]
pub(crate) struct CounselPanel {
    pub(crate) session: Option<Session>,
    /// What the player is typing.
    pub(crate) text: String,
    pub(crate) show_state: bool,
    /// Why the last talk could not start (script diagnostics included).
    pub(crate) error: Option<String>,
}

pub(crate) struct Session {
    pub(crate) resident: ResidentId,
    pub(crate) name: String,
    /// The script set's folder, re-read when it changes on disk.
    pub(crate) dir: std::path::PathBuf,
    pub(crate) script: Arc<Script>,
    /// The set on disk is broken: its diagnostics (the session runs on the
    /// last good version).
    pub(crate) script_error: Option<String>,
    pub(crate) host: Host,
    /// The call under way and the engine request it answers.
    inflight: Option<(Ticket, u64)>,
    /// The host's warnings already logged.
    warned: usize,
}

/// The endpoint counselling calls go to, when an LLM is configured.
#[derive(Resource)]
pub(crate) struct CounselMind {
    calls: Calls,
    endpoint: Arc<Pool>,
    temperature: f32,
}

impl CounselMind {
    pub(super) fn new(settings: &crate::llm::LlmSettings) -> Option<Self> {
        let endpoint = settings.default.clone()?;
        let calls = Calls::start(settings).ok()?;
        Some(Self {
            calls,
            endpoint: Arc::new(endpoint),
            temperature: settings.temperature,
        })
    }
}

impl CounselMind {
    /// How the counselling prompts are counted and cut: the town's budget,
    /// in the endpoint's tokens (estimated without an endpoint).
    pub(crate) fn budgeting(mind: Option<&Self>, budget: &PromptBudget) -> Budgeting {
        Budgeting::for_endpoint(budget, mind.map(|m| m.endpoint.model()))
    }
}

impl CounselPanel {
    /// Starts `profile`'s session, the next of the player's `course` with
    /// it, its prompts cut to `budgeting`; script errors end up in `error`.
    pub(super) fn start(
        &mut self,
        profile: &Profile,
        now: GameTime,
        budgeting: Budgeting,
        course: &Course,
    ) {
        self.error = None;
        self.session = None;
        let Some(counsel) = &profile.counsel else {
            return;
        };
        let script = match Script::load_clean(&counsel.dir) {
            Ok(s) => Arc::new(s),
            // The folder is gone (a town opened from a save): the set as
            // the scenario was loaded with it.
            Err(_) if !counsel.dir.exists() => Arc::clone(&counsel.script),
            Err(errors) => {
                self.error = Some(errors.join("\n"));
                return;
            }
        };
        let order = counsel.order(&script);
        let Some(session) = course.next_session(&order) else {
            self.error = Some(format!("{}: no session to play", counsel.dir.display()));
            return;
        };
        match Host::start_course(&script, session, course, &now.seconds_text(), budgeting) {
            Ok(host) => {
                self.session = Some(Session {
                    resident: profile.id.clone(),
                    name: profile.name.clone(),
                    dir: counsel.dir.clone(),
                    script,
                    script_error: None,
                    host,
                    inflight: None,
                    warned: 0,
                });
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }
}

/// `--counsel ID`: the talk under way from the first frame, the next
/// session of the player's course with `profile` (as the inspector's button
/// starts it).
pub(super) fn start_at_launch(world: &mut World, profile: &Profile) -> Result<(), String> {
    if profile.counsel.is_none() {
        return Err(format!(
            "`{}` ({}) has no `counsel:` script set to talk through",
            profile.id, profile.name
        ));
    }
    let budgeting = CounselMind::budgeting(
        world.get_resource::<CounselMind>(),
        &world.resource::<crate::sim::town::ActiveTuning>().0.prompt,
    );
    let course = world
        .get_resource::<CounselCourses>()
        .and_then(|c| c.0.get(&profile.id))
        .cloned()
        .unwrap_or_default();
    let now = world.resource::<Clock>().now;
    let mut panel = world.resource_mut::<CounselPanel>();
    panel.start(profile, now, budgeting, &course);
    match panel.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Session {
    /// Re-reads the script set after an edit on disk. A clean set replaces the
    /// running one and the session goes on at the same action (the engine
    /// finds it by its id); a broken one is reported and the last good
    /// version runs on.
    pub(super) fn reload(&mut self) {
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

/// A finished session's record joins the player's course with its
/// counsellor (kept by the save; the next talk goes on from it).
/// The engine's warnings go to the log (stderr), never into the talk.
fn log_warnings(mut panel: ResMut<CounselPanel>) {
    let Some(s) = panel.session.as_mut() else {
        return;
    };
    for w in &s.host.warnings[s.warned.min(s.host.warnings.len())..] {
        warn!("counselling script {}: {w}", s.dir.display());
    }
    s.warned = s.host.warnings.len();
}

fn keep_record(mut panel: ResMut<CounselPanel>, mut courses: ResMut<CounselCourses>) {
    let Some(s) = panel.session.as_mut() else {
        return;
    };
    if let Some(record) = s.host.recorded.take() {
        let course = courses.0.entry(s.resident.clone()).or_default();
        course.sessions.push(record);
    }
}

/// Answers the session's LLM steps: with the model when there is one, else
/// (or on failure) offline.
fn drive(
    mut panel: ResMut<CounselPanel>,
    clock: Res<Clock>,
    mut mind: Option<ResMut<CounselMind>>,
) {
    let now = clock.now.seconds_text();
    let Some(s) = panel.session.as_mut() else {
        return;
    };
    if let (Some(mind), Some((ticket, request))) = (mind.as_mut(), s.inflight) {
        let Some(result) = mind.calls.take(ticket) else {
            return;
        };
        s.inflight = None;
        let r = match result {
            Ok(reply) => s.host.reply(&s.script, &now, request, reply.content),
            Err(e) => {
                warn!("counselling call failed, answering offline: {e}");
                s.host.reply_offline(&s.script, &now)
            }
        };
        if let Err(e) = r {
            warn!("counselling session: {e}");
        }
        return;
    }
    let Some(req) = s.host.pending().cloned() else {
        return;
    };
    match mind {
        Some(mind) => {
            let request = step_request(
                req.prompt.clone(),
                400,
                req.schema.as_ref(),
                mind.temperature,
            );
            let ticket = mind.calls.send(&mind.endpoint, request, None);
            s.inflight = Some((ticket, req.id));
        }
        None => {
            if let Err(e) = s.host.reply_offline(&s.script, &now) {
                warn!("counselling session: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::host::Prompt;
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
        world.resource_mut::<CounselPanel>().start(
            &guardian,
            now,
            Budgeting::default(),
            &Course::default(),
        );
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
        app.update();
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
        // The session joined the player's course with the guardian: the next
        // talk is its `next:` session, and it remembers the traveller.
        let world = app.world_mut();
        let course = world.resource::<CounselCourses>().0[&guardian.id].clone();
        assert_eq!(course.sessions.len(), 1);
        assert_eq!(course.sessions[0].session, "初次会谈");
        let mut panel = world.resource_mut::<CounselPanel>();
        panel.start(&guardian, now, Budgeting::default(), &course);
        let s = panel.session.as_ref().expect("a second talk");
        assert_eq!(s.host.state.session, "再次会谈");
        let greeting = s.host.shown.iter().find_map(|l| match l {
            Shown::Line { text, .. } => Some(text.clone()),
            _ => None,
        });
        assert!(
            greeting.as_deref().is_some_and(|g| g.contains("你回来了")),
            "{:?}",
            s.host.shown
        );
    }

    /// The panel after "talk" on a resident whose counsel scripts are in `dir`.
    fn started(dir: &std::path::Path) -> CounselPanel {
        let mut profile = (*crate::headless::default_scenario().residents[0]).clone();
        profile.counsel = Some(crate::scenario::Counsel {
            dir: dir.to_path_buf(),
            script: Default::default(),
            session: None,
            next: None,
        });
        let mut panel = CounselPanel::default();
        panel.start(
            &profile,
            GameTime(0),
            Budgeting::default(),
            &Course::default(),
        );
        panel
    }

    /// A town opened from a save has no scenario folder on disk: the talk
    /// plays the set the save keeps.
    #[test]
    fn a_town_opened_from_a_save_talks_through_the_set_it_keeps() {
        let scenario = crate::headless::default_scenario();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
        let source = crate::save::TownSource::folder(&dir, &scenario).unwrap();
        let loaded = source.load().unwrap();
        let guardian = loaded
            .residents
            .iter()
            .find(|p| p.counsel.is_some())
            .unwrap();
        assert!(!guardian.counsel.as_ref().unwrap().dir.exists());
        let mut panel = CounselPanel::default();
        panel.start(
            guardian,
            GameTime(0),
            Budgeting::default(),
            &Course::default(),
        );
        assert!(panel.error.is_none(), "{:?}", panel.error);
        assert_eq!(panel.session.unwrap().host.state.session, "初次会谈");
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
        // The talk is part of the player's course: its summary is asked last.
        assert_eq!(s.host.prompt, Prompt::Thinking);
        s.host.reply_offline(&s.script, now).unwrap();
        assert_eq!(s.host.prompt, Prompt::Done);
        assert_eq!(s.host.recorded.as_ref().unwrap().session, "试");
    }
}
