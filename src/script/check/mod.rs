//! The second pass over a loaded script set: everything YAML's shape cannot
//! say. Every problem is reported at once, at its `file:line:col`, with a code.
//!
//! | code | problem |
//! |---|---|
//! | E201 | an action with no kind, or with two kinds |
//! | E202 | a key the action's kind does not take |
//! | E210 | a duplicate session, stage, goal, skill, role, global variable, form, form field or rule name |
//! | E220 | `call` (or a stage's `overtime`) of an unknown skill |
//! | E221 | `ai:` naming an unknown role, or a HUMAN one |
//! | E222 | `fill` of an unknown form, or `fields` naming no field of it |
//! | E230 | `timing_to` naming no goal of the stage (or stage of the session) |
//! | E240 | skills calling each other in a cycle |
//! | E250 | a `call` input binding to a variable the skill does not declare |
//! | E260 | `fromlist` naming a variable that is never a list |
//! | E270 | a condition that does not parse (column inside the scalar) |
//! | E280 | a condition comparing an option variable with a key that is not a choice |
//! | E290 | `max_rounds` outside 1–10 |
//! | E291 | a stage's `minutes: 0` |
//! | E300 | `{NAME}` of a variable declared or produced nowhere in the set |
//! | E310 | `user_option` without choices, or an output entry with neither `get` nor `set` |
//! | E311 | an unquoted `value: {x}`: a YAML map where text was meant |
//! | E312 | an `update:` other than `auto` or `get` |
//! | E313 | `persist: true` on a variable that is not global |
//! | W301 | `timing_to` on a `NOW` call (ignored) |
//! | W302 | a form field filled from a variable declared or produced nowhere |
//! | W303 | `{NAME}` of a variable that lives only in another goal (not visible here) |
//! | W305 | a `call` without `timing` (so `NOW`) with actions after it in its goal |
//! | W304 | full-width braces `｛NAME｝` outside a condition (they never fill in a variable) |
//! | W306 | `timing_to` naming a goal (or stage) that has already ended when the call runs |

mod action;
mod cycles;
mod names;
mod values;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_saphyr::Spanned;

use super::diag::ScriptDiagnostic;
use super::format::{Goal, RoleType, Session, Stage};
use super::load::{LoadedDoc, ScriptSources};
use action::{check_action, check_form, dup};
use cycles::call_cycles;
use names::{Owns, known_variables, list_fields, list_variables, option_keys, own_variables};
pub use names::{all_declarations, all_goals, referenced_vars};

/// Where a spanned value is, in its file.
struct Place<'a> {
    file: &'a Path,
    offset: u64,
}

impl<'a> Place<'a> {
    fn of(d: &'a LoadedDoc) -> Self {
        Place {
            file: &d.file,
            offset: d.line_offset,
        }
    }

    fn at<T>(&self, s: &Spanned<T>) -> (u64, u64) {
        (
            s.referenced.line() + self.offset,
            s.referenced.column().max(1),
        )
    }
}

/// The variables a goal can read: its own and its outer scopes', in layers
/// (no set is copied per goal).
struct Visible<'a> {
    layers: &'a [&'a BTreeSet<&'a str>],
}

impl Visible<'_> {
    fn contains(&self, name: &str) -> bool {
        self.layers.iter().any(|l| l.contains(name))
    }
}

/// What every action's check reads about the whole set.
struct Cx<'a> {
    /// Variables that live in one goal only → that goal's name.
    goal_local: &'a BTreeMap<&'a str, &'a str>,
    /// `user_option` variables and their choice keys.
    options: &'a BTreeMap<&'a str, BTreeSet<&'a str>>,
    skills: &'a BTreeMap<&'a str, (&'a LoadedDoc, &'a Goal)>,
    roles: &'a BTreeMap<&'a str, RoleType>,
    known: &'a BTreeSet<&'a str>,
    lists: &'a BTreeSet<&'a str>,
    texts: &'a HashMap<&'a Path, &'a str>,
    owns: &'a Owns<'a>,
    /// Each form's field names.
    forms: &'a BTreeMap<&'a str, Vec<&'a str>>,
}

impl<'a> Cx<'a> {
    /// The names goal `g` declares or produces.
    fn own(&self, g: &Goal) -> &'a BTreeSet<&'a str> {
        &self.owns[&std::ptr::from_ref(g)]
    }
}

/// Names `timing_to` may use where the action stands (None: inside a skill, unknown until run).
struct Scope<'a> {
    goals: Option<&'a [&'a str]>,
    stages: Option<&'a [&'a str]>,
    /// The goals of the stage before the action's own goal, and the stages
    /// before its stage: ended by the time the action runs.
    past_goals: &'a [&'a str],
    past_stages: &'a [&'a str],
    /// Variables the goal can read: the outer scopes' and its own.
    visible: Visible<'a>,
}

