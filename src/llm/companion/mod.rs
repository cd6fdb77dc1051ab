//! The companion's replies from a model: the prompt assembled from the
//! memory design's six layers (the companion's core persona, the stage's
//! fragment with the key moments that may happen, the player's profile, key
//! moments verbatim, the recent chat, what it recalls) within the budget, one
//! call waited for through the command's [`Calls`] (the chat is a
//! command-line turn, not a frame). Whatever goes wrong, the caller answers
//! with the built-in brain.

mod listen;

use std::sync::Arc;

pub use listen::{facts_request, parse_facts, parse_profile, profile_request};

use super::LlmSettings;
use super::calls::{CallError, Calls};
use super::client::{ChatRequest, Format, Message};
use super::parse::Unusable;
use super::pool::Pool;
use super::prompts::{Budgeting, Prompt, render};
use crate::companion::moments::{fail_mark, mark};
use crate::companion::session::{KEY_MOMENTS_KEPT, ReplyContext, Speaker};
use crate::context::LayerTokens;
use crate::context::PromptBudget;
use crate::context::{Layer, PromptLayers};
use crate::scenario::Profile;

const COMPANION: &str = include_str!("../../../assets/prompts/companion.md");

/// Chat lines a prompt carries at most (the budget may cut more).
const DIALOGUE_KEPT: usize = 50;

/// A companion's model.
pub struct CompanionMind {
    endpoint: Arc<Pool>,
    /// Recorded to, or answered from, `--record`/`--replay DIR`.
    calls: Calls,
    temperature: f32,
}

impl CompanionMind {
    /// The resident's model, when the settings give it one.
    pub fn for_resident(
        settings: &LlmSettings,
        profile: &Profile,
    ) -> Result<Option<Self>, CallError> {
        let Some(endpoint) = settings.endpoint_for(profile) else {
            return Ok(None);
        };
        // The recording names the resident's own model.
        let mut own = settings.clone();
        own.default = Some(endpoint.clone());
        Ok(Some(Self {
            endpoint: Arc::new(endpoint),
            calls: Calls::start(&own)?,
            temperature: settings.temperature,
        }))
    }

    /// One call: answered from the cassette when replaying (no network),
    /// recorded when recording.
    fn call(&self, request: &ChatRequest) -> Result<String, CallError> {
        let result = self.calls.call(&self.endpoint, request.clone());
        result
            .map(|r| r.content)
            .map_err(|e| CallError::failed(&self.endpoint, e))
    }

    /// The facts the player's message states, as the model reads them.
    pub fn read_facts(
        &self,
        message: &str,
        name: &str,
    ) -> Result<Vec<crate::companion::said::Stated>, CallError> {
        let content = self.call(&facts_request(message, name))?;
        Ok(parse_facts(&content)?)
    }

    /// The 用户画像, as the model writes it.
    pub fn write_profile(
        &self,
        state: &crate::companion::CompanionState,
        name: &str,
    ) -> Result<crate::companion::PlayerProfile, CallError> {
        let content = self.call(&profile_request(state, name, self.temperature))?;
        Ok(parse_profile(&content, state)?)
    }

    /// The model it asks.
    pub fn model(&self) -> &str {
        self.endpoint.model()
    }

    /// The reply (marked for a key moment that happened), or why there is none.
    pub fn reply(
        &self,
        cx: &ReplyContext<'_>,
        name: &str,
        budget: &PromptBudget,
    ) -> Result<String, CallError> {
        let request = reply_request(cx, name, budget, self.model(), self.temperature);
        let content = self.call(&request)?;
        Ok(usable_reply(&content, name)?)
    }
}

/// The chat request for a reply to the player, its prompt cut to `budget`
/// in `model`'s tokens.
pub(crate) fn reply_request(
    cx: &ReplyContext<'_>,
    name: &str,
    budget: &PromptBudget,
    model: &str,
    temperature: f32,
) -> ChatRequest {
    let prompt = companion_prompt(cx, name, &Budgeting::for_model(budget, model));
    ChatRequest {
        messages: prompt.messages,
        temperature,
        max_tokens: 200,
        seed: None,
        format: Format::Text,
        stream: false,
    }
}

/// A model's answer made a reply (still marked for key moments), or why it cannot be one.
pub(crate) fn usable_reply(content: &str, name: &str) -> Result<String, Unusable> {
    let text = clean_reply(content, name);
    if text.is_empty() {
        return Err("the model answered nothing".into());
    }
    Ok(text)
}

/// A reply without a reasoning model's `<think>` block, quotes or a
/// `name：` prefix, at most 400 characters.
fn clean_reply(text: &str, name: &str) -> String {
    let text = match text.rfind("</think>") {
        Some(end) => &text[end + "</think>".len()..],
        None => text,
    };
    let text = text.trim();
    let text = [format!("{name}："), format!("{name}:")]
        .iter()
        .find_map(|p| text.strip_prefix(p.as_str()))
        .unwrap_or(text);
    text.trim_matches(|c: char| matches!(c, '"' | '“' | '”' | '「' | '」' | ' ' | '\n'))
        .chars()
        .take(400)
        .collect()
}

