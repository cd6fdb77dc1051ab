//! The words a message is read by: how it splits into clauses, which
//! clauses ask, and the small acts' and feelings' words.

use super::Feeling;

/// A clause of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Clause {
    /// Its text, without the closing mark.
    pub text: String,
    /// Whether it asks.
    pub question: bool,
}

/// Words that make a clause a question even without a question mark.
const ASKING: &[&str] = &[
    "什么",
    "啥",
    "谁",
    "哪",
    "几岁",
    "几点",
    "几号",
    "几月",
    "几年",
    "几次",
    "几个",
    "几口",
    "多少",
    "干嘛",
    "干啥",
    "说说你",
    "讲讲你",
    "介绍一下你",
    "咋",
    "怎么",
    "来着",
    "是不是",
    "有没有",
    "记不记得",
    "知不知道",
    "对不对",
    "好不好",
];

/// The clauses of a message. A clause that continues the one before
/// without a subject (「我叫小林，是护士」) gets its 我 back.
pub(super) fn clauses(message: &str) -> Vec<Clause> {
    let mut out: Vec<Clause> = Vec::new();
    let mut buf = String::new();
    let flush = |buf: &mut String, mark: Option<char>, out: &mut Vec<Clause>| {
        let text = buf.trim().to_string();
        buf.clear();
        if text.is_empty() {
            // 「吗？」 after a comma: the mark belongs to the clause before.
            if matches!(mark, Some('？' | '?'))
                && let Some(last) = out.last_mut()
            {
                last.question = true;
            }
            return;
        }
        let text = match out.last() {
            Some(prev)
                if !prev.question
                    && prev.text.starts_with('我')
                    && continues(&prev.text, &text) =>
            {
                format!("我{text}")
            }
            _ => text,
        };
        let question = matches!(mark, Some('？' | '?')) || asks(&text);
        out.push(Clause { text, question });
    };
    for c in message.chars() {
        if matches!(
            c,
            '。' | '！' | '？' | '!' | '?' | '；' | ';' | '，' | ',' | '\n' | '～' | '~' | '…'
        ) {
            flush(&mut buf, Some(c), &mut out);
        } else {
            buf.push(c);
        }
    }
    flush(&mut buf, None, &mut out);
    out
}

/// Whether a clause without a question mark still asks.
fn asks(text: &str) -> bool {
    let t = text.trim_end_matches(['呀', '啊', '哦', '呢']);
    text.ends_with('吗')
        || text.ends_with('么')
        || (text.ends_with('呢') && text.chars().count() <= 4)
        || (t.contains("为什么") && !t.contains("不知道为什么"))
        || (ASKING.iter().any(|w| text.contains(w))
            // 「我叫什么都行」, 「什么都不想做」: a statement after all.
            && !text.contains("都行")
            && !text.contains("都不")
            // 「我觉得自己什么都做不好」: 什么都, 谁都 tell, they do not ask.
            && !["什么都", "啥都", "谁都", "哪儿都", "哪里都", "怎么都"]
                .iter()
                .any(|w| text.contains(w))
            && !text.contains("不知道")
            // 「没什么大问题」, 「没多少」, 「不怎么疼」: a negation, not a question.
            && !["没什么", "没啥", "没多少", "不怎么", "没怎么", "没几"]
                .iter()
                .any(|w| text.contains(w)))
}

/// Whether a clause goes on from the one before with the same subject.
fn continues(prev: &str, text: &str) -> bool {
    // 「我养了一只橘猫，叫馒头」: the cat is called 馒头, not the player.
    let pet_before = super::state::ANIMALS.iter().any(|a| prev.contains(a));
    if text.starts_with('叫') && pet_before {
        return false;
    }
    // 「我有个妹妹，在上大学」: whose it is, the reading decides (the sister's).
    let relative_before = super::state::FAMILY
        .iter()
        .chain(super::state::PEOPLE)
        .any(|r| prev.contains(r));
    if relative_before {
        return false;
    }
    let starts = [
        "是",
        "在",
        "做",
        "养",
        "喜欢",
        "爱",
        "住",
        "来自",
        "今年",
        "有",
        "叫",
        "最",
        "也",
        "还",
        "老家",
        "家在",
        "不喜欢",
        "讨厌",
    ];
    !text.contains('我') && starts.iter().any(|s| text.starts_with(s))
}

