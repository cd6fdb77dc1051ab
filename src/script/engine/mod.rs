//! The HEART RULE engine: a resumable state machine with no Bevy, no threads
//! and no I/O. The host calls [`Engine::resume`] with an [`Input`] (start,
//! continue, a choice, the human's text, an LLM reply) and gets back
//! [`Effect`]s (lines, prompts, choices, LLM requests, variable changes, goals
//! entered and left) until the engine waits again. Its whole [`State`] is a
//! plain serde struct, positions stored by names, so a save resumes at the
//! same action.
//!
//! - [`protocol`]: inputs, effects, the state;
//! - [`script`]: the loaded set;
//! - `vars`: scopes, interpolation, conditions;
//! - `flow`: inputs accepted, goals and stages entered and left;
//! - `call`: `call` actions and their timings (and `rules.yaml`);
//! - `course`: memory across sessions (persisted globals, forms, summaries);
//! - `fill`: `fill` actions, a form filled in by the human field by field;
//! - `prompt`: a step's prompt from the context builder's layers;
//! - `llm_steps`: the requests of `ai_say`, `ai_ask`, `think`, `ask` and their answers;
//! - `auto`: `auto: true` variables brought up to date at a goal's end and
//!   before an action reads them;
//! - `offline`: the built-in answers when no model is configured.

mod auto;
mod call;
mod course;
mod fill;
mod flow;
mod llm_steps;
mod offline;
mod prompt;
pub mod protocol;
pub mod script;
mod vars;

use std::collections::BTreeMap;

pub use course::{Course, SessionRecord};
pub use offline::{offline_question, offline_reply, offline_say};
pub use protocol::{
    CHAT_KEEP, ChatLine, Effect, EngineError, FormFields, Frame, GoalRef, Input, LlmKind,
    LlmRequest, STATE_VERSION, STEP_BUDGET, SkillCall, StageRun, State, Var, Wait,
};
pub use script::Script;
pub use vars::client_text;

use crate::script::format::{Action, ActionKind, Step};
use script::action_id;
use vars::decl_vars;

/// Runs one script with one state.
pub struct Engine<'a> {
    /// The script set.
    pub script: &'a Script,
    /// The current time, to the second, for prompts (the host's clock).
    pub now: String,
    /// The prompts' token budget, counted as the host's model counts.
    pub budgeting: crate::context::Budgeting,
}

