//! Key moments: defined in the scenario, found in two steps as the design
//! says — a coarse filter in code (affection in range, not yet decided, what
//! the player's message *does*: forgives, gives a name, misses — or one of
//! its keywords) makes the moment pending and puts its hint in the prompt;
//! the reply then says how it went (a `【时刻:id】` mark when it happened, a
//! `【未成:id】` mark when the player's answer let it fail), the affection
//! follows from that, and the exchange is kept verbatim.

use serde::{Deserialize, Serialize};

use super::affection::Stage;
use super::said::{Act, Said};

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
    /// What the player's message does that makes it happen (any one).
    #[serde(default)]
    pub on: Vec<Act>,
    /// What the player's message does that makes it fail.
    #[serde(default)]
    pub fails_on: Vec<Act>,
    /// Words in the player's message that also make it possible (any one;
    /// neither `on`, `fails_on` nor keywords listed: any message in range).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Words the companion's previous reply must hold for it to be possible
    /// (a mistake forgiven needs a mistake first).
    #[serde(default)]
    pub after_reply: Vec<String>,
    /// What the model is told when the moment is possible.
    pub hint: String,
    /// Affection gained when it happens (may be negative).
    pub gain: i32,
    /// Affection gained (usually lost) when it fails.
    #[serde(default)]
    pub failed_gain: i32,
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

/// How a key moment went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MomentStatus {
    /// It became possible; nothing decided yet.
    Pending,
    /// It happened.
    Triggered,
    /// The player's answer let it pass.
    Failed,
}

impl MomentStatus {
    /// As the save's `key_moments.status` keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            MomentStatus::Pending => "pending",
            MomentStatus::Triggered => "triggered",
            MomentStatus::Failed => "failed",
        }
    }

    /// Reads [`MomentStatus::as_str`] back (older saves said `completed`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(Self::Pending),
            "triggered" | "completed" => Some(Self::Triggered),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// The mark a reply carries when a moment happened.
pub fn mark(id: &str) -> String {
    format!("【时刻:{id}】")
}

/// The mark a reply carries when a moment failed.
pub fn fail_mark(id: &str) -> String {
    format!("【未成:{id}】")
}

/// What the filter weighs: the affection, the moments already decided,
/// the message read, and the companion's previous reply.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// Affection now.
    pub affection: i32,
    /// Ids of the moments already triggered or failed.
    pub decided: &'a [String],
    /// The player's message.
    pub message: &'a str,
    /// What it does.
    pub said: &'a Said,
    /// The companion's previous reply, if any.
    pub last_reply: Option<&'a str>,
}

/// The moments a message may decide: in range, not yet decided, the
/// companion's previous reply as needed, and the message doing what makes
/// it happen or fail (or holding a keyword) — in definition order.
pub fn candidates<'a>(moments: &'a [KeyMomentSpec], s: &Situation<'_>) -> Vec<&'a KeyMomentSpec> {
    moments
        .iter()
        .filter(|m| (m.affection[0]..=m.affection[1]).contains(&s.affection))
        .filter(|m| !s.decided.contains(&m.id))
        .filter(|m| {
            m.after_reply.is_empty()
                || s.last_reply
                    .is_some_and(|r| m.after_reply.iter().any(|w| r.contains(w.as_str())))
        })
        .filter(|m| {
            let open = m.on.is_empty() && m.fails_on.is_empty() && m.keywords.is_empty();
            open || m.on.iter().chain(&m.fails_on).any(|a| s.said.does(*a))
                || m.keywords.iter().any(|k| s.message.contains(k.as_str()))
        })
        .collect()
}

/// How the built-in brain judges a candidate: failed when the message does
/// what makes it fail, else it happened.
pub fn judge(m: &KeyMomentSpec, said: &Said) -> MomentStatus {
    if m.fails_on.iter().any(|a| said.does(*a)) && !m.on.iter().any(|a| said.does(*a)) {
        MomentStatus::Failed
    } else {
        MomentStatus::Triggered
    }
}

/// How the reply says each candidate went (unmarked: still pending), and
/// the reply without the marks.
pub fn parse_reply<'a>(
    reply: &str,
    candidates: &[&'a KeyMomentSpec],
) -> (Vec<(&'a KeyMomentSpec, MomentStatus)>, String) {
    let decided = candidates
        .iter()
        .copied()
        .filter_map(|m| {
            if reply.contains(&mark(&m.id)) {
                Some((m, MomentStatus::Triggered))
            } else if reply.contains(&fail_mark(&m.id)) {
                Some((m, MomentStatus::Failed))
            } else {
                None
            }
        })
        .collect();
    let mut clean = reply.to_string();
    for m in candidates {
        clean = clean
            .replace(&mark(&m.id), "")
            .replace(&fail_mark(&m.id), "");
    }
    (decided, clean.trim().to_string())
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
            on: Vec::new(),
            fails_on: Vec::new(),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            after_reply: Vec::new(),
            hint: String::new(),
            gain: 30,
            failed_gain: 0,
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
        let ids = |affection: i32, decided: &[String], message: &str| {
            let said = crate::companion::said::read(message);
            let s = Situation {
                affection,
                decided,
                message,
                said: &said,
                last_reply: None,
            };
            candidates(&ms, &s)
                .iter()
                .map(|m| m.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(10, &[], "你好"), ["first"]);
        assert_eq!(ids(10, &[], "你叫什么名字？"), ["first", "name"]);
        assert_eq!(ids(10, &["first".into()], "你叫什么名字？"), ["name"]);
        assert_eq!(ids(1200, &[], "你的名字"), ["name", "later"]);
        assert!(ids(3000, &[], "名字").is_empty());
    }

    #[test]
    fn a_marked_reply_says_which_happened_and_loses_the_mark() {
        let ms = [moment("a", [0, 9], &[]), moment("b", [0, 9], &[])];
        let c: Vec<&KeyMomentSpec> = ms.iter().collect();
        let (decided, clean) = parse_reply("（笑）你好呀。【时刻:b】【未成:a】", &c);
        assert_eq!(decided.len(), 2);
        assert_eq!(
            (decided[0].0.id.as_str(), decided[0].1),
            ("a", MomentStatus::Failed)
        );
        assert_eq!(
            (decided[1].0.id.as_str(), decided[1].1),
            ("b", MomentStatus::Triggered)
        );
        assert_eq!(clean, "（笑）你好呀。");
    }

    #[test]
    fn a_mistake_forgiven_needs_a_mistake_and_blame_fails_it() {
        let mut m = moment("mistake", [0, 99], &[]);
        m.on = vec![Act::Forgives];
        m.fails_on = vec![Act::Blames];
        m.after_reply = vec!["说错".into()];
        let ms = [m];
        let check = |message: &str, last: Option<&str>| {
            let said = crate::companion::said::read(message);
            let s = Situation {
                affection: 5,
                decided: &[],
                message,
                said: &said,
                last_reply: last,
            };
            candidates(&ms, &s).first().map(|m| judge(m, &said))
        };
        assert_eq!(check("没关系的", None), None, "no mistake was made");
        assert_eq!(
            check("第一次犯错", Some("我刚才是不是说错了？")),
            None,
            "a keyword is not a meaning"
        );
        assert_eq!(
            check("没关系，谁都会说错", Some("我刚才是不是说错了？")),
            Some(MomentStatus::Triggered)
        );
        assert_eq!(
            check("你又错了，都怪你", Some("我刚才是不是说错了？")),
            Some(MomentStatus::Failed)
        );
    }
}
