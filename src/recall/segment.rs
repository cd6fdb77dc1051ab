//! Chinese text → search terms. jieba finds the words (with the town's names
//! added to its dictionary, so 钟大川 stays one word); character bigrams catch
//! what segmentation splits differently in the query and the memory (血压高 /
//! 血压), which plain word matching misses in Chinese.

use jieba_rs::Jieba;

/// Words too common to tell memories apart.
const STOP_WORDS: &[&str] = &[
    "的",
    "了",
    "在",
    "是",
    "我",
    "你",
    "他",
    "她",
    "它",
    "们",
    "和",
    "也",
    "都",
    "就",
    "又",
    "还",
    "着",
    "吗",
    "呢",
    "吧",
    "啊",
    "呀",
    "把",
    "被",
    "给",
    "跟",
    "与",
    "及",
    "这",
    "那",
    "有",
    "个",
    "一个",
    "我们",
    "你们",
    "他们",
    "她们",
    "什么",
    "怎么",
    "哪里",
    "哪儿",
    "为什么",
    "是不是",
    "没有",
    "一下",
    "一些",
    "这个",
    "那个",
    "自己",
    "上次",
    "之前",
    "以前",
    "时候",
    "有没有",
    "过",
    "得",
    "地",
    "么",
    "嘛",
    "要",
    "会",
    "能",
    "到",
    "去",
    "来",
    "说",
    "让",
    "对",
    "很",
    "最",
    "吗？",
];

/// The tokenizer every index and query shares.
pub struct Segmenter {
    jieba: Jieba,
}

impl std::fmt::Debug for Segmenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Segmenter")
    }
}

impl Segmenter {
    /// jieba's dictionary plus `names` (residents, places), each kept whole.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut jieba = Jieba::new();
        for name in names {
            let name = name.trim();
            if name.chars().count() > 1 {
                // A high frequency: a name wins over splitting it into common words.
                jieba.add_word(name, Some(100_000), Some("nr"));
            }
        }
        Self { jieba }
    }

    /// The search terms of `text`: its words (search mode: 面包店 also gives
    /// 面包) without stop words, then its CJK character bigrams, marked so
    /// they never collide with words.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let lower = text.to_lowercase();
        let mut out: Vec<String> = self
            .jieba
            .cut_for_search(&lower, true)
            .into_iter()
            .map(|t| t.word)
            .filter(|w| w.chars().any(char::is_alphanumeric) && !STOP_WORDS.contains(w))
            .map(str::to_string)
            .collect();
        bigrams(&lower, &mut out);
        unigrams(&lower, &mut out);
        out
    }
}

/// Pushes `'x` for each CJK character that is not a stop word: 猫 then
/// finds 橘猫, which jieba keeps whole and whose bigrams share nothing with 猫.
fn unigrams(text: &str, out: &mut Vec<String>) {
    let mut buf = [0u8; 4];
    for c in text.chars().filter(|c| is_cjk(*c)) {
        if !STOP_WORDS.contains(&&*c.encode_utf8(&mut buf)) {
            out.push(format!("'{c}"));
        }
    }
}

/// Pushes `·xy` for each pair of adjacent CJK characters (runs broken by
/// anything else), but not a pair of two stop words (我的, 得我): they tell
/// no memory apart, and matched any long one.
fn bigrams(text: &str, out: &mut Vec<String>) {
    let stop = |c: char| {
        let mut buf = [0u8; 4];
        STOP_WORDS.contains(&&*c.encode_utf8(&mut buf))
    };
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if is_cjk(c) {
            if let Some(p) = prev
                && !(stop(p) && stop(c))
            {
                out.push(format!("·{p}{c}"));
            }
            prev = Some(c);
        } else {
            prev = None;
        }
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_whole_stop_words_go_and_bigrams_are_marked() {
        let seg = Segmenter::new(["钟大川", "星火酒馆"]);
        let t = seg.terms("我和钟大川在星火酒馆喝了酒");
        assert!(t.contains(&"钟大川".to_string()), "{t:?}");
        assert!(t.contains(&"星火酒馆".to_string()), "{t:?}");
        assert!(!t.contains(&"我".to_string()) && !t.contains(&"了".to_string()));
        assert!(t.contains(&"·大川".to_string()), "bigrams: {t:?}");
        assert!(!t.iter().any(|w| w == "·，"), "no punctuation bigrams");
        assert!(
            !t.iter().any(|w| w == "·我和"),
            "no bigram of two stop words"
        );
    }

    #[test]
    fn a_split_word_still_shares_bigrams() {
        let seg = Segmenter::new([]);
        let memory = seg.terms("医生说我血压高");
        let query = seg.terms("血压怎么样");
        assert!(
            query.iter().any(|q| memory.contains(q)),
            "{memory:?} / {query:?}"
        );
    }
}
