//! `call`: one goal of the skill per list item (or one), inputs bound in the
//! caller's scope, placed by `timing`.

use super::Engine;
use super::protocol::{Effect, GoalRef, SkillCall, State, Var, json_text};
use crate::script::format::{Action, Output, Timing};

impl Engine<'_> {
    /// Runs the `call` of `skill` in action `a`.
    pub(super) fn call(&self, st: &mut State, a: &Action, skill: &str, fx: &mut Vec<Effect>) {
        let goals = self.call_goals(st, a, skill, fx);
        self.advance(st);
        self.place(st, a, goals, fx);
    }

    /// After an answer of the human: the first rule (`rules.yaml`) whose
    /// condition holds calls its skill, as a `call` would, and is marked
    /// fired (once a session unless `repeat`). Returns whether the running
    /// goal ended (a `NOW` rule).
    pub(super) fn apply_rules(&self, st: &mut State, fx: &mut Vec<Effect>) -> bool {
        for r in &self.script.rules {
            if !r.repeat && st.rules_fired.contains(&r.name) {
                continue;
            }
            let Some(skill) = r.action.call.as_ref().map(|c| c.value.clone()) else {
                continue;
            };
            if !self.condition_holds(st, &r.action, fx) {
                continue;
            }
            st.rules_fired.push(r.name.clone());
            fx.push(Effect::RuleFired {
                rule: r.name.clone(),
                skill: skill.clone(),
            });
            let goals = self.call_goals(st, &r.action, &skill, fx);
            let now = r
                .action
                .timing
                .as_ref()
                .is_none_or(|t| t.value == Timing::Now);
            self.place(st, &r.action, goals, fx);
            return now;
        }
        false
    }

    /// Places `goals` as `a`'s `timing` and `timing_to` say.
    fn place(&self, st: &mut State, a: &Action, goals: Vec<GoalRef>, fx: &mut Vec<Effect>) {
        let timing = a.timing.as_ref().map_or(Timing::Now, |t| t.value);
        let to = a.timing_to.as_ref().map(|t| t.value.clone());
        self.place_calls(st, timing, to, goals, fx);
    }

    /// The goals a call of `skill` in `a` runs: one per list item, or one.
    fn call_goals(
        &self,
        st: &State,
        a: &Action,
        skill: &str,
        fx: &mut Vec<Effect>,
    ) -> Vec<GoalRef> {
        let outputs: Vec<(String, String)> = a
            .output
            .iter()
            .flatten()
            .filter_map(|o: &Output| {
                Some((
                    o.set.as_ref()?.value.clone(),
                    json_text(&o.value.as_ref()?.value),
                ))
            })
            .collect();
        self.call_items(st, a, fx)
            .into_iter()
            .map(|item| GoalRef {
                goal: skill.to_string(),
                skill: Some(SkillCall {
                    inputs: self.call_inputs(st, a, item.as_ref(), fx),
                    outputs: outputs.clone(),
                    item,
                }),
            })
            .collect()
    }

    /// One entry per goal to insert: the list and the item's index with
    /// `fromlist`, else one with none.
    fn call_items(
        &self,
        st: &State,
        a: &Action,
        fx: &mut Vec<Effect>,
    ) -> Vec<Option<(String, usize)>> {
        let Some(list) = &a.fromlist else {
            return vec![None];
        };
        match self.lookup(st, &list.value) {
            Some(Var::List(v)) => (0..v.len())
                .map(|i| Some((list.value.clone(), i)))
                .collect(),
            _ => {
                fx.push(Effect::Warning {
                    message: format!("`fromlist: {}` is not a list now; no goals", list.value),
                });
                Vec::new()
            }
        }
    }

    /// The skill's inputs for one goal: the item's fields first, then the
    /// caller's scopes.
    fn call_inputs(
        &self,
        st: &State,
        a: &Action,
        item: Option<&(String, usize)>,
        fx: &mut Vec<Effect>,
    ) -> std::collections::BTreeMap<String, String> {
        let record = item.and_then(|(l, i)| match self.lookup(st, l) {
            Some(Var::List(v)) => v.get(*i).cloned(),
            _ => None,
        });
        a.input
            .iter()
            .flatten()
            .filter_map(|o| {
                let set = o.set.as_ref()?.value.clone();
                let template = json_text(&o.value.as_ref()?.value);
                let value = match &record {
                    Some(r) => {
                        let mut t = template.clone();
                        for (k, v) in r {
                            t = t.replace(&format!("{{{k}}}"), v);
                        }
                        self.interpolate(st, &t, fx)
                    }
                    None => self.interpolate(st, &template, fx),
                };
                Some((set, value))
            })
            .collect()
    }

    /// Puts the called goals where `timing` (and `timing_to`) says.
    fn place_calls(
        &self,
        st: &mut State,
        timing: Timing,
        to: Option<String>,
        goals: Vec<GoalRef>,
        fx: &mut Vec<Effect>,
    ) {
        let current_stage = st
            .frames
            .last()
            .map(|f| f.stage.clone())
            .unwrap_or_default();
        let stage_i = st
            .stages
            .iter()
            .position(|s| s.stage == current_stage)
            .unwrap_or(0);
        // `timing_to` naming the running goal is the same as naming none (the
        // design: without it, the current goal is meant).
        let running = st.frames.last().map(|f| &f.goal);
        let to = to.filter(|t| running.is_none_or(|g| g.skill.is_some() || g.goal != *t));
        match (timing, to) {
            (Timing::Now, _) => {
                // The current goal ends; the skill goals run next, in order.
                self.leave_goal(st, fx);
                match st.frames.last_mut() {
                    Some(parent) => {
                        parent.before.splice(0..0, goals);
                    }
                    None => {
                        for g in goals.into_iter().rev() {
                            st.stages[stage_i].queue.insert(0, g);
                        }
                    }
                }
            }
            (Timing::BeforeGoal, None) => {
                // Pause the current goal: the new ones run first, then it resumes.
                if let Some(f) = st.frames.last_mut() {
                    f.before.extend(goals);
                }
            }
            (Timing::BeforeGoal, Some(to)) | (Timing::AfterGoal, Some(to)) => {
                let q = &mut st.stages[stage_i].queue;
                let at = q.iter().position(|g| g.goal == to && g.skill.is_none());
                let at = match (timing, at) {
                    (Timing::BeforeGoal, Some(i)) => i,
                    (_, Some(i)) => i + 1,
                    // The named goal is running or done: right after the current one.
                    (_, None) => 0,
                };
                for (k, g) in goals.into_iter().enumerate() {
                    q.insert(at + k, g);
                }
            }
            (Timing::AfterGoal, None) => {
                let q = &mut st.stages[stage_i].queue;
                for (k, g) in goals.into_iter().enumerate() {
                    q.insert(k, g);
                }
            }
            (Timing::AfterStage, to) => {
                let i = to
                    .and_then(|t| st.stages.iter().position(|s| s.stage == t))
                    .filter(|&i| i >= stage_i)
                    .unwrap_or(stage_i);
                st.stages[i].queue.extend(goals);
            }
        }
    }
}
