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

    /// Puts the called goals where `timing` (and `timing_to`) says. A
    /// `timing_to` that can only mean the past (a goal that has ended, a stage
    /// behind) is said in a warning, with where the goals went instead.
    fn place_calls(
        &self,
        st: &mut State,
        timing: Timing,
        to: Option<String>,
        goals: Vec<GoalRef>,
        fx: &mut Vec<Effect>,
    ) {
        let stage_i = current_stage(st);
        let skill = goals.first().map(|g| g.goal.clone()).unwrap_or_default();
        match timing {
            Timing::Now => {
                // The current goal ends; the skill goals run next, in order.
                self.leave_goal(st, fx);
                match st.frames.last_mut() {
                    Some(parent) => {
                        parent.before.splice(0..0, goals);
                    }
                    None => {
                        st.stages[stage_i].queue.splice(0..0, goals);
                    }
                }
            }
            Timing::BeforeGoal | Timing::AfterGoal => {
                let before = timing == Timing::BeforeGoal;
                let at = match to {
                    None => GoalAt::Running(st.frames.len().saturating_sub(1)),
                    Some(to) => {
                        let at = self.goal_at(st, stage_i, &to);
                        if let GoalAt::Past | GoalAt::Unknown = at {
                            self.went_instead(st, &to, at, before, &skill, fx);
                        }
                        at
                    }
                };
                place_by_goal(st, stage_i, at, before, goals);
            }
            Timing::AfterStage => {
                let named = to.map(|t| (st.stages.iter().position(|s| s.stage == t), t));
                let i = match named {
                    None => stage_i,
                    Some((Some(i), _)) if i >= stage_i => i,
                    Some((i, t)) => {
                        let here = st.stages[stage_i].stage.clone();
                        let why = match i {
                            Some(_) => "a stage that has already ended",
                            None => "no stage of this session",
                        };
                        fx.push(Effect::Warning {
                            message: format!(
                                "`timing_to: {t}` names {why}; `{skill}` runs at the end of the current stage `{here}` instead"
                            ),
                        });
                        stage_i
                    }
                };
                st.stages[i].queue.extend(goals);
            }
        }
    }

    /// Where the stage goal `name` is now: running (innermost first),
    /// waiting in the current stage's queue, ended, or no goal of it.
    fn goal_at(&self, st: &State, stage_i: usize, name: &str) -> GoalAt {
        if let Some(k) = st
            .frames
            .iter()
            .rposition(|f| f.goal.skill.is_none() && f.goal.goal == name)
        {
            return GoalAt::Running(k);
        }
        let run = &st.stages[stage_i];
        if let Some(i) = run
            .queue
            .iter()
            .position(|g| g.skill.is_none() && g.goal == name)
        {
            return GoalAt::Queued(i);
        }
        match self.script.stage_goal(&st.session, &run.stage, name) {
            Some(_) => GoalAt::Past,
            None => GoalAt::Unknown,
        }
    }

    /// The warning for a `timing_to` naming a goal that has ended (or none):
    /// where the call's goals go instead (as if it named none).
    fn went_instead(
        &self,
        st: &State,
        to: &str,
        at: GoalAt,
        before: bool,
        skill: &str,
        fx: &mut Vec<Effect>,
    ) {
        let current = st.frames.last().map_or("", |f| f.goal.goal.as_str());
        let why = match at {
            GoalAt::Past => "a goal that has already ended",
            _ => "no goal of this stage",
        };
        let instead = match before {
            true => format!("runs now, before `{current}` goes on"),
            false => format!("runs right after the current goal `{current}`"),
        };
        fx.push(Effect::Warning {
            message: format!("`timing_to: {to}` names {why}; `{skill}` {instead} instead"),
        });
    }
}

/// Where a `timing_to` goal is when a call names it.
#[derive(Debug, Clone, Copy)]
enum GoalAt {
    /// Running (or paused under a called skill): the frame's index.
    Running(usize),
    /// Waiting in the current stage's queue, at this index.
    Queued(usize),
    /// A goal of the stage that has already ended.
    Past,
    /// No goal of the stage.
    Unknown,
}

/// The index of the stage the innermost goal belongs to (the first when none runs).
fn current_stage(st: &State) -> usize {
    let current = st
        .frames
        .last()
        .map(|f| f.stage.as_str())
        .unwrap_or_default();
    st.stages
        .iter()
        .position(|s| s.stage == current)
        .unwrap_or(0)
}

/// BEFORE_GOAL/AFTER_GOAL placement by where the named goal is (an ended or
/// unknown one counts as the running goal). Calls placed at the same spot run
/// in the order they were made.
fn place_by_goal(st: &mut State, stage_i: usize, at: GoalAt, before: bool, goals: Vec<GoalRef>) {
    let at = match at {
        GoalAt::Past | GoalAt::Unknown => GoalAt::Running(st.frames.len().saturating_sub(1)),
        at => at,
    };
    match at {
        GoalAt::Running(k) if k < st.frames.len() => {
            let f = &mut st.frames[k];
            // Before: it pauses (or stays paused) and they run first.
            match before {
                true => f.before.extend(goals),
                false => f.after.extend(goals),
            }
        }
        GoalAt::Queued(i) => {
            let q = &mut st.stages[stage_i].queue;
            let mut at = i;
            if !before {
                // After it and after the calls already put after it.
                at += 1;
                while q.get(at).is_some_and(|g| g.skill.is_some()) {
                    at += 1;
                }
            }
            q.splice(at..at, goals);
        }
        // No goal runs: first in the stage.
        _ => {
            st.stages[stage_i].queue.splice(0..0, goals);
        }
    }
}
