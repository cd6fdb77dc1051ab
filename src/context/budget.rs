//! What a prompt may hold: the token budget of each layer (`prompt:` in
//! `tuning.yaml`), how tokens are estimated for models without a known
//! tokenizer, and the tokens a prompt ended up with, as the log records them.

use serde::{Deserialize, Serialize};

/// Tokens per layer. Over its budget, a layer sheds items (the oldest
/// dialogue, the least relevant memories, the oldest key moments); over
/// `total`, retrieved history goes first, then older dialogue. Persona and
/// stage are never cut.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PromptBudget {
    /// 核心人设: who the resident is.
    pub persona: usize,
    /// 当前阶段: the moment (time, place, needs, what is going on).
    pub stage: usize,
    /// 用户画像: the other — a listener, the player.
    pub profile: usize,
    /// 关键记忆: key moments, verbatim.
    pub key_moments: usize,
    /// 最近对话: the conversation so far.
    pub dialogue: usize,
    /// 相关历史: memories retrieved for the moment.
    pub retrieved: usize,
    /// The whole prompt's layers together (a small model's context).
    pub total: usize,
    /// Estimated tokens per CJK character, for models without a known tokenizer.
    pub tokens_per_cjk: f32,
    /// Estimated tokens per other character.
    pub tokens_per_other: f32,
}

impl Default for PromptBudget {
    fn default() -> Self {
        Self {
            persona: 1000,
            stage: 500,
            profile: 500,
            key_moments: 2000,
            dialogue: 5000,
            retrieved: 3000,
            total: 12000,
            tokens_per_cjk: 1.0,
            tokens_per_other: 0.3,
        }
    }
}

/// Tokens per layer of one prompt, as logged with each `llm_call`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerTokens {
    /// 核心人设.
    pub persona: u32,
    /// 当前阶段.
    pub stage: u32,
    /// 用户画像.
    pub profile: u32,
    /// 关键记忆.
    pub key_moments: u32,
    /// 最近对话.
    pub dialogue: u32,
    /// 相关历史.
    pub retrieved: u32,
    /// Items cut to fit the budget (all layers).
    pub cut: u32,
}