/// The prompt: the six layers cut to the budget, then the player's message.
pub(crate) fn companion_prompt(cx: &ReplyContext<'_>, name: &str, b: &Budgeting) -> Prompt {
    let layers = b.assemble(companion_layers(cx, name));
    let (system, _) = render(
        COMPANION,
        &[
            ("persona", layers.text(Layer::Persona, "")),
            ("stage", layers.text(Layer::Stage, "")),
            ("now", now_line(cx)),
            ("moments", moment_hints(cx)),
            ("profile", layers.text(Layer::Profile, "（还不了解）")),
            ("key_moments", layers.text(Layer::KeyMoments, "（还没有）")),
            (
                "retrieved",
                layers.text(Layer::Retrieved, "（没有想起什么）"),
            ),
            ("dialogue", layers.text(Layer::Dialogue, "（刚开始）")),
            ("name", name.to_string()),
        ],
    );
    Prompt {
        messages: vec![
            Message::system(system),
            Message::user(cx.message.to_string()),
        ],
        layers,
    }
}

/// The six layers' material: core persona; chapter, affection and the
/// stage's fragment; the profile; key moments and chat lines, newest last;
/// what it recalls, best first.
fn companion_layers(cx: &ReplyContext<'_>, name: &str) -> PromptLayers {
    let state = cx.state;
    let stage = state.stage();
    let newest = |n: usize, len: usize| len.saturating_sub(n);
    let moments = &state.moments[newest(KEY_MOMENTS_KEPT, state.moments.len())..];
    let lines = &state.lines[newest(DIALOGUE_KEPT, state.lines.len())..];
    let mut l = PromptLayers::default();
    l.push(Layer::Persona, cx.spec.core.trim())
        .push(
            Layer::Stage,
            format!(
                "第{}章：{}（好感度 {}）",
                stage.chapter(),
                stage.name(),
                state.affection.value()
            ),
        )
        .push(
            Layer::Stage,
            cx.spec.stage(stage).map_or("", |s| s.prompt.as_str()),
        )
        .extend(Layer::Profile, profile_lines(cx))
        .extend(
            Layer::KeyMoments,
            moments.iter().map(|m| {
                let when = m.time.stamp();
                format!(
                    "[{} - {when}]\n对方：{}\n{name}：{}",
                    m.name, m.user, m.reply
                )
            }),
        )
        .extend(
            Layer::Dialogue,
            lines.iter().map(|line| {
                let who = match line.speaker {
                    Speaker::Player => "对方",
                    Speaker::Companion => name,
                };
                format!("{who}：{}", line.content)
            }),
        )
        .extend(
            Layer::Retrieved,
            // What a recall question asks for comes first, as the player said it.
            cx.asked_facts()
                .into_iter()
                .map(|f| {
                    format!(
                        "- 对方告诉过我：{}（原话「{}」，{}）",
                        f.to_you(),
                        f.said,
                        f.time.stamp()
                    )
                })
                .chain(cx.recalled.iter().map(|m| format!("- {m}"))),
        );
    l
}

/// Today and the time apart: what the companion knows of the moment.
fn now_line(cx: &ReplyContext<'_>) -> String {
    let when = format!("现在是{}（{}）", cx.now.stamp(), cx.now.weekday_zh());
    match cx.apart {
        Some(0) | None => format!("{when}。"),
        Some(days) => format!("{when}，离对方上次来说话已经过了{days}天。"),
    }
}

/// Tokens per layer of the prompt a reply in `cx` is (or would be) written
/// from: what the transcript shows for every reply, the built-in brain's too.
pub fn layer_tokens(
    cx: &ReplyContext<'_>,
    name: &str,
    budget: &PromptBudget,
    model: Option<&str>,
) -> LayerTokens {
    let b = Budgeting::for_endpoint(budget, model);
    b.assemble(companion_layers(cx, name)).layer_tokens()
}

/// The hint of each key moment that may happen, with the mark to add if it does.
fn moment_hints(cx: &ReplyContext<'_>) -> String {
    cx.candidates
        .iter()
        .map(|m| {
            format!(
                "\n【可能触发的关键时刻】{}（第{}章）：{}\n如果这一刻发生了，在回复末尾加上{}；如果对方的回应让这一刻落空了，加上{}。\n",
                m.name,
                m.chapter,
                m.hint,
                mark(&m.id),
                fail_mark(&m.id)
            )
        })
        .collect()
}

fn profile_lines(cx: &ReplyContext<'_>) -> Vec<String> {
    crate::companion::profile::lines(&cx.state.profile, &cx.state.facts)
}
