//! Robust reading of what a model wrote: JSON inside code fences or prose,
//! trailing commas, numbers as strings. Never panics; says what was wrong.

use serde_json::Value;

use crate::base::json::extract_object;
use crate::sim::brain::Plan;
use crate::sim::social::Emotion;

/// Why a model's answer cannot be used, in words the repair prompt hands
/// back to the model (`missing \`duration\``): the caller falls back to
/// the built-in brain or asks once more.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unusable(pub String);

impl From<String> for Unusable {
    fn from(why: String) -> Self {
        Self(why)
    }
}

impl From<&str> for Unusable {
    fn from(why: &str) -> Self {
        Self(why.to_string())
    }
}

/// Reads a plan from a model's answer. Field types are read leniently
/// (`"duration": "60 minutes"` is 60); missing fields are errors.
pub(crate) fn plan_from_text(text: &str) -> Result<Plan, Unusable> {
    let v = extract_object(text)?;
    let field = |k: &str| -> Result<String, Unusable> {
        match v.get(k) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(Value::Null) | None => Err(format!("missing `{k}`").into()),
            Some(other) => Ok(other.to_string()),
        }
    };
    let duration = match v.get("duration") {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f.round() as i64))
            .ok_or_else(|| "`duration` is not a whole number".to_string())?,
        Some(Value::String(s)) => leading_int(s).ok_or_else(|| {
            let s = crate::base::shortened(s, 60);
            format!("`duration` is not a number: {s:?}")
        })?,
        _ => return Err("missing `duration`".into()),
    };
    Ok(Plan {
        action: field("action")?,
        target_location: field("target_location")?,
        dialogue: field("dialogue").unwrap_or_default(),
        emoji: field("emoji").unwrap_or_default(),
        duration,
        activity: v.get("activity").and_then(activity_kind),
        with: field("with").ok().filter(|w| !w.trim().is_empty()),
    })
}

/// A model's `activity`, if it names a kind (in any case); anything else is
/// left to the action's words.
fn activity_kind(v: &Value) -> Option<crate::sim::residents::ActivityKind> {
    let name = v.as_str()?.trim().to_ascii_lowercase();
    serde_json::from_value(Value::String(name)).ok()
}

