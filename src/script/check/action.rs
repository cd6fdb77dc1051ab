//! The checks of one action, and of forms.

use std::collections::BTreeSet;

use serde_saphyr::Spanned;

use super::names::referenced_vars;
use super::{Cx, Place, Scope, Visible};
use crate::base::closest;
use crate::script::condition::Condition;
use crate::script::diag::ScriptDiagnostic;
use crate::script::format::{Action, ActionKind, Form, Output, RoleType, Timing};

/// Checks one action: one kind (E201), only its keys (E202), every `{NAME}`
/// in its texts, what its kind needs, its outputs and its condition.
pub(super) fn check_action(
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
    let Some(kind) = single_kind(place, &kinds, first, out) else {
        return;
    };
    check_keys(place, a, kind, first, out);
    check_texts(cx, place, a, kind, first, scope, out);
    match kind {
        ActionKind::UserOption if a.choices.as_ref().is_none_or(Vec::is_empty) => {
            out.push(ScriptDiagnostic::error(
                place.file,
                first,
                "E310",
                "`user_option` without `choices`".into(),
            ));
        }
        ActionKind::AiAsk => check_rounds(place, a, out),
        ActionKind::Scene => check_speaker(cx, place, a, out),
        ActionKind::Call => check_call(cx, place, a, scope, out),
        ActionKind::Fill => check_fill(cx, place, a, out),
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

/// E201: the action's one kind, or none reported (no kind, or several).
fn single_kind(
    place: &Place,
    kinds: &[ActionKind],
    first: (u64, u64),
    out: &mut Vec<ScriptDiagnostic>,
) -> Option<ActionKind> {
    match kinds {
        [k] => Some(*k),
        [] => {
            out.push(
                ScriptDiagnostic::error(place.file, first, "E201", "an action with no kind".into())
                    .help("start it with say, user_say, user_option, ask, ai_say, ai_ask, think, call, scene or fill"),
            );
            None
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
            None
        }
    }
}

/// E202: keys the action's kind does not take.
fn check_keys(
    place: &Place,
    a: &Action,
    kind: ActionKind,
    first: (u64, u64),
    out: &mut Vec<ScriptDiagnostic>,
) {
    for key in a.extra_keys_present() {
        if kind.extra_keys().contains(&key) {
            continue;
        }
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

/// Texts and prompts: every `{NAME}` must be known somewhere (and visible here).
fn check_texts(
    cx: &Cx,
    place: &Place,
    a: &Action,
    kind: ActionKind,
    first: (u64, u64),
    scope: &Scope,
    out: &mut Vec<ScriptDiagnostic>,
) {
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
        if let Some(serde_json::Value::String(v)) = o.value.as_ref().map(|v| &v.value) {
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
}

/// E290: `max_rounds` outside 1–10.
fn check_rounds(place: &Place, a: &Action, out: &mut Vec<ScriptDiagnostic>) {
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
            .help("the default is 6"),
        );
    }
}

/// E221: `ai:` names an AI role.
fn check_speaker(cx: &Cx, place: &Place, a: &Action, out: &mut Vec<ScriptDiagnostic>) {
    let Some(ai) = &a.ai else {
        return;
    };
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
        // `{history}` is the course's past sessions (unless declared).
        if !cx.known.contains(v) && v != crate::script::condition::HISTORY {
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

/// E222: `fill` names a form of the set, and `fields` fields of it.
fn check_fill(cx: &Cx, place: &Place, a: &Action, out: &mut Vec<ScriptDiagnostic>) {
    let Some(name) = a.fill.as_ref() else {
        return;
    };
    let Some(fields) = cx.forms.get(name.value.as_str()) else {
        let d = ScriptDiagnostic::error(
            place.file,
            place.at(name),
            "E222",
            format!("unknown form `{}`", name.value),
        );
        out.push(match closest(&name.value, cx.forms.keys().copied()) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help("forms are declared under `forms:` in forms.yaml"),
        });
        return;
    };
    for f in a.fields.iter().flatten() {
        if fields.contains(&f.value.as_str()) {
            continue;
        }
        let d = ScriptDiagnostic::error(
            place.file,
            place.at(f),
            "E222",
            format!("form `{}` has no field `{}`", name.value, f.value),
        );
        out.push(match closest(&f.value, fields.iter().copied()) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None if fields.is_empty() => d.help("the form has no fields yet"),
            None => d.help(format!("its fields are {}", fields.join(", "))),
        });
    }
}

/// E220: `name` is no skill (the nearest one suggested).
pub(super) fn unknown_skill(cx: &Cx, place: &Place, name: &Spanned<String>) -> ScriptDiagnostic {
    let d = ScriptDiagnostic::error(
        place.file,
        place.at(name),
        "E220",
        format!("unknown skill `{}`", name.value),
    );
    match closest(&name.value, cx.skills.keys().copied()) {
        Some(c) => d.help(format!("did you mean `{c}`?")),
        None => d.help("skills are the goals under `skills:` in skills.yaml"),
    }
}

/// A `call`: the skill exists (E220), `timing_to` names a goal or stage
/// there is (E230, W301) and not one already past (W306), inputs set declared variables (E250), `fromlist`
/// is a list (E260).
fn check_call(cx: &Cx, place: &Place, a: &Action, scope: &Scope, out: &mut Vec<ScriptDiagnostic>) {
    let Some(name) = a.call.as_ref() else {
        return;
    };
    let Some((_, skill)) = cx.skills.get(name.value.as_str()) else {
        out.push(unknown_skill(cx, place, name));
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
        } else if let Some(past) = past_target(scope, timing, &to.value) {
            out.push(
                ScriptDiagnostic::warning(
                    place.file,
                    place.at(to),
                    "W306",
                    format!("`timing_to: {}` names {past} by the time this call runs", to.value),
                )
                .help(match timing {
                    Some(Timing::AfterStage) => "the skill runs at the end of the current stage instead; name this stage or a later one, or leave `timing_to` out",
                    Some(Timing::BeforeGoal) => "the skill runs at once instead, then this goal goes on; name this goal or a later one, or leave `timing_to` out",
                    _ => "the skill runs right after this goal instead; name this goal or a later one, or leave `timing_to` out",
                }),
            );
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

/// What an ended `timing_to` names (None: it is not behind the call).
fn past_target(scope: &Scope, timing: Option<Timing>, to: &str) -> Option<&'static str> {
    match timing {
        Some(Timing::Now) => None,
        Some(Timing::AfterStage) => scope
            .past_stages
            .contains(&to)
            .then_some("a stage that has already ended"),
        _ => scope
            .past_goals
            .contains(&to)
            .then_some("a goal that has already ended"),
    }
}

/// E250: an input sets a variable the skill does not declare.
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

/// E270: a condition that does not parse; E300/W303 for its variables; E280
/// for a comparison with a key that is no choice.
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
            // `{chat}` is the goal's chat, `{reply}` the human's last
            // answer and `{history}` the course's past sessions, unless the
            // set declares its own.
            let builtin = |v: &str| {
                use crate::script::condition::{CHAT, HISTORY, REPLY};
                [CHAT, REPLY, HISTORY].contains(&v) && !cx.known.contains(v)
            };
            for v in cond.variables().into_iter().filter(|v| !builtin(v)) {
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

/// A form's fields are unique, and each is filled from a variable that exists.
pub(super) fn check_form(
    place: &Place,
    f: &Form,
    known: &BTreeSet<&str>,
    out: &mut Vec<ScriptDiagnostic>,
) {
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
pub(super) fn dup(place: &Place, s: &Spanned<String>, what: &str) -> ScriptDiagnostic {
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
