//! The companion's model listening, as the memory design has it: the key
//! facts of each message extracted as JSON, and the 用户画像 rewritten every
//! 20 messages. What a model gets wrong is repaired or dropped (an unknown
//! kind, an empty value, a question's "name"); nothing usable: the built-in
//! reading stands.

use serde_json::{Value, json};

use super::super::client::{ChatRequest, Format, Message};
use super::super::parse::Unusable;
use super::super::prompts::fill;
use crate::companion::facts::FactKind;
use crate::companion::said::Stated;
use crate::companion::session::Speaker;
use crate::companion::{CompanionState, PlayerProfile, profile};

const FACTS: &str = include_str!("../../../assets/prompts/companion_facts.md");
const PROFILE: &str = include_str!("../../../assets/prompts/companion_profile.md");

/// Chat lines the profile request carries (the newest).
const PROFILE_DIALOGUE: usize = 40;

/// The request that extracts a message's facts.
pub fn facts_request(message: &str, name: &str) -> ChatRequest {
    let prompt = fill(
        FACTS,
        &[("name", name.to_string()), ("message", message.to_string())],
    );
    let kinds: Vec<Value> = FactKind::ALL.iter().map(|k| json!(k)).collect();
    ChatRequest {
        messages: vec![Message::user(prompt)],
        temperature: 0.0,
        max_tokens: 300,
        seed: None,
        format: Format::Json {
            name: "player_facts".into(),
            schema: json!({
                "type": "object",
                "properties": {"facts": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": kinds},
                        "about": {"type": "string"},
                        "value": {"type": "string"}
                    },
                    "required": ["kind", "value"]
                }}},
                "required": ["facts"]
            }),
        },
        stream: false,
    }
}

/// The facts of a model's answer; entries it cannot use are dropped.
pub fn parse_facts(content: &str) -> Result<Vec<Stated>, Unusable> {
    let value = crate::base::json::extract_object(content)?;
    let items = value
        .get("facts")
        .and_then(Value::as_array)
        .ok_or("no `facts` list")?;
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string()
    };
    Ok(items
        .iter()
        .filter_map(|v| {
            let kind = FactKind::parse(&text(v, "kind"))?;
            let value = text(v, "value");
            let bad = value.is_empty()
                || value.chars().count() > 40
                || ["什么", "啥", "谁", "不知道"]
                    .iter()
                    .any(|w| value.contains(w));
            (!bad).then(|| Stated {
                kind,
                about: text(v, "about"),
                value,
            })
        })
        .collect())
}

/// The request that rewrites the 用户画像.
pub fn profile_request(state: &CompanionState, name: &str, temperature: f32) -> ChatRequest {
    let facts = state.facts.profile_lines();
    let previous = profile::lines(&state.profile, &state.facts);
    let dialogue: Vec<String> = state.lines[state.lines.len().saturating_sub(PROFILE_DIALOGUE)..]
        .iter()
        .map(|l| {
            let who = if l.speaker == Speaker::Player {
                "对方"
            } else {
                name
            };
            format!("{who}：{}", l.content)
        })
        .collect();
    let relationship = profile::relationship(state);
    let or_none = |v: Vec<String>| {
        if v.is_empty() {
            "（还没有）".to_string()
        } else {
            v.join("\n")
        }
    };
    let prompt = fill(
        PROFILE,
        &[
            ("name", name.to_string()),
            ("facts", or_none(facts)),
            (
                "previous",
                if state.profile.version == 0 {
                    "（第一次写）".into()
                } else {
                    previous.join("\n")
                },
            ),
            ("relationship", relationship),
            ("dialogue", or_none(dialogue)),
        ],
    );
    ChatRequest {
        messages: vec![Message::user(prompt)],
        temperature,
        max_tokens: 400,
        seed: None,
        format: Format::Text,
        stream: false,
    }
}

/// The profile of a model's answer: each line it wrote replaces the
/// built-in brain's; with none of the five, the answer is not used.
pub fn parse_profile(content: &str, state: &CompanionState) -> Result<PlayerProfile, Unusable> {
    let content = match content.rfind("</think>") {
        Some(end) => &content[end + "</think>".len()..],
        None => content,
    };
    let mut p = profile::rewrite(state);
    let mut found = 0;
    for line in content.lines() {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', ' '])
            .trim_start_matches("【")
            .replace('】', "");
        let Some((key, value)) = line.split_once(['：', ':']) else {
            continue;
        };
        let value = value.trim().to_string();
        if value.is_empty() {
            continue;
        }
        match key.trim() {
            "性格" => p.personality = value,
            "偏好" => p.preferences = value,
            "最近状态" => p.recent_state = value,
            "关系进展" => p.relationship = value,
            "最近话题" => {
                p.recent_topics = value
                    .split(['、', '，', ',', '；', ';'])
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .take(8)
                    .collect()
            }
            _ => continue,
        }
        found += 1;
    }
    if found == 0 {
        return Err("the model's 用户画像 has none of 性格/偏好/最近状态/关系进展/最近话题".into());
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_read_and_garbage_dropped() {
        let content = r#"```json
{"facts":[{"kind":"pet","about":"橘猫","value":"豆包"},{"kind":"name","value":"什么"},{"kind":"mood","value":"x"},{"kind":"职业","value":"护士"}]}
```"#;
        let facts = parse_facts(content).unwrap();
        assert_eq!(facts.len(), 2, "{facts:?}");
        assert_eq!(
            (facts[0].kind, facts[0].value.as_str()),
            (FactKind::Pet, "豆包")
        );
        assert_eq!(facts[1].kind, FactKind::Job, "a label is a kind too");
        assert!(parse_facts("我不知道").is_err());
    }

    #[test]
    fn a_profile_takes_the_lines_the_model_wrote() {
        let state = CompanionState::default();
        let p = parse_profile("<think>嗯</think>性格：安静\n最近话题：猫、加班", &state).unwrap();
        assert_eq!(p.personality, "安静");
        assert_eq!(p.recent_topics, ["猫", "加班"]);
        assert!(parse_profile("好的！", &state).is_err());
    }
}