fn leading_int(s: &str) -> Option<i64> {
    let digits: String = s
        .trim()
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// Cleans one conversation line: drops quotes, speaker prefixes and extra lines;
/// reports whether the speaker wants to leave (`[END]`).
pub(crate) fn line_from_text(text: &str, speaker: &str) -> (String, bool, Option<Emotion>) {
    let ends = text.contains("[END]") || text.contains("［END］");
    let mut line = without_end(text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string();
    for prefix in [format!("{speaker}："), format!("{speaker}:")] {
        if let Some(rest) = line.strip_prefix(&prefix) {
            line = rest.trim().to_string();
        }
    }
    let (line, emotion) = emotion_tag(&line);
    let line = without_end(&line);
    let line = line
        .trim_matches(|c: char| matches!(c, '"' | '“' | '”' | '「' | '」' | '\'' | ' '))
        .chars()
        .take(80)
        .collect();
    (line, ends, emotion)
}

/// `text` without the end marker, removed until none is left: removing one
/// (or a tag) may join the pieces of another (`[EN[END]D]`).
fn without_end(text: &str) -> String {
    let mut text = text.to_string();
    while text.contains("[END]") || text.contains("［END］") {
        text = text.replace("[END]", "").replace("［END］", "");
    }
    text
}

/// The emotion tag the line prompt asks for (`【开心】`, or `[happy]`), anywhere
/// in the line; returns the line without it. An unknown tag is left in place.
fn emotion_tag(line: &str) -> (String, Option<Emotion>) {
    const TAGS: [(&str, Emotion); 10] = [
        ("开心", Emotion::Happy),
        ("难过", Emotion::Sad),
        ("生气", Emotion::Angry),
        ("好奇", Emotion::Curious),
        ("平静", Emotion::Neutral),
        ("happy", Emotion::Happy),
        ("sad", Emotion::Sad),
        ("angry", Emotion::Angry),
        ("curious", Emotion::Curious),
        ("neutral", Emotion::Neutral),
    ];
    for (open, close) in [('【', '】'), ('[', ']'), ('［', '］')] {
        let Some(start) = line.rfind(open) else {
            continue;
        };
        let rest = &line[start + open.len_utf8()..];
        let Some(end) = rest.find(close) else {
            continue;
        };
        let word = rest[..end].trim().trim_start_matches("情绪：").trim();
        if let Some((_, e)) = TAGS.iter().find(|(w, _)| w.eq_ignore_ascii_case(word)) {
            let cleaned = format!("{}{}", &line[..start], &rest[end + close.len_utf8()..]);
            return (cleaned.trim().to_string(), Some(*e));
        }
    }
    (line.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"action":"Eat","target_location":"tavern","dialogue":"饿了","emoji":"🍜","duration":45}"#;

    #[test]
    fn reads_plain_fenced_and_prosy_json() {
        assert_eq!(plan_from_text(GOOD).unwrap().target_location, "tavern");
        let fenced = format!("```json\n{GOOD}\n```");
        assert_eq!(plan_from_text(&fenced).unwrap().duration, 45);
        let prose = format!("Sure! Here is my plan:\n{GOOD}\nHope that helps {{:)}}");
        assert_eq!(plan_from_text(&prose).unwrap().emoji, "🍜");
    }

    #[test]
    fn repairs_trailing_commas_cut_offs_and_string_numbers() {
        let t = r#"{"action":"Read","target_location":"library","dialogue":"a, b",
            "emoji":"📚","duration":"60 minutes",}"#;
        let p = plan_from_text(t).unwrap();
        assert_eq!((p.duration, p.dialogue.as_str()), (60, "a, b"));
        let cut = r#"{"action":"Walk","target_location":"river","emoji":"🌊","duration":30,"dialogue":"河边真"#;
        assert_eq!(plan_from_text(cut).unwrap().dialogue, "河边真");
    }

    #[test]
    fn says_what_is_wrong() {
        assert!(
            plan_from_text("I will go to the tavern")
                .unwrap_err()
                .0
                .contains("no JSON")
        );
        let e = plan_from_text(r#"{"action":"Eat","duration":3}"#).unwrap_err();
        assert!(e.0.contains("target_location"), "{e}");
        let e = plan_from_text(r#"{"action":"Eat","target_location":"x","duration":"soon"}"#)
            .unwrap_err();
        assert!(e.0.contains("duration"), "{e}");
        assert!(plan_from_text("{{{{").is_err());
    }

    #[test]
    fn lines_are_cleaned() {
        assert_eq!(
            line_from_text("钟大川：「今晚来喝一杯吧！」\n(smiles)", "钟大川"),
            ("今晚来喝一杯吧！".to_string(), false, None)
        );
        assert_eq!(
            line_from_text("好的，回头见。[END]", "阿朵"),
            ("好的，回头见。".to_string(), true, None)
        );
    }

    #[test]
    fn emotion_tags_are_read_and_removed() {
        assert_eq!(
            line_from_text("太好了，晚上见！【开心】[END]", "阿朵"),
            ("太好了，晚上见！".to_string(), true, Some(Emotion::Happy))
        );
        assert_eq!(
            line_from_text("「别烦我。」【情绪：生气】", "阿朵"),
            ("别烦我。".to_string(), false, Some(Emotion::Angry))
        );
        assert_eq!(
            line_from_text("[curious] 真的吗？", "阿朵"),
            ("真的吗？".to_string(), false, Some(Emotion::Curious))
        );
        // Not an emotion: left as it is, keywords decide later.
        assert_eq!(
            line_from_text("我读了【红楼梦】。", "阿朵"),
            ("我读了【红楼梦】。".to_string(), false, None)
        );
    }

    /// Property: no answer makes the readers panic; an error is a sentence
    /// of bounded length (never the hostile answer echoed back); a cleaned
    /// line is one short line without the end marker.
    #[test]
    fn fuzzed_answers_never_panic_and_errors_stay_short() {
        use crate::base::fuzz::{Bounds, fuzz};
        let corpus = [
            GOOD,
            "```json\n{\"action\":\"Read\",\"target_location\":\"library\",\"duration\":\"60 minutes\",}\n```",
            "Sure! {\"action\":\"Walk\",\"target_location\":\"river\",\"duration\":30,\"dialogue\":\"河边真",
            "钟大川：「今晚来喝一杯吧！」【开心】[END]",
        ];
        let vocabulary = [
            "{",
            "}",
            "\"duration\":",
            "\"action\":",
            ",",
            "```json",
            "[END]",
            "【",
            "】",
            "：",
            "\"target_location\":",
            "1e400",
            "\"60",
            "\\u",
        ];
        let ran = fuzz(23, &corpus, &vocabulary, Bounds::cases(20_000), |text| {
            if let Err(super::Unusable(e)) = plan_from_text(text) {
                assert!(e.chars().count() <= 500, "a {}-character error", e.len());
            }
            let (line, _, _) = line_from_text(text, "钟大川");
            assert!(line.chars().count() <= 80 && !line.contains('\n'));
            assert!(!line.contains("[END]"));
        });
        assert!(ran >= 1_000, "only {ran} cases ran");
    }
}
