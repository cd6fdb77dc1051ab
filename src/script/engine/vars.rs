//! Variables by scope (goal > stage > session > global), `{NAME}`
//! interpolation, forms filled as variables are set, and conditions.

use std::collections::BTreeMap;

use super::Engine;
use super::protocol::{Effect, FormFields, Frame, State, Var};
use crate::script::condition::{Condition, Value};
use crate::script::format::{Action, VarDecl};

/// A variable in the scopes outside every goal: stage, then session, then global.
pub(super) fn outer<'s>(st: &'s State, name: &str) -> Option<&'s Var> {
    st.stage_vars
        .get(name)
        .or_else(|| st.session_vars.get(name))
        .or_else(|| st.global.get(name))
}

/// Declared variables with their default values.
pub(super) fn decl_vars(d: &[VarDecl]) -> BTreeMap<String, Var> {
    d.iter()
        .map(|v| {
            (
                v.var.value.clone(),
                v.value
                    .as_ref()
                    .map_or(Var::Null, |v| Var::from_json(&v.value)),
            )
        })
        .collect()
}

impl Engine<'_> {
    /// A variable by scope: goal (innermost frame) > stage > session > global.
    pub fn lookup(&self, st: &State, name: &str) -> Option<Var> {
        if let Some(f) = st.frames.last() {
            if let Some(v) = f.vars.get(name) {
                return Some(v.clone());
            }
            // A fromlist item's fields read as variables in its goal.
            if let Some(item) = self.item_of(st, f)
                && let Some(v) = item.get(name)
            {
                return Some(Var::Text(v.clone()));
            }
        }
        outer(st, name).cloned()
    }

    fn item_of(&self, st: &State, f: &Frame) -> Option<BTreeMap<String, String>> {
        let (list, i) = f.goal.skill.as_ref()?.item.as_ref()?;
        match self.lookup_outside(st, list)? {
            Var::List(items) => items.get(*i).cloned(),
            _ => None,
        }
    }

    /// Lookup skipping the innermost frame (the caller's view from a skill).
    fn lookup_outside(&self, st: &State, name: &str) -> Option<Var> {
        for f in st.frames.iter().rev().skip(1) {
            if let Some(v) = f.vars.get(name) {
                return Some(v.clone());
            }
        }
        outer(st, name).cloned()
    }

    /// Sets a variable where it is declared (innermost first); an undeclared one
    /// is declared in the current goal.
    pub(super) fn set(&self, st: &mut State, name: &str, value: Var, fx: &mut Vec<Effect>) {
        st.given.insert(name.to_string());
        st.set_at.insert(name.to_string(), st.said);
        let scope = if let Some(f) = st.frames.last_mut()
            && f.vars.contains_key(name)
        {
            f.vars.insert(name.to_string(), value.clone());
            "goal"
        } else if st.stage_vars.contains_key(name) {
            st.stage_vars.insert(name.to_string(), value.clone());
            "stage"
        } else if st.session_vars.contains_key(name) {
            st.session_vars.insert(name.to_string(), value.clone());
            "session"
        } else if st.global.contains_key(name) {
            st.global.insert(name.to_string(), value.clone());
            "global"
        } else if let Some(f) = st.frames.last_mut() {
            f.vars.insert(name.to_string(), value.clone());
            "goal"
        } else {
            st.session_vars.insert(name.to_string(), value.clone());
            "session"
        };
        for (form, field) in self.script.form_fields.get(name).into_iter().flatten() {
            let text = value.text();
            st.forms
                .entry(form.clone())
                .or_default()
                .insert(field.clone(), text.clone());
            fx.push(Effect::FormFilled {
                form: form.clone(),
                field: field.clone(),
                value: text,
            });
        }
        fx.push(Effect::VarSet {
            name: name.to_string(),
            scope: scope.to_string(),
            value,
        });
    }

    /// Every form with its fields in order, and the value each holds (None: not filled yet).
    pub fn filled_forms(&self, st: &State) -> Vec<(String, FormFields)> {
        self.script
            .forms
            .iter()
            .map(|f| {
                let values = st.forms.get(&f.form.value);
                let fields = f
                    .fields
                    .iter()
                    .map(|x| {
                        let v = values.and_then(|m| m.get(&x.field.value)).cloned();
                        (x.field.value.clone(), v)
                    })
                    .collect();
                (f.form.value.clone(), fields)
            })
            .collect()
    }

    /// `{NAME}` → its value; a declared variable with no value yet shows as
    /// `⟨NAME?⟩` (and a warning), an undeclared one as `⟨NAME!⟩`.
    pub fn interpolate(&self, st: &State, text: &str, fx: &mut Vec<Effect>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find('}') {
                Some(close) if !after[..close].contains('{') => {
                    let name = after[..close].trim();
                    self.interpolate_name(st, name, &mut out, fx);
                    rest = &after[close + 1..];
                }
                _ => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Writes the value of `{name}` to `out`.
    fn interpolate_name(&self, st: &State, name: &str, out: &mut String, fx: &mut Vec<Effect>) {
        // Most names are plain variables: read them in place (not inside a
        // fromlist goal, whose item fields come between).
        let top = st.frames.last();
        let in_item = top.is_some_and(|f| f.goal.skill.as_ref().is_some_and(|c| c.item.is_some()));
        let direct = match top.and_then(|f| f.vars.get(name)) {
            Some(v) => Some(v),
            None if in_item => None,
            None => outer(st, name),
        };
        if let Some(Var::Text(t)) = direct {
            out.push_str(t);
            return;
        }
        match self.lookup(st, name) {
            Some(Var::Null) => {
                out.push_str(&format!("⟨{name}?⟩"));
                fx.push(Effect::Warning {
                    message: format!("`{{{name}}}` has no value yet"),
                });
            }
            Some(v) => out.push_str(&v.text()),
            None if name == crate::script::condition::HISTORY => out.push_str(&history(st)),
            None => {
                out.push_str(&format!("⟨{name}!⟩"));
                fx.push(Effect::Warning {
                    message: format!("`{{{name}}}` is not declared"),
                });
            }
        }
    }

    /// Whether the action's `condition` holds (no condition: it does).
    pub(super) fn condition_holds(&self, st: &State, a: &Action, fx: &mut Vec<Effect>) -> bool {
        let Some(c) = &a.condition else {
            return true;
        };
        let parsed;
        let compiled = match self.script.conditions.get(&c.value) {
            Some(c) => c.as_ref(),
            None => {
                parsed = Condition::parse(&c.value).map_err(|e| e.to_string());
                parsed.as_ref()
            }
        };
        let lookup = |name: &str| match self.lookup(st, name) {
            Some(v) => v.condition_value(),
            None if name == crate::script::condition::CHAT => goal_chat(st),
            None if name == crate::script::condition::HISTORY => Value::Str(history(st)),
            None if name == crate::script::condition::REPLY => {
                let (_, human) = self.script.default_roles();
                let last = st.chat.iter().rev().find(|l| l.role == human);
                Value::Str(last.map_or_else(String::new, |l| l.text.clone()))
            }
            None => Value::Undefined,
        };
        match compiled {
            Ok(cond) => {
                for (var, text, op) in cond.text_against_number(&lookup) {
                    fx.push(Effect::Warning {
                        message: format!(
                            "condition `{}`: `{var}` is 「{text}」, not a number, so `{op}` with a number is false either way (ask for a number in its `define`, e.g. 只写数字)",
                            c.value
                        ),
                    });
                }
                cond.eval(&lookup)
            }
            Err(e) => {
                fx.push(Effect::Warning {
                    message: format!("condition `{}` skipped: {e}", c.value),
                });
                false
            }
        }
    }
}

/// A line as the client reads it: a clause built on a value not set (the
/// writer's `⟨NAME?⟩` and `⟨NAME!⟩` markers, which the transcript keeps
/// with a warning) is left out whole — 「⟨名字?⟩，你回来了！」 reads
/// 「你回来了！」 — and a line with nothing left reads 「……」.
pub fn client_text(text: &str) -> String {
    if !text.contains('⟨') {
        return text.to_string();
    }
    let marked = |clause: &str| {
        clause.split('⟨').skip(1).any(|after| {
            after
                .split_once('⟩')
                .is_some_and(|(name, _)| name.ends_with(['?', '!']))
        })
    };
    let mut out = String::with_capacity(text.len());
    for clause in clauses(text) {
        if !marked(clause) {
            out.push_str(clause);
        }
    }
    if let Some(open) = out.strip_suffix('，') {
        out = format!("{open}。");
    }
    match out.trim().is_empty() {
        true => "……".into(),
        false => out,
    }
}

/// `text` cut after each `，。！？；` that stands outside brackets and quotes.
fn clauses(text: &str) -> Vec<&str> {
    cut_outside(text, &['，', '。', '！', '？', '；'])
}

/// `text` cut after each of `seps` that stands outside brackets and quotes
/// (each piece keeps its separator; the last may have none).
pub(super) fn cut_outside<'t>(text: &'t str, seps: &[char]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let (mut depth, mut from) = (0u32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '（' | '(' | '「' | '“' | '《' => depth += 1,
            '）' | ')' | '」' | '”' | '》' => depth = depth.saturating_sub(1),
            c if depth == 0 && seps.contains(&c) => {
                out.push(&text[from..i + c.len_utf8()]);
                from = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&text[from..]);
    out
}

/// `{history}`: the course's past sessions, one line each (empty outside a
/// course and in its first session).
fn history(st: &State) -> String {
    st.course
        .as_ref()
        .map_or_else(String::new, |c| c.past.history_text())
}

/// What was said in the running goal, one line each (`role：text`), for
/// `{chat}` in a condition.
fn goal_chat(st: &State) -> Value {
    let from = st.frames.last().map_or(0, |f| f.chat_from);
    let lines: Vec<String> = st
        .chat_since(from)
        .iter()
        .map(|l| format!("{}：{}", l.role, l.text))
        .collect();
    Value::Str(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_client_never_reads_a_marker() {
        use super::client_text;
        assert_eq!(
            client_text("⟨心旅者名?⟩，你回来了！上次你说最困扰你的是「⟨主诉?⟩」。"),
            "你回来了！"
        );
        assert_eq!(client_text("你好，⟨名字!⟩，欢迎"), "你好，欢迎");
        assert_eq!(client_text("我们聊聊，⟨话题?⟩"), "我们聊聊。");
        assert_eq!(client_text("最困扰你的是「⟨主诉?⟩」。"), "……");
        assert_eq!(client_text("⟨不是标记⟩"), "⟨不是标记⟩");
    }
}
