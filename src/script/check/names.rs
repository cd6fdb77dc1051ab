//! Facts about the whole set that the checks read: every goal and
//! declaration, the names each goal owns, option keys, lists.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::script::format::{Goal, VarDecl};
use crate::script::load::ScriptSources;

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
pub fn all_declarations(src: &ScriptSources) -> impl Iterator<Item = &VarDecl> {
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
pub(super) fn known_variables<'a>(src: &'a ScriptSources, owns: &Owns<'a>) -> BTreeSet<&'a str> {
    let mut known: BTreeSet<&str> = all_declarations(src)
        .map(|v| v.var.value.as_str())
        .collect();
    for own in owns.values() {
        known.extend(own);
    }
    known.extend(filled_variables(src));
    known
}

/// The variables `fill` actions set: their forms' fields (the field's `var:`,
/// else its name).
fn filled_variables(src: &ScriptSources) -> Vec<&str> {
    let forms: Vec<&crate::script::format::Form> = src
        .docs
        .iter()
        .flat_map(|d| d.doc.forms.iter().flatten())
        .collect();
    let mut out = Vec::new();
    for a in all_goals(src).flat_map(|g| &g.actions) {
        let Some(form) = a.fill.as_ref() else {
            continue;
        };
        let fields = forms
            .iter()
            .filter(|f| f.form.value == form.value)
            .flat_map(|f| &f.fields);
        for x in fields {
            let named = a.fields.as_ref();
            if named.is_none_or(|n| n.iter().any(|n| n.value == x.field.value)) {
                out.push(x.var.as_ref().unwrap_or(&x.field).value.as_str());
            }
        }
    }
    out
}

/// Each goal's [`own_variables`], worked out once, by the goal's address.
pub(super) type Owns<'a> = HashMap<*const Goal, BTreeSet<&'a str>>;

/// Names a goal declares or produces (outputs, options, lists and their fields).
pub(super) fn own_variables(g: &Goal) -> BTreeSet<&str> {
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

/// Every `user_option` variable with the keys of all its choices.
pub(super) fn option_keys(src: &ScriptSources) -> BTreeMap<&str, BTreeSet<&str>> {
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
pub(super) fn list_variables(src: &ScriptSources) -> BTreeSet<&str> {
    let declared = all_declarations(src)
        .filter(|v| {
            matches!(
                v.value.as_ref().map(|v| &v.value),
                Some(serde_json::Value::Array(_))
            )
        })
        .map(|v| v.var.value.as_str());
    let tolists = all_goals(src)
        .flat_map(|g| g.actions.iter())
        .filter_map(|a| a.tolist.as_ref().map(|l| l.value.as_str()));
    declared.chain(tolists).collect()
}

/// The fields of every list (`get`s of a `tolist` action): a `fromlist` goal reads them.
pub(super) fn list_fields(src: &ScriptSources) -> impl Iterator<Item = &str> {
    all_goals(src)
        .flat_map(|g| &g.actions)
        .filter(|a| a.tolist.is_some())
        .flat_map(|a| a.output.iter().flatten())
        .filter_map(|o| o.get.as_ref().map(|g| g.value.as_str()))
}
