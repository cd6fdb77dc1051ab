//! Key moments: defined in the scenario, found in two steps as the design
//! says — a coarse filter in code (affection in range, not yet happened, a
//! keyword in what the player said) puts the moment's hint in the prompt;
//! the reply then says whether it happened (a `【时刻:id】` mark the hint asks
//! for), and the exchange is kept verbatim.

use serde::{Deserialize, Serialize};

use super::affection::Stage;

/// A key moment as the scenario defines it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyMomentSpec {
    /// Unique among the companion's moments.
    pub id: String,
    /// The chapter (1–6) it belongs to.
    pub chapter: u8,
    /// Its name, as the window and transcript show it.
    pub name: String,
    /// The affection range `[from, to]` in which it can happen.
    pub affection: [i32; 2],
    /// Words in the player's message that make it possible (any one;
    /// none listed: any message in range).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// What the model is told when the moment is possible.
    pub hint: String,
    /// Affection gained when it happens (may be negative).
    pub gain: i32,
    /// What the built-in brain answers when it happens (`{称呼}` allowed);
    /// without it, a line of the stage.
    #[serde(default)]
    pub says: Option<String>,
}

impl KeyMomentSpec {
    /// The stage of its chapter.
    pub fn stage(&self) -> Option<Stage> {
        Stage::of_chapter(self.chapter)
    }
}

/// The mark a reply carries when a moment happened.
pub fn mark(id: &str) -> String {
    format!("【时刻:{id}】")
}

/// The moments a message may trigger: in range, not yet happened, a keyword
/// present (in definition order).
pub fn candidates<'a>(
    moments: &'a [KeyMomentSpec],
    affection: i32,
    happened: &[String],
    message: &str,
) -> Vec<&'a KeyMomentSpec> {
    moments
        .iter()
        .filter(|m| (m.affection[0]..=m.affection[1]).contains(&affection))
        .filter(|m| !happened.contains(&m.id))
        .filter(|m| {
            m.keywords.is_empty() || m.keywords.iter().any(|k| message.contains(k.as_str()))
        })
        .collect()
}

/// Which of the candidates the reply says happened, and the reply without
/// the marks.
pub fn parse_reply<'a>(
    reply: &str,
    candidates: &[&'a KeyMomentSpec],
) -> (Vec<&'a KeyMomentSpec>, String) {
    let happened: Vec<&KeyMomentSpec> = candidates
        .iter()
        .copied()
        .filter(|m| reply.contains(&mark(&m.id)))
        .collect();
    let mut clean = reply.to_string();
    for m in candidates {
        clean = clean.replace(&mark(&m.id), "");
    }
    (happened, clean.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moment(id: &str, range: [i32; 2], keywords: &[&str]) -> KeyMomentSpec {
        KeyMomentSpec {
            id: id.into(),
            chapter: 1,
            name: id.into(),
            affection: range,
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            hint: String::new(),
            gain: 30,
            says: None,
        }
    }

    #[test]
    fn the_filter_wants_range_novelty_and_a_keyword() {
        let ms = [
            moment("first", [0, 999], &[]),
            moment("name", [0, 2499], &["名字", "叫什么"]),
            moment("later", [1000, 2499], &["名字"]),
        ];
        let ids = |v: Vec<&KeyMomentSpec>| v.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(candidates(&ms, 10, &[], "你好")), ["first"]);
        assert_eq!(
            ids(candidates(&ms, 10, &[], "你叫什么名字？")),
            ["first", "name"]
        );
        assert_eq!(
            ids(candidates(&ms, 10, &["first".into()], "你叫什么名字？")),
            ["name"]
        );
        assert_eq!(
            ids(candidates(&ms, 1200, &[], "你的名字")),
            ["name", "later"]
        );
        assert!(candidates(&ms, 3000, &[], "名字").is_empty());
    }

    #[test]
    fn a_marked_reply_says_which_happened_and_loses_the_mark() {
        let ms = [moment("a", [0, 9], &[]), moment("b", [0, 9], &[])];
        let c: Vec<&KeyMomentSpec> = ms.iter().collect();
        let (happened, clean) = parse_reply("（笑）你好呀。【时刻:b】", &c);
        assert_eq!(happened.len(), 1);
        assert_eq!(happened[0].id, "b");
        assert_eq!(clean, "（笑）你好呀。");
    }
}
