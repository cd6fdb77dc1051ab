//! The LLM side of HEART RULE outside the town: a synchronous endpoint for
//! `script run` and `script play` (the terminal waits), the chat request of one
//! script step (shared with the window's counsel panel), and a model playing
//! the HUMAN role from a persona.

use std::sync::Arc;

use super::calls::Calls;
use super::client::{ChatRequest, Format, Message};
use crate::script::engine::{LlmRequest, State};
use crate::script::runner::{Human, Mind, Persona};

/// A real OpenAI-compatible endpoint, called synchronously (the terminal
/// waits) through the command's [`Calls`] (recorded and replayed with it).
pub(crate) struct Remote {
    calls: Arc<Calls>,
    endpoint: Arc<super::pool::Pool>,
    temperature: f32,
}

impl Remote {
    /// The settings' default endpoint; `None` without one.
    pub(crate) fn for_settings(
        settings: &super::LlmSettings,
        calls: &Arc<Calls>,
    ) -> Option<Remote> {
        let endpoint = settings.default.clone()?;
        Some(Self::for_endpoint(settings, calls, endpoint))
    }

    /// `endpoint` (a resident's own model).
    pub(crate) fn for_endpoint(
        settings: &super::LlmSettings,
        calls: &Arc<Calls>,
        endpoint: super::pool::Pool,
    ) -> Remote {
        Remote {
            calls: calls.clone(),
            endpoint: Arc::new(endpoint),
            temperature: settings.temperature,
        }
    }

    /// One chat completion of `prompt`, constrained to `schema` where the
    /// server can (the client falls back to plain JSON, then to text).
    pub(crate) fn complete(
        &mut self,
        prompt: String,
        max_tokens: u32,
        schema: Option<&serde_json::Value>,
    ) -> Result<String, super::client::LlmError> {
        let chat = step_request(prompt, max_tokens, schema, self.temperature);
        self.calls.call(&self.endpoint, chat).map(|r| r.content)
    }
}

/// The chat request for one script step: the prompt as the user message,
/// constrained to `schema` where the server can (the client falls back to
/// plain JSON, then to text).
pub(crate) fn step_request(
    prompt: String,
    max_tokens: u32,
    schema: Option<&serde_json::Value>,
    temperature: f32,
) -> super::client::ChatRequest {
    let format = match schema {
        Some(schema) => Format::Json {
            name: "heart_rule_step".into(),
            schema: schema.clone(),
        },
        None => Format::Text,
    };
    ChatRequest {
        messages: vec![Message::user(prompt)],
        temperature,
        max_tokens,
        seed: None,
        format,
        stream: false,
    }
}

impl Mind for Remote {
    fn reply(&mut self, req: &LlmRequest) -> Option<String> {
        self.complete(req.prompt.clone(), 400, req.schema.as_ref())
            .ok()
    }
}

/// A model plays the HUMAN role in character from a persona description;
/// where it fails or answers nothing usable, the built-in playtester does.
pub(crate) struct LlmPersona {
    remote: Remote,
    description: String,
    fallback: Persona,
}

impl LlmPersona {
    pub(crate) fn new(remote: Remote, description: &str) -> Self {
        Self {
            remote,
            description: description.trim().to_string(),
            fallback: Persona::new(description),
        }
    }

    fn prompt(&self, state: &State, task: &str) -> String {
        let mut p = format!(
            "你在扮演一位来访者，和{}对话。你的人物设定：\n{}\n\n最近的对话：\n",
            state.ai_role, self.description
        );
        let from = state.chat.len().saturating_sub(12);
        for l in &state.chat[from..] {
            p.push_str(&format!("{}：{}\n", l.role, l.text));
        }
        if state.chat.is_empty() {
            p.push_str("（还没有）\n");
        }
        p.push_str(&format!("\n{task}"));
        p
    }
}

impl Human for LlmPersona {
    fn choose(&mut self, options: &[(String, String)], state: &State) -> Option<String> {
        let list: Vec<String> = options.iter().map(|(k, t)| format!("{k}. {t}")).collect();
        let prompt = self.prompt(
            state,
            &format!(
                "从下面的选项中选一个最符合你的人物设定的：\n{}\n只输出选项前的编号。",
                list.join("\n")
            ),
        );
        let picked = self
            .remote
            .complete(prompt, 20, None)
            .ok()
            .and_then(|reply| {
                let reply = reply.trim().trim_matches(['"', '「', '」', '.', '。']);
                options
                    .iter()
                    .find(|(k, _)| reply == k)
                    .or_else(|| options.iter().find(|(_, t)| reply.contains(t.as_str())))
                    .or_else(|| options.iter().find(|(k, _)| reply.starts_with(k.as_str())))
                    .map(|(k, _)| k.clone())
            });
        picked.or_else(|| self.fallback.choose(options, state))
    }

    fn answer(&mut self, state: &State, may_skip: bool) -> Option<String> {
        let prompt = self.prompt(
            state,
            "用你的人物的口吻回答对方最后说的话，一两句，只输出你要说的话。",
        );
        match self.remote.complete(prompt, 200, None) {
            Ok(reply) => {
                let line = reply
                    .trim()
                    .trim_matches(['"', '「', '」', '“', '”'])
                    .trim()
                    .to_string();
                if line.is_empty() {
                    self.fallback.answer(state, may_skip)
                } else {
                    Some(line)
                }
            }
            Err(_) => self.fallback.answer(state, may_skip),
        }
    }
}
