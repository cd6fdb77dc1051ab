//! What a question asks: to recall something the player said (「我家狗叫啥来着」),
//! something of the one asked (「你叫什么」), why, or anything else.

use super::state::{ANIMALS, FAMILY, PEOPLE};
use crate::companion::facts::FactKind;

/// What a question asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// To recall something of the player: of these kinds (none named: anything).
    Recall(Vec<FactKind>),
    /// Something of the one asked.
    AboutYou(Topic),
    /// What the one asked thinks of the player (「你觉得我是个什么样的人」).
    Opinion,
    /// What the player should do (「你觉得我该怎么办？」).
    Advice,
    /// What the one asked thinks of something or someone: what the message
    /// told (「我打算开茶馆，你觉得怎么样？」), or what the question names
    /// (「你觉得钟大川人怎么样」: 钟大川人).
    Judge(String),
    /// Who in town is the most of something (「你觉得镇上谁最有意思？」:
    /// 有意思).
    Who(String),
    /// An idea wanted (「我该给茶馆起个什么名字好？」).
    Suggest,
    /// Whether what the player did was right (「你觉得我做得对吗？」): of
    /// what it told last.
    Deed,
    /// Whether the player is a bother (「你会不会觉得我话太多了？」).
    Bother,
    /// Whether the player can do it (「你觉得我能考过吗？」): a word of faith,
    /// not a reading of who they are.
    Believe,
    /// Why.
    Why,
    /// Anything else.
    Other,
}

/// What is asked of the one spoken to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    /// Its name.
    Name,
    /// Its age, how long it has been here.
    Age,
    /// Where it lives, where it comes from.
    Home,
    /// What it likes.
    Likes,
    /// What it is doing, busy with.
    Doing,
    /// How it is.
    How,
    /// Today's date.
    Date,
    /// Whether it will come along (「要不要一起去散步？」).
    Invite,
    /// What it can do (「你会做什么菜？」).
    Can,
    /// What it wishes for.
    Wish,
    /// What the two of them are to each other (「我们算是朋友了吗？」).
    Us,
    /// Where it has been (「你去过成都吗？」).
    Been,
    /// Where to go in town (「镇上有什么好玩的地方推荐吗？」).
    Places,
    /// What it fears (「你最怕什么？」).
    Fear,
    /// Whether it is lonely (「你一个人不孤单吗？」).
    Lonely,
    /// What it does with its time (「你平时看书吗？」).
    Pastime,
    /// Whether it will stay (「你会一直在这里吗？」).
    Stay,
    /// Whether it likes a thing the question names (「你喜欢猫吗？」: 猫).
    LikesThis,
    /// What it eats and drinks (「你喜欢吃什么？」).
    Food,
    /// Whom it talks with (「你平时都跟谁说话？」).
    Company,
    /// Anything else about it.
    Other,
}

