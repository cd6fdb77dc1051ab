//! The memory design's context builder: every LLM prompt is made of six
//! layers — 核心人设 persona, 当前阶段 stage, 用户画像 profile of the other,
//! 关键记忆 key moments, 最近对话 recent dialogue, 相关历史 retrieved history —
//! each with a token budget (`prompt:` in `tuning.yaml`), counted in the
//! target model's tokens. Over budget, a layer sheds items; over the total,
//! retrieved history goes first, then older dialogue. Persona and stage are
//! never cut.

mod budget;
mod tokens;

use serde::{Deserialize, Serialize};

pub use budget::{LayerTokens, PromptBudget};
pub use tokens::TokenCounter;

/// A layer of a prompt, in prompt order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// 核心人设: who the resident is. Never cut.
    Persona,
    /// 当前阶段: the moment. Never cut.
    Stage,
    /// 用户画像: the one spoken to or about.
    Profile,
    /// 关键记忆: key moments, verbatim (oldest cut first).
    KeyMoments,
    /// 最近对话: the conversation so far (oldest cut first).
    Dialogue,
    /// 相关历史: retrieved memories, best first (worst cut first).
    Retrieved,
}

impl Layer {
    /// Every layer, in prompt order.
    pub const ALL: [Layer; 6] = [
        Layer::Persona,
        Layer::Stage,
        Layer::Profile,
        Layer::KeyMoments,
        Layer::Dialogue,
        Layer::Retrieved,
    ];

    /// The design's name for it.
    pub fn label(self) -> &'static str {
        match self {
            Layer::Persona => "核心人设",
            Layer::Stage => "当前阶段",
            Layer::Profile => "用户画像",
            Layer::KeyMoments => "关键记忆",
            Layer::Dialogue => "最近对话",
            Layer::Retrieved => "相关历史",
        }
    }

    fn budget(self, b: &PromptBudget) -> usize {
        match self {
            Layer::Persona => b.persona,
            Layer::Stage => b.stage,
            Layer::Profile => b.profile,
            Layer::KeyMoments => b.key_moments,
            Layer::Dialogue => b.dialogue,
            Layer::Retrieved => b.retrieved,
        }
    }

    /// Which item goes first when the layer is cut: the oldest (front) or
    /// the least relevant (back); `None`: never cut.
    fn cut_from_front(self) -> Option<bool> {
        match self {
            Layer::Persona | Layer::Stage => None,
            Layer::KeyMoments | Layer::Dialogue => Some(true),
            Layer::Profile | Layer::Retrieved => Some(false),
        }
    }

    fn i(self) -> usize {
        self as usize
    }
}

/// The budget a prompt is cut to and how its tokens are counted.
#[derive(Debug, Clone, Copy)]
pub struct Budgeting {
    /// Tokens per layer and in all.
    pub budget: PromptBudget,
    /// The target model's tokens.
    pub counter: TokenCounter,
}

impl Budgeting {
    /// For a call to `model`.
    pub fn for_model(budget: &PromptBudget, model: &str) -> Self {
        Self::new(budget, TokenCounter::for_model(model, budget))
    }

    /// For a call to `model`, or estimated when no model is known.
    pub fn for_endpoint(budget: &PromptBudget, model: Option<&str>) -> Self {
        match model {
            Some(m) => Self::for_model(budget, m),
            None => Self::new(budget, TokenCounter::estimate(budget)),
        }
    }

    /// With a counter already chosen.
    pub fn new(budget: &PromptBudget, counter: TokenCounter) -> Self {
        Self {
            budget: *budget,
            counter,
        }
    }

    /// Cuts `layers` to the budget.
    pub fn assemble(&self, layers: PromptLayers) -> Assembled {
        layers.assemble(&self.budget, &self.counter)
    }
}

impl Default for Budgeting {
    /// The default budget, tokens estimated (no model known).
    fn default() -> Self {
        Self::for_endpoint(&PromptBudget::default(), None)
    }
}

/// A prompt's material, layer by layer: each layer a list of items (lines).
#[derive(Debug, Clone, Default)]
pub struct PromptLayers {
    items: [Vec<String>; 6],
}

impl PromptLayers {
    /// Adds an item to a layer (dialogue oldest first, retrieved best first).
    pub fn push(&mut self, layer: Layer, item: impl Into<String>) -> &mut Self {
        self.items[layer.i()].push(item.into());
        self
    }

    /// Adds several items to a layer.
    pub fn extend(&mut self, layer: Layer, items: impl IntoIterator<Item = String>) -> &mut Self {
        self.items[layer.i()].extend(items);
        self
    }

    /// Cuts the layers to `budget` as counted by `counter`.
    pub fn assemble(self, budget: &PromptBudget, counter: &TokenCounter) -> Assembled {
        let mut layers: [Vec<(String, usize)>; 6] = self.items.map(|v| {
            v.into_iter()
                .map(|s| (counter.count(&s), s))
                .map(|(n, s)| (s, n))
                .collect()
        });
        let mut cut = 0;
        for layer in Layer::ALL {
            let own = layer.budget(budget);
            while tokens(&layers[layer.i()]) > own && drop_one(layer, &mut layers[layer.i()]) {
                cut += 1;
            }
        }
        for layer in [Layer::Retrieved, Layer::Dialogue] {
            while total(&layers) > budget.total && drop_one(layer, &mut layers[layer.i()]) {
                cut += 1;
            }
        }
        Assembled { layers, cut }
    }
}

