//! The second pass over a loaded script set: everything YAML's shape cannot
//! say. Every problem is reported at once, at its `file:line:col`, with a code.
//!
//! | code | problem |
//! |---|---|
//! | E201 | an action with no kind, or with two kinds |
//! | E202 | a key the action's kind does not take |
//! | E210 | a duplicate session, stage, goal, skill, role, global variable, form or form field name |
//! | E220 | `call` of an unknown skill |
//! | E221 | `ai:` naming an unknown role, or a HUMAN one |
//! | E230 | `timing_to` naming no goal of the stage (or stage of the session) |
//! | E240 | skills calling each other in a cycle |
//! | E250 | a `call` input binding to a variable the skill does not declare |
//! | E260 | `fromlist` naming a variable that is never a list |
//! | E270 | a condition that does not parse (column inside the scalar) |
//! | E280 | a condition comparing an option variable with a key that is not a choice |
//! | E290 | `max_rounds` outside 1–10 |
//! | E300 | `{NAME}` of a variable declared or produced nowhere in the set |
//! | E310 | `user_option` without choices, or an output entry with neither `get` nor `set` |
//! | W301 | `timing_to` on a `NOW` call (ignored) |
//! | W302 | a form field filled from a variable declared or produced nowhere |
//! | W303 | `{NAME}` of a variable that lives only in another goal (not visible here) |

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use super::condition::Condition;
use super::diag::ScriptDiagnostic;
use super::format::{Action, ActionKind, Form, Goal, Output, RoleType, Timing, VarDecl};
use super::load::{LoadedDoc, ScriptSources};
use crate::base::closest;

/// Where a spanned value is, in its file.
struct Place<'a> {
    file: &'a Path,
    offset: u64,
}

impl Place<'_> {
    fn at<T>(&self, s: &Spanned<T>) -> (u64, u64) {
        (
            s.referenced.line() + self.offset,
            s.referenced.column().max(1),
        )
    }
}

