//! The built-in answers when no model is configured: `ai_say` says the
//! task's first clause as a line (a summary says what it lists), `ai_ask`
//! asks it as a question, and every extracted variable takes the part of the
//! human's last answer that answers it (one of the options its definition
//! lists, a name without 我叫, the answer without fillers).

use super::protocol::{LlmKind, LlmRequest, State};

/// What ends a sentence (trimmed off extracted values).
pub(super) const SENTENCE_END: &[char] = &['。', '！', '？', '.', '!', '?', '…'];

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
    let mut clauses = task
        .split(['\n', '。', '，', '：'])
        .map(str::trim)
        .filter(|s| !s.is_empty());
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
/// (`祝福X` → `祝X一切顺利！`).
pub fn offline_say(req: &LlmRequest) -> String {
    let (task, basis) = task_and_basis(req);
    if task.is_empty() {
        return "嗯。".into();
    }
    if let Some(line) = said_after_colon(req, &task) {
        return line;
    }
    let said = |prefix: &str| task.strip_prefix(prefix).filter(|r| !r.is_empty());
    if let Some(who) = said("祝福").or_else(|| said("祝")) {
        format!("祝{who}一切顺利！")
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
    let listed = line
        .split_once('：')?
        .1
        .trim()
        .trim_end_matches(SENTENCE_END);
    if listed.is_empty() {
        return None;
    }
    let listed = listed.replace("心旅者", "你");
    if first.contains("总结") {
        let farewell = ["，并约定下次再见", "，约定下次再见", "并约定下次再见"];
        let (listed, bye) = match farewell.iter().find_map(|f| listed.strip_suffix(f)) {
            Some(rest) => (rest.to_string(), "下次再见！"),
            None => (listed.clone(), ""),
        };
        return Some(format!("今天我们聊到：{listed}。{bye}"));
    }
    first
        .contains('聊')
        .then(|| format!("我们聊聊{listed}吧。"))
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
    if QUESTION_WORDS.iter().any(|w| asked.contains(w)) {
        format!("{asked}？")
    } else if asked.chars().count() <= 4 && !asked.contains('你') {
        format!("能说说你的{asked}吗？")
    } else {
        format!("能说说{asked}吗？")
    }
}

/// The built-in brain's answer to any request (no model configured): a direct
/// question from the task, and the human's last answer as every output.
pub fn offline_reply(st: &State, req: &LlmRequest) -> String {
    let human_answer = st
        .chat
        .iter()
        .rev()
        .find(|l| l.role == st.human_role || st.human_role.is_empty())
        .map_or("", |l| l.text.as_str())
        .trim_end_matches(SENTENCE_END);
    let vars: serde_json::Map<String, serde_json::Value> = req
        .wants
        .iter()
        .map(|(n, define)| {
            let v = if req.list {
                let items: Vec<serde_json::Value> = human_answer
                    .split(['，', '、', ',', '和'])
                    .map(|s| s.trim().trim_end_matches(SENTENCE_END))
                    .filter(|s| !s.is_empty())
                    .map(|s| serde_json::Value::String(s.to_string()))
                    .collect();
                serde_json::Value::Array(items)
            } else {
                serde_json::Value::String(answer_part(human_answer, n, define))
            };
            (n.clone(), v)
        })
        .collect();
    match req.kind {
        LlmKind::Say => offline_say(req),
        LlmKind::AskRound => {
            let answered = st.frames.last().is_some_and(|f| f.rounds > 1);
            if answered {
                serde_json::json!({"reply": "好的，我记下了。", "exit": true, "vars": vars})
                    .to_string()
            } else {
                let q = offline_question(req);
                serde_json::json!({"reply": q, "exit": false, "vars": {}}).to_string()
            }
        }
        LlmKind::Extract => serde_json::json!({ "vars": vars }).to_string(),
        // Telling a correction from small talk needs a model: keep every value.
        LlmKind::Update => serde_json::json!({ "vars": {} }).to_string(),
        // Nothing: the engine writes it from the forms, in their order.
        LlmKind::Summary => String::new(),
    }
}

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
/// Options that mean no.
const NEGATIVE_OPTIONS: &[&str] = &["无", "否", "没有", "不是"];

/// The part of `answer` that answers for variable `name` defined as
/// `define`: one of the options the definition lists (只回答“有”或“无”: a
/// "没有" is 无, and with no option named the negative one — no evidence, no
/// flag), a name without 我叫 and 就好, else the answer without fillers.
fn answer_part(answer: &str, name: &str, define: &str) -> String {
    let mut a = answer.trim();
    while let Some(rest) = FILLERS.iter().find_map(|f| a.strip_prefix(f)) {
        a = rest.trim_start();
    }
    let options = quoted(define);
    if options.len() >= 2 {
        let negative = options
            .iter()
            .find(|o| NEGATIVE_OPTIONS.contains(&o.as_str()));
        if let Some(no) = negative.filter(|_| NEGATIONS.iter().any(|n| a.contains(n))) {
            return no.clone();
        }
        let named = options.iter().filter(|o| a.contains(o.as_str()));
        if let Some(o) = named.max_by_key(|o| o.chars().count()).or(negative) {
            return o.clone();
        }
    }
    let about_a_name = |t: &&str| ["称呼", "名字", "名称"].iter().any(|w| t.contains(w));
    if [name, define].iter().any(about_a_name) || name.ends_with('名') {
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
fn quoted(s: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::{answer_part, offline_say};
    use crate::script::engine::{LlmKind, LlmRequest};

    fn say(task: &str) -> String {
        offline_say(&LlmRequest {
            id: 1,
            kind: LlmKind::Say,
            prompt: format!("你是守望精灵。\n\n任务：{task}"),
            tokens: Default::default(),
            schema: None,
            wants: Vec::new(),
            list: false,
            repair: false,
        })
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
    }
}