fn tokens(items: &[(String, usize)]) -> usize {
    items.iter().map(|(_, n)| n).sum()
}

fn total(layers: &[Vec<(String, usize)>; 6]) -> usize {
    layers.iter().map(|l| tokens(l)).sum()
}

/// Drops the item `layer` gives up first; false when it cannot.
fn drop_one(layer: Layer, items: &mut Vec<(String, usize)>) -> bool {
    match layer.cut_from_front() {
        _ if items.is_empty() => false,
        Some(true) => {
            items.remove(0);
            true
        }
        Some(false) => items.pop().is_some(),
        None => false,
    }
}

/// A prompt's layers after cutting.
#[derive(Debug, Clone, Default)]
pub struct Assembled {
    layers: [Vec<(String, usize)>; 6],
    cut: usize,
}

impl Assembled {
    /// The layer's kept items.
    pub fn items(&self, layer: Layer) -> impl Iterator<Item = &str> {
        self.layers[layer.i()].iter().map(|(s, _)| s.as_str())
    }

    /// The layer's kept items joined by newlines, or `empty` when none are left.
    pub fn text(&self, layer: Layer, empty: &str) -> String {
        let items: Vec<&str> = self.items(layer).collect();
        if items.is_empty() {
            empty.to_string()
        } else {
            items.join("\n")
        }
    }

    /// Tokens in a layer.
    pub fn tokens(&self, layer: Layer) -> usize {
        tokens(&self.layers[layer.i()])
    }

    /// Tokens per layer, for the log.
    pub fn layer_tokens(&self) -> LayerTokens {
        let t = |l: Layer| self.tokens(l) as u32;
        LayerTokens {
            persona: t(Layer::Persona),
            stage: t(Layer::Stage),
            profile: t(Layer::Profile),
            key_moments: t(Layer::KeyMoments),
            dialogue: t(Layer::Dialogue),
            retrieved: t(Layer::Retrieved),
            cut: self.cut as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> PromptBudget {
        PromptBudget {
            persona: 5,
            stage: 5,
            profile: 100,
            key_moments: 100,
            dialogue: 100,
            retrieved: 100,
            total: 1000,
            tokens_per_cjk: 1.0,
            tokens_per_other: 1.0,
        }
    }

    fn layers() -> PromptLayers {
        let mut p = PromptLayers::default();
        p.push(Layer::Persona, "我是钟大川，星火酒馆老板")
            .push(Layer::Stage, "上午，在酒馆")
            .extend(
                Layer::Dialogue,
                ["一二三四五", "六七八九十", "甲乙丙丁戊"].map(String::from),
            )
            .extend(
                Layer::Retrieved,
                ["最相关的", "次相关的", "不太相关"].map(String::from),
            );
        p
    }

    #[test]
    fn persona_and_stage_are_never_cut_even_over_their_budget() {
        let c = TokenCounter::estimate(&budget());
        let a = layers().assemble(&budget(), &c);
        assert_eq!(a.tokens(Layer::Persona), 12);
        assert_eq!(a.text(Layer::Stage, ""), "上午，在酒馆");
        assert_eq!(a.layer_tokens().cut, 0);
    }

    #[test]
    fn over_the_total_retrieved_goes_first_then_the_oldest_dialogue() {
        let c = TokenCounter::estimate(&budget());
        let mut b = budget();
        // 12 + 6 + 15 + 12 = 45: four over → one retrieved memory (the worst) goes.
        b.total = 41;
        let a = layers().assemble(&b, &c);
        assert_eq!(
            a.items(Layer::Retrieved).collect::<Vec<_>>(),
            ["最相关的", "次相关的"]
        );
        assert_eq!(a.items(Layer::Dialogue).count(), 3);
        // 10 left for dialogue and retrieved: all retrieved go, then the oldest line.
        b.total = 28;
        let a = layers().assemble(&b, &c);
        assert_eq!(a.items(Layer::Retrieved).count(), 0);
        assert_eq!(
            a.items(Layer::Dialogue).collect::<Vec<_>>(),
            ["六七八九十", "甲乙丙丁戊"]
        );
        assert_eq!(a.text(Layer::Retrieved, "（没有）"), "（没有）");
        assert_eq!(a.layer_tokens().cut, 4);
    }

    #[test]
    fn each_layer_keeps_to_its_own_budget() {
        let c = TokenCounter::estimate(&budget());
        let mut b = budget();
        b.dialogue = 10;
        b.retrieved = 4;
        let a = layers().assemble(&b, &c);
        assert_eq!(
            a.items(Layer::Dialogue).collect::<Vec<_>>(),
            ["六七八九十", "甲乙丙丁戊"]
        );
        assert_eq!(a.items(Layer::Retrieved).collect::<Vec<_>>(), ["最相关的"]);
    }
}
