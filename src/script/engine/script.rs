//! A loaded script set, compiled once: sessions, skills, roles, forms, the
//! conditions parsed, and which variables each skill reads.

use std::collections::{BTreeMap, BTreeSet};

use crate::script::condition::Condition;
use crate::script::format::{Action, ActionKind, Form, Goal, Role, RoleType, Session, VarDecl};
use crate::script::load::ScriptSources;

use super::protocol::{Frame, GoalRef, State};

/// A loaded script set, ready to run (the default: an empty set).
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// The sessions, in file order.
    pub(crate) sessions: Vec<Session>,
    /// The skills by name (the first of a duplicated name).
    pub(crate) skills: BTreeMap<String, Goal>,
    /// Global variables.
    pub(crate) global: Vec<VarDecl>,
    /// The roles.
    pub(crate) roles: Vec<Role>,
    /// FNV-1a of every file's text: a saved state knows its script by it.
    pub hash: u64,
    /// Every condition, compiled once at load (by its source text).
    pub(crate) conditions: std::collections::HashMap<String, Result<Condition, String>>,
    /// Variables each skill reads or extracts, its calls included.
    skill_uses: BTreeMap<String, BTreeSet<String>>,
    /// Some global, session or stage variable is `auto: true`.
    pub(super) has_auto: bool,
    /// The forms, in file order.
    pub(crate) forms: Vec<Form>,
    /// Variable → the (form, field) pairs it fills.
    pub(super) form_fields: BTreeMap<String, Vec<(String, String)>>,
    /// The rules (`rules.yaml`), in file order.
    pub(super) rules: Vec<ScriptRule>,
    /// Variables declared `taboo: true`, at any scope.
    pub(super) taboos: BTreeSet<String>,
    /// Globals declared `persist: true`: kept across a course's sessions.
    pub(super) persistent: BTreeSet<String>,
}

/// A rule, ready to run: the `call` it performs when its condition holds.
#[derive(Debug, Clone)]
pub(super) struct ScriptRule {
    /// Its name.
    pub(super) name: String,
    /// It may fire more than once in a session.
    pub(super) repeat: bool,
    /// The call, with the rule's condition.
    pub(super) action: Action,
}

impl Script {
    /// Loads and checks the set in `dir`: the compiled set, or its error
    /// lines (`file:line:col: error[…]`; warnings do not stop it).
    pub fn load_clean(dir: &std::path::Path) -> Result<Script, Vec<String>> {
        let (src, diags) = crate::script::check::check_dir(dir);
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.severity == crate::script::diag::Severity::Error)
            .map(|d| d.to_string())
            .collect();
        if errors.is_empty() {
            Ok(Script::from_sources(&src))
        } else {
            Err(errors)
        }
    }

    /// Compiles a checked set: conditions parsed once, skill uses worked out.
    pub fn from_sources(src: &ScriptSources) -> Script {
        let mut s = Script {
            sessions: Vec::new(),
            skills: BTreeMap::new(),
            global: Vec::new(),
            roles: Vec::new(),
            hash: 0,
            conditions: std::collections::HashMap::new(),
            skill_uses: BTreeMap::new(),
            has_auto: false,
            forms: Vec::new(),
            form_fields: BTreeMap::new(),
            rules: Vec::new(),
            taboos: BTreeSet::new(),
            persistent: BTreeSet::new(),
        };
        for d in &src.docs {
            s.sessions.extend(d.doc.sessions.iter().flatten().cloned());
            for g in d.doc.skills.iter().flatten() {
                s.skills
                    .entry(g.goal.value.clone())
                    .or_insert_with(|| g.clone());
            }
            s.global.extend(d.doc.global.iter().flatten().cloned());
            s.roles.extend(d.doc.roles.iter().flatten().cloned());
            s.forms.extend(d.doc.forms.iter().flatten().cloned());
            s.rules
                .extend(d.doc.rules.iter().flatten().map(|r| ScriptRule {
                    name: r.rule.value.clone(),
                    repeat: r.repeat,
                    action: r.action(),
                }));
        }
        for f in &s.forms {
            for field in &f.fields {
                let var = field.var.as_ref().unwrap_or(&field.field).value.clone();
                s.form_fields
                    .entry(var)
                    .or_default()
                    .push((f.form.value.clone(), field.field.value.clone()));
            }
        }
        s.conditions = parsed_conditions(src, &s.rules);
        s.taboos = crate::script::check::all_declarations(src)
            .filter(|v| v.taboo == Some(true))
            .map(|v| v.var.value.clone())
            .collect();
        s.persistent = s
            .global
            .iter()
            .filter(|v| v.persist.as_ref().is_some_and(|p| p.value))
            .map(|v| v.var.value.clone())
            .collect();
        s.skill_uses = skill_uses(&s.skills);
        s.has_auto = s.global.iter().any(VarDecl::is_auto)
            || crate::script::check::all_goals(src)
                .flat_map(|g| g.declare.iter().flatten())
                .any(VarDecl::is_auto)
            || s.sessions.iter().any(|x| {
                x.declare.iter().any(VarDecl::is_auto)
                    || x.stages
                        .iter()
                        .flat_map(|st| &st.declare)
                        .any(VarDecl::is_auto)
            });
        s.hash = texts_hash(src);
        s
    }

    pub(super) fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.session.value == name)
    }

    pub(super) fn stage_goal(&self, session: &str, stage: &str, goal: &str) -> Option<&Goal> {
        self.session(session)?
            .stages
            .iter()
            .find(|s| s.stage.value == stage)?
            .steps
            .iter()
            .find(|g| g.goal.value == goal)
    }

    pub(super) fn goal(&self, state: &State, f: &Frame) -> Option<&Goal> {
        match &f.goal.skill {
            Some(_) => self.skills.get(&f.goal.goal),
            None => self.stage_goal(&state.session, &f.stage, &f.goal.goal),
        }
    }

    /// The first AI role (the default speaker) and the HUMAN role's name.
    pub(super) fn default_roles(&self) -> (String, String) {
        let ai = self
            .roles
            .iter()
            .find(|r| r.kind == RoleType::Ai)
            .map_or("AI".to_string(), |r| r.role.value.clone());
        let human = self
            .roles
            .iter()
            .find(|r| r.kind == RoleType::Human)
            .map_or("用户".to_string(), |r| r.role.value.clone());
        (ai, human)
    }

    /// Uses of some actions, the skills they call included.
    pub(super) fn actions_uses(&self, actions: &[Action], out: &mut BTreeSet<String>) {
        for a in actions {
            action_uses(a, out);
            if let Some(u) = a.call.as_ref().and_then(|c| self.skill_uses.get(&c.value)) {
                out.extend(u.iter().cloned());
            }
        }
    }

    /// Uses of a goal still to run.
    pub(super) fn goal_uses(
        &self,
        session: &str,
        stage: &str,
        g: &GoalRef,
        out: &mut BTreeSet<String>,
    ) {
        match &g.skill {
            Some(_) => out.extend(self.skill_uses.get(&g.goal).into_iter().flatten().cloned()),
            None => {
                if let Some(goal) = self.stage_goal(session, stage, &g.goal) {
                    self.actions_uses(&goal.actions, out);
                }
            }
        }
    }

    pub(super) fn role_tone(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|r| r.role.value == role)
            .and_then(|r| r.tone.as_deref())
    }

    pub(super) fn role_define(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|r| r.role.value == role)
            .and_then(|r| r.define.as_deref())
    }
}

