//! The prompt of a step, made of the context builder's layers: who speaks
//! (核心人设), the moment and the task (当前阶段), the chat so far (最近对话,
//! oldest lines cut first when over the budget). The task comes last, after
//! the chat it is about.

use crate::context::{Layer, LayerTokens, PromptLayers};

use super::Engine;
use super::course::course_layers;
use super::protocol::{ChatLine, State};

/// A step's prompt as sent, and its tokens per layer (for the log).
#[derive(Debug, Clone)]
pub(super) struct StepPrompt {
    pub(super) text: String,
    pub(super) tokens: LayerTokens,
}

impl Engine<'_> {
    /// Assembles `persona`, the `moment`, the course's past (in a course
    /// session), the `chat` and the `task` within the budget.
    pub(super) fn step_prompt(
        &self,
        st: &State,
        persona: String,
        moment: String,
        chat: &[ChatLine],
        task: String,
    ) -> StepPrompt {
        let mut l = PromptLayers::default();
        l.push(Layer::Persona, persona)
            .push(Layer::Stage, moment)
            .push(Layer::Stage, task)
            .extend(
                Layer::Dialogue,
                chat.iter().map(|c| format!("{}：{}", c.role, c.text)),
            );
        course_layers(st, &mut l);
        let a = self.budgeting.assemble(l);
        // The stage is never cut: its two items are the moment and the task.
        let stage: Vec<&str> = a.items(Layer::Stage).collect();
        let text = format!(
            "{}\n{}\n{}\n最近的对话：\n{}\n\n{}",
            a.text(Layer::Persona, ""),
            stage.first().copied().unwrap_or(""),
            course_text(&a),
            a.text(Layer::Dialogue, "（还没有）"),
            stage.get(1).copied().unwrap_or(""),
        );
        StepPrompt {
            text: for_model(&text),
            tokens: a.layer_tokens(),
        }
    }
}

/// The course's layers as kept (nothing outside a course): the forms last
/// filled and the past sessions, each under its heading.
fn course_text(a: &crate::context::Assembled) -> String {
    let mut out = String::new();
    for (layer, heading) in [
        (Layer::Profile, "往次会谈填的表"),
        (Layer::Retrieved, "往次会谈（最近的在前）"),
    ] {
        let text = a.text(layer, "");
        if !text.is_empty() {
            out.push_str(&format!("\n{heading}：\n{text}\n"));
        }
    }
    out
}

/// How a prompt says a value is not known yet: `（NAME` before it. The
/// offline brain finds these to leave them out of what it says.
pub(super) const UNKNOWN: &str = "：还不知道）";

/// The interpolation markers a writer sees (`⟨NAME?⟩` no value yet,
/// `⟨NAME!⟩` undeclared) said plainly for a model, which would copy them.
fn for_model(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('⟨') {
        out.push_str(&rest[..open]);
        let after = &rest[open + '⟨'.len_utf8()..];
        match after.find('⟩') {
            Some(close) => {
                let name = after[..close].trim_end_matches(['?', '!']);
                out.push_str(&format!("（{name}{UNKNOWN}"));
                rest = &after[close + '⟩'.len_utf8()..];
            }
            None => {
                out.push('⟨');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn markers_never_reach_the_model() {
        assert_eq!(
            super::for_model("你好，⟨名字?⟩，⟨年龄!⟩岁"),
            "你好，（名字：还不知道），（年龄：还不知道）岁"
        );
        assert_eq!(super::for_model("⟨没有闭合"), "⟨没有闭合");
    }
}