/// Variables named in `{…}` in a text.
pub fn referenced_vars(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if !after[..close].contains('{') => {
                let name = after[..close].trim();
                if !name.is_empty() {
                    out.push(name);
                }
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// Every goal of the set: the sessions' stage goals, then the skills.
pub fn all_goals(src: &ScriptSources) -> impl Iterator<Item = &Goal> {
    src.docs.iter().flat_map(|d| {
        d.doc
            .sessions
            .iter()
            .flatten()
            .flat_map(|s| s.stages.iter().flat_map(|st| st.steps.iter()))
            .chain(d.doc.skills.iter().flatten())
    })
}

/// Every variable declaration of the set, at any scope.
fn all_declarations(src: &ScriptSources) -> impl Iterator<Item = &VarDecl> {
    let scoped = src.docs.iter().flat_map(|d| {
        d.doc
            .global
            .iter()
            .flatten()
            .chain(d.doc.sessions.iter().flatten().flat_map(|s| {
                s.declare
                    .iter()
                    .chain(s.stages.iter().flat_map(|st| st.declare.iter()))
            }))
    });
    scoped.chain(all_goals(src).flat_map(|g| g.declare.iter().flatten()))
}

/// Every name the set declares or produces somewhere (any scope), given each
/// goal's own.
fn known_variables<'a>(src: &'a ScriptSources, owns: &Owns<'a>) -> BTreeSet<&'a str> {
    let mut known: BTreeSet<&str> = all_declarations(src)
        .map(|v| v.var.value.as_str())
        .collect();
    for own in owns.values() {
        known.extend(own);
    }
    known
}

/// Each goal's [`own_variables`], worked out once, by the goal's address.
type Owns<'a> = HashMap<*const Goal, BTreeSet<&'a str>>;

/// Names a goal declares or produces (outputs, options, lists and their fields).
fn own_variables(g: &Goal) -> BTreeSet<&str> {
    let mut own: BTreeSet<&str> = g.declared().collect();
    for a in &g.actions {
        own.extend(
            a.user_option
                .iter()
                .chain(&a.tolist)
                .map(|v| v.value.as_str()),
        );
        for o in a.output.iter().flatten() {
            own.extend(o.get.iter().chain(&o.set).map(|v| v.value.as_str()));
        }
    }
    own
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
    let own = |g: &Goal| &owns[&std::ptr::from_ref(g)];
    let known = known_variables(src, &owns);

    // Skills and roles are global to the set.
    let mut skills: BTreeMap<&str, (&LoadedDoc, &Goal)> = BTreeMap::new();
    let mut roles: BTreeMap<&str, RoleType> = BTreeMap::new();
    let mut globals: BTreeSet<&str> = BTreeSet::new();
    let mut sessions: BTreeSet<&str> = BTreeSet::new();
    let mut forms: BTreeSet<&str> = BTreeSet::new();
    for d in &src.docs {
        let place = Place {
            file: &d.file,
            offset: d.line_offset,
        };
        for g in d.doc.skills.iter().flatten() {
            if skills.insert(&g.goal.value, (d, g)).is_some() {
                out.push(dup(&place, &g.goal, "skill"));
            }
        }
        for r in d.doc.roles.iter().flatten() {
            if roles.insert(&r.role.value, r.kind).is_some() {
                out.push(dup(&place, &r.role, "role"));
            }
        }
        for v in d.doc.global.iter().flatten() {
            if !globals.insert(&v.var.value) {
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
            check_form(&place, f, &known, &mut out);
        }
    }
    let lists = list_variables(src);
    let options = option_keys(src);
    // Scopes: what lives outside goals (the globals, gathered above), and which
    // goal each goal-local name is in.
    let session_stage: BTreeSet<&str> = src
        .docs
        .iter()
        .flat_map(|d| d.doc.sessions.iter().flatten())
        .flat_map(|s| {
            s.declare
                .iter()
                .chain(s.stages.iter().flat_map(|st| &st.declare))
        })
        .map(|v| v.var.value.as_str())
        .collect();
    let mut goal_local: BTreeMap<&str, &str> = BTreeMap::new();
    for g in all_goals(src) {
        for &v in own(g) {
            if !globals.contains(v) && !session_stage.contains(v) {
                goal_local.entry(v).or_insert(&g.goal.value);
            }
        }
    }
    // A skill runs in whichever stage calls it: any outer name may be there,
    // and the fields of a list it is called from.
    let mut skill_outer: BTreeSet<&str> = globals.union(&session_stage).copied().collect();
    skill_outer.extend(lists.iter().copied());
    skill_outer.extend(list_fields(src));
    let cx = Cx {
        goal_local: &goal_local,
        options: &options,
        skills: &skills,
        roles: &roles,
        known: &known,
        lists: &lists,
        texts: &texts,
    };

    for d in &src.docs {
        let place = Place {
            file: &d.file,
            offset: d.line_offset,
        };
        for s in d.doc.sessions.iter().flatten() {
            let stage_names: Vec<&str> =
                s.stages.iter().map(|st| st.stage.value.as_str()).collect();
            let mut seen_stages = BTreeSet::new();
            let session_vars: BTreeSet<&str> =
                s.declare.iter().map(|v| v.var.value.as_str()).collect();
            for st in &s.stages {
                let stage_vars: BTreeSet<&str> =
                    st.declare.iter().map(|v| v.var.value.as_str()).collect();
                if !seen_stages.insert(st.stage.value.as_str()) {
                    out.push(dup(&place, &st.stage, "stage"));
                }
                let goal_names: Vec<&str> =
                    st.steps.iter().map(|g| g.goal.value.as_str()).collect();
                let mut seen_goals = BTreeSet::new();
                for g in &st.steps {
                    if !seen_goals.insert(g.goal.value.as_str()) {
                        out.push(dup(&place, &g.goal, "goal"));
                    }
                    let scope = Scope {
                        goals: Some(&goal_names),
                        stages: Some(&stage_names),
                        visible: Visible {
                            layers: &[&globals, &session_vars, &stage_vars, own(g)],
                        },
                    };
                    for a in &g.actions {
                        check_action(&cx, &place, a, &scope, &mut out);
                    }
                }
            }
        }
        for g in d.doc.skills.iter().flatten() {
            let scope = Scope {
                goals: None,
                stages: None,
                visible: Visible {
                    layers: &[&skill_outer, own(g)],
                },
            };
            for a in &g.actions {
                check_action(&cx, &place, a, &scope, &mut out);
            }
        }
    }
    out.extend(call_cycles(&skills));
    out.sort_by(|a, b| (&a.file, a.line, a.col).cmp(&(&b.file, b.line, b.col)));
    out
}

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
}

/// Names `timing_to` may use where the action stands (None: inside a skill, unknown until run).
struct Scope<'a> {
    goals: Option<&'a [&'a str]>,
    stages: Option<&'a [&'a str]>,
    /// Variables the goal can read: the outer scopes' and its own.
    visible: Visible<'a>,
}

