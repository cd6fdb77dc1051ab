//! Counting tokens as the target model will: OpenAI's tokenizers (tiktoken)
//! for the models they belong to, an estimate per script for everyone else.

use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::Tokenizer;

use super::PromptBudget;

/// How a prompt's tokens are counted for one model.
#[derive(Clone, Copy)]
pub enum TokenCounter {
    /// The model's own BPE (gpt-4o: o200k, gpt-4 / gpt-3.5: cl100k …).
    Tiktoken(Tokenizer, &'static CoreBPE),
    /// Per-script rates: tokens per CJK character and per other character.
    Estimate {
        /// Per CJK (or other wide) character.
        cjk: f32,
        /// Per other character.
        other: f32,
    },
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenCounter::Tiktoken(t, _) => write!(f, "Tiktoken({t:?})"),
            TokenCounter::Estimate { cjk, other } => write!(f, "Estimate({cjk}, {other})"),
        }
    }
}

impl TokenCounter {
    /// tiktoken when `model` is one of OpenAI's (its BPE loads once, ~100 ms),
    /// else the budget's per-script estimate.
    pub fn for_model(model: &str, budget: &PromptBudget) -> Self {
        tiktoken_rs::tokenizer::get_tokenizer(model)
            .and_then(Self::tiktoken)
            .unwrap_or(Self::estimate(budget))
    }

    fn tiktoken(t: Tokenizer) -> Option<Self> {
        let bpe = tiktoken_rs::bpe_for_tokenizer(t).ok()?;
        Some(TokenCounter::Tiktoken(t, bpe))
    }

    /// The counter's name as a transcript records it: the tokenizer's
    /// (`o200k_base` …) or `estimate`.
    pub fn name(&self) -> &'static str {
        match self {
            TokenCounter::Tiktoken(t, _) => TOKENIZERS
                .iter()
                .find(|(_, x)| x == t)
                .map_or("estimate", |(n, _)| n),
            TokenCounter::Estimate { .. } => "estimate",
        }
    }

    /// The counter [`TokenCounter::name`] named (the estimate for any other name).
    pub fn named(name: &str, budget: &PromptBudget) -> Self {
        TOKENIZERS
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, t)| Self::tiktoken(*t))
            .unwrap_or(Self::estimate(budget))
    }

    /// The estimate alone (no model known).
    pub fn estimate(budget: &PromptBudget) -> Self {
        TokenCounter::Estimate {
            cjk: budget.tokens_per_cjk,
            other: budget.tokens_per_other,
        }
    }

    /// Tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        match self {
            TokenCounter::Tiktoken(_, bpe) => bpe.encode_ordinary(text).len(),
            TokenCounter::Estimate { cjk, other } => {
                let (mut wide, mut narrow) = (0usize, 0usize);
                for c in text.chars() {
                    if c.is_ascii() {
                        narrow += 1;
                    } else {
                        wide += 1;
                    }
                }
                (wide as f32 * cjk + narrow as f32 * other).ceil() as usize
            }
        }
    }
}

/// tiktoken's tokenizers by their own names.
const TOKENIZERS: [(&str, Tokenizer); 7] = [
    ("o200k_harmony", Tokenizer::O200kHarmony),
    ("o200k_base", Tokenizer::O200kBase),
    ("cl100k_base", Tokenizer::Cl100kBase),
    ("p50k_base", Tokenizer::P50kBase),
    ("r50k_base", Tokenizer::R50kBase),
    ("p50k_edit", Tokenizer::P50kEdit),
    ("gpt2", Tokenizer::Gpt2),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_use_their_tokenizer_and_others_the_estimate() {
        let budget = PromptBudget::default();
        let text = "医生说我血压高，要少吃咸的。";
        let gpt = TokenCounter::for_model("gpt-4o-mini", &budget);
        assert!(matches!(gpt, TokenCounter::Tiktoken(..)));
        assert_eq!(gpt.name(), "o200k_base");
        assert_eq!(
            TokenCounter::named("o200k_base", &budget).count(text),
            gpt.count(text)
        );
        let n = gpt.count(text);
        assert!((5..=20).contains(&n), "{n}");
        let local = TokenCounter::for_model("qwen2.5-7b-instruct", &budget);
        assert!(matches!(local, TokenCounter::Estimate { .. }));
        assert_eq!(local.name(), "estimate");
        assert_eq!(local.count(text), 14);
        assert_eq!(local.count("hello world"), 4, "11 × 0.3, rounded up");
    }
}
