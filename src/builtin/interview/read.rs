//! Reading a question: the day it is about, the people, gatherings and
//! places it names, and what it asks of them.

use crate::scenario::GatheringIdx;
use crate::sim::interview::Interview;
use crate::sim::knowledge::About;
use crate::sim::residents::RosterIdx;

/// What a question asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// Whom one talked with on a day.
    TalkedWith {
        /// The day (since 1970).
        day: i64,
    },
    /// Where one heard of something.
    HeardFrom {
        /// The facts it may be about (none: nothing known of it).
        about: Vec<About>,
        /// What was asked about, in the question's words.
        thing: String,
    },
    /// Whether one has heard of something.
    Knows {
        /// The facts it may be about (none: never heard of it).
        about: Vec<About>,
        /// What was asked about.
        thing: String,
    },
    /// What one thinks of someone.
    Opinion {
        /// Of whom.
        who: RosterIdx,
    },
    /// What a day was like.
    Day {
        /// Which (since 1970).
        day: i64,
    },
    /// Something of someone else.
    Person {
        /// Of whom.
        who: RosterIdx,
        /// What.
        aspect: Aspect,
    },
    /// Something of oneself.
    Myself {
        /// What.
        aspect: Aspect,
    },
    /// How one is (最近怎么样).
    Mood,
    /// Anything else: answered from memory, if it holds something.
    Other,
}

/// What is asked of a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aspect {
    /// Their trade.
    Job,
    /// Their pastime.
    Hobby,
    /// What they like to eat.
    Food,
    /// Their family.
    Family,
}

impl Asked {
    /// Its name, as `--json` reports it.
    pub fn kind(&self) -> &'static str {
        match self {
            Asked::TalkedWith { .. } => "talked_with",
            Asked::HeardFrom { .. } => "heard_from",
            Asked::Knows { .. } => "knows",
            Asked::Opinion { .. } => "opinion",
            Asked::Day { .. } => "day",
            Asked::Person { .. } => "person",
            Asked::Myself { .. } => "myself",
            Asked::Mood => "mood",
            Asked::Other => "other",
        }
    }
}

const HEARD_FROM: &[&str] = &[
    "从哪儿知道",
    "从哪知道",
    "从哪里知道",
    "怎么知道",
    "听谁说",
    "谁告诉",
    "从哪儿听",
    "从哪听",
    "哪儿听来",
    "怎么听说",
    "从谁那儿",
];
const TALKED_WITH: &[&str] = &[
    "和谁聊",
    "跟谁聊",
    "同谁聊",
    "和谁说",
    "跟谁说",
    "见过谁",
    "碰见谁",
    "碰到谁",
    "都和谁",
    "都跟谁",
    "聊过天",
    "说过话",
];
const KNOWS: &[&str] = &["听说", "知道", "晓得", "听过"];
const MOOD: &[&str] = &[
    "最近怎么样",
    "最近好吗",
    "还好吗",
    "你好吗",
    "心情",
    "累不累",
    "饿不饿",
    "身体怎么样",
    "最近如何",
];
const OPINION: &[&str] = &[
    "觉得",
    "怎么看",
    "印象",
    "这个人",
    "为人",
    "怎么样",
    "关系",
    "认识",
    "什么样的人",
    "熟吗",
    "熟不熟",
];
/// Asking what one thinks, whatever else the question names.
const STRONG_OPINION: &[&str] = &["觉得", "怎么看", "印象", "为人"];
const DAY: &[&str] = &[
    "做了什么",
    "干了什么",
    "过得怎么样",
    "过得好",
    "发生了什么",
    "都干嘛",
    "忙什么",
    "怎么过",
];
const JOB: &[&str] = &[
    "做什么的",
    "干什么的",
    "什么工作",
    "做哪行",
    "干哪行",
    "职业",
    "在哪儿上班",
    "在哪上班",
];
const HOBBY: &[&str] = &["爱好", "喜欢做", "喜欢干", "平时", "消遣", "有空"];
const FOOD: &[&str] = &["爱吃", "喜欢吃", "口味", "最爱吃"];
const FAMILY: &[&str] = &[
    "家里", "家人", "一家", "女儿", "儿子", "妈妈", "爸爸", "父亲", "母亲",
];
/// Kinds of events a question may name, and the words that name them.
const EVENTS: &[(&str, &[&str])] = &[
    ("quarrel", &["吵", "闹翻", "拌嘴", "争执"]),
    ("date", &["约会", "一起出去"]),
    ("stood_up", &["放鸽子", "没来", "爽约", "白等"]),
    ("gathering", &["聚会", "联谊", "告示", "公告"]),
];

fn has(q: &str, words: &[&str]) -> bool {
    words.iter().any(|w| q.contains(w))
}

