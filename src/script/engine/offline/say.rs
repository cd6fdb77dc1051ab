//! The built-in lines: `ai_say` says the task's first clause (a summary
//! says what it lists), `ai_ask` asks it as a question. A value the prompt
//! marks as not known yet (`（NAME：还不知道）`) is left out, never said.

use super::super::prompt::UNKNOWN;
use super::super::protocol::LlmRequest;
use super::super::vars::cut_outside;
use super::extract::quoted;

/// What ends a sentence (trimmed off extracted values).
pub(crate) const SENTENCE_END: &[char] = &['。', '！', '？', '.', '!', '?', '…'];

/// How writers tell the model to say something, not what to say.
const INSTRUCTIONS: &[&str] = &[
    "用一句话",
    "用两句话",
    "用两三句话",
    "用一两句话",
    "用几句话",
    "一句话",
    "简短地",
    "简单地",
    "进行一句简短的",
];

/// Asking verbs in front of what is asked.
const ASKING: &[&str] = &["询问", "问问", "打听", "了解", "问"];

/// Words that make a clause a question already.
const QUESTION_WORDS: &[&str] = &[
    "什么",
    "怎么",
    "怎样",
    "哪",
    "谁",
    "几",
    "多少",
    "吗",
    "呢",
    "是否",
    "有没有",
    "是不是",
];

/// Words that open a clause saying what the task goes by (根据名字…).
const BASIS: &[&str] = &["根据", "结合", "针对", "按照", "参考"];

/// The task's first clause, without the instruction words and manner
/// adverbs (`温和地`) in front of it, the HUMAN role (`心旅者`, `对方`)
/// addressed as `你`.
fn offline_task(req: &LlmRequest) -> String {
    task_and_basis(req).0
}

/// [`offline_task`], and the clause it goes by when the task opens with one
/// (`根据名字“小林”的特点进行赞美` → `赞美`, `根据名字“小林”的特点`).
fn task_and_basis(req: &LlmRequest) -> (String, Option<String>) {
    let task = req
        .prompt
        .rsplit_once("任务：")
        .map_or(req.prompt.as_str(), |(_, t)| t);
    let task = without_unknown(task);
    let clauses = split_outside(&task, &['\n', '。', '，', '：']);
    let mut clauses = clauses.into_iter().map(str::trim).filter(|s| !s.is_empty());
    let mut first = clauses.next().unwrap_or("");
    let mut basis = None;
    if BASIS.iter().any(|b| first.starts_with(b)) {
        if let Some((by, act)) = first.split_once("进行") {
            (basis, first) = (Some(by), act);
        } else if let Some(next) = clauses.next() {
            (basis, first) = (Some(first), next);
        }
    }
    loop {
        if let Some(rest) = INSTRUCTIONS.iter().find_map(|p| first.strip_prefix(p)) {
            first = rest.trim_start();
            continue;
        }
        // A two-character manner adverb: 温和地, 耐心地 …
        let mut chars = first.char_indices();
        if let (Some(_), Some(_), Some((i, '地'))) = (chars.next(), chars.next(), chars.next()) {
            first = &first[i + '地'.len_utf8()..];
            continue;
        }
        break;
    }
    let addressed = |t: &str| t.replace("心旅者", "你").replace("对方", "你");
    (
        addressed(first.trim_end_matches(SENTENCE_END)),
        basis.map(addressed),
    )
}

/// Praise with no model: of the one named (by the task, else by the clause
/// it goes by: a name quoted or after 名称/名字), their name when the task
/// goes by it.
fn praise(object: &str, basis: Option<&str>) -> String {
    let basis = basis.unwrap_or("");
    let named = quoted(basis).into_iter().next().or_else(|| {
        ["名称", "名字"]
            .iter()
            .find_map(|w| basis.rsplit_once(w))
            .map(|(_, n)| n.trim_matches(['“', '”', '"', '「', '」', ' ']).to_string())
    });
    let who = Some(object.trim())
        .filter(|o| !o.is_empty())
        .map(str::to_string)
        .or(named)
        .filter(|w| !w.is_empty() && w.as_str() != "你");
    match who {
        Some(w) if basis.contains('名') => format!("{w}，这个名字真好听，很配你！"),
        Some(w) => format!("{w}，你真的很棒！"),
        None => "你真的很棒！".into(),
    }
}