/// A form's fields are unique, and each is filled from a variable that exists.
fn check_form(place: &Place, f: &Form, known: &BTreeSet<&str>, out: &mut Vec<ScriptDiagnostic>) {
    let mut fields = BTreeSet::new();
    for field in &f.fields {
        if !fields.insert(field.field.value.as_str()) {
            out.push(dup(place, &field.field, "field"));
        }
        let var = field.var.as_ref().unwrap_or(&field.field);
        if !known.contains(var.value.as_str()) {
            let mut d = ScriptDiagnostic::warning(
                place.file,
                place.at(var),
                "W302",
                format!(
                    "form `{}` field `{}` is filled from `{{{}}}`, which is declared or produced nowhere",
                    f.form.value, field.field.value, var.value
                ),
            );
            d = match closest(&var.value, known.iter().copied()) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help("name the variable with `var:`"),
            };
            out.push(d);
        }
    }
}

/// `what` names the kind; a duplicate goal or field adds where it must be unique.
fn dup(place: &Place, s: &Spanned<String>, what: &str) -> ScriptDiagnostic {
    let within = match what {
        "goal" => " in this stage",
        "field" => " in this form",
        _ => "",
    };
    ScriptDiagnostic::error(
        place.file,
        place.at(s),
        "E210",
        format!("duplicate {what} name `{}`{within}", s.value),
    )
    .help("names must be unique; rename one of them")
}

/// Every `user_option` variable with the keys of all its choices.
fn option_keys(src: &ScriptSources) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for a in all_goals(src).flat_map(|g| g.actions.iter()) {
        if let Some(v) = &a.user_option {
            let keys = out.entry(&v.value).or_default();
            for m in a.choices.iter().flatten() {
                keys.extend(m.keys().map(String::as_str));
            }
        }
    }
    out
}

/// Variables that are lists: `tolist:` targets and declarations with a list value.
fn list_variables(src: &ScriptSources) -> BTreeSet<&str> {
    let declared = all_declarations(src)
        .filter(|v| matches!(v.value, Some(serde_json::Value::Array(_))))
        .map(|v| v.var.value.as_str());
    let tolists = all_goals(src)
        .flat_map(|g| g.actions.iter())
        .filter_map(|a| a.tolist.as_ref().map(|l| l.value.as_str()));
    declared.chain(tolists).collect()
}

/// The fields of every list (`get`s of a `tolist` action): a `fromlist` goal reads them.
fn list_fields(src: &ScriptSources) -> impl Iterator<Item = &str> {
    all_goals(src)
        .flat_map(|g| &g.actions)
        .filter(|a| a.tolist.is_some())
        .flat_map(|a| a.output.iter().flatten())
        .filter_map(|o| o.get.as_ref().map(|g| g.value.as_str()))
}