/// Words of a question that point at a kind of fact, checked in this order
/// (a pet's or a relative's name is not the player's name).
const KIND_WORDS: &[(FactKind, &[&str])] = &[
    (FactKind::Pet, &["宠物", "养的", "养了"]),
    (
        FactKind::Birthday,
        &[
            "生日",
            "哪天出生",
            "几月几号出生",
            "哪天生",
            "哪年",
            "哪月",
            "生的",
        ],
    ),
    (FactKind::Age, &["几岁", "多大", "年龄", "岁数"]),
    (
        FactKind::Unable,
        &[
            "不会什么",
            "不会做什么",
            "不擅长",
            "短处",
            "不太会什么",
            "什么不会",
        ],
    ),
    (
        FactKind::Learning,
        &["在学什么", "在学啥", "正在学", "最近在学", "在学的"],
    ),
    (
        FactKind::Plan,
        &[
            "打算",
            "计划",
            "准备做",
            "准备去",
            "要去哪",
            "去哪",
            "想干",
            "想做什么",
            "要干什么",
            "要做什么",
            "要干嘛",
            "要干啥",
            "要去干",
            "什么安排",
        ],
    ),
    (
        FactKind::Job,
        &[
            "工作",
            "职业",
            "干什么的",
            "做什么的",
            "干啥的",
            "做啥的",
            "干嘛的",
            "干什么活",
            "做什么活",
            "干啥活",
            "上班",
            "干哪行",
            "哪一行",
            "哪行",
            "什么行业",
            "是干嘛的",
            "专业",
            "学什么",
            "读什么",
            "学的什么",
            "读的什么",
            "开啥车",
        ],
    ),
    (
        FactKind::Home,
        &[
            "哪里人",
            "哪儿人",
            "哪的人",
            "老家",
            "家乡",
            "来自哪",
            "从哪",
            "哪里来",
            "哪儿来",
            "在哪长大",
            "哪里长大",
        ],
    ),
    (
        FactKind::Dislikes,
        &[
            "讨厌",
            "不喜欢",
            "受不了",
            "怕什么",
            "最怕",
            "不爱吃",
            "不吃",
            "不能吃",
            "忌口",
        ],
    ),
    (
        FactKind::Food,
        &[
            "爱吃",
            "喜欢吃",
            "想吃",
            "最喜欢的菜",
            "食物",
            "爱喝",
            "喜欢喝",
            "吃什么",
            "吃啥",
        ],
    ),
    (
        FactKind::Likes,
        &[
            "喜欢什么",
            "喜欢做",
            "喜欢干",
            "爱好",
            "喜欢啥",
            "最喜欢的",
            "兴趣",
            "消遣",
        ],
    ),
    (
        FactKind::Worry,
        &[
            "担心",
            "烦什么",
            "心事",
            "压力",
            "发愁",
            "烦恼",
            "愁什么",
            "犯愁",
        ],
    ),
    (
        FactKind::Family,
        &["家里都有谁", "家里有谁", "家人", "家里有什么人"],
    ),
    (
        FactKind::Name,
        &[
            "名字",
            "叫什么",
            "叫啥",
            "怎么称呼",
            "我是谁",
            "叫我什么",
            "叫我啥",
        ],
    ),
];

/// Words that ask to recall.
const RECALL: &[&str] = &[
    "记得",
    "记不记得",
    "忘了",
    "来着",
    "我说过",
    "我跟你说过",
    "我告诉过你",
    "我提过",
    "知道我",
    "猜猜我",
];

/// Words that ask what to do.
const ADVICE: &[&str] = &[
    "该怎么办",
    "怎么办才好",
    "我怎么办",
    "该怎么做",
    "有什么建议",
    "给我点建议",
    "给我出出主意",
    "有什么办法",
    "有什么好办法",
    "怎么才能",
    "我要不要",
    "是不是该",
];

/// Words that want an idea.
const SUGGEST: &[&str] = &[
    "什么名字好",
    "起个什么名",
    "起什么名",
    "叫什么好",
    "帮我想想",
    "帮我想个",
    "出个主意",
];

/// Words that ask where to go in town.
const PLACES: &[&str] = &[
    "推荐",
    "好玩",
    "值得去",
    "去哪玩",
    "去哪儿玩",
    "哪里好逛",
    "逛逛",
    "哪里适合",
    "哪儿适合",
    "哪里好吃",
    "哪儿好吃",
    "什么好吃",
    "最好吃",
    "哪家",
];

/// Words of one who fears being a bother.
const BOTHER: &[&str] = &[
    "话太多",
    "话多",
    "啰嗦",
    "唠叨",
    "烦你",
    "打扰你",
    "吵到你",
    "吵着你",
    "嫌我烦",
    "觉得我烦",
    "很烦人",
];

/// Words asking whether something done was right.
const DEED: &[&str] = &[
    "做得对",
    "做的对",
    "做对了吗",
    "这样做对",
    "这么做对",
    "做错了吗",
    "做得好吗",
    "我没做错",
    "这样对吗",
    "这样对不对",
    "这么决定对",
];

/// A question that asks for help: what to do, or an idea. 「我该…」 asks
/// what to do (「我该坚持下去吗」), but 「我该起个什么名字」 wants an idea.
fn wants_help(text: &str) -> Option<Question> {
    let should = text.contains("我该") || text.contains("我应该");
    let what = text.contains("什么") || text.contains('哪');
    if (should && !what) || ADVICE.iter().any(|w| text.contains(w)) {
        Some(Question::Advice)
    } else if (should && what) || SUGGEST.iter().any(|w| text.contains(w)) {
        Some(Question::Suggest)
    } else {
        None
    }
}

