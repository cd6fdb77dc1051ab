//! What a writer may not mean: an unquoted `value: {x}` (a YAML map, not
//! the text `{x}`), an `update:` the engine does not know (`autoo`),
//! full-width braces `｛变量｝`, which never fill in a variable, a `call`
//! without `timing` with actions after it (`NOW` ends the goal there), and
//! `persist` on a variable that is not global.

use serde_json::Value;
use serde_saphyr::Spanned;

use super::Place;
use crate::script::diag::ScriptDiagnostic;
use crate::script::format::{Goal, VarDecl};
use crate::script::load::{LoadedDoc, ScriptSources};

/// E311, E312, E313, W304 and W305 over the whole set.
pub(super) fn check_values(src: &ScriptSources, out: &mut Vec<ScriptDiagnostic>) {
    for d in &src.docs {
        let place = Place::of(d);
        for v in declarations(d) {
            check_declaration(&place, v, out);
        }
        kept_locals(&place, d, out);
        for g in goals(d) {
            skipped_after_call(&place, g, out);
            let entries = g.actions.iter().flat_map(|a| {
                let outputs = a.output.iter().flatten();
                outputs.chain(a.input.iter().flatten())
            });
            for value in entries.filter_map(|o| o.value.as_ref()) {
                check_literal(&place, value, "value", out);
            }
        }
    }
    for (path, text) in &src.texts {
        full_width_braces(path, text, out);
    }
}

/// W305: a `call` with no `timing` is `NOW`: the design ends the current
/// goal there, so the actions after it never run.
fn skipped_after_call(place: &Place, g: &Goal, out: &mut Vec<ScriptDiagnostic>) {
    let n = g.actions.len();
    for (i, a) in g.actions.iter().enumerate() {
        let Some(call) = a.call.as_ref().filter(|_| a.timing.is_none() && i + 1 < n) else {
            continue;
        };
        let rest = n - i - 1;
        let message = format!(
            "`call: {}` has no `timing`, so it is `NOW`: goal `{}` ends here and the {rest} action(s) after it never run",
            call.value, g.goal.value
        );
        let help = "to come back to this goal after the skill, add `timing: BEFORE_GOAL`; to mean `NOW`, write it or move the call last";
        out.push(ScriptDiagnostic::warning(place.file, place.at(call), "W305", message).help(help));
    }
}

/// The doc's variable declarations, at every scope.
fn declarations(d: &LoadedDoc) -> impl Iterator<Item = &VarDecl> {
    let sessions = d.doc.sessions.iter().flatten().flat_map(|s| {
        s.declare
            .iter()
            .chain(s.stages.iter().flat_map(|st| st.declare.iter()))
    });
    let goals = goals(d).flat_map(|g| g.declare.iter().flatten());
    d.doc.global.iter().flatten().chain(sessions).chain(goals)
}

/// The doc's goals: its stages' and its skills.
fn goals(d: &LoadedDoc) -> impl Iterator<Item = &Goal> {
    let staged = d.doc.sessions.iter().flatten();
    staged
        .flat_map(|s| s.stages.iter().flat_map(|st| st.steps.iter()))
        .chain(d.doc.skills.iter().flatten())
}

/// A declaration's default (a map is a mistake) and its `update:` (`auto`
/// or `get`).
fn check_declaration(place: &Place, v: &VarDecl, out: &mut Vec<ScriptDiagnostic>) {
    if let Some(value) = &v.value {
        check_literal(place, value, "value", out);
    }
    if let Some(u) = &v.update
        && !matches!(u.value.as_str(), "auto" | "get")
    {
        let help = match u.value.to_lowercase().trim() {
            t if t.starts_with("au") => "did you mean `auto`?",
            t if t.starts_with('g') => "did you mean `get`?",
            _ => "`auto` fills it in from the conversation after each turn",
        };
        let message = format!(
            "`update: {}` on `{}` is neither `auto` nor `get`",
            u.value, v.var.value
        );
        out.push(ScriptDiagnostic::error(place.file, place.at(u), "E312", message).help(help));
    }
}

/// E313: `persist: true` on a variable that is not global (only globals
/// outlive a session).
fn kept_locals(place: &Place, d: &LoadedDoc, out: &mut Vec<ScriptDiagnostic>) {
    let globals = d.doc.global.iter().flatten().count();
    for v in declarations(d).skip(globals) {
        let Some(p) = v.persist.as_ref().filter(|p| p.value) else {
            continue;
        };
        let message = format!(
            "`persist: true` on `{}`, which is not a global variable: only globals are kept across sessions",
            v.var.value
        );
        let help =
            "declare it under `global:` (global.yaml) to keep it for the player's next session";
        out.push(ScriptDiagnostic::error(place.file, place.at(p), "E313", message).help(help));
    }
}

/// E311: `value: {x}` unquoted is a YAML map, not the text `{x}`.
fn check_literal(
    place: &Place,
    value: &Spanned<Value>,
    key: &str,
    out: &mut Vec<ScriptDiagnostic>,
) {
    let Value::Object(map) = &value.value else {
        return;
    };
    let braced: Vec<String> = map.keys().map(|k| format!("{{{k}}}")).collect();
    let meant = if map.values().all(Value::is_null) {
        braced.join("")
    } else {
        "…".into()
    };
    let message =
        format!("`{key}:` is a YAML map here, not text: YAML reads an unquoted `{{…}}` as a map");
    let help = format!("quote it: `{key}: \"{meant}\"`");
    out.push(ScriptDiagnostic::error(place.file, place.at(value), "E311", message).help(help));
}

/// W304: `｛` or `｝` anywhere but in a comment or a condition (whose own
/// check reports them as errors), once a line.
fn full_width_braces(path: &std::path::Path, text: &str, out: &mut Vec<ScriptDiagnostic>) {
    for (i, line) in text.lines().enumerate() {
        let code = line.split(" #").next().unwrap_or(line);
        let key = code.trim_start().trim_start_matches("- ");
        if key.starts_with('#') || key.starts_with("condition:") {
            continue;
        }
        // One warning a line, at its first full-width brace.
        if let Some(col) = code.chars().position(|c| matches!(c, '｛' | '｝')) {
            let at = (i as u64 + 1, col as u64 + 1);
            let message = "full-width braces never fill in a variable".to_string();
            let help = "type ASCII braces: `{用户名}`, not `｛用户名｝`";
            out.push(ScriptDiagnostic::warning(path, at, "W304", message).help(help));
        }
    }
}