fn check_action(
    cx: &Cx,
    place: &Place,
    a: &Action,
    scope: &Scope,
    out: &mut Vec<ScriptDiagnostic>,
) {
    let kinds = a.kinds();
    let first = kinds
        .first()
        .and_then(|k| a.kind_text(*k).or(a.ai.as_deref()))
        .map(|s| place.at(s))
        .or_else(|| a.condition.as_ref().map(|c| place.at(c)))
        .unwrap_or((place.offset + 1, 1));
    let kind = match kinds.as_slice() {
        [k] => *k,
        [] => {
            out.push(
                ScriptDiagnostic::error(place.file, first, "E201", "an action with no kind".into())
                    .help("start it with say, user_say, user_option, ask, ai_say, ai_ask, think, call or scene"),
            );
            return;
        }
        many => {
            let keys: Vec<&str> = many.iter().map(|k| k.key()).collect();
            out.push(
                ScriptDiagnostic::error(
                    place.file,
                    first,
                    "E201",
                    format!("one action has several kinds: {}", keys.join(", ")),
                )
                .help("put each in its own `- ` list entry"),
            );
            return;
        }
    };
    for key in a.extra_keys_present() {
        if !kind.extra_keys().contains(&key) {
            let takes = kind.extra_keys();
            let help = if takes.is_empty() {
                format!("`{}` takes only `condition`", kind.key())
            } else {
                format!(
                    "`{}` takes {} and `condition`",
                    kind.key(),
                    takes.join(", ")
                )
            };
            out.push(
                ScriptDiagnostic::error(
                    place.file,
                    first,
                    "E202",
                    format!("`{key}` does not belong to a `{}` action", kind.key()),
                )
                .help(help),
            );
        }
    }
    // Texts and prompts: every `{NAME}` must be known somewhere.
    let mut texts: Vec<(&str, (u64, u64))> = Vec::new();
    if let Some(t) = a.kind_text(kind) {
        texts.push((&t.value, place.at(t)));
    }
    for c in a.choices.iter().flatten().flat_map(|m| m.values()) {
        texts.push((c, first));
    }
    for t in [&a.tone, &a.exit].into_iter().flatten() {
        texts.push((t, first));
    }
    let mut skill_side: Vec<(&str, (u64, u64))> = Vec::new();
    for o in a.output.iter().flatten().chain(a.input.iter().flatten()) {
        if let Some(d) = &o.define {
            texts.push((d, first));
        }
        if let Some(serde_json::Value::String(v)) = &o.value {
            // A call's outputs are read in the skill's scope when it ends.
            let is_call_output =
                kind == ActionKind::Call && a.output.iter().flatten().any(|x| std::ptr::eq(x, o));
            if is_call_output {
                skill_side.push((v, first));
            } else {
                texts.push((v, first));
            }
        }
    }
    for (text, at) in texts {
        unknown_vars(cx, place, text, at, Some(&scope.visible), out);
    }
    for (text, at) in skill_side {
        unknown_vars(cx, place, text, at, None, out);
    }
    match kind {
        ActionKind::UserOption if a.choices.as_ref().is_none_or(Vec::is_empty) => {
            out.push(ScriptDiagnostic::error(
                place.file,
                first,
                "E310",
                "`user_option` without `choices`".into(),
            ));
        }
        ActionKind::AiAsk => {
            if let Some(m) = &a.max_rounds
                && !(1..=10).contains(&m.value)
            {
                out.push(
                    ScriptDiagnostic::error(
                        place.file,
                        place.at(m),
                        "E290",
                        format!("max_rounds {} is outside 1–10", m.value),
                    )
                    .help("the default is 3"),
                );
            }
        }
        ActionKind::Scene => {
            if let Some(ai) = &a.ai {
                match cx.roles.get(ai.value.as_str()) {
                    Some(RoleType::Ai) => {}
                    Some(RoleType::Human) => out.push(ScriptDiagnostic::error(
                        place.file,
                        place.at(ai),
                        "E221",
                        format!("`ai: {}` names a HUMAN role", ai.value),
                    )),
                    None => {
                        let mut d = ScriptDiagnostic::error(
                            place.file,
                            place.at(ai),
                            "E221",
                            format!("unknown role `{}`", ai.value),
                        );
                        if let Some(c) = closest(&ai.value, cx.roles.keys().copied()) {
                            d = d.help(format!("did you mean `{c}`?"));
                        }
                        out.push(d);
                    }
                }
            }
        }
        ActionKind::Call => check_call(cx, place, a, scope, out),
        _ => {}
    }
    for o in a.output.iter().flatten() {
        if o.get.is_none() && o.set.is_none() {
            out.push(ScriptDiagnostic::error(
                place.file,
                first,
                "E310",
                "an output entry needs `get:` (with `define:`) or `set:` (with `value:`)".into(),
            ));
        }
    }
    if let Some(c) = &a.condition {
        check_condition(cx, place, c, scope, out);
    }
}

