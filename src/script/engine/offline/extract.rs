//! What the built-in brain extracts from the human's answer: one of the
//! options a definition lists, a name without 我叫, a number for a score,
//! else the answer without fillers; and whether an answer asks back or
//! declines instead of answering.

use super::say::SENTENCE_END;

/// How people introduce a name (stripped from a name's answer)…
const NAME_LEADS: &[&str] = &[
    "你可以叫我",
    "大家都叫我",
    "我的名字是",
    "就叫我",
    "我叫",
    "叫我",
    "我是",
];
/// …and what trails it.
const NAME_TRAILS: &[&str] = &["就好", "就行", "就可以", "吧"];
/// Fillers before an answer.
const FILLERS: &[&str] = &["嗯……", "嗯，", "嗯", "呃，", "呃", "那个，"];
/// Words that say no.
const NEGATIONS: &[&str] = &["没有", "没", "不", "无"];
/// Words of an answer that gives nothing.
const NO_ANSWER: &[&str] = &["说不上来", "没怎么想过", "说不太好", "不知道", "不清楚"];
/// Options that mean no.
const NEGATIVE_OPTIONS: &[&str] = &["无", "否", "没有", "不是"];

/// The part of `answer` that answers for variable `name` defined as
/// `define`: one of the options the definition lists (只回答“有”或“无”: a
/// "没有" is 无, and with no option named the negative one — no evidence, no
/// flag), a name without 我叫 and 就好, else the answer without fillers.
pub(super) fn answer_part(answer: &str, name: &str, define: &str) -> String {
    let mut a = answer.trim();
    while let Some(rest) = FILLERS.iter().find_map(|f| a.strip_prefix(f)) {
        a = rest.trim_start();
    }
    // 说不上来, 没想过: nothing to extract, as a model would leave it.
    if NO_ANSWER.iter().any(|n| a.contains(n)) {
        return String::new();
    }
    let options = quoted(define);
    let negative = options
        .iter()
        .find(|o| NEGATIVE_OPTIONS.contains(&o.as_str()));
    // 什么都没做就写“没有”: 还没有 is 没有.
    if let Some(no) = negative.filter(|_| NEGATIONS.iter().any(|n| a.contains(n))) {
        return no.clone();
    }
    if options.len() >= 2 {
        let named = options.iter().filter(|o| a.contains(o.as_str()));
        if let Some(o) = named.max_by_key(|o| o.chars().count()).or(negative) {
            return o.clone();
        }
    }
    if wants_a_number(name, define)
        && let Some(n) = first_number(a)
    {
        return n.to_string();
    }
    if about_a_name(name, define) {
        let mut n = a.trim_end_matches(SENTENCE_END);
        if let Some(rest) = NAME_LEADS.iter().find_map(|l| n.strip_prefix(l)) {
            n = rest;
        }
        // 我叫林小溪，20岁…: the name is the first clause.
        n = n.split(['，', ',', '。', '、', ' ']).next().unwrap_or(n);
        if let Some(rest) = NAME_TRAILS.iter().find_map(|t| n.strip_suffix(t)) {
            n = rest;
        }
        if !n.is_empty() {
            return n.trim().to_string();
        }
    }
    a.to_string()
}

/// The texts in quotes in `s` (“有”或“无” → 有, 无).
pub(super) fn quoted(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find(['“', '"', '「']) {
        let after = &rest[open + rest[open..].chars().next().map_or(1, char::len_utf8)..];
        let Some(close) = after.find(['”', '"', '」']) else {
            break;
        };
        out.push(after[..close].to_string());
        rest = &after[close + after[close..].chars().next().map_or(1, char::len_utf8)..];
    }
    out
}

/// Whether a variable holds a name (称呼, 名字, 名称, or a name ending in 名).
pub(super) fn about_a_name(name: &str, define: &str) -> bool {
    let says = |t: &str| ["称呼", "名字", "名称"].iter().any(|w| t.contains(w));
    says(name) || says(define) || name.ends_with('名')
}

/// Whether a variable holds a number: a score (打分, 几分, 程度 out of 10)
/// or what its definition says is a number.
fn wants_a_number(name: &str, define: &str) -> bool {
    let says = |t: &str| {
        [
            "数字", "打分", "几分", "分数", "评分", "0-10", "0到10", "0～10",
        ]
        .iter()
        .any(|w| t.contains(w))
    };
    says(name) || says(define)
}

