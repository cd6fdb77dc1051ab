//! Counting tokens as the target model will: OpenAI's tokenizers (tiktoken)
//! for the models they belong to, an estimate per script for everyone else.

use tiktoken_rs::CoreBPE;

use crate::scenario::PromptBudget;

/// How a prompt's tokens are counted for one model.
#[derive(Clone, Copy)]
pub enum TokenCounter {
    /// The model's own BPE (gpt-4o: o200k, gpt-4 / gpt-3.5: cl100k …).
    Tiktoken(&'static CoreBPE),
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
            TokenCounter::Tiktoken(_) => f.write_str("Tiktoken"),
            TokenCounter::Estimate { cjk, other } => write!(f, "Estimate({cjk}, {other})"),
        }
    }
}

impl TokenCounter {
    /// tiktoken when `model` is one of OpenAI's (its BPE loads once, ~100 ms),
    /// else the budget's per-script estimate.
    pub fn for_model(model: &str, budget: &PromptBudget) -> Self {
        tiktoken_rs::tokenizer::get_tokenizer(model)
            .and_then(|t| tiktoken_rs::bpe_for_tokenizer(t).ok())
            .map_or(
                TokenCounter::Estimate {
                    cjk: budget.tokens_per_cjk,
                    other: budget.tokens_per_other,
                },
                TokenCounter::Tiktoken,
            )
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
            TokenCounter::Tiktoken(bpe) => bpe.encode_ordinary(text).len(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_use_their_tokenizer_and_others_the_estimate() {
        let budget = PromptBudget::default();
        let text = "医生说我血压高，要少吃咸的。";
        let gpt = TokenCounter::for_model("gpt-4o-mini", &budget);
        assert!(matches!(gpt, TokenCounter::Tiktoken(_)));
        let n = gpt.count(text);
        assert!((5..=20).contains(&n), "{n}");
        let local = TokenCounter::for_model("qwen2.5-7b-instruct", &budget);
        assert!(matches!(local, TokenCounter::Estimate { .. }));
        assert_eq!(local.count(text), 14);
        assert_eq!(local.count("hello world"), 4, "11 × 0.3, rounded up");
    }
}