/// What a question clause asks.
pub(super) fn question(text: &str) -> Question {
    // Before the opinion: 「你觉得我该怎么办」 asks what to do, not who I am.
    if let Some(help) = wants_help(text) {
        return help;
    }
    let recall_words = RECALL.iter().any(|w| text.contains(w));
    // 「你最喜欢镇上的哪个地方？」: a place in town, not what it likes at all.
    let fond_of_a_place = text.contains("地方") && text.contains("喜欢");
    if !recall_words && (fond_of_a_place || PLACES.iter().any(|w| text.contains(w))) {
        return Question::AboutYou(Topic::Places);
    }
    if let Some(most) = who_most(text) {
        return Question::Who(most);
    }
    if let Some(subject) = judged(text) {
        return Question::Judge(subject);
    }
    // 「你会不会觉得我话太多了？」 wants to hear it is no bother, and
    // 「你觉得我做得对吗？」 a word on what was done: neither asks who I am.
    if BOTHER.iter().any(|w| text.contains(w)) && mentions_me(text) {
        return Question::Bother;
    }
    if DEED.iter().any(|w| text.contains(w)) {
        return Question::Deed;
    }
    if ["觉得我能", "我能不能", "我能行吗", "我行不行", "我行吗"]
        .iter()
        .any(|w| text.contains(w))
    {
        return Question::Believe;
    }
    let opinion = [
        "什么样的人",
        "怎么看我",
        "对我的印象",
        "觉得我",
        "觉得我这个人",
    ];
    if opinion.iter().any(|w| text.contains(w)) && mentions_me(text) {
        return Question::Opinion;
    }
    if (text.contains("你叫") && !text.contains("你叫我"))
        || text.contains("称呼你")
        || text.contains("叫你什么")
        || text.contains("你的名字")
    {
        return Question::AboutYou(Topic::Name);
    }
    let kinds = kinds_in(text);
    // 「暑假去哪」, 「狗叫啥」: no one named, a fact of the player's asked for.
    let of_theirs = !text.contains('你');
    if recall_words || (!kinds.is_empty() && (mentions_me(text) || of_theirs)) {
        return Question::Recall(kinds);
    }
    if text.contains("为什么") || text.contains("为啥") {
        return Question::Why;
    }
    if let Some(topic) = date_topic(text) {
        return Question::AboutYou(topic);
    }
    // 「要不要一起去散步？」 asks the one spoken to without naming it.
    let topic = topic(text);
    if text.contains('你') || matches!(topic, Topic::Invite | Topic::Us) {
        return Question::AboutYou(topic);
    }
    Question::Other
}

/// What a question asks the one asked to judge (「你觉得开茶馆怎么样」:
/// 开茶馆; 「你觉得怎么样」: what was said before it), if it asks that.
/// 「你最近怎么样」 asks how it is; 「你觉得我怎么样」 what it makes of the player.
fn judged(text: &str) -> Option<String> {
    const HOW: &[&str] = &[
        "怎么样",
        "如何",
        "好不好",
        "行不行",
        "靠谱吗",
        "咋样",
        "可以吗",
    ];
    let end = HOW.iter().filter_map(|w| text.find(w)).min()?;
    let before = &text[..end];
    let start = ["你觉得", "你看", "觉得", "你说"]
        .iter()
        .find_map(|w| before.find(w).map(|i| i + w.len()));
    let subject = before[start.unwrap_or(0)..]
        .trim_start_matches(['我', '你'])
        .trim();
    let about_me = before.contains("觉得我") && subject.is_empty()
        || ["这个人", "这人", "人"].contains(&subject);
    let about_you = start.is_none() && before.contains('你');
    (!about_me && !about_you).then(|| subject.to_string())
}