impl Engine<'_> {
    /// A fresh state at the start of `session`.
    pub fn start(&self, session: &str) -> Result<State, EngineError> {
        let s = self
            .script
            .session(session)
            .ok_or_else(|| EngineError::NoSession(session.to_string()))?;
        let stages = s
            .stages
            .iter()
            .map(|st| StageRun {
                stage: st.stage.value.clone(),
                queue: st
                    .steps
                    .iter()
                    .map(|g| GoalRef {
                        goal: g.goal.value.clone(),
                        skill: None,
                    })
                    .collect(),
                entered: false,
                entered_at: None,
                overtime: false,
            })
            .collect();
        Ok(self.fresh(session, stages, decl_vars(&s.declare)))
    }

    /// A fresh state that runs one skill on its own, its variables set from
    /// `inputs` (a resident's conversation in the town, not a session). The
    /// run's session and only stage are both named after the skill.
    pub fn start_skill(
        &self,
        skill: &str,
        inputs: BTreeMap<String, String>,
    ) -> Result<State, EngineError> {
        if !self.script.skills.contains_key(skill) {
            return Err(EngineError::NoSkill(skill.to_string()));
        }
        let stage = StageRun {
            stage: skill.to_string(),
            queue: vec![GoalRef {
                goal: skill.to_string(),
                skill: Some(SkillCall {
                    inputs,
                    outputs: Vec::new(),
                    item: None,
                }),
            }],
            entered: false,
            entered_at: None,
            overtime: false,
        };
        Ok(self.fresh(skill, vec![stage], BTreeMap::new()))
    }

    fn fresh(
        &self,
        session: &str,
        stages: Vec<StageRun>,
        session_vars: BTreeMap<String, Var>,
    ) -> State {
        let (ai, human) = self.script.default_roles();
        State {
            version: STATE_VERSION,
            script_hash: self.script.hash,
            session: session.to_string(),
            stages,
            frames: Vec::new(),
            global: decl_vars(&self.script.global),
            session_vars,
            stage_vars: BTreeMap::new(),
            chat: Vec::new(),
            said: 0,
            ai_role: ai,
            scene: None,
            wait: Wait::Start,
            next_request: 0,
            pending: None,
            auto_from: 0,
            forms: BTreeMap::new(),
            human_role: human,
            given: Default::default(),
            set_at: BTreeMap::new(),
            rules_fired: Vec::new(),
            course: None,
        }
    }

    /// Hands in `input`; runs until the engine waits again.
    pub fn resume(&self, st: &mut State, input: Input) -> Result<Vec<Effect>, EngineError> {
        if st.script_hash != self.script.hash && st.version != STATE_VERSION {
            return Err(EngineError::OtherScript {
                saved: st.script_hash,
                now: self.script.hash,
            });
        }
        let mut fx = Vec::new();
        if st.script_hash != self.script.hash {
            self.relocate(st, &mut fx);
        }
        self.accept(st, input, &mut fx)?;
        self.run(st, &mut fx)?;
        self.mark_places(st);
        Ok(fx)
    }

    /// Records each frame's action id, for [`Engine::relocate`].
    fn mark_places(&self, st: &mut State) {
        for i in 0..st.frames.len() {
            let f = &st.frames[i];
            let id = self
                .script
                .goal(st, f)
                .and_then(|g| g.actions.get(f.action))
                .map_or_else(String::new, action_id);
            st.frames[i].action_id = id;
        }
    }

    /// The script was edited since this state was saved (a hot reload): each
    /// frame goes to the action with its recorded id nearest its old index,
    /// so lines added or removed elsewhere in the goal do not shift it.
    fn relocate(&self, st: &mut State, fx: &mut Vec<Effect>) {
        for i in 0..st.frames.len() {
            let f = &st.frames[i];
            if f.action_id.is_empty() {
                continue;
            }
            let Some(goal) = self.script.goal(st, f) else {
                continue;
            };
            if goal.actions.get(f.action).map(action_id).as_ref() == Some(&f.action_id) {
                continue;
            }
            let found = goal
                .actions
                .iter()
                .enumerate()
                .filter(|(_, a)| action_id(a) == f.action_id)
                .min_by_key(|(j, _)| j.abs_diff(f.action))
                .map(|(j, _)| j);
            match found {
                Some(j) => st.frames[i].action = j,
                None => fx.push(Effect::Warning {
                    message: format!(
                        "the action `{}` of goal `{}` is gone from the script; going on at its old place",
                        f.action_id, f.goal.goal
                    ),
                }),
            }
        }
        st.script_hash = self.script.hash;
    }

    /// Runs actions until something must be waited for.
    fn run(&self, st: &mut State, fx: &mut Vec<Effect>) -> Result<(), EngineError> {
        let mut budget = STEP_BUDGET;
        while st.wait == Wait::Start {
            budget = budget.checked_sub(1).ok_or(EngineError::Runaway)?;
            self.run_once(st, fx);
        }
        Ok(())
    }

    /// One move: into the next goal, into a goal a call put before the
    /// current one, out of a finished goal, or one action.
    fn run_once(&self, st: &mut State, fx: &mut Vec<Effect>) {
        if st.frames.is_empty() {
            return self.next_goal(st, fx);
        }
        if let Some(f) = st.frames.last_mut()
            && !f.before.is_empty()
        {
            let g = f.before.remove(0);
            let stage = f.stage.clone();
            return self.enter(st, g, stage, fx);
        }
        let f = st.frames.last().expect("checked");
        let Some(goal) = self.script.goal(st, f) else {
            // The goal vanished (edited script): leave it.
            fx.push(Effect::Warning {
                message: format!("goal `{}` is no longer in the script", f.goal.goal),
            });
            st.frames.pop();
            return;
        };
        let Some(action) = goal.actions.get(f.action) else {
            if !f.updated && self.script.has_auto {
                return self.update_auto(st, fx);
            }
            return self.leave_goal(st, fx);
        };
        if self.script.has_auto && self.update_before(st, fx) {
            return;
        }
        if !self.condition_holds(st, action, fx) {
            return self.advance(st);
        }
        match action.step() {
            Some(step) => self.act(st, action, step, fx),
            None => self.advance(st),
        }
    }

    /// Runs one action.
    fn act(&self, st: &mut State, action: &Action, step: Step<'_>, fx: &mut Vec<Effect>) {
        match step {
            Step::Say(text) => {
                let text = self.interpolate(st, text, fx);
                self.ai_line(st, text, ActionKind::Say, fx);
                self.advance(st);
            }
            Step::UserSay(text) => {
                let text = self.interpolate(st, text, fx);
                fx.push(Effect::UserSay { text });
                st.wait = Wait::Continue;
            }
            Step::UserOption(var) => self.offer_choices(st, action, var, fx),
            Step::Ask(question) => {
                let text = self.interpolate(st, question, fx);
                self.ai_line(st, text, ActionKind::Ask, fx);
                fx.push(Effect::AwaitText);
                st.wait = Wait::Text;
            }
            Step::AiSay(task) => self.request_line(st, action, task, fx),
            Step::AiAsk(_) => self.request_round(st, fx),
            Step::Think(_) => self.request_outputs(st, LlmKind::Extract, fx),
            Step::Call(skill) => self.call(st, action, skill, fx),
            Step::Fill(form) => self.fill_next(st, action, form, fx),
            Step::Scene(scene) => {
                if let Some(s) = scene {
                    st.scene = Some(self.interpolate(st, s, fx));
                }
                if let Some(ai) = &action.ai {
                    st.ai_role = ai.value.clone();
                }
                self.advance(st);
            }
        }
    }
}