/// `{NAME}`s known nowhere (E300) or, with `visible`, living only in another goal (W303).
fn unknown_vars(
    cx: &Cx,
    place: &Place,
    text: &str,
    at: (u64, u64),
    visible: Option<&Visible>,
    out: &mut Vec<ScriptDiagnostic>,
) {
    for v in referenced_vars(text) {
        if let (Some(visible), Some(home)) = (visible, cx.goal_local.get(v))
            && !visible.contains(v)
        {
            out.push(
                ScriptDiagnostic::warning(
                    place.file,
                    at,
                    "W303",
                    format!("`{{{v}}}` is not visible here: it lives in goal `{home}`"),
                )
                .help(
                    "declare it in the stage's or session's `declare:` to share it between goals",
                ),
            );
            continue;
        }
        if !cx.known.contains(v) {
            let mut d = ScriptDiagnostic::error(
                place.file,
                at,
                "E300",
                format!("`{{{v}}}` is declared or produced nowhere"),
            );
            d = match closest(v, cx.known.iter().copied()) {
                Some(c) => d.help(format!("did you mean `{{{c}}}`?")),
                None => d.help(
                    "declare it (`declare:` or global.yaml) or produce it with an output `get:`",
                ),
            };
            out.push(d);
        }
    }
}

fn check_call(cx: &Cx, place: &Place, a: &Action, scope: &Scope, out: &mut Vec<ScriptDiagnostic>) {
    let name = a.call.as_ref().expect("a call");
    let Some((_, skill)) = cx.skills.get(name.value.as_str()) else {
        let mut d = ScriptDiagnostic::error(
            place.file,
            place.at(name),
            "E220",
            format!("unknown skill `{}`", name.value),
        );
        d = match closest(&name.value, cx.skills.keys().copied()) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help("skills are the goals under `skills:` in skills.yaml"),
        };
        out.push(d);
        return;
    };
    let timing = a.timing.as_ref().map(|t| t.value);
    if let Some(to) = &a.timing_to {
        let (names, what) = match timing {
            Some(Timing::AfterStage) => (scope.stages, "stage of this session"),
            Some(Timing::Now) => {
                out.push(ScriptDiagnostic::warning(
                    place.file,
                    place.at(to),
                    "W301",
                    "`timing_to` is ignored with `timing: NOW`".into(),
                ));
                (None, "")
            }
            _ => (scope.goals, "goal of this stage"),
        };
        if let Some(names) = names
            && !names.contains(&to.value.as_str())
        {
            let mut d = ScriptDiagnostic::error(
                place.file,
                place.at(to),
                "E230",
                format!("`timing_to: {}` names no {what}", to.value),
            );
            if let Some(c) = closest(&to.value, names.iter().copied()) {
                d = d.help(format!("did you mean `{c}`?"));
            }
            out.push(d);
        }
    }
    // Inputs set the skill's declared variables.
    let declared: BTreeSet<&str> = skill.declared().collect();
    for o in a.input.iter().flatten() {
        binding_target(place, o, &declared, &name.value, out);
    }
    if let Some(list) = &a.fromlist
        && !cx.lists.contains(list.value.as_str())
    {
        out.push(
            ScriptDiagnostic::error(
                place.file,
                place.at(list),
                "E260",
                format!("`fromlist: {}` is never a list", list.value),
            )
            .help("make it a list with `tolist:` on an ai_ask or think, or declare it with a list value"),
        );
    }
}