/// What a 「镇上谁最有意思」 or 「最好相处的是谁」 asks someone to be the
/// most of (有意思, 好相处), if it asks that.
fn who_most(text: &str) -> Option<String> {
    let end = |s: &str| {
        s.split(['吗', '呢', '呀', '啊', '？', '?', '，', '。', '的'])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let most = match ["谁最", "哪个人最", "哪位最"]
        .iter()
        .find_map(|w| text.split_once(w))
    {
        Some((_, rest)) => end(rest),
        // 「镇上最好相处的是谁」
        None if text.contains("是谁") => {
            let (before, _) = text.split_once("是谁")?;
            let (_, rest) = before.split_once('最')?;
            end(rest)
        }
        None => return None,
    };
    (1..=5).contains(&most.chars().count()).then_some(most)
}

/// Whether the player speaks of themselves (我, not 我们 or 你我).
fn mentions_me(text: &str) -> bool {
    let t = text.replace("我们", "").replace("你我", "");
    // 「你还记得我吗」 asks to recall; 「我问你」 does not speak of me.
    let t = t
        .replace("我问你", "")
        .replace("我想问", "")
        .replace("我想知道", "");
    t.contains('我')
}

/// The kinds of fact a question points at (its animal or relative first).
pub(super) fn kinds_in(text: &str) -> Vec<FactKind> {
    let mut kinds = Vec::new();
    if ANIMALS.iter().any(|a| text.contains(a)) {
        kinds.push(FactKind::Pet);
    }
    if FAMILY.iter().any(|a| text.contains(a)) {
        kinds.push(FactKind::Family);
    }
    if PEOPLE.iter().any(|a| text.contains(a)) {
        kinds.push(FactKind::Person);
    }
    for (kind, words) in KIND_WORDS {
        if words.iter().any(|w| text.contains(w)) && !kinds.contains(kind) {
            // A pet's or relative's name is theirs, not the player's.
            if *kind == FactKind::Name && !kinds.is_empty() {
                continue;
            }
            kinds.push(*kind);
        }
    }
    kinds
}

fn date_topic(text: &str) -> Option<Topic> {
    ["几号", "几月", "星期几", "周几", "什么日子", "今天是"]
        .iter()
        .any(|w| text.contains(w))
        .then_some(Topic::Date)
}

/// Words that point a question about the one asked at a topic, checked in
/// this order (「我们算是朋友了吗」 before 「朋友」 anywhere else).
const TOPIC_WORDS: &[(Topic, &[&str])] = &[
    (
        Topic::Us,
        &[
            "我们算",
            "我们是朋友",
            "我们是不是朋友",
            "算是朋友",
            "当我是朋友",
            "把我当",
            "我们是什么关系",
            "我们的关系",
            "有没有朋友",
            "你有朋友",
        ],
    ),
    (
        Topic::Invite,
        &[
            "一起去",
            "要不要一起",
            "一起走",
            "陪我去",
            "你会来",
            "你来不来",
            "来我的",
            "来我家",
            "跟我去",
            "和我去",
            "一起吃",
        ],
    ),
    (Topic::Wish, &["心愿", "愿望", "梦想", "最想要"]),
    (Topic::Been, &["你去过", "你见过", "你到过"]),
    (
        Topic::Fear,
        &["怕什么", "最怕", "害怕什么", "怕不怕", "你怕"],
    ),
    (
        Topic::Lonely,
        &["孤单", "孤独", "寂寞", "闷不闷", "不闷", "闷吗", "无聊吗"],
    ),
    (
        Topic::Stay,
        &[
            "一直在",
            "永远在",
            "一直陪",
            "会离开",
            "会不会离开",
            "会走吗",
            "会不会走",
            "会消失",
            "会不见",
        ],
    ),
    // 「你会做什么菜」, not 「你会想我吗」 (see [`topic`]).
    (Topic::Can, &["你会", "会不会"]),
    (
        Topic::Name,
        &[
            "名字",
            "叫什么",
            "叫啥",
            "你是谁",
            "怎么称呼",
            "说说你",
            "讲讲你",
            "介绍一下你",
        ],
    ),
    (Topic::Age, &["几岁", "多大", "多久", "多少年", "年纪"]),
    (Topic::Home, &["住", "哪里", "哪儿", "从哪", "家在"]),
    // 「你平时都跟谁说话」 before 「平时」; 「你喜欢吃什么」 before 「喜欢」.
    (
        Topic::Company,
        &["跟谁", "和谁", "同谁", "谁陪你", "谁来看你", "朋友多"],
    ),
    (
        Topic::Food,
        &[
            "吃什么",
            "喜欢吃",
            "爱吃",
            "吃啥",
            "喜欢喝",
            "爱喝",
            "喝什么",
        ],
    ),
    (Topic::Likes, &["喜欢", "爱好"]),
    (
        Topic::Pastime,
        &["平时", "闲下来", "空闲", "有空", "看书", "读书", "消遣"],
    ),
    (
        Topic::Doing,
        &["在干", "在做", "忙什么", "忙啥", "干嘛", "做什么", "干什么"],
    ),
    (
        Topic::How,
        &["好吗", "怎么样", "还好", "累不累", "开心吗", "过得"],
    ),
];

fn topic(text: &str) -> Topic {
    let has = |ws: &[&str]| ws.iter().any(|w| text.contains(w));
    // 「你会想我吗」「你会记得吗」 ask no skill.
    // 「你会紧张吗」 asks a feeling, not a skill.
    let not_can = [
        "想", "忘", "记得", "来", "一直", "离开", "紧张", "难过", "伤心", "生气", "害羞",
    ];
    let found = TOPIC_WORDS
        .iter()
        .filter(|(t, _)| *t != Topic::Can || !has(&not_can))
        .find(|(_, words)| has(words))
        .map(|(t, _)| *t);
    match found {
        Some(Topic::Likes | Topic::Food) if liked_thing(text).is_some() => Topic::LikesThis,
        Some(t) => t,
        None => Topic::Other,
    }
}

/// The thing a question asks whether one likes (「你喜欢猫吗」: 猫; 「你也爱吃
/// 火锅吗」: 吃火锅), or the kind it asks which of one likes (「你喜欢什么样的
/// 花纹」: 花纹); none for what it likes at all (「你喜欢什么」) or whom.
pub fn liked_thing(text: &str) -> Option<String> {
    let (_, rest) = ["你也喜欢", "你喜欢", "你也爱", "你爱"]
        .iter()
        .find_map(|w| text.split_once(w))?;
    if let Some(kind) = liked_kind(rest) {
        return Some(kind.to_string());
    }
    let thing = rest
        .trim_end_matches(['？', '?', '。', '！', '!'])
        .trim_end_matches(['吗', '么', '嘛', '呀', '呢'])
        .trim();
    let open = ["什么", "啥", "哪", "谁", "我", "你", "不"];
    let n = thing.chars().count();
    // 「你喜欢吃吗」 names no thing.
    let bare_verb = n == 1 && "吃喝玩看听做".contains(thing);
    // Looked for before 么 is trimmed: 「你喜欢吃什么」 asks, it names no 「吃什」.
    ((1..=6).contains(&n) && !bare_verb && !open.iter().any(|w| rest.contains(w)))
        .then(|| thing.to_string())
}

/// 「什么样的花纹」「哪种花」: the kind a question asks which of one likes.
/// None for a person or a time (「什么样的人」 is answered by what it likes
/// at all) and for a verb (「吃什么」 names no kind).
fn liked_kind(rest: &str) -> Option<&str> {
    let kind = [
        "什么样的",
        "什么样",
        "什么",
        "哪一种",
        "哪种",
        "哪样的",
        "哪类",
        "哪些",
    ]
    .iter()
    .find_map(|w| rest.strip_prefix(w))?
    .trim_end_matches(['？', '?', '。', '！', '!'])
    .trim_end_matches(['呢', '呀', '啊', '吗'])
    .trim();
    // 「什么颜色的花」: flowers, whatever their colour.
    let kind = kind.rsplit_once('的').map_or(kind, |(_, head)| head);
    let n = kind.chars().count();
    let vague = ["人", "的人", "东西", "事", "时候", "地方", "样子"];
    ((1..=4).contains(&n) && !vague.contains(&kind) && !kind.contains('你') && !kind.contains('我'))
        .then_some(kind)
}
