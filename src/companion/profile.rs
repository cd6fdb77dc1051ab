//! The design's 用户画像: what the companion makes of the player, rewritten
//! every 20 messages (and on a stage change) — by the model when one is
//! configured (its 用户画像 request), else by the built-in brain from the
//! facts the player stated, what the messages did, and the words they used.
//! Each rewrite is a new version; the save keeps them all.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use jieba_rs::Jieba;
use serde::{Deserialize, Serialize};

use super::facts::FactKind;
use super::said::{self, Act};
use super::session::{CompanionState, Speaker};

/// What the companion knows of the player (the design's 用户画像).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerProfile {
    /// How the player asked to be called.
    pub nickname: Option<String>,
    /// What the player is like.
    pub personality: String,
    /// What the player likes and dislikes.
    pub preferences: String,
    /// How the player has been lately (最近状态).
    #[serde(default)]
    pub recent_state: String,
    /// Where the relationship stands.
    pub relationship: String,
    /// What the player talked about lately.
    pub recent_topics: Vec<String>,
    /// The player's facts when it was written (`职业：护士`, `宠物：橘猫「豆包」`).
    #[serde(default)]
    pub known: Vec<String>,
    /// Which rewrite this is (0: never written).
    #[serde(default)]
    pub version: u32,
    /// Who wrote it: `builtin`, or `llm:MODEL`.
    #[serde(default)]
    pub written_by: String,
}

impl PlayerProfile {
    /// How the companion addresses the player.
    pub fn address(&self) -> &str {
        self.nickname.as_deref().unwrap_or("你")
    }
}

/// The built-in brain's profile of the player.
pub fn rewrite(state: &CompanionState) -> PlayerProfile {
    let said = player_lines(state);
    let read: Vec<said::Said> = said.iter().map(|s| said::read(s)).collect();
    let facts = &state.facts;
    let join = |kind: FactKind, lead: &str| {
        let items: Vec<String> = facts.of(kind).map(|f| f.value.clone()).collect();
        (!items.is_empty()).then(|| format!("{lead}{}", items.join("、")))
    };
    let preferences: Vec<String> = [
        join(FactKind::Food, "爱吃"),
        join(FactKind::Likes, "喜欢"),
        join(FactKind::Dislikes, "不喜欢"),
    ]
    .into_iter()
    .flatten()
    .collect();
    PlayerProfile {
        nickname: facts.name().map(str::to_string),
        personality: personality(&said, &read),
        preferences: if preferences.is_empty() {
            "还不清楚".into()
        } else {
            preferences.join("；")
        },
        recent_state: recent_state(state, &read),
        relationship: relationship(state),
        recent_topics: topics(&said[said.len().saturating_sub(20)..]),
        known: state.facts.profile_lines(),
        version: state.profile.version + 1,
        written_by: "builtin".into(),
    }
}

/// Where the relationship stands, in numbers.
pub fn relationship(state: &CompanionState) -> String {
    let a = &state.affection;
    format!(
        "好感度{}（第{}章：{}），聊了{}句，连续{}天来说话",
        a.value(),
        a.stage().chapter(),
        a.stage().name(),
        state.messages,
        a.streak()
    )
}

/// Everything the player said, oldest first.
fn player_lines(state: &CompanionState) -> Vec<&str> {
    state
        .lines
        .iter()
        .filter(|l| l.speaker == Speaker::Player)
        .map(|l| l.content.as_str())
        .collect()
}

/// What the player is like, from every message so far.
pub fn personality_of(state: &CompanionState) -> String {
    let said = player_lines(state);
    let read: Vec<said::Said> = said.iter().map(|s| said::read(s)).collect();
    personality(&said, &read)
}

/// What the player is like, from what the messages did.
fn personality(said: &[&str], read: &[said::Said]) -> String {
    let n = read.len().max(1);
    let count = |act: Act| read.iter().filter(|r| r.does(act)).count();
    let long = said.iter().filter(|s| s.chars().count() > 20).count();
    let mut traits = Vec::new();
    if count(Act::Feels) * 5 >= n {
        traits.push("愿意把心情说出来");
    }
    if count(Act::Tells) * 4 >= n {
        traits.push("愿意讲自己的事");
    }
    let questions = count(Act::AsksAboutYou) + count(Act::Asks) + count(Act::AsksWhy);
    if questions * 4 >= n {
        traits.push("好奇，常常反过来问我");
    }
    if count(Act::AsksRecall) > 0 {
        traits.push("在意我记不记得TA说过的话");
    }
    if count(Act::Thanks) + count(Act::Forgives) > 0 {
        traits.push("客气、宽容");
    }
    // How one writes comes last: what one shares says more of a person.
    traits.push(if long * 3 > n {
        "说起事来有头有尾"
    } else {
        "说话直来直去，不绕弯子"
    });
    traits.join("；")
}