/// Taking leave.
pub(super) const GOODBYE: &[&str] = &[
    "我得去",
    "我先去",
    "先撤了",
    "再见",
    "拜拜",
    "晚安",
    "我走了",
    "先走了",
    "下次见",
    "明天见",
    "回头见",
    "我得走了",
    "我要走了",
    "得回去了",
    "该回去了",
    "我先回去",
    "明天再来",
    "改天再来",
    "再来看你",
    "改天再聊",
    "告别",
    "该去吃饭",
    "去吃饭了",
    "该吃饭了",
    "我该睡了",
    "再聊",
    "回头聊",
    "下次聊",
    "晚点聊",
    // 「今天就先聊到这，我去接豆豆放学」: the talk is over for now.
    "聊到这",
];
/// Whether the whole message says the player is off to do something
/// (「我去给花浇水了」), not where it went (「我去诊所看了膝盖」).
pub(super) fn leaving(message: &str) -> bool {
    let m = message.trim_end_matches(['。', '！', '!', '~', '…']);
    let rest = ["我先去", "我要去", "我这就去", "我去"]
        .iter()
        .find_map(|w| m.strip_prefix(w));
    let doing = rest.and_then(|r| r.strip_suffix('了').or_else(|| r.strip_suffix('啦')));
    doing.is_some_and(|d| {
        (1..=8).contains(&d.chars().count()) && !d.contains(['了', '过', '，', ','])
    })
}

/// Thanks.
pub(super) const THANKS: &[&str] = &["谢谢", "多谢", "感谢", "谢啦"];
/// Forgiving.
pub(super) const FORGIVE: &[&str] = &[
    "没关系",
    "不怪你",
    "原谅你",
    "没事的",
    "别在意",
    "不要紧",
    "别自责",
    "谁都会犯错",
    "不用道歉",
];
/// Blaming.
pub(super) const BLAME: &[&str] = &[
    "都怪你",
    "你错了",
    "你又错",
    "你说错了",
    "你记错了",
    "你搞错了",
    "讨厌你",
    "你真笨",
    "你怎么这样",
    "说错了吧",
];
/// Whether it misses the one spoken to: 「想我吗」, not 「想我老伴了」.
pub(super) fn misses(message: &str) -> bool {
    // 「朵朵说想我了」 is someone else missing the player.
    let about_me = message.match_indices("想我").any(|(i, w)| {
        let next = message[i + w.len()..].chars().next();
        !message[..i].ends_with('说') && next.is_none_or(|c| !is_han(c) || "吗了呢吧没".contains(c))
    });
    about_me || MISS.iter().any(|w| message.contains(w))
}

fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}')
}

/// Missing.
const MISS: &[&str] = &["想你", "好久不见", "好久没来", "很久没来", "好几天没来"];
/// Asking for help.
pub(super) const HELP: &[&str] = &["帮帮我", "帮我", "怎么办", "救救我", "求你"];

/// Whether a clause only calls out to see who is there (「在吗？」): a
/// hello, not a question to answer.
pub(super) fn calls_out(text: &str) -> bool {
    let t = text
        .trim_start_matches(['你', '您'])
        .trim_end_matches(['呀', '啊']);
    ["在吗", "在么", "在嘛", "在不在"].contains(&t)
}

/// Whether a (lower-cased) message opens with a greeting.
pub(super) fn greets(lower: &str) -> bool {
    const HELLO: &[&str] = &[
        "你好",
        "您好",
        "嗨",
        "哈喽",
        "hi",
        "hello",
        "早上好",
        "早安",
        "早啊",
        "早呀",
        "早哇",
        "中午好",
        "下午好",
        "晚上好",
        "在吗",
        "你在吗",
        "在不在",
        "你在不在",
        "我来了",
        "我回来了",
        "又见面",
        "好久不见",
    ];
    const BACK: &[&str] = &["又来了", "又来啦", "我来啦", "回来了", "回来啦", "我又来"];
    // 「女儿回来了」 is someone else back.
    let back = |b: &&str| lower.starts_with(b) || lower.contains(&format!("我{b}"));
    HELLO.iter().any(|h| lower.starts_with(h)) || BACK.iter().any(back)
}