/// An action's stable id: its kind and text.
pub(super) fn action_id(a: &Action) -> String {
    let kind = a.kind();
    let text = kind
        .and_then(|k| a.kind_text(k))
        .or(a.ai.as_deref())
        .map_or("", |t| t.value.as_str());
    format!("{}:{text}", kind.map_or("", ActionKind::key))
}

/// Variables an action reads (`{NAME}` anywhere in it, `fromlist`) or
/// extracts (`get`): what keeps an auto variable worth updating.
fn action_uses(a: &Action, out: &mut BTreeSet<String>) {
    let mut texts: Vec<&str> = ActionKind::ALL
        .iter()
        .filter_map(|k| a.kind_text(*k).map(|t| t.value.as_str()))
        .collect();
    texts.extend(a.condition.as_ref().map(|c| c.value.as_str()));
    texts.extend(a.tone.as_deref());
    texts.extend(a.exit.as_deref());
    for c in a.choices.iter().flatten() {
        texts.extend(c.values().map(String::as_str));
    }
    for o in a.output.iter().chain(&a.input).flatten() {
        texts.extend(o.define.as_deref());
        if let Some(serde_json::Value::String(v)) = o.value.as_ref().map(|v| &v.value) {
            texts.push(v);
        }
        out.extend(o.get.as_ref().map(|g| g.value.clone()));
    }
    out.extend(a.fromlist.as_ref().map(|l| l.value.clone()));
    for t in texts {
        out.extend(
            crate::script::check::referenced_vars(t)
                .into_iter()
                .map(str::to_string),
        );
    }
}

/// Each skill's uses with those of the skills it calls, to a fixed point.
fn skill_uses(skills: &BTreeMap<String, Goal>) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = skills
        .iter()
        .map(|(name, g)| {
            let mut u = BTreeSet::new();
            g.actions.iter().for_each(|a| action_uses(a, &mut u));
            (name.clone(), u)
        })
        .collect();
    loop {
        let mut grew = false;
        for (name, g) in skills {
            let called: BTreeSet<String> = g
                .actions
                .iter()
                .filter_map(|a| a.call.as_ref())
                .filter_map(|c| uses.get(&c.value))
                .flatten()
                .cloned()
                .collect();
            let mine = uses.get_mut(name).expect("every skill");
            let before = mine.len();
            mine.extend(called);
            grew |= mine.len() > before;
        }
        if !grew {
            return uses;
        }
    }
}

/// Every condition of the set's actions and rules, parsed once (a parse
/// error kept as its message).
fn parsed_conditions(
    src: &ScriptSources,
    rules: &[ScriptRule],
) -> std::collections::HashMap<String, Result<Condition, String>> {
    let mut conditions = std::collections::HashMap::new();
    let rule_actions = rules.iter().map(|r| &r.action);
    let actions = crate::script::check::all_goals(src).flat_map(|g| &g.actions);
    for c in actions
        .chain(rule_actions)
        .filter_map(|a| a.condition.as_ref())
    {
        conditions
            .entry(c.value.clone())
            .or_insert_with(|| Condition::parse(&c.value).map_err(|e| e.to_string()));
    }
    conditions
}

/// FNV-1a over the set's texts: a saved state knows which version it ran.
fn texts_hash(src: &ScriptSources) -> u64 {
    use crate::base::hash::{FNV_START, fnv1a_more};
    src.texts
        .iter()
        .fold(FNV_START, |h, (_, text)| fnv1a_more(h, text.as_bytes()))
}
