//! What the built-in playtester knows to say beyond its persona's
//! sentences: its name when asked for one, its family, a score, and an
//! honest non-answer when nothing it knows fits.

use crate::base::hash::fnv1a;

/// Topics a question can be about: words that ask about it, and words of a
/// persona sentence that speak of it.
const TOPICS: &[(&[&str], &[&str])] = &[
    (
        &["家", "成员", "父母", "亲人"],
        &[
            "妈妈", "爸爸", "母亲", "父亲", "老伴", "孙", "儿子", "女儿", "哥", "姐", "弟", "妹",
            "丈夫", "妻子", "家",
        ],
    ),
    (
        &[
            "紧张", "担心", "焦虑", "困扰", "烦", "压力", "低落", "心情", "难过",
        ],
        &["担心", "怕", "烦", "累", "愁", "难过", "压力", "睡不", "总"],
    ),
    (&["睡"], &["睡", "夜", "失眠"]),
    // 「你跟马铁平时处得怎么样？」: the tie, 「马铁是我的朋友」.
    (&["处得", "相处", "关系"], &["是我的"]),
    (&["忙", "工作", "上班"], &["在忙", "上班", "工作", "干活"]),
    (
        &["兴趣", "喜欢", "爱好", "好一点", "开心"],
        &["喜欢", "爱", "会", "好奇"],
    ),
    (&["想聊", "希望", "期待", "下次", "目标", "想要"], &["我想"]),
];

/// Kin words, in the order a persona would list them.
const KIN: &[&str] = &[
    "老伴", "丈夫", "妻子", "爸爸", "妈妈", "父亲", "母亲", "哥哥", "姐姐", "弟弟", "妹妹", "儿子",
    "女儿", "孙子", "孙女",
];

/// 1 when `question` and `sentence` are on one topic, else 0.
pub(super) fn same_topic(question: &str, sentence: &str) -> usize {
    let on = |words: &[&str], text: &str| words.iter().any(|w| text.contains(w));
    usize::from(
        TOPICS
            .iter()
            .any(|(asks, speaks)| on(asks, question) && on(speaks, sentence)),
    )
}

/// The answer to a question only one answer fits: the name (叫我…就好),
/// who is at home, a score out of ten (the persona's own, always the same).
pub(super) fn asked_for(question: &str, sentences: &[String]) -> Option<String> {
    let asks = |words: &[&str]| words.iter().any(|w| question.contains(w));
    if asks(&["称呼你", "名字", "叫什么", "怎么称呼"]) {
        return own_name(sentences).map(|n| format!("叫我{n}就好。"));
    }
    if asks(&["几分", "打分", "打个分", "分是"]) {
        let score = 3 + fnv1a(&sentences.concat()) % 5;
        return Some(format!("大概{score}分吧。"));
    }
    if asks(&["在忙什么", "忙什么", "做什么工作", "干什么工作"])
        && let Some(job) = occupation(sentences)
    {
        return Some(format!("还是老样子，我是{job}，每天都有忙不完的活。"));
    }
    if asks(&["家里有哪些", "家里有谁", "家里都有", "家庭成员", "主要成员"]) {
        let all = sentences.concat();
        let kin: Vec<&str> = KIN.iter().copied().filter(|k| all.contains(k)).collect();
        return Some(match kin.is_empty() {
            true => "家里就我自己。".into(),
            false => format!("家里有{}。", kin.join("和")),
        });
    }
    None
}

/// The name a persona gives (我叫林小溪，… → 林小溪).
pub(super) fn own_name(sentences: &[String]) -> Option<&str> {
    sentences.iter().find_map(|s| {
        let rest = s.split_once("我叫")?.1;
        rest.split(['，', '。', ',', ' '])
            .next()
            .filter(|n| !n.is_empty())
    })
}

/// The job a persona gives (我叫林小溪，20岁，大学生 → 大学生).
fn occupation(sentences: &[String]) -> Option<&str> {
    let intro = sentences.iter().find(|s| s.starts_with("我叫"))?;
    let mut parts = intro.trim_end_matches('。').split('，').skip(1);
    let age = parts.next()?;
    age.ends_with('岁')
        .then(|| parts.next())
        .flatten()
        .filter(|j| !j.is_empty())
}

/// What it says when nothing it knows answers (in turn): to 有没有 …, no.
pub(super) fn dodge(question: &str, turn: usize) -> &'static str {
    if question.contains("有没有") {
        return "还没有。";
    }
    const DODGES: &[&str] = &[
        "这个我一时说不上来。",
        "嗯……我没怎么想过这个。",
        "说不太好，大概还好吧。",
    ];
    DODGES[turn % DODGES.len()]
}

#[cfg(test)]
mod tests {
    use super::{asked_for, same_topic};

    fn persona() -> Vec<String> {
        ["我叫林小溪，20岁，大学生。", "妈妈总担心我跑去矿洞。"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn a_name_a_family_and_a_score_are_answered_as_asked() {
        let p = persona();
        assert_eq!(
            asked_for("我该怎么称呼你？", &p).unwrap(),
            "叫我林小溪就好。"
        );
        assert_eq!(
            asked_for("家里有哪些主要成员？", &p).unwrap(),
            "家里有妈妈。"
        );
        let score = asked_for("你现在的焦虑有几分？", &p).unwrap();
        assert!(
            score.starts_with("大概") && score.ends_with("分吧。"),
            "{score}"
        );
        assert_eq!(asked_for("你最近怎么样？", &p), None);
        assert_eq!(
            asked_for("能说说与家人林小溪日常相处的关系情况吗？", &p),
            None
        );
        assert_eq!(
            asked_for("你最近在忙什么、过得怎么样？", &p).unwrap(),
            "还是老样子，我是大学生，每天都有忙不完的活。"
        );
        assert_eq!(same_topic("最让你担心的事是什么？", &p[1]), 1);
        assert_eq!(same_topic("最让你担心的事是什么？", &p[0]), 0);
    }
}
