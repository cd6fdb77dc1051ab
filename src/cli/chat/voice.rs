//! Who writes the companion's side of a terminal chat: the resident's model
//! when one is configured (the reply, the facts of each message, the
//! 用户画像 every 20 messages), else — or whenever the model fails — the
//! built-in brain. Also notes the token count of each layer of the prompt a
//! reply is written from, for the transcript.

use crate::companion::said::{self, Stated};
use crate::companion::session::ReplyContext;
use crate::companion::{CompanionState, PlayerProfile, Voice, builtin};
use crate::context::{LayerTokens, PromptBudget};
use crate::llm::companion::{CompanionMind, layer_tokens};

/// Who wrote a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReplySource {
    /// The resident's model.
    Llm,
    /// The built-in brain.
    Builtin,
}

impl ReplySource {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ReplySource::Llm => "llm",
            ReplySource::Builtin => "builtin",
        }
    }
}

/// The companion's side of the chat.
pub(super) struct ChatVoice<'a> {
    mind: Option<&'a CompanionMind>,
    name: String,
    budget: PromptBudget,
    /// Who wrote the last reply.
    pub(super) source: ReplySource,
    /// The last reply's prompt, layer by layer.
    pub(super) layers: LayerTokens,
    /// What a resident without `companion:` answers a question about the
    /// town from its own facts (set before each turn).
    pub(super) town_answer: Option<String>,
}

impl<'a> ChatVoice<'a> {
    pub(super) fn new(mind: Option<&'a CompanionMind>, name: &str, budget: PromptBudget) -> Self {
        Self {
            mind,
            name: name.to_string(),
            budget,
            source: ReplySource::Builtin,
            layers: LayerTokens::default(),
            town_answer: None,
        }
    }
}

impl Voice for ChatVoice<'_> {
    fn reply(&mut self, cx: &ReplyContext<'_>) -> String {
        let model = self.mind.map(CompanionMind::model);
        self.layers = layer_tokens(cx, &self.name, &self.budget, model);
        let Some(mind) = self.mind else {
            self.source = ReplySource::Builtin;
            return self
                .town_answer
                .take()
                .unwrap_or_else(|| builtin::reply(cx));
        };
        match mind.reply(cx, &self.name, &self.budget) {
            Ok(text) => {
                self.source = ReplySource::Llm;
                text
            }
            Err(why) => {
                eprintln!("（{}的模型没有回答：{why}；由内置大脑回答）", self.name);
                self.source = ReplySource::Builtin;
                self.town_answer
                    .take()
                    .unwrap_or_else(|| builtin::reply(cx))
            }
        }
    }

    fn read_facts(&mut self, message: &str, _state: &CompanionState) -> Option<Vec<Stated>> {
        let mind = self.mind?;
        let offline = said::read(message);
        // A question states nothing: no call.
        if offline.facts.is_empty() && offline.question.is_some() && offline.feeling.is_none() {
            return None;
        }
        match mind.read_facts(message, &self.name) {
            Ok(mut facts) => {
                // What the model missed and the patterns found is kept too.
                for f in offline.facts {
                    if !facts.iter().any(|m| m.kind == f.kind && m.about == f.about) {
                        facts.push(f);
                    }
                }
                Some(facts)
            }
            Err(why) => {
                eprintln!("（{}的模型没有读出事实：{why}；按内置规则读）", self.name);
                None
            }
        }
    }

    fn write_profile(&mut self, state: &CompanionState) -> Option<PlayerProfile> {
        let mind = self.mind?;
        match mind.write_profile(state, &self.name) {
            Ok(mut p) => {
                p.written_by = format!("llm:{}", mind.model());
                Some(p)
            }
            Err(why) => {
                eprintln!("（{}的模型没有写用户画像：{why}；由内置大脑写）", self.name);
                None
            }
        }
    }
}
