//! The built-in answers when no model is configured: `ai_say` says the
//! task's first clause as a line, `ai_ask` asks it as a question, and every
//! extracted variable takes the human's last answer.

use super::protocol::{LlmKind, LlmRequest, State};

/// What ends a sentence (trimmed off extracted values).
const SENTENCE_END: &[char] = &['。', '！', '？', '.', '!', '?', '…'];

/// How writers tell the model to say something, not what to say.
const INSTRUCTIONS: &[&str] = &[
    "用一句话",
    "用两句话",
    "用两三句话",
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

/// The task's first clause, without the instruction words and manner
/// adverbs (`温和地`) in front of it, the HUMAN role (`心旅者`, `对方`)
/// addressed as `你`.
fn offline_task(req: &LlmRequest) -> String {
    let task = req
        .prompt
        .rsplit_once("任务：")
        .map_or(req.prompt.as_str(), |(_, t)| t);
    let mut first = task
        .split(['\n', '。', '，', '：'])
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or("");
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
    first
        .trim_end_matches(SENTENCE_END)
        .replace("心旅者", "你")
        .replace("对方", "你")
}

/// The built-in line for an `ai_say` task with no model: the task's first
/// clause, said rather than described where its verb is a familiar one
/// (`祝福X` → `祝X一切顺利！`).
pub fn offline_say(req: &LlmRequest) -> String {
    let task = offline_task(req);
    if task.is_empty() {
        return "嗯。".into();
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
    } else if let Some(who) = said("问候") {
        format!("{who}，你好呀！")
    } else {
        format!("{task}。")
    }
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
        .map(|(n, _)| {
            let v = if req.list {
                let items: Vec<serde_json::Value> = human_answer
                    .split(['，', '、', ',', '和'])
                    .map(|s| s.trim().trim_end_matches(SENTENCE_END))
                    .filter(|s| !s.is_empty())
                    .map(|s| serde_json::Value::String(s.to_string()))
                    .collect();
                serde_json::Value::Array(items)
            } else {
                serde_json::Value::String(human_answer.to_string())
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
    }
}