/// How the player has been lately: worries told, and the feelings of the
/// last messages.
fn recent_state(state: &CompanionState, read: &[said::Said]) -> String {
    let mut parts: Vec<String> = state
        .facts
        .of(FactKind::Worry)
        .take(2)
        .map(|f| f.value.clone())
        .collect();
    let feelings: Vec<String> = read
        .iter()
        .rev()
        .take(20)
        .filter_map(|r| r.feeling.as_ref())
        .map(|f| f.word.clone())
        .collect();
    if !feelings.is_empty() {
        let mut seen = Vec::new();
        for f in feelings {
            if !seen.contains(&f) {
                seen.push(f);
            }
        }
        seen.truncate(4);
        parts.push(format!("最近说过{}", seen.join("、")));
    }
    if let Some(plan) = state.facts.first(FactKind::Plan) {
        parts.push(plan.value.clone());
    }
    if parts.is_empty() {
        "还不清楚".into()
    } else {
        parts.join("；")
    }
}

/// The tokenizer topics are read with (jieba's dictionary, loaded once).
static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

/// The nouns the player used most in `said`, most used first (ties: the
/// newest first), at most 8.
fn topics(said: &[&str]) -> Vec<String> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (i, s) in said.iter().enumerate() {
        for t in JIEBA.tag(s, true) {
            let noun = matches!(t.tag, "n" | "nr" | "ns" | "nz" | "vn" | "nt" | "nw");
            if noun && t.word.chars().count() > 1 && !TOPIC_STOP.contains(&t.word) {
                let e = counts.entry(t.word.to_string()).or_default();
                e.0 += 1;
                e.1 = i;
            }
        }
    }
    let mut ranked: Vec<(String, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.0
            .cmp(&a.1.0)
            .then(b.1.1.cmp(&a.1.1))
            .then(a.0.cmp(&b.0))
    });
    ranked.into_iter().take(8).map(|(w, _)| w).collect()
}

/// Nouns that say nothing of a topic.
const TOPIC_STOP: &[&str] = &[
    "名字", "时候", "东西", "事情", "感觉", "样子", "地方", "问题", "今天", "最近",
];

/// A topic word of a message (its longest noun), for a reply that names it.
pub fn topic_of(message: &str) -> Option<String> {
    longest_word(message, |word, tag| {
        matches!(tag, "n" | "nr" | "ns" | "nz" | "vn" | "nt" | "nw")
            && !TOPIC_STOP.contains(&word)
            && !["觉得", "知道", "喜欢", "还是", "可以", "就是", "没有"].contains(&word)
            // 「不太会」 is how, not what.
            && !word.starts_with(['不', '没'])
    })
}

/// The longest place word of a message (河边, 镇上), for a plan that names
/// where rather than what.
pub fn place_of(message: &str) -> Option<String> {
    longest_word(message, |_, tag| tag == "s")
}

/// The longest word of two characters or more whose word and part of
/// speech `keep` accepts.
fn longest_word(message: &str, keep: impl Fn(&str, &str) -> bool) -> Option<String> {
    JIEBA
        .tag(message, true)
        .into_iter()
        .filter(|t| t.word.chars().count() > 1 && keep(t.word, t.tag))
        .max_by_key(|t| t.word.chars().count())
        .map(|t| t.word.to_string())
}

/// The profile as a prompt's 用户画像 layer and the window show it: the
/// player's facts (always), then the summary.
pub fn lines(profile: &PlayerProfile, facts: &super::PlayerFacts) -> Vec<String> {
    let mut v = vec![format!(
        "称呼：{}",
        profile
            .nickname
            .as_deref()
            .or(facts.name())
            .unwrap_or("（还不知道）")
    )];
    v.extend(
        facts
            .profile_lines()
            .into_iter()
            .filter(|l| !l.starts_with("称呼：")),
    );
    for (k, text) in [
        ("性格", &profile.personality),
        ("偏好", &profile.preferences),
        ("最近状态", &profile.recent_state),
        ("关系进展", &profile.relationship),
    ] {
        if !text.is_empty() {
            v.push(format!("{k}：{text}"));
        }
    }
    if !profile.recent_topics.is_empty() {
        v.push(format!("最近聊过：{}", profile.recent_topics.join("、")));
    }
    v
}