fn binding_target(
    place: &Place,
    o: &Output,
    declared: &BTreeSet<&str>,
    skill: &str,
    out: &mut Vec<ScriptDiagnostic>,
) {
    if let Some(set) = &o.set
        && !declared.contains(set.value.as_str())
    {
        let mut d = ScriptDiagnostic::error(
            place.file,
            place.at(set),
            "E250",
            format!("skill `{skill}` declares no variable `{}`", set.value),
        );
        d = match closest(&set.value, declared.iter().copied()) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help("inputs set variables the skill lists under `declare:`"),
        };
        out.push(d);
    }
}

fn check_condition(
    cx: &Cx,
    place: &Place,
    c: &Spanned<String>,
    scope: &Scope,
    out: &mut Vec<ScriptDiagnostic>,
) {
    let (line, col) = place.at(c);
    match Condition::parse(&c.value) {
        Err(e) => {
            // Point inside the scalar: past its opening quote, if it has one.
            let quoted = cx
                .texts
                .get(place.file)
                .and_then(|t| t.lines().nth(line as usize - 1))
                .and_then(|l| l.chars().nth(col as usize - 1))
                .is_some_and(|ch| ch == '"' || ch == '\'');
            let at = (line, col + u64::from(quoted) + e.column as u64 - 1);
            let mut d = ScriptDiagnostic::error(
                place.file,
                at,
                "E270",
                format!("condition: {}", e.message),
            );
            if let Some(h) = e.help {
                d = d.help(h);
            }
            out.push(d);
        }
        Ok(cond) => {
            for v in cond.variables() {
                let text = format!("{{{v}}}");
                unknown_vars(cx, place, &text, (line, col), Some(&scope.visible), out);
            }
            for (var, key) in cond.compared_literals() {
                if let Some(keys) = cx.options.get(var)
                    && !keys.contains(key.as_str())
                {
                    let list: Vec<&str> = keys.iter().copied().collect();
                    out.push(
                        ScriptDiagnostic::error(
                            place.file,
                            (line, col),
                            "E280",
                            format!("`{{{var}}}` is compared with '{key}', which is not one of its choices"),
                        )
                        .help(format!("the choices are {}", list.join(", "))),
                    );
                }
            }
        }
    }
}

/// Cycles among skills that call each other (any timing would repeat forever).
fn call_cycles(skills: &BTreeMap<&str, (&LoadedDoc, &Goal)>) -> Vec<ScriptDiagnostic> {
    fn calls(g: &Goal) -> impl Iterator<Item = &str> {
        g.actions
            .iter()
            .filter_map(|a| a.call.as_ref().map(|c| c.value.as_str()))
    }
    let mut out = Vec::new();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    for &start in skills.keys() {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack = vec![(start, vec![start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            let Some((_, g)) = skills.get(at) else {
                continue;
            };
            for next in calls(g) {
                if next == start {
                    // One report per cycle, at the first of its skills.
                    if path.iter().all(|p| !reported.contains(p)) {
                        reported.extend(path.iter().copied());
                        let (d, g) = skills[start];
                        let place = Place {
                            file: &d.file,
                            offset: d.line_offset,
                        };
                        let mut cycle = path.clone();
                        cycle.push(next);
                        out.push(
                            ScriptDiagnostic::error(
                                place.file,
                                place.at(&g.goal),
                                "E240",
                                format!("skills call each other in a cycle: {}", cycle.join(" → ")),
                            )
                            .help("a skill may not lead back to itself; break the chain"),
                        );
                    }
                } else if seen.insert(next) {
                    let mut p = path.clone();
                    p.push(next);
                    stack.push((next, p));
                }
            }
        }
    }
    out
}

/// Loads and checks a folder.
pub fn check_dir(dir: &Path) -> (ScriptSources, Vec<ScriptDiagnostic>) {
    let (src, mut diags) = super::load::load_dir(dir);
    diags.extend(check(&src));
    (src, diags)
}

/// Whether a folder looks like a script set (any YAML with a script key).
pub fn is_script_dir(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    let keys = ["sessions:", "skills:", "roles:", "global:", "forms:"];
    rd.filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p: &PathBuf| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .any(|p| {
            std::fs::read_to_string(&p)
                .is_ok_and(|t| t.lines().any(|l| keys.iter().any(|k| l.starts_with(k))))
        })
}