/// What `q` asks of the one in `iv`.
pub fn read_question(q: &str, iv: &Interview<'_>) -> Asked {
    let today = iv.now.social_day();
    let day = day_named(q, today);
    let (people, itself) = people_named(q, iv);
    if has(q, HEARD_FROM) {
        let about = facts_named(q, &people, iv);
        return Asked::HeardFrom {
            about,
            thing: thing_named(q, iv),
        };
    }
    if has(q, TALKED_WITH) {
        return Asked::TalkedWith {
            day: day.unwrap_or(today),
        };
    }
    let of_person = people.first().copied();
    if let (Some(who), true) = (of_person, has(q, STRONG_OPINION)) {
        return Asked::Opinion { who };
    }
    if let Some(aspect) = aspect_named(q) {
        return match of_person {
            Some(who) => Asked::Person { who, aspect },
            None if itself || q.contains('你') => Asked::Myself { aspect },
            None => Asked::Other,
        };
    }
    if let (Some(who), true) = (of_person, has(q, OPINION)) {
        return Asked::Opinion { who };
    }
    // 「沈月和马铁吵架了吗？」 asks whether one knows of it.
    let yes_no = q.contains('吗') || q.contains("没有");
    let event = EVENTS.iter().any(|(_, words)| has(q, words));
    if has(q, KNOWS) || (event && yes_no) {
        return Asked::Knows {
            about: facts_named(q, &people, iv),
            thing: thing_named(q, iv),
        };
    }
    if has(q, DAY) {
        return Asked::Day {
            day: day.unwrap_or(today),
        };
    }
    if has(q, MOOD) {
        return Asked::Mood;
    }
    Asked::Other
}

/// 今天, 昨天, 前天 (evenings too), as a day since 1970.
fn day_named(q: &str, today: i64) -> Option<i64> {
    let days: [(&[&str], i64); 3] = [
        (&["大前天"], 3),
        (&["前天"], 2),
        (&["昨天", "昨晚", "昨儿"], 1),
    ];
    for (words, back) in days {
        if has(q, words) {
            return Some(today - back);
        }
    }
    has(q, &["今天", "今晚", "今儿", "刚才"]).then_some(today)
}

/// The people the question names (by full name, or by given name when it
/// is two characters or more), and whether it names the one asked.
fn people_named(q: &str, iv: &Interview<'_>) -> (Vec<RosterIdx>, bool) {
    let roster = iv.words.roster;
    let mut out = Vec::new();
    let mut itself = false;
    for i in roster.indices() {
        let name = roster.name_of(i);
        let given: String = name.chars().skip(1).collect();
        let by_given = given.chars().count() >= 2 && q.contains(given.as_str());
        if q.contains(name) || by_given {
            if i == iv.who.idx {
                itself = true;
            } else {
                out.push(i);
            }
        }
    }
    (out, itself)
}

/// What the question names besides the asking: its words after 听说/知道
/// (or before 的事), without the asking around them.
fn thing_named(q: &str, iv: &Interview<'_>) -> String {
    let q = q.trim_end_matches(['？', '?', '。', '！', '!']);
    let start = KNOWS
        .iter()
        .chain(HEARD_FROM)
        .filter_map(|w| q.find(w).map(|i| i + w.len()))
        .max()
        .unwrap_or(0);
    let mut thing = q[start..]
        .trim_start_matches(['过', '了', '说'])
        .to_string();
    for tail in ["了吗", "吗", "没有", "么", "的"] {
        if let Some(t) = thing.strip_suffix(tail) {
            thing = t.to_string();
        }
    }
    if thing.chars().count() < 2 {
        // 「你是从哪儿知道心谷联谊会的」: the thing is between the asking words.
        let gathering = iv
            .words
            .gatherings
            .iter()
            .find(|g| q.contains(g.title.as_str()));
        if let Some(g) = gathering {
            return g.title.clone();
        }
        // 「马铁和沈月吵架的事你知道吗」: before the asking words.
        let end = KNOWS
            .iter()
            .chain(HEARD_FROM)
            .filter_map(|w| q.find(w))
            .min()
            .unwrap_or(q.len());
        thing = q[..end].trim_end_matches(['你', '您']).to_string();
        for tail in ["了吗", "吗", "了没有", "没有", "了"] {
            if let Some(t) = thing.strip_suffix(tail) {
                thing = t.to_string();
            }
        }
    }
    thing.trim_matches(['，', ' ']).to_string()
}

/// The facts the one asked holds about what the question names: a
/// gathering by title (or 聚会), events of a kind the question names
/// between the people it names, or anything about the people named.
fn facts_named(q: &str, people: &[RosterIdx], iv: &Interview<'_>) -> Vec<About> {
    let knows = iv.who.knows;
    let me = iv.who.idx;
    let kind = EVENTS
        .iter()
        .find(|(_, words)| has(q, words))
        .map(|(k, _)| *k);
    let gathering_named = |g: GatheringIdx| {
        iv.words.gatherings.get(g.i()).is_some_and(|gg| {
            let title = gg.title.as_str();
            let short: String = title
                .chars()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            q.contains(title) || q.contains(short.as_str())
        })
    };
    knows
        .facts()
        .iter()
        .map(|f| f.about)
        .filter(|about| {
            if let About::Gathering { gathering } = about {
                return gathering_named(*gathering)
                    || (kind == Some("gathering") && people.is_empty());
            }
            let involved = about.people();
            let names_them =
                !people.is_empty() && people.iter().all(|p| involved.contains(p) || (*p == me));
            let of_kind = kind.is_some_and(|k| k == about.kind());
            match (kind, people.is_empty()) {
                (Some(_), _) => of_kind && (people.is_empty() || names_them),
                (None, false) => names_them && about.day().is_some(),
                (None, true) => false,
            }
        })
        .collect()
}

/// What a question asks of a person, if it asks one of these.
fn aspect_named(q: &str) -> Option<Aspect> {
    if has(q, FOOD) {
        Some(Aspect::Food)
    } else if has(q, JOB) {
        Some(Aspect::Job)
    } else if has(q, HOBBY) {
        Some(Aspect::Hobby)
    } else if has(q, FAMILY) {
        Some(Aspect::Family)
    } else {
        None
    }
}