/// Whether it says it likes or loves the one spoken to.
pub(super) fn confesses(message: &str) -> bool {
    ["喜欢你", "爱你", "爱上你"]
        .iter()
        .any(|w| message.contains(w))
        && !message.contains("不喜欢你")
        && !message.contains("喜欢你的")
}

/// Bad feelings, longest first (不开心 before 开心).
const BAD: &[&str] = &[
    "没人陪",
    "血压高",
    "不舒服",
    "腰疼",
    "膝盖疼",
    "腿疼",
    "头疼",
    "去世",
    "过世",
    "不在了",
    "心情不好",
    "心情一般",
    "不开心",
    "不高兴",
    "睡不着",
    "睡不好",
    "睡不踏实",
    "吃不消",
    "熬不住",
    "压力好大",
    "压力很大",
    "压力大",
    "好累",
    "很累",
    "太累",
    "累死",
    "难过",
    "伤心",
    "难受",
    "失眠",
    "孤单",
    "孤独",
    "寂寞",
    "害怕",
    "焦虑",
    "委屈",
    "想哭",
    "哭了",
    "生气",
    "崩溃",
    "失恋",
    "郁闷",
    "有点闷",
    "好闷",
    "很闷",
    "闷得慌",
    "心里慌",
    "心里挺慌",
    "心慌",
    "好慌",
    "很慌",
    "心里闷",
    "没意思",
    "烦死",
    "好烦",
    "很烦",
    "心烦",
    "烦躁",
    "担心",
    "发愁",
    "糟糕",
    "失望",
    "后悔",
    "丢了工作",
    "被骂",
    "吵架",
    "吵了一架",
    "生病",
    "感冒",
    "想家",
    "紧张",
    "不安",
    "累",
    "疼",
    "痛",
];
/// Good feelings.
const GOOD: &[&str] = &[
    "好开心",
    "很开心",
    "开心",
    "高兴",
    "快乐",
    "幸福",
    "兴奋",
    "太好了",
    "升职",
    "加薪",
    "回来看我",
    "加工资",
    "涨工资",
    "通过了",
    "考上",
    "顺利",
    "满足",
    "激动",
    "放松",
    "轻松",
    "好消息",
    "好多了",
    "没大事",
    "没什么大事",
    "没什么大问题",
    "没大问题",
    "虚惊一场",
    "放心了",
    "好转",
    "康复",
    "感觉还不错",
    "感觉不错",
    "感觉挺好",
];

/// Good news told of someone else (how they are, what they said), not a
/// feeling of the player's own: 「说腿好多了」, 「他说下个月给我加工资」.
const NEWS_OF_OTHERS: &[&str] = &[
    "好多了",
    "好转",
    "康复",
    "出院",
    "没大事",
    "没什么大事",
    "没大问题",
    "没什么大问题",
    "虚惊一场",
    "回来看我",
    "加工资",
    "涨工资",
    "加薪",
    "升职",
    "答应给我",
    "答应帮我",
];

/// Whether a clause tells good news of someone else ([`NEWS_OF_OTHERS`],
/// not negated).
pub(super) fn news_of_others(clause: &str) -> bool {
    NEWS_OF_OTHERS.iter().any(|w| {
        clause.contains(w)
            && !clause.contains(&format!("不{w}"))
            && !clause.contains(&format!("没{w}"))
    })
}