/// The built-in line for an `ai_say` task with no model: the task's first
/// clause, said rather than described where its verb is a familiar one
/// (`祝福X` → `X，祝你一切顺利！`: the one blessed is the one talked to).
pub fn offline_say(req: &LlmRequest) -> String {
    let (task, basis) = task_and_basis(req);
    if task.is_empty() {
        return "嗯。".into();
    }
    if let Some(line) = said_after_colon(req, &task) {
        return line;
    }
    // A familiar verb with no one after it (问候, its object not known yet).
    let alone = [
        (&["问候", "打招呼"][..], "你好呀！"),
        (&["祝福"][..], "祝你一切顺利！"),
        (&["鼓励"][..], "做得很好，继续加油！"),
        (&["安慰"][..], "别着急，我们慢慢来。"),
        (&["感谢", "谢谢"][..], "谢谢你。"),
        (&["欢迎"][..], "欢迎你！"),
    ];
    if let Some((_, line)) = alone
        .iter()
        .find(|(verbs, _)| verbs.contains(&task.as_str()))
    {
        return (*line).into();
    }
    let said = |prefix: &str| task.strip_prefix(prefix).filter(|r| !r.is_empty());
    if let Some(who) = said("祝福").or_else(|| said("祝")) {
        match who {
            "你" => "祝你一切顺利！".into(),
            _ => format!("{who}，祝你一切顺利！"),
        }
    } else if let Some(who) = said("鼓励") {
        format!("{who}，做得很好，继续加油！")
    } else if let Some(who) = said("安慰") {
        format!("{who}，别着急，我们慢慢来。")
    } else if let Some(who) = said("感谢").or_else(|| said("谢谢")) {
        format!("谢谢{who}。")
    } else if let Some(who) = said("欢迎") {
        format!("欢迎{who}！")
    } else if let Some(what) = ["赞美", "称赞", "夸奖", "夸"]
        .iter()
        .find_map(|v| task.strip_prefix(v))
    {
        praise(what, basis.as_deref())
    } else if let Some(who) = said("问候") {
        format!("{who}，你好呀！")
    } else {
        format!("{task}。")
    }
}

/// A task that lists what to say after a colon: a summary says the list
/// (「总结今天聊到的：困扰是…，并约定下次再见」 → 「今天我们聊到：困扰是…。下次再见！」),
/// a chat about something brings it up (「聊点轻松的：心谷的天气」 →
/// 「我们聊聊心谷的天气吧。」).
fn said_after_colon(req: &LlmRequest, first: &str) -> Option<String> {
    let task = req.prompt.rsplit_once("任务：").map_or("", |(_, t)| t);
    let line = task.lines().next().unwrap_or("");
    // The colon of the task, not one inside a bracket.
    let (_, listed) = line.split_at(colon_outside(line)? + '：'.len_utf8());
    let listed = listed.trim().trim_end_matches(SENTENCE_END);
    let listed = listed.replace("心旅者", "你");
    let farewell = ["，并约定下次再见", "，约定下次再见", "并约定下次再见"];
    let (listed, bye) = match farewell.iter().find_map(|f| listed.strip_suffix(f)) {
        Some(rest) => (rest.to_string(), "下次再见！"),
        None => (listed.clone(), ""),
    };
    // Items of a value not known yet are not said at all.
    // An item with no value after it (困扰是) is not said either; the
    // client's own words (我想…) are said back to them (你想…).
    let known: Vec<String> = split_outside(&listed, &['，'])
        .into_iter()
        .map(str::trim)
        .filter(|i| !i.is_empty() && !i.contains(UNKNOWN) && !i.ends_with(['是', '：']))
        .map(said_back)
        .collect();
    if first.contains("总结") {
        return Some(match known.is_empty() {
            true => format!("今天我们聊了不少，谢谢你愿意说这么多。{bye}"),
            false => format!("今天我们聊到：{}。{bye}", known.join("，")),
        });
    }
    if !first.contains('聊') {
        return None;
    }
    Some(match known.is_empty() {
        // 聊聊你今天想聊的：(not known) → 我们聊聊你今天想聊的吧。
        true => format!(
            "我们{}吧。",
            first.trim_start_matches('我').trim_start_matches('们')
        ),
        false => format!("我们聊聊{}吧。", known.join("，")),
    })
}

/// `text` with a word of 2–4 characters said twice running said once
/// (two variables holding the same value side by side).
fn without_doubles(text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let twice = (2..=4)
            .rev()
            .find(|&n| i + 2 * n <= chars.len() && chars[i..i + n] == chars[i + n..i + 2 * n]);
        match twice {
            Some(n) => {
                chars.drain(i + n..i + 2 * n);
            }
            None => i += 1,
        }
    }
    chars.into_iter().collect()
}

/// The client's words said back to them: 我 is 你 (我们 stays).
fn said_back(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('我', Some('们')) => out.push('我'),
            ('我', _) => out.push('你'),
            _ => out.push(c),
        }
    }
    out
}

