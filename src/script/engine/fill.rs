//! `fill`: the human fills in a form of `forms.yaml`, field by field. The
//! speaking role asks for each field not filled yet (its `define` says what
//! goes in it); the answer, as typed, is the field's value — set on the
//! field's variable, so a form filled along the way and one filled here are
//! the same thing.

use super::Engine;
use super::protocol::{Effect, State, Var, Wait};
use crate::script::format::{Action, ActionKind, FormField};

impl Engine<'_> {
    /// Asks for the next field of `form` still empty, or moves on when none is.
    pub(super) fn fill_next(&self, st: &mut State, a: &Action, form: &str, fx: &mut Vec<Effect>) {
        let Some(field) = self.fill_field(st, a, form) else {
            return self.advance(st);
        };
        let what = field
            .define
            .as_deref()
            .map_or(String::new(), |d| format!("（{d}）"));
        let text = format!("请填一下「{form}」里的「{}」{what}：", field.field.value);
        self.ai_line(st, text, ActionKind::Fill, fx);
        fx.push(Effect::AwaitText);
        st.wait = Wait::Text;
    }

    /// The human's answer goes into the field asked for; then the next one.
    pub(super) fn fill_answered(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let action = self.current_action(st);
        let form = action
            .and_then(|a| a.fill.as_ref())
            .map(|f| f.value.clone());
        let field = action
            .zip(form.as_deref())
            .and_then(|(a, form)| self.fill_field(st, a, form));
        let answer = st.chat.last().map(|l| l.text.trim().to_string());
        if let (Some(field), Some(answer)) = (field, answer) {
            let var = field.var.as_ref().unwrap_or(&field.field).value.clone();
            // An empty answer still counts as answered: the field is not asked again.
            let value = if answer.is_empty() {
                "（未填）".to_string()
            } else {
                answer
            };
            self.set(st, &var, Var::Text(value), fx);
        }
        if let Some(f) = st.frames.last_mut() {
            f.rounds += 1;
        }
        st.wait = Wait::Start;
    }

    /// The field `a` asks for next: from the `rounds`-th of the fields it
    /// names (every field of the form by default), the first not filled yet.
    fn fill_field<'s>(&'s self, st: &State, a: &Action, form: &str) -> Option<&'s FormField> {
        let f = self.script.forms.iter().find(|f| f.form.value == form)?;
        let named = |x: &&FormField| {
            a.fields
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n.value == x.field.value))
        };
        let done = st.forms.get(form);
        let start = st.frames.last().map_or(0, |fr| fr.rounds as usize);
        f.fields.iter().filter(named).skip(start).find(|x| {
            done.and_then(|d| d.get(&x.field.value))
                .is_none_or(|v| v.trim().is_empty())
        })
    }
}
