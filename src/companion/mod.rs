//! The companion: a resident the player talks with freely, running the
//! memory design's full system — affection 0–9999 in six stages, each with
//! its own prompt fragment; key moments kept verbatim; a profile of the
//! player. This module is the model (no Bevy, no network): what the scenario
//! defines (`companion:` in `residents.yaml`), affection arithmetic, and the
//! key-moment filter.

pub mod affection;
pub mod bank;
pub mod builtin;
pub mod facts;
pub mod moments;
pub mod profile;
pub mod said;
pub mod session;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use affection::{Affection, AffectionChange, ChangeReason, Stage};
pub use bank::ChatBank;
pub use facts::{FactKind, PlayerFact, PlayerFacts};
pub use moments::{KeyMomentSpec, MomentStatus};
pub use profile::PlayerProfile;
pub use session::{CompanionState, Turn, Voice};

/// `companion:` of a resident in `residents.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompanionSpec {
    /// 核心人设: who the companion is to the player (never cut from a prompt).
    pub core: String,
    /// One fragment per stage, by the stage's name (观察者 … 告别者).
    pub stages: BTreeMap<Stage, StageSpec>,
    /// The key moments, in the order they are checked.
    #[serde(default)]
    pub key_moments: Vec<KeyMomentSpec>,
    /// Small actions the built-in brain opens some replies with
    /// (（柳叶轻轻晃了晃）): its body, in its words.
    #[serde(default)]
    pub gestures: Vec<String>,
    /// Its own answers to what the player asks about it, by topic (name,
    /// age, home, likes, doing, how); a topic without: the chat bank's.
    #[serde(default)]
    pub about: BTreeMap<said::Topic, Vec<String>>,
}

/// What a stage changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    /// 当前阶段: the prompt fragment for this stage.
    pub prompt: String,
    /// What the built-in brain may answer at this stage: templates with
    /// `{称呼}` (how it calls the player) and `{记忆}` (something it recalls).
    #[serde(default)]
    pub lines: Vec<String>,
}

impl CompanionSpec {
    /// The fragment of a stage (every stage has one once checked).
    pub fn stage(&self, stage: Stage) -> Option<&StageSpec> {
        self.stages.get(&stage)
    }

    /// What is wrong with it: `(field path under companion, message)`.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for s in Stage::ALL {
            if !self.stages.contains_key(&s) {
                out.push((
                    "stages".to_string(),
                    format!("stage `{}` has no fragment (all six are needed)", s.name()),
                ));
            }
        }
        for (i, m) in self.key_moments.iter().enumerate() {
            let at = |f: &str| format!("key_moments[{i}].{f}");
            if self.key_moments[..i].iter().any(|o| o.id == m.id) {
                out.push((at("id"), format!("key moment id `{}` is used twice", m.id)));
            }
            if m.stage().is_none() {
                out.push((at("chapter"), format!("chapter {} is not 1–6", m.chapter)));
            }
            let [from, to] = m.affection;
            if from < 0 || to > affection::MAX_AFFECTION || from > to {
                out.push((
                    at("affection"),
                    format!("affection range [{from}, {to}] is not within 0–9999, low to high"),
                ));
            }
            if m.hint.trim().is_empty() {
                out.push((at("hint"), "a key moment needs a hint for the model".into()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_without_all_stages_or_with_bad_moments_is_refused() {
        let yaml = r#"
core: 我是守望精灵。
stages:
  观察者: { prompt: 冷静地观察。 }
key_moments:
  - { id: a, chapter: 7, name: 甲, affection: [10, 5], hint: "", gain: 1 }
  - { id: a, chapter: 1, name: 乙, affection: [0, 9], hint: 提示, gain: 1 }
"#;
        let spec: CompanionSpec = serde_saphyr::from_str(yaml).unwrap();
        let problems = spec.problems();
        let fields: Vec<&str> = problems.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields.iter().filter(|f| **f == "stages").count(), 5);
        for f in [
            "key_moments[0].chapter",
            "key_moments[0].affection",
            "key_moments[0].hint",
            "key_moments[1].id",
        ] {
            assert!(fields.contains(&f), "{f} in {problems:?}");
        }
    }
}
