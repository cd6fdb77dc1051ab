//! How a run moves: the input the engine waited for, the chat, the next
//! action, goals and stages entered and left.

use std::collections::BTreeMap;

use super::Engine;
use super::protocol::LlmKind;
use super::protocol::{
    CHAT_KEEP, CHAT_MOST, ChatLine, Effect, EngineError, Frame, GoalRef, Input, SkillCall,
};
use super::protocol::{State, Var, Wait};
use super::vars::decl_vars;
use crate::script::format::{Action, ActionKind};

impl Engine<'_> {
    /// Applies the input to the action that was waiting for it.
    pub(super) fn accept(
        &self,
        st: &mut State,
        input: Input,
        fx: &mut Vec<Effect>,
    ) -> Result<(), EngineError> {
        let (_, human) = self.script.default_roles();
        match (&st.wait, &input) {
            (Wait::Start, Input::Start) => self.recall_course(st, fx),
            (Wait::Continue, Input::Continue) => {
                let text = self
                    .current_action(st)
                    .and_then(|a| a.user_say.as_ref())
                    .map(|t| self.interpolate(st, &t.value, fx));
                if let Some(text) = text {
                    self.push_chat(st, &human, &text);
                }
                self.advance(st);
            }
            (Wait::Choice { var, keys }, Input::Choose { key }) => {
                if !keys.contains(key) {
                    return Err(EngineError::BadChoice(key.clone()));
                }
                let var = var.clone();
                let shown = self
                    .current_action(st)
                    .and_then(|a| a.choices.as_ref())
                    .and_then(|c| c.iter().find_map(|m| m.get(key).cloned()))
                    .unwrap_or_else(|| key.clone());
                self.push_chat(st, &human, &shown);
                self.set(st, &var, Var::Text(key.clone()), fx);
                self.advance(st);
                self.apply_rules(st, fx);
            }
            (Wait::Text, Input::Text { text }) => {
                self.push_chat(st, &human, text);
                // A `NOW` rule ends the goal the answer was for.
                if self.apply_rules(st, fx) {
                    st.wait = Wait::Start;
                } else {
                    self.answered(st, fx);
                }
                return Ok(());
            }
            (Wait::Llm { id }, Input::LlmReply { id: got, text }) if id == got => {
                self.llm_reply(st, text, fx);
                return Ok(());
            }
            _ => {
                return Err(EngineError::WrongInput {
                    wanted: format!("{:?}", st.wait),
                    got: format!("{input:?}"),
                });
            }
        }
        st.wait = Wait::Start;
        Ok(())
    }

    /// The human answered in their own words.
    fn answered(&self, st: &mut State, fx: &mut Vec<Effect>) {
        match self.current_action(st).and_then(Action::kind) {
            // After `ask`, the outputs are extracted from the answer.
            Some(ActionKind::Ask) => self.request_outputs(st, LlmKind::Extract, fx),
            // The answer to `ai_ask`'s last question: what it holds is extracted.
            Some(ActionKind::AiAsk) if st.frames.last().is_some_and(|f| f.closing) => {
                self.request_outputs(st, LlmKind::Extract, fx)
            }
            // Another round of `ai_ask`.
            Some(ActionKind::AiAsk) => self.request_round(st, fx),
            // A field of the form `fill` asks for.
            Some(ActionKind::Fill) => self.fill_answered(st, fx),
            _ => self.advance(st),
        }
    }

    /// `user_option`: shows the choices and waits for one.
    pub(super) fn offer_choices(
        &self,
        st: &mut State,
        action: &Action,
        var: &str,
        fx: &mut Vec<Effect>,
    ) {
        let options: Vec<(String, String)> = action
            .choices
            .iter()
            .flatten()
            .flat_map(|m| m.iter())
            .map(|(k, v)| (k.clone(), self.interpolate(st, v, fx)))
            .collect();
        st.wait = Wait::Choice {
            var: var.to_string(),
            keys: options.iter().map(|(k, _)| k.clone()).collect(),
        };
        fx.push(Effect::Choices {
            var: var.to_string(),
            options,
        });
    }

    /// The action the innermost goal is at.
    pub(super) fn current_action<'s>(&'s self, st: &State) -> Option<&'s Action> {
        let f = st.frames.last()?;
        self.script.goal(st, f)?.actions.get(f.action)
    }

    /// `session/stage/goal#action` of the innermost goal.
    pub(super) fn path(&self, st: &State) -> String {
        match st.frames.last() {
            Some(f) => format!("{}/{}/{}#{}", st.session, f.stage, f.goal.goal, f.action),
            None => st.session.clone(),
        }
    }

    /// On to the next action.
    pub(super) fn advance(&self, st: &mut State) {
        if let Some(f) = st.frames.last_mut() {
            f.action += 1;
            f.rounds = 0;
            f.closing = false;
            f.action_from = st.said;
        }
        st.wait = Wait::Start;
    }

    /// The speaking AI role says `text`: into the chat, and shown.
    pub(super) fn ai_line(
        &self,
        st: &mut State,
        text: String,
        action: ActionKind,
        fx: &mut Vec<Effect>,
    ) {
        let role = st.ai_role.clone();
        let path = self.path(st);
        self.push_chat(st, &role, &text);
        fx.push(Effect::Line {
            role,
            text,
            action,
            path,
        });
    }

    fn push_chat(&self, st: &mut State, role: &str, text: &str) {
        st.chat.push(ChatLine {
            role: role.to_string(),
            text: text.to_string(),
        });
        st.said += 1;
        // The recent lines, and every line of a goal still running (up to a cap).
        let goal_from = st.frames.iter().map(|f| f.chat_from).min();
        let keep_from = goal_from
            .unwrap_or(st.said)
            .min(st.said.saturating_sub(CHAT_KEEP))
            .max(st.said.saturating_sub(CHAT_MOST));
        let first = st.said - st.chat.len();
        if keep_from > first {
            st.chat.drain(..keep_from - first);
        }
    }

    /// Enters the next goal of the current stage, or the next stage, or ends.
    pub(super) fn next_goal(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(i) = st
            .stages
            .iter()
            .position(|s| !s.queue.is_empty() || !s.entered)
        else {
            if self.request_summary(st, fx) {
                return;
            }
            st.wait = Wait::Done;
            fx.push(Effect::SessionEnded);
            return;
        };
        if !st.stages[i].entered {
            st.stages[i].entered = true;
            let name = st.stages[i].stage.clone();
            st.stage_vars = self
                .script
                .session(&st.session)
                .and_then(|s| s.stages.iter().find(|x| x.stage.value == name))
                .map_or_else(BTreeMap::new, |x| decl_vars(&x.declare));
            fx.push(Effect::StageEntered { stage: name });
            st.stages[i].entered_at = Some(self.now.clone());
        }
        self.check_overtime(st, i, fx);
        if st.stages[i].queue.is_empty() {
            return;
        }
        let g = st.stages[i].queue.remove(0);
        let stage = st.stages[i].stage.clone();
        self.enter(st, g, stage, fx);
    }

    /// A stage whose time budget has run out skips, once, the goals of its
    /// own it has not begun (those marked `keep: true` stay, and so do the
    /// skills calls put in its queue: a crisis check is never dropped for
    /// time); its `overtime` skill, if it names one, runs first.
    fn check_overtime(&self, st: &mut State, i: usize, fx: &mut Vec<Effect>) {
        let run = &st.stages[i];
        let stage = self
            .script
            .session(&st.session)
            .and_then(|s| s.stages.iter().find(|x| x.stage.value == run.stage));
        let Some((stage, minutes)) = stage.and_then(|s| Some((s, s.minutes.as_ref()?.value)))
        else {
            return;
        };
        let elapsed = run
            .entered_at
            .as_deref()
            .and_then(|t| minutes_between(t, &self.now));
        if run.overtime || elapsed.is_none_or(|e| e < i64::from(minutes)) {
            return;
        }
        let kept = |g: &GoalRef| {
            g.skill.is_some()
                || self
                    .script
                    .stage_goal(&st.session, &run.stage, &g.goal)
                    .is_some_and(|x| x.keep == Some(true))
        };
        let (mut queue, skipped): (Vec<GoalRef>, Vec<GoalRef>) =
            run.queue.iter().cloned().partition(kept);
        if let Some(skill) = &stage.overtime {
            let call = SkillCall {
                inputs: BTreeMap::new(),
                outputs: Vec::new(),
                item: None,
            };
            queue.insert(
                0,
                GoalRef {
                    goal: skill.value.clone(),
                    skill: Some(call),
                },
            );
        }
        fx.push(Effect::StageOvertime {
            stage: run.stage.clone(),
            minutes,
            skipped: skipped.into_iter().map(|g| g.goal).collect(),
        });
        st.stages[i].queue = queue;
        st.stages[i].overtime = true;
    }

    /// Starts goal `g` of `stage`: its variables declared, a call's inputs set.
    pub(super) fn enter(&self, st: &mut State, g: GoalRef, stage: String, fx: &mut Vec<Effect>) {
        let decl = match &g.skill {
            Some(_) => self
                .script
                .skills
                .get(&g.goal)
                .and_then(|x| x.declare.clone()),
            None => self
                .script
                .stage_goal(&st.session, &stage, &g.goal)
                .and_then(|x| x.declare.clone()),
        };
        let mut vars = decl_vars(decl.as_deref().unwrap_or_default());
        if let Some(call) = &g.skill {
            for (k, v) in &call.inputs {
                vars.insert(k.clone(), Var::Text(v.clone()));
            }
        }
        let inserted = g.skill.is_some();
        fx.push(Effect::GoalEntered {
            path: format!("{}/{}/{}", st.session, stage, g.goal),
            inserted,
        });
        st.frames.push(Frame {
            goal: g,
            stage,
            action: 0,
            action_id: String::new(),
            rounds: 0,
            vars,
            chat_from: st.said,
            action_from: st.said,
            before: Vec::new(),
            after: Vec::new(),
            updated: false,
            closing: false,
            updated_before: None,
        });
    }

    /// A goal is done: a skill writes its outputs back to the caller (or its list item).
    pub(super) fn leave_goal(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let path = self.path(st);
        // A skill's outputs are read in its own scope, before it goes.
        let call = st.frames.last().and_then(|f| f.goal.skill.clone());
        let values: Vec<(String, String)> = call
            .iter()
            .flat_map(|c| &c.outputs)
            .map(|(caller, template)| (caller.clone(), self.interpolate(st, template, fx)))
            .collect();
        let Some(left) = st.frames.pop() else { return };
        // What its AFTER_GOAL calls put after it runs next: before the caller
        // goes on, or first in the stage.
        match st.frames.last_mut() {
            Some(caller) => {
                caller.before.splice(0..0, left.after);
            }
            None => {
                if let Some(run) = st.stages.iter_mut().find(|r| r.stage == left.stage) {
                    run.queue.splice(0..0, left.after);
                }
            }
        }
        // Left first: the write-back below happens in the caller's goal.
        fx.push(Effect::GoalLeft {
            path: path
                .rsplit_once('#')
                .map_or(path.clone(), |(p, _)| p.to_string()),
        });
        let Some(call) = call else { return };
        match &call.item {
            Some((list, i)) => {
                if let Some(Var::List(mut items)) = self.lookup(st, list) {
                    if let Some(item) = items.get_mut(*i) {
                        for (k, v) in values {
                            item.insert(k, v);
                        }
                    }
                    self.set(st, list, Var::List(items), fx);
                }
            }
            None => {
                for (k, v) in values {
                    self.set(st, &k, Var::Text(v), fx);
                }
            }
        }
        // The paused goal (BEFORE_GOAL) resumes where it was.
    }
}

/// Whole minutes from one host time (`YYYY-MM-DD HH:MM:SS`, perhaps with
/// the zone after it: the terminal's `… +08:00`) to another; None when
/// either does not read as one.
fn minutes_between(from: &str, to: &str) -> Option<i64> {
    let read = |t: &str| {
        let t = t.trim();
        let stamp = t.get(..19).unwrap_or(t);
        chrono::NaiveDateTime::parse_from_str(stamp, "%Y-%m-%d %H:%M:%S").ok()
    };
    Some((read(to)? - read(from)?).num_minutes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_times_read_with_or_without_their_zone() {
        use super::minutes_between;
        let at = |t: &str| format!("2026-11-26 {t}");
        assert_eq!(minutes_between(&at("10:00:00"), &at("10:21:30")), Some(21));
        assert_eq!(
            minutes_between(&at("10:00:00 +08:00"), &at("10:20:00 +08:00")),
            Some(20)
        );
        assert_eq!(minutes_between("下午", &at("10:00:00")), None);
    }
}
