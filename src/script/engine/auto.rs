//! `auto: true` variables: at a goal's end, and before an action that reads
//! one the human may have spoken of since it was last set, those in scope
//! that the rest of the run still uses are re-read from the chat since the
//! last update, so a later question does not ask again what was said, and a
//! correction replaces what was noted. A variable stops updating after its
//! last use — and one a form field is filled from is read by the form at
//! the end, so it keeps updating to the end (a goal's own too).

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json};

use super::Engine;
use super::prompt::StepPrompt;
use super::protocol::{ChatLine, Effect, LlmKind, LlmRequest, State, Var};
use crate::script::format::VarDecl;

/// Variables used by what runs from now on: in the current goal (from the
/// action about to run; none at its end), in its stage, and anywhere later.
struct LaterUses {
    in_goal: BTreeSet<String>,
    in_stage: BTreeSet<String>,
    later: BTreeSet<String>,
}

impl Engine<'_> {
    /// Asks for the auto variables' new values (or, with nothing to ask, lets
    /// the goal end).
    pub(super) fn update_auto(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(f) = st.frames.last_mut() else {
            return;
        };
        f.updated = true;
        let stage = f.stage.clone();
        let (_, human) = self.script.default_roles();
        let lines = st.chat_since(st.auto_from);
        if !lines.iter().any(|l| l.role == human) {
            return;
        }
        let uses = self.uses_from(st, &stage, None);
        let wanted = self.auto_wanted(st, &stage, &uses);
        self.request_update(st, &wanted, fx);
    }

    /// Before an action that reads an auto variable the human may have
    /// spoken of since it was last set (once per action): asks for the new
    /// values, and says so (the action then runs when they are in).
    pub(super) fn update_before(&self, st: &mut State, fx: &mut Vec<Effect>) -> bool {
        let Some(f) = st.frames.last_mut() else {
            return false;
        };
        if f.updated_before == Some(f.action) {
            return false;
        }
        f.updated_before = Some(f.action);
        let (action, stage) = (f.action, f.stage.clone());
        let Some(a) = self.current_action(st) else {
            return false;
        };
        let mut reads = BTreeSet::new();
        self.script
            .actions_uses(std::slice::from_ref(a), &mut reads);
        let (_, human) = self.script.default_roles();
        let stale = |name: &String| {
            let set = st.set_at.get(name).copied().unwrap_or(0);
            st.chat_since(set.max(st.auto_from))
                .iter()
                .any(|l| l.role == human)
        };
        let uses = self.uses_from(st, &stage, Some(action));
        let wanted = self.auto_wanted(st, &stage, &uses);
        if !wanted
            .iter()
            .any(|d| reads.contains(&d.var.value) && stale(&d.var.value))
        {
            return false;
        }
        self.request_update(st, &wanted, fx);
        true
    }

    /// Asks for the `wanted` auto variables' new values from the chat since
    /// the last update (with none wanted, nothing).
    fn request_update(&self, st: &mut State, wanted: &[&VarDecl], fx: &mut Vec<Effect>) {
        if wanted.is_empty() {
            return;
        }
        let (_, human) = self.script.default_roles();
        let (known, wants) = self.known_values(st, wanted);
        let prompt = self.update_prompt(st, &known, st.chat_since(st.auto_from), &human);
        self.request(st, LlmKind::Update, prompt, wants, false, fx);
    }

    /// What runs from the current goal's action `from` (None: after the
    /// goal): the rest of it, the rest of the paused goals, and the queues.
    fn uses_from(&self, st: &State, stage: &str, from: Option<usize>) -> LaterUses {
        let mut in_goal = BTreeSet::new();
        if let (Some(i), Some(f)) = (from, st.frames.last())
            && let Some(g) = self.script.goal(st, f)
        {
            self.script
                .actions_uses(g.actions.get(i..).unwrap_or_default(), &mut in_goal);
        }
        let mut in_stage = in_goal.clone();
        let depth = st.frames.len();
        for f in &st.frames[..depth - 1] {
            if let Some(g) = self.script.goal(st, f) {
                self.script
                    .actions_uses(g.actions.get(f.action..).unwrap_or_default(), &mut in_stage);
            }
        }
        for f in &st.frames {
            for g in &f.before {
                self.script
                    .goal_uses(&st.session, &f.stage, g, &mut in_stage);
            }
        }
        let mut later = in_stage.clone();
        for run in &st.stages {
            let into = if run.stage == stage {
                &mut in_stage
            } else {
                &mut later
            };
            for g in &run.queue {
                self.script.goal_uses(&st.session, &run.stage, g, into);
            }
        }
        later.extend(in_stage.iter().cloned());
        LaterUses {
            in_goal,
            in_stage,
            later,
        }
    }

    /// The auto variables worth updating: global and session ones used later,
    /// the stage's own used later in the stage, the goal's own used later in
    /// the goal, and any in scope that a form field is filled from.
    fn auto_wanted<'s>(&'s self, st: &State, stage: &str, uses: &LaterUses) -> Vec<&'s VarDecl> {
        let Some(session) = self.script.session(&st.session) else {
            return Vec::new();
        };
        let in_form = |d: &&VarDecl| self.script.form_fields.contains_key(&d.var.value);
        let stage_decls = session
            .stages
            .iter()
            .filter(|x| x.stage.value == stage)
            .flat_map(|x| &x.declare);
        let goal_decls = st
            .frames
            .last()
            .and_then(|f| self.script.goal(st, f))
            .into_iter()
            .flat_map(|g| g.declare.iter().flatten());
        self.script
            .global
            .iter()
            .chain(&session.declare)
            .filter(|d| uses.later.contains(&d.var.value) || in_form(d))
            .chain(stage_decls.filter(|d| uses.in_stage.contains(&d.var.value) || in_form(d)))
            .chain(goal_decls.filter(|d| uses.in_goal.contains(&d.var.value) || in_form(d)))
            .filter(|d| d.is_auto())
            .collect()
    }

    /// The variables with their values now, as prompt lines, and (name, definition).
    fn known_values(&self, st: &State, wanted: &[&VarDecl]) -> (String, Vec<(String, String)>) {
        let mut known = String::new();
        let wants = wanted
            .iter()
            .map(|d| {
                let name = d.var.value.clone();
                let value = self.lookup(st, &name).map_or(String::new(), |v| v.text());
                known.push_str(&format!(
                    "- {name}（{}）：{}\n",
                    d.define.as_deref().unwrap_or(""),
                    if value.is_empty() {
                        "（还没有）"
                    } else {
                        &value
                    }
                ));
                (name, d.define.clone().unwrap_or_default())
            })
            .collect();
        (known, wants)
    }

    fn update_prompt(
        &self,
        st: &State,
        known: &str,
        lines: &[ChatLine],
        human: &str,
    ) -> StepPrompt {
        self.step_prompt(
            st,
            "你在整理一段对话的记录。".into(),
            format!("现在是{}。\n\n变量和它们现在的值：\n{known}", self.now),
            lines,
            format!(
                "任务：如果上面新的对话里{human}提到了某个变量的信息，或者更正了之前说的，写出更新后的完整值；没有新信息的变量不要写。\n只输出一个 JSON 对象：{{\"vars\": {{变量名: 新的值}}}}"
            ),
        )
    }

    /// The new values, set where they changed (the loop then goes on: at a
    /// goal's end `updated` is set, before an action `updated_before`).
    pub(super) fn update_answered(
        &self,
        st: &mut State,
        req: &LlmRequest,
        vars: &Map<String, Json>,
        fx: &mut Vec<Effect>,
    ) {
        st.auto_from = st.said;
        for (name, _) in &req.wants {
            let Some(v) = vars.get(name).filter(|v| !v.is_null()) else {
                continue;
            };
            let v = Var::from_json(v);
            if v != Var::Text(String::new()) && self.lookup(st, name).as_ref() != Some(&v) {
                self.set(st, name, v, fx);
            }
        }
    }
}