/// The names global to the set: skills, roles and global variables.
struct SetNames<'a> {
    skills: BTreeMap<&'a str, (&'a LoadedDoc, &'a Goal)>,
    roles: BTreeMap<&'a str, RoleType>,
    globals: BTreeSet<&'a str>,
}

impl<'a> SetNames<'a> {
    /// Gathers them, reporting duplicates (and checking forms on the way).
    fn gather(
        src: &'a ScriptSources,
        known: &BTreeSet<&str>,
        out: &mut Vec<ScriptDiagnostic>,
    ) -> Self {
        let mut set = SetNames {
            skills: BTreeMap::new(),
            roles: BTreeMap::new(),
            globals: BTreeSet::new(),
        };
        let mut sessions: BTreeSet<&str> = BTreeSet::new();
        let mut forms: BTreeSet<&str> = BTreeSet::new();
        for d in &src.docs {
            let place = Place::of(d);
            for g in d.doc.skills.iter().flatten() {
                if set.skills.insert(&g.goal.value, (d, g)).is_some() {
                    out.push(dup(&place, &g.goal, "skill"));
                }
            }
            for r in d.doc.roles.iter().flatten() {
                if set.roles.insert(&r.role.value, r.kind).is_some() {
                    out.push(dup(&place, &r.role, "role"));
                }
            }
            for v in d.doc.global.iter().flatten() {
                if !set.globals.insert(&v.var.value) {
                    out.push(dup(&place, &v.var, "global variable"));
                }
            }
            for s in d.doc.sessions.iter().flatten() {
                if !sessions.insert(&s.session.value) {
                    out.push(dup(&place, &s.session, "session"));
                }
            }
            for f in d.doc.forms.iter().flatten() {
                if !forms.insert(&f.form.value) {
                    out.push(dup(&place, &f.form, "form"));
                }
                check_form(&place, f, known, out);
            }
        }
        set
    }
}

/// Checks a loaded set; returns every problem found.
pub fn check(src: &ScriptSources) -> Vec<ScriptDiagnostic> {
    let mut out = Vec::new();
    let texts: HashMap<&Path, &str> = src
        .texts
        .iter()
        .map(|(p, t)| (p.as_path(), t.as_str()))
        .collect();
    let owns: Owns = all_goals(src)
        .map(|g| (std::ptr::from_ref(g), own_variables(g)))
        .collect();
    let known = known_variables(src, &owns);
    let set = SetNames::gather(src, &known, &mut out);
    values::check_values(src, &mut out);
    let lists = list_variables(src);
    let options = option_keys(src);
    let session_stage = session_and_stage_variables(src);
    let goal_local = goal_locals(src, &owns, &set.globals, &session_stage);
    // A skill runs in whichever stage calls it: any outer name may be there,
    // and the fields of a list it is called from.
    let mut skill_outer: BTreeSet<&str> = set.globals.union(&session_stage).copied().collect();
    skill_outer.extend(lists.iter().copied());
    skill_outer.extend(list_fields(src));
    // A duplicated form name (E210) reads as its first.
    let mut forms: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in src.docs.iter().flat_map(|d| d.doc.forms.iter().flatten()) {
        let fields = f.fields.iter().map(|x| x.field.value.as_str()).collect();
        forms.entry(f.form.value.as_str()).or_insert(fields);
    }
    let cx = Cx {
        forms: &forms,
        goal_local: &goal_local,
        options: &options,
        skills: &set.skills,
        roles: &set.roles,
        known: &known,
        lists: &lists,
        texts: &texts,
        owns: &owns,
    };
    let mut rule_names: BTreeSet<&str> = BTreeSet::new();
    for d in &src.docs {
        let place = Place::of(d);
        for s in d.doc.sessions.iter().flatten() {
            check_session(&cx, &place, s, &set.globals, &mut out);
        }
        for g in d.doc.skills.iter().flatten() {
            let scope = Scope {
                goals: None,
                stages: None,
                past_goals: &[],
                past_stages: &[],
                visible: Visible {
                    layers: &[&skill_outer, cx.own(g)],
                },
            };
            for a in &g.actions {
                check_action(&cx, &place, a, &scope, &mut out);
            }
        }
        // A rule fires wherever the talk is: any outer name may be there.
        for r in d.doc.rules.iter().flatten() {
            if !rule_names.insert(r.rule.value.as_str()) {
                out.push(dup(&place, &r.rule, "rule"));
            }
            let scope = Scope {
                goals: None,
                stages: None,
                past_goals: &[],
                past_stages: &[],
                visible: Visible {
                    layers: &[&skill_outer],
                },
            };
            check_action(&cx, &place, &r.action(), &scope, &mut out);
        }
    }
    out.extend(call_cycles(&set.skills));
    out.sort_by(|a, b| (&a.file, a.line, a.col).cmp(&(&b.file, b.line, b.col)));
    out
}

