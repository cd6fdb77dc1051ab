//! Keyword tables read in lines: a line's emotion, a conversation's topic.
//! Every keyword of a set of tables is found in one pass over a line
//! (Aho–Corasick), and a conversation's topic is kept up line by line.

use super::emotion::Emotion;
use super::message::ChatMessage;
use crate::scenario::KeywordTable;

/// The label whose keywords occur most in `text` (each keyword counts once);
/// ties go to the earlier table; `None` when nothing matches.
fn best_label<'a>(tables: &'a [KeywordTable], text: &str) -> Option<&'a str> {
    let held: Vec<bool> = keywords(tables)
        .map(|k| text.contains(k.as_str()))
        .collect();
    best_of(tables, &held)
}

/// The label of `tables` with the most keywords among `held` (one flag per
/// keyword, the tables' in order); ties go to the earlier table.
fn best_of<'a>(tables: &'a [KeywordTable], held: &[bool]) -> Option<&'a str> {
    let mut best: Option<(&str, usize)> = None;
    let mut at = 0;
    for t in tables {
        let n = t.keywords.len();
        let score = held[at..at + n].iter().filter(|&&h| h).count();
        at += n;
        if score > 0 && best.is_none_or(|(_, s)| score > s) {
            best = Some((&t.label, score));
        }
    }
    best.map(|(l, _)| l)
}

/// Emotion of one message by the scenario's keyword tables.
pub fn detect_emotion(tables: &[KeywordTable], text: &str) -> Emotion {
    best_label(tables, text).map_or(Emotion::Neutral, Emotion::from_label)
}

/// Topic of a conversation by the scenario's keyword tables; `casual` when none match.
pub fn detect_topic<'a>(tables: &'a [KeywordTable], texts: &[&str]) -> &'a str {
    let all = texts.join(" ");
    best_label(tables, &all).unwrap_or("casual")
}

/// A set of keyword tables made ready to find all their keywords in a
/// line in one pass (Aho–Corasick), where checking each keyword in turn
/// was a tenth of a talk's cost. Gives what [`best_label`] gives.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeywordIndex {
    tables: Vec<KeywordTable>,
    /// How many keywords the tables hold.
    count: usize,
    /// A keyword has a space: it could span two lines joined by one.
    spaced: bool,
    /// `None` when there is no keyword, an empty one or a spaced one: then
    /// each keyword is checked in turn.
    finder: Option<aho_corasick::AhoCorasick>,
}

impl KeywordIndex {
    /// The index of `tables`.
    pub(crate) fn new(tables: &[KeywordTable]) -> Self {
        let words: Vec<&str> = keywords(tables).map(String::as_str).collect();
        let spaced = words.iter().any(|w| w.contains(' '));
        let plain = !spaced && words.iter().all(|w| !w.is_empty());
        let finder = (plain && !words.is_empty())
            .then(|| aho_corasick::AhoCorasick::new(&words).ok())
            .flatten();
        Self {
            tables: tables.to_vec(),
            count: words.len(),
            spaced,
            finder,
        }
    }

    /// Whether this is the index of `tables`.
    pub(crate) fn is_of(&self, tables: &[KeywordTable]) -> bool {
        self.tables == tables
    }

    /// Marks in `held` (one flag per keyword, the tables' in order) the
    /// keywords `text` holds.
    fn mark(&self, text: &str, held: &mut [bool]) {
        match &self.finder {
            Some(f) => {
                for m in f.find_overlapping_iter(text) {
                    held[m.pattern().as_usize()] = true;
                }
            }
            None => {
                for (h, k) in held.iter_mut().zip(keywords(&self.tables)) {
                    *h = *h || text.contains(k.as_str());
                }
            }
        }
    }

    /// [`detect_emotion`] by this index (of the emotion tables).
    pub(crate) fn emotion(&self, text: &str) -> Emotion {
        let mut held = vec![false; self.count];
        self.mark(text, &mut held);
        best_of(&self.tables, &held).map_or(Emotion::Neutral, Emotion::from_label)
    }
}

/// Every keyword of `tables`, table by table.
fn keywords(tables: &[KeywordTable]) -> impl Iterator<Item = &String> {
    tables.iter().flat_map(|t| &t.keywords)
}

/// Which of the topic tables' keywords a conversation's lines hold so far
/// (flattened over the tables, in order), and how many lines were read:
/// each new line is searched once, where [`detect_topic`] searched every
/// line again at each line. Gives what `detect_topic` gives.
#[derive(Debug, Clone, Default)]
pub(crate) struct TopicWords {
    held: Vec<bool>,
    lines: usize,
}