/// What happened, and the feeling it names: 「实验做砸了」 is no feeling
/// word, yet the player is 沮丧. Checked after the feeling words.
const HAPPENED: &[(&str, bool, &str)] = &[
    ("什么都做不好", false, "灰心"),
    ("什么都干不好", false, "灰心"),
    ("一无是处", false, "灰心"),
    ("做不好", false, "灰心"),
    ("很没用", false, "灰心"),
    ("真没用", false, "灰心"),
    ("太没用", false, "灰心"),
    ("自己没用", false, "灰心"),
    ("写不出来", false, "着急"),
    ("想不出来", false, "着急"),
    ("做不出来", false, "着急"),
    ("催得", false, "着急"),
    ("来不及", false, "着急"),
    ("没回音", false, "着急"),
    ("没找到工作", false, "着急"),
    ("找不到工作", false, "着急"),
    ("没找到新工作", false, "着急"),
    ("失业", false, "着急"),
    ("倒闭", false, "难过"),
    ("饭馆关门", false, "难过"),
    ("店关门了", false, "难过"),
    ("公司关门", false, "难过"),
    ("做砸", false, "沮丧"),
    ("搞砸", false, "沮丧"),
    ("考砸", false, "沮丧"),
    ("弄砸", false, "沮丧"),
    ("全废了", false, "沮丧"),
    ("白做了", false, "沮丧"),
    ("白费", false, "沮丧"),
    ("失败了", false, "沮丧"),
    ("没考好", false, "沮丧"),
    ("挂科", false, "沮丧"),
    ("被批评", false, "委屈"),
    ("挨批", false, "委屈"),
    ("加班", false, "累"),
    ("住院", false, "担心"),
    ("写完", true, "松了口气"),
    ("做完", true, "松了口气"),
    ("完成了", true, "松了口气"),
    ("搞定", true, "松了口气"),
    ("开了第一朵", true, "开心"),
    ("回来看我", true, "开心"),
    ("夸我", true, "开心"),
    ("都夸", true, "开心"),
    ("说好吃", true, "开心"),
    ("都说好", true, "开心"),
    ("夸了我", true, "开心"),
    ("表扬", true, "开心"),
    ("得不错", true, "开心"),
    ("得挺好", true, "开心"),
    ("得很好", true, "开心"),
    ("得还行", true, "松了口气"),
    ("出院", true, "放心"),
    ("痊愈", true, "放心"),
    ("和好了", true, "放心"),
    ("被录取", true, "开心"),
    ("答应给我", true, "开心"),
    ("答应帮我", true, "开心"),
];

/// The feeling named by what happened in a clause (none when it did not:
/// 「还没写完」).
fn happened(text: &str) -> Option<Feeling> {
    let (w, good, named) = HAPPENED.iter().find(|(w, ..)| text.contains(w))?;
    let not = ["没", "不", "不用", "不必", "没有", "别"];
    if not.iter().any(|n| text.contains(&format!("{n}{w}"))) {
        return None;
    }
    Some(Feeling {
        good: *good,
        word: named.to_string(),
        clause: text.replace('我', "你"),
    })
}

/// Whether a feeling is doubting oneself (「我觉得自己什么都做不好」).
pub fn doubts_self(f: &Feeling) -> bool {
    !f.good && f.word == "灰心"
}

/// The feeling a (statement) clause shares, if any: in a word of feeling,
/// else in what happened.
pub(super) fn feeling(text: &str) -> Option<Feeling> {
    named_feeling(text).or_else(|| happened(&untitled(text)))
}

/// The feeling a clause names in a word of feeling (「好担心」), if any: one
/// that is the speaker's even after news of someone else.
pub(super) fn named_feeling(text: &str) -> Option<Feeling> {
    let clause = text.replace('我', "你");
    // 「在看《百年孤独》」 is reading a book, not feeling lonely.
    let text = &untitled(text);
    if let Some(w) = BAD.iter().find(|w| text.contains(**w)) {
        return Some(Feeling {
            good: false,
            word: w.to_string(),
            clause,
        });
    }
    let w = GOOD.iter().find(|w| text.contains(**w))?;
    // 「一点也不开心」 was caught above; 「不轻松」 is not good.
    let negated = text.contains(&format!("不{w}")) || text.contains(&format!("没{w}"));
    Some(Feeling {
        good: !negated,
        word: w.to_string(),
        clause,
    })
}