/// The first number in `text`: digits (7, 7.5) or Chinese numerals up to
/// 99 (七, 十, 十二, 二十五); 两 is 2.
pub(super) fn first_number(text: &str) -> Option<f64> {
    let chars: Vec<char> = text.chars().collect();
    let start = chars
        .iter()
        .position(|c| c.is_ascii_digit() || chinese_digit(*c).is_some() || *c == '十')?;
    if chars[start].is_ascii_digit() {
        let digits: String = chars[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || **c == '.')
            .collect();
        return digits.trim_end_matches('.').parse().ok();
    }
    let mut value = 0u32;
    let mut current = 0u32;
    for &c in &chars[start..] {
        match (c, chinese_digit(c)) {
            ('十', _) => {
                value += current.max(1) * 10;
                current = 0;
            }
            (_, Some(d)) => current = d,
            _ => break,
        }
    }
    Some(f64::from(value + current))
}

fn chinese_digit(c: char) -> Option<u32> {
    "零一二三四五六七八九"
        .chars()
        .position(|d| d == c)
        .map(|i| i as u32)
        .or((c == '两').then_some(2))
}

/// An answer that is not one: it asks back (你是谁呀？) or declines (不想说).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Aside {
    /// Who is asking (你是谁).
    WhoAreYou,
    /// Why it is asked (为什么要问).
    Why,
    /// Another question back.
    Question,
    /// Declines to answer.
    Refusal,
}

/// Words that decline.
const DECLINING: &[&str] = &[
    "不想说",
    "不告诉",
    "不想告诉",
    "不方便",
    "保密",
    "不说了",
    "不愿意说",
    "凭什么",
    "干嘛要",
    "为什么要告诉",
];

/// Whether `answer` asks back or declines rather than answers. An answer
/// that also gives what was asked (我叫小雨，你呢？) is an answer.
pub(super) fn aside(answer: &str) -> Option<Aside> {
    let a = answer.trim();
    let gives = ["我叫", "叫我", "我的名字", "我是"]
        .iter()
        .any(|l| a.contains(l));
    if DECLINING.iter().any(|d| a.contains(d)) {
        return Some(Aside::Refusal);
    }
    let asks = a.ends_with(['？', '?']) || a.ends_with('吗') || a.ends_with('呢');
    if gives || !asks {
        return None;
    }
    Some(if a.contains("你是谁") || a.contains("你叫什么") {
        Aside::WhoAreYou
    } else if a.contains("为什么") || a.contains("为啥") || a.contains("干嘛") {
        Aside::Why
    } else {
        Aside::Question
    })
}

#[cfg(test)]
mod tests {
    use super::{Aside, answer_part, aside, first_number};

    #[test]
    fn extraction_takes_the_part_that_answers() {
        let risk = "有没有提到伤害自己的想法，只回答“有”或“无”";
        assert_eq!(answer_part("我很好", "风险", risk), "无");
        assert_eq!(answer_part("没有，从来没这么想过", "风险", risk), "无");
        assert_eq!(answer_part("有时候会有", "风险", risk), "有");
        let name = "心旅者希望被怎样称呼，只要称呼本身";
        assert_eq!(answer_part("我叫小满。", "心旅者名", name), "小满");
        assert_eq!(answer_part("嗯，叫我小林就好", "心旅者名", name), "小林");
        assert_eq!(
            answer_part("我叫林小溪，20岁，大学生", "心旅者名", name),
            "林小溪"
        );
        // The hello sample's definition says 名称.
        assert_eq!(
            answer_part("叫我小林就好", "心旅者名", "心旅者给出的名称"),
            "小林"
        );
        assert_eq!(
            answer_part("嗯，最近总是睡不着", "睡眠情况", "最近的睡眠情况"),
            "最近总是睡不着"
        );
        assert_eq!(answer_part("这个我一时说不上来", "主诉", "最困扰的事"), "");
    }

    #[test]
    fn scores_are_read_as_numbers() {
        assert_eq!(first_number("大概七分吧"), Some(7.0));
        assert_eq!(first_number("打十二分"), Some(12.0));
        assert_eq!(first_number("二十五"), Some(25.0));
        assert_eq!(first_number("7.5分"), Some(7.5));
        assert_eq!(first_number("没有"), None);
        assert_eq!(
            answer_part("嗯，大概六分吧", "焦虑程度", "0-10 打分，只写数字"),
            "6"
        );
    }

    #[test]
    fn answers_that_ask_back_or_decline_are_told_apart() {
        assert_eq!(aside("你是谁呀？"), Some(Aside::WhoAreYou));
        assert_eq!(aside("为什么要问这个？"), Some(Aside::Why));
        assert_eq!(aside("不想说"), Some(Aside::Refusal));
        assert_eq!(aside("这里安全吗"), Some(Aside::Question));
        assert_eq!(aside("我叫小雨，你呢？"), None);
        assert_eq!(aside("小雨"), None);
    }
}
