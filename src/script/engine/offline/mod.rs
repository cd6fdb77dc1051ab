//! The built-in brain, when no model is configured: lines from the task
//! (`say`), extraction from the human's answer (`extract`), and each
//! request answered the way a model would be asked to.

mod extract;
mod say;

use super::protocol::{LlmKind, LlmRequest, State};
use extract::{Aside, about_a_name, answer_part, aside};
pub(crate) use say::SENTENCE_END;
pub use say::{offline_question, offline_say};

/// The built-in brain's answer to any request (no model configured): a direct
/// question from the task, and the human's last answer as every output.
pub fn offline_reply(st: &State, req: &LlmRequest) -> String {
    let human_answer = last_said(st).trim_end_matches(SENTENCE_END);
    let vars: serde_json::Map<String, serde_json::Value> = req
        .wants
        .iter()
        .map(|(n, define)| {
            let v = if req.list {
                // 家里有妈妈和老伴: the things listed, not how they are introduced.
                let listed = ["家里有", "我家有", "有"]
                    .iter()
                    .find_map(|l| human_answer.strip_prefix(l))
                    .unwrap_or(human_answer);
                // 家里就我自己, 没有: nothing listed.
                let none = ["就我自己", "就我一个", "一个人", "没有"];
                let listed = match none.iter().any(|n| listed.contains(n)) {
                    true => "",
                    false => listed,
                };
                let items: Vec<serde_json::Value> = listed
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
            let last_round = req.prompt.contains(LAST_ROUND);
            match answered.then(|| aside(last_said(st))).flatten() {
                Some(a) if !last_round => {
                    let reply = answer_aside(st, req, a);
                    return serde_json::json!({"reply": reply, "exit": false, "vars": {}})
                        .to_string();
                }
                // Out of rounds: it closes with nothing taken from a non-answer.
                Some(_) => {
                    return serde_json::json!({"reply": "好的，我们先往下走。", "exit": true, "vars": {}})
                        .to_string();
                }
                None => {}
            }
            if answered {
                serde_json::json!({"reply": acknowledge(human_answer), "exit": true, "vars": vars})
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

/// A word that shows the answer was heard: a heavy one is listened to, a
/// short one said back (「在准备考试，我明白了。」), a long one or one about
/// oneself nodded at —
/// not the same 「好的，我记下了」 after every answer, like a form.
fn acknowledge(answer: &str) -> String {
    const HEAVY: &[&str] = &[
        "烦", "累", "难过", "担心", "怕", "闷", "压力", "不好", "难受", "伤心",
    ];
    if HEAVY.iter().any(|w| answer.contains(w)) {
        return "嗯，我听着呢。".into();
    }
    // 「叫我小林」 said back is 「叫你小林」: an answer about oneself is nodded at.
    match answer.chars().count() {
        1..=10 if !answer.contains('我') => format!("{answer}，我明白了。"),
        _ => "嗯，我明白了。".into(),
    }
}

/// The human's last words (all of them, a question mark too).
fn last_said(st: &State) -> &str {
    st.chat
        .iter()
        .rev()
        .find(|l| l.role == st.human_role || st.human_role.is_empty())
        .map_or("", |l| l.text.as_str())
}

/// What the last round's prompt says (the engine's own words, in llm_steps).
const LAST_ROUND: &str = "这是最后一轮";

/// The reply to an answer that asks back or declines, then the question
/// again — for a name, the design's strategy: a nickname will do.
fn answer_aside(st: &State, req: &LlmRequest, a: Aside) -> String {
    let for_name = req.wants.iter().any(|(n, d)| about_a_name(n, d));
    let first = match a {
        Aside::WhoAreYou => format!("我是{}，在这里陪你说说话。", st.ai_role),
        Aside::Why if for_name => "知道怎么称呼你，我们聊起来更自在。".to_string(),
        Aside::Why => "多了解一点，我才能更好地陪你。".to_string(),
        Aside::Question => "这个我们待会儿可以慢慢聊。".to_string(),
        Aside::Refusal if for_name => "没关系，不一定要用真名。".to_string(),
        Aside::Refusal => "没关系，不想说的可以先不说，说你愿意说的就好。".to_string(),
    };
    let again = match for_name {
        true => "网名、小名都可以，我该怎么称呼你？".to_string(),
        false => offline_question(req),
    };
    format!("{first}{again}")
}