/// `text` without the markers of values not known yet.
pub(super) fn without_unknown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(end) = rest.find(UNKNOWN) {
        let head = &rest[..end];
        out.push_str(head.rfind('（').map_or(head, |open| &head[..open]));
        rest = &rest[end + UNKNOWN.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` split at `seps` that stand outside brackets and quotes.
fn split_outside<'t>(text: &'t str, seps: &[char]) -> Vec<&'t str> {
    let pieces = cut_outside(text, seps).into_iter();
    pieces.map(|p| p.strip_suffix(seps).unwrap_or(p)).collect()
}

/// The byte index of the first `：` outside brackets and quotes.
fn colon_outside(text: &str) -> Option<usize> {
    let first = cut_outside(text, &['：']).into_iter().next()?;
    first.strip_suffix('：').map(str::len)
}

/// The built-in question for an `ai_ask` task: what is asked, as a question
/// (`询问X最近在忙什么` → `X最近在忙什么？`, `询问关系情况` → `能说说关系情况吗？`).
pub fn offline_question(req: &LlmRequest) -> String {
    let mut asked = offline_task(req);
    // `向你询问名字`: whom it is asked of goes too.
    if let Some(rest) = asked.strip_prefix('向')
        && let Some((_, what)) = ASKING.iter().find_map(|v| {
            rest.split_once(v)
                .filter(|(who, _)| who.chars().count() <= 4)
        })
    {
        asked = what.to_string();
    }
    if let Some(rest) = ASKING.iter().find_map(|v| asked.strip_prefix(v)) {
        asked = rest.to_string();
    }
    if asked.is_empty() {
        return "能多说一点吗？".into();
    }
    // 与{角色}{称呼}, both 妈妈: 与妈妈.
    let asked = without_doubles(&asked);
    // 「与朋友林小溪日常相处的关系情况」: asked as one would ask it.
    if let Some(rest) = asked.strip_prefix('与')
        && let Some((who, _)) = rest
            .split_once("日常相处")
            .or_else(|| rest.split_once("相处"))
    {
        let roles = [
            "家人", "朋友", "好友", "挚友", "同事", "熟人", "邻居", "恋人",
        ];
        let name = roles
            .iter()
            .find_map(|r| who.strip_prefix(r))
            .filter(|n| !n.is_empty());
        return format!("你跟{}平时处得怎么样？", name.unwrap_or(who));
    }
    if QUESTION_WORDS.iter().any(|w| asked.contains(w)) {
        format!("{asked}？")
    } else if asked.chars().count() <= 4 && !asked.contains('你') {
        format!("能说说你的{asked}吗？")
    } else {
        format!("能说说{asked}吗？")
    }
}

#[cfg(test)]
mod tests {
    use super::offline_say;
    use crate::script::engine::{LlmKind, LlmRequest};

    /// The guardian's request of `kind` for `task`.
    fn request(kind: LlmKind, task: &str) -> LlmRequest {
        LlmRequest {
            id: 1,
            kind,
            prompt: format!("你是守望精灵。\n\n任务：{task}"),
            tokens: Default::default(),
            schema: None,
            wants: Vec::new(),
            list: false,
            repair: false,
        }
    }

    fn say(task: &str) -> String {
        offline_say(&request(LlmKind::Say, task))
    }

    /// The relationship skill's task (§3.4.9) asked as one would ask it,
    /// not read out from its field names.
    #[test]
    fn a_tie_is_asked_after_in_plain_words() {
        let ask = |task: &str| super::offline_question(&request(LlmKind::AskRound, task));
        assert_eq!(
            ask("询问与朋友林小溪日常相处的关系情况，只要心旅者讲述了，就不再询问"),
            "你跟林小溪平时处得怎么样？"
        );
        assert_eq!(ask("询问关系情况"), "能说说你的关系情况吗？");
    }

    /// The design's praise tasks (hello.yaml, §3.4.4) said, not echoed.
    #[test]
    fn praise_is_said_of_the_one_the_task_goes_by() {
        assert_eq!(
            say("根据心旅者给的名称小林，进行一句简短的赞美"),
            "小林，这个名字真好听，很配你！"
        );
        assert_eq!(
            say("根据名字“小满”的特点进行赞美，并写一个藏头对联，要符合这个名字特点的"),
            "小满，这个名字真好听，很配你！"
        );
        assert_eq!(say("夸奖小林"), "小林，你真的很棒！");
        assert_eq!(say("赞美心旅者"), "你真的很棒！");
    }

    /// A value the prompt marks as not known yet is never said, and a
    /// colon inside its marker does not split the task.
    #[test]
    fn values_not_known_yet_are_left_out() {
        assert_eq!(
            say(
                "用两三句话总结今天聊到的：这段时间的变化是（近况变化：还不知道），今天聊的是（这次想聊：还不知道），并约定下次再见"
            ),
            "今天我们聊了不少，谢谢你愿意说这么多。下次再见！"
        );
        assert_eq!(
            say(
                "用两三句话总结今天聊到的：这段时间的变化是睡得好些了，今天聊的是（这次想聊：还不知道），并约定下次再见"
            ),
            "今天我们聊到：这段时间的变化是睡得好些了。下次再见！"
        );
        assert_eq!(
            say(
                "聊聊（心旅者名：还不知道）今天想聊的：（这次想聊：还不知道）\n结合往次会谈的记录，给一个小建议"
            ),
            "我们聊聊今天想聊的吧。"
        );
        assert_eq!(
            say("根据心旅者给的名称（心旅者名：还不知道），进行一句简短的赞美"),
            "你真的很棒！"
        );
        for line in [
            say("问候（名字：还不知道）"),
            say("聊点轻松的：（话题：还不知道）最近的生活"),
        ] {
            assert!(!line.contains("还不知道") && !line.contains('）'), "{line}");
        }
    }
}