/// Names declared by a session or one of its stages.
fn session_and_stage_variables(src: &ScriptSources) -> BTreeSet<&str> {
    src.docs
        .iter()
        .flat_map(|d| d.doc.sessions.iter().flatten())
        .flat_map(|s| {
            s.declare
                .iter()
                .chain(s.stages.iter().flat_map(|st| &st.declare))
        })
        .map(|v| v.var.value.as_str())
        .collect()
}

/// Which goal each goal-local name is in (the first that owns it).
fn goal_locals<'a>(
    src: &'a ScriptSources,
    owns: &Owns<'a>,
    globals: &BTreeSet<&str>,
    session_stage: &BTreeSet<&str>,
) -> BTreeMap<&'a str, &'a str> {
    let mut goal_local: BTreeMap<&str, &str> = BTreeMap::new();
    for g in all_goals(src) {
        for &v in &owns[&std::ptr::from_ref(g)] {
            if !globals.contains(v) && !session_stage.contains(v) {
                goal_local.entry(v).or_insert(&g.goal.value);
            }
        }
    }
    goal_local
}

/// A session's stages: unique names, then each stage's goals.
fn check_session(
    cx: &Cx,
    place: &Place,
    s: &Session,
    globals: &BTreeSet<&str>,
    out: &mut Vec<ScriptDiagnostic>,
) {
    let stage_names: Vec<&str> = s.stages.iter().map(|st| st.stage.value.as_str()).collect();
    let mut seen_stages = BTreeSet::new();
    let session_vars: BTreeSet<&str> = s.declare.iter().map(|v| v.var.value.as_str()).collect();
    for (i, st) in s.stages.iter().enumerate() {
        if !seen_stages.insert(st.stage.value.as_str()) {
            out.push(dup(place, &st.stage, "stage"));
        }
        let stages = StageNames {
            all: &stage_names,
            here: i,
        };
        check_stage(cx, place, st, stages, [globals, &session_vars], out);
    }
}

/// A session's stage names, and which of them is the one checked.
#[derive(Clone, Copy)]
struct StageNames<'a> {
    all: &'a [&'a str],
    here: usize,
}

/// A stage's goals: unique names, then every action in the goal's scope.
fn check_stage(
    cx: &Cx,
    place: &Place,
    st: &Stage,
    stages: StageNames,
    outer: [&BTreeSet<&str>; 2],
    out: &mut Vec<ScriptDiagnostic>,
) {
    let stage_vars: BTreeSet<&str> = st.declare.iter().map(|v| v.var.value.as_str()).collect();
    check_budget(cx, place, st, out);
    let goal_names: Vec<&str> = st.steps.iter().map(|g| g.goal.value.as_str()).collect();
    let mut seen_goals = BTreeSet::new();
    for (i, g) in st.steps.iter().enumerate() {
        if !seen_goals.insert(g.goal.value.as_str()) {
            out.push(dup(place, &g.goal, "goal"));
        }
        let scope = Scope {
            goals: Some(&goal_names),
            stages: Some(stages.all),
            past_goals: &goal_names[..i],
            past_stages: &stages.all[..stages.here],
            visible: Visible {
                layers: &[outer[0], outer[1], &stage_vars, cx.own(g)],
            },
        };
        for a in &g.actions {
            check_action(cx, place, a, &scope, out);
        }
    }
}

/// A stage's time budget: at least a minute (E291), its `overtime` a skill (E220).
fn check_budget(cx: &Cx, place: &Place, st: &Stage, out: &mut Vec<ScriptDiagnostic>) {
    if let Some(m) = st.minutes.as_ref().filter(|m| m.value == 0) {
        let d = ScriptDiagnostic::error(
            place.file,
            place.at(m),
            "E291",
            "`minutes: 0` leaves the stage no time at all".into(),
        );
        out.push(d.help("give the stage's budget in whole minutes, 1 or more, or leave it out"));
    }
    if let Some(skill) = &st.overtime
        && !cx.skills.contains_key(skill.value.as_str())
    {
        out.push(action::unknown_skill(cx, place, skill));
    }
}

/// Whether a folder holds YAML files: a script set, however broken, unless
/// it is a scenario.
pub fn has_yaml(dir: &Path) -> bool {
    let files = std::fs::read_dir(dir).into_iter().flatten();
    files.flatten().any(|e| super::load::is_yaml(&e.path()))
}

/// Loads and checks a folder.
pub fn check_dir(dir: &Path) -> (ScriptSources, Vec<ScriptDiagnostic>) {
    let (src, mut diags) = super::load::load_dir(dir);
    diags.extend(check(&src));
    (src, diags)
}
