//! How a line is said: the design's four emotions, and none.

use serde::{Deserialize, Serialize};

/// The emotion a message carries (the design's four, and none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Emotion {
    /// 开心
    Happy,
    /// 难过
    Sad,
    /// 生气
    Angry,
    /// 好奇
    Curious,
    /// 平静
    Neutral,
}

impl Emotion {
    pub(super) fn from_label(label: &str) -> Emotion {
        match label {
            "happy" => Emotion::Happy,
            "sad" => Emotion::Sad,
            "angry" => Emotion::Angry,
            "curious" => Emotion::Curious,
            _ => Emotion::Neutral,
        }
    }

    /// The English label used in logs, prompts and keyword tables.
    pub fn label(self) -> &'static str {
        match self {
            Emotion::Happy => "happy",
            Emotion::Sad => "sad",
            Emotion::Angry => "angry",
            Emotion::Curious => "curious",
            Emotion::Neutral => "neutral",
        }
    }

    /// The Chinese word the player reads.
    pub fn zh(self) -> &'static str {
        match self {
            Emotion::Happy => "开心",
            Emotion::Sad => "难过",
            Emotion::Angry => "生气",
            Emotion::Curious => "好奇",
            Emotion::Neutral => "平静",
        }
    }
}