impl TopicWords {
    /// The topic of `messages` by `index` (of the topic tables), reading
    /// only the lines added since the last call.
    pub(crate) fn topic<'a>(
        &mut self,
        index: &'a KeywordIndex,
        messages: &[ChatMessage],
    ) -> &'a str {
        let tables = &index.tables;
        if index.spaced {
            let texts: Vec<&str> = messages.iter().map(|m| m.text.as_str()).collect();
            return detect_topic(tables, &texts);
        }
        if self.held.len() != index.count || self.lines > messages.len() {
            *self = Self {
                held: vec![false; index.count],
                lines: 0,
            };
        }
        for m in &messages[self.lines..] {
            index.mark(&m.text, &mut self.held);
        }
        self.lines = messages.len();
        best_of(tables, &self.held).unwrap_or("casual")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::SocialTuning;
    use crate::sim::residents::roster::RosterIdx;

    fn t() -> SocialTuning {
        SocialTuning::default()
    }

    #[test]
    fn emotions_from_chinese_keywords() {
        let t = t();
        for (text, want) in [
            ("哈哈，太好了", Emotion::Happy),
            ("唉，真可惜。", Emotion::Sad),
            ("烦死了，真讨厌", Emotion::Angry),
            ("真的吗？为什么", Emotion::Curious),
            ("今天天气一般。", Emotion::Neutral),
            // One keyword each: the earlier table (happy) wins the tie.
            ("开心又难过", Emotion::Happy),
            // Two angry keywords beat one happy one.
            ("什么鬼！讨厌", Emotion::Angry),
        ] {
            assert_eq!(detect_emotion(&t.emotions, text), want, "{text}");
            let index = KeywordIndex::new(&t.emotions);
            assert_eq!(index.emotion(text), want, "{text} by the index");
        }
    }

    #[test]
    fn topics_from_chinese_keywords() {
        let t = t();
        for (texts, want) in [
            (&["最近工作好忙", "老板又让加班"][..], "work"),
            (&["周末想去玩", "房子收拾好了吗"], "life"),
            (&["我那个朋友", "家人都好吗"], "relationship"),
            (&["在看一本书", "听音乐吗"], "hobby"),
            (&["听说了吗", "据说镇长要来"], "gossip"),
            (&["你打算怎么办", "我准备明年走"], "plan"),
            (&["说实话，我心里很怕", "梦想还在"], "deep_talk"),
            (&["需要帮忙吗", "交给我吧"], "help_offered"),
            (&["真倒霉", "我受够了"], "complaint"),
            (&["嗯", "好的"], "casual"),
        ] {
            assert_eq!(detect_topic(&t.topics, texts), want, "{texts:?}");
        }
    }

    #[test]
    fn a_topic_read_line_by_line_is_the_topic_of_all_lines() {
        let t = t();
        let texts = [
            "嗯",
            "最近工作好忙",
            "周末想去玩",
            "房子收拾好了吗",
            "老板又让加班，同事也走了",
            "好的",
        ];
        let messages: Vec<ChatMessage> = texts.iter().map(|&text| line(text)).collect();
        let index = KeywordIndex::new(&t.topics);
        let mut words = TopicWords::default();
        for n in 1..=texts.len() {
            let want = detect_topic(&t.topics, &texts[..n]);
            assert_eq!(words.topic(&index, &messages[..n]), want, "{n} lines");
        }
        // Read again from the start (after a load, or new tables).
        let mut fresh = TopicWords::default();
        assert_eq!(fresh.topic(&index, &messages), "work");
        assert_eq!(words.topic(&index, &messages[..3]), "life");
        // New tables are read against every line.
        let mut other = t.topics.clone();
        other[1].keywords.push("嗯".into());
        let other = KeywordIndex::new(&other);
        assert_eq!(words.topic(&other, &messages[..1]), "life");
        // A keyword with a space, checked one by one over the joined lines.
        let mut spaced = t.topics.clone();
        spaced[1]
            .keywords
            .extend(["嗯 最近".into(), "嗯 最".into()]);
        let spaced = KeywordIndex::new(&spaced);
        assert_eq!(TopicWords::default().topic(&spaced, &messages[..2]), "life");
    }

    /// A line said by resident 0 to resident 1.
    fn line(text: &str) -> ChatMessage {
        ChatMessage {
            speaker: RosterIdx(0),
            text: text.into(),
            emotion: Emotion::Neutral,
            mentions: Vec::new(),
            time: crate::base::time::GameTime(0),
            cue: None,
            to: Some(RosterIdx(1)),
        }
    }
}