/// `text` without what stands in 《》 (a book's or a song's title).
pub(super) fn untitled(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '《' => depth += 1,
            '》' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// What the weather is, as a message speaks of it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Weather {
    /// Fine, sunny.
    Fine,
    /// Raining.
    Rain,
    /// Snowing.
    Snow,
    /// Cold.
    Cold,
    /// Hot.
    Hot,
    /// Windy.
    Wind,
}

/// Weather words, the first kind found wins (下雨了，好冷 is rain).
const WEATHER: &[(Weather, &[&str])] = &[
    (Weather::Snow, &["下雪", "雪下", "大雪", "雪好大", "飘雪"]),
    (
        Weather::Rain,
        &[
            "下雨",
            "雨下",
            "的雨",
            "雨天",
            "淋雨",
            "大雨",
            "暴雨",
            "雨好大",
            "下着雨",
        ],
    ),
    (
        Weather::Cold,
        &[
            "好冷",
            "真冷",
            "太冷",
            "冷死",
            "降温",
            "变冷",
            "冻死",
            "冷飕飕",
        ],
    ),
    (
        Weather::Hot,
        &["好热", "真热", "太热", "热死", "闷热", "晒死"],
    ),
    (
        Weather::Wind,
        &["风好大", "风真大", "风太大", "大风", "刮风"],
    ),
    (
        Weather::Fine,
        &[
            "天气真好",
            "天气不错",
            "天气好",
            "天气很好",
            "阳光",
            "晴天",
            "出太阳",
            "太阳真好",
            "放晴",
        ],
    ),
];

/// The weather a message speaks of, if any.
pub(super) fn weather(message: &str) -> Option<Weather> {
    WEATHER
        .iter()
        .find(|(_, words)| words.iter().any(|w| message.contains(w)))
        .map(|(w, _)| *w)
}

/// The choice a question weighs (「我是不是该去省城跟儿子住？」: 去省城跟儿子住,
/// 我 as 你), if any.
pub fn choice(message: &str) -> Option<String> {
    let (_, rest) = ["是不是应该", "是不是该", "该不该", "要不要"]
        .iter()
        .find_map(|w| message.split_once(w))?;
    let what = rest
        .trim_end_matches(['？', '?', '。', '！', '!'])
        .trim_end_matches(['呢', '吗', '啊', '呀'])
        .trim();
    ((2..=16).contains(&what.chars().count()) && !what.contains(['，', ',']))
        .then(|| what.replace('我', "你"))
}

/// Whether a message lets a topic drop (「算了，不说这个了」).
pub fn drops_topic(message: &str) -> bool {
    const DROP: &[&str] = &[
        "不说这个",
        "不说了",
        "不提了",
        "不提这个",
        "别提了",
        "换个话题",
        "不聊这个",
        "不想这些",
        "不想这个",
        "不说这些",
        "不谈这个",
    ];
    DROP.iter().any(|w| message.contains(w))
}

/// The relative a message says the player misses (「我想我妈了」: 妈), if any.
pub fn missed_relative(message: &str) -> Option<&'static str> {
    // 「我想我妈了」, 「有点想我爸了」; not 「我想我妈做的菜」.
    let m = message.trim_end_matches(['。', '！', '…', '~']);
    super::state::FAMILY.iter().copied().find(|w| {
        m.contains(&format!("想{w}了")) || (m.contains(&format!("想我{w}")) && m.ends_with('了'))
    })
}

/// Whether a message offers the one spoken to something (「下次我带红烧肉给你
/// 尝尝」, 「我想给你做个小木盒」).
pub fn offers(message: &str) -> bool {
    const GIVE: &[&str] = &[
        "给你尝",
        "带给你",
        "送给你",
        "送你",
        "给你做",
        "给你带",
        "给你送",
    ];
    GIVE.iter().any(|w| message.contains(w))
        && !message.contains(['？', '?', '吗'])
        && !message.contains("你给我")
}
