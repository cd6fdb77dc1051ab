//! A resident answering a question with its model (`heartvale interview`
//! with LLM flags): the prompt carries what it knows with where it came
//! from, whom it talked with lately, what it recalls of the question and
//! what it thinks of people; one call on the synchronous endpoint the
//! terminal's other model steps use. Whatever goes wrong, the caller
//! answers with the built-in brain.

use super::LlmSettings;
use super::calls::{CallError, Calls};
use super::prompts::fill;
use super::script::Remote;
use crate::sim::interview::Interview;
use crate::sim::knowledge::words::day_from;

const INTERVIEW: &str = include_str!("../../assets/prompts/interview.md");

/// Facts a prompt carries at most.
const FACTS: usize = 30;
/// Days of talk it lists.
const TALK_DAYS: i64 = 3;
/// Memories it recalls for the question.
const RECALLED: usize = 6;

/// The resident's answer from its model, or why there is none.
pub fn answer(
    settings: &LlmSettings,
    iv: &Interview<'_>,
    question: &str,
) -> Result<String, CallError> {
    let Some(endpoint) = settings.endpoint_for(iv.who.me) else {
        return Err(CallError::NoModel);
    };
    let calls = std::sync::Arc::new(Calls::start(settings)?);
    let mut remote = Remote::for_endpoint(settings, &calls, endpoint.clone());
    let reply = remote
        .complete(prompt(iv, question), 200, None)
        .map_err(|e| CallError::failed(&endpoint, e))?;
    Ok(super::companion::usable_reply(&reply, &iv.who.me.name)?)
}

/// The prompt for `question`.
pub fn prompt(iv: &Interview<'_>, question: &str) -> String {
    let me = iv.who.me;
    let bullets = |lines: Vec<String>| {
        if lines.is_empty() {
            "- （没有）".to_string()
        } else {
            lines
                .iter()
                .map(|l| format!("- {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    let talks = iv
        .talks_by_day(TALK_DAYS)
        .into_iter()
        .map(|(day, names)| {
            let when = day_from(
                crate::base::time::GameTime(iv.now.social_day() * 86_400),
                day,
            );
            match names.is_empty() {
                true => format!("{when}：没跟人聊天"),
                false => format!("{when}：{}", names.join("、")),
            }
        })
        .collect();
    let ties = iv
        .who
        .ties
        .iter()
        .filter(|r| !r.impression.is_empty())
        .map(|r| {
            let name = iv.words.roster.name_of(r.with_idx);
            format!("{name}（{}）：{}", r.kind.label(), r.impression)
        })
        .collect();
    let values = [
        ("name", me.name.clone()),
        ("age", me.age.to_string()),
        ("occupation", me.occupation.clone()),
        ("traits", me.traits.join("、")),
        ("quote", me.quote.clone()),
        ("time", iv.now.to_string()),
        ("period", iv.now.period().to_string()),
        ("facts", bullets(iv.known_lines(FACTS))),
        ("talks", bullets(talks)),
        ("memories", bullets(recalled(iv, question))),
        ("ties", bullets(ties)),
        ("question", question.to_string()),
    ];
    fill(INTERVIEW, &values)
}

/// What the resident recalls of the question, best first (a copy: asking
/// changes nothing).
fn recalled(iv: &Interview<'_>, question: &str) -> Vec<String> {
    let mut memories = crate::sim::memory::Memories::from_entries(iv.who.memories.to_vec());
    let q = crate::recall::Query {
        text: question,
        now: iv.now,
        as_of: None,
        vector: None,
        k: RECALLED,
    };
    let tuning = crate::recall::RecallTuning::default();
    let hits = memories.search(iv.segmenter, &q, &tuning);
    hits.iter()
        .filter_map(|h| memories.entries().get(h.doc as usize))
        .map(|m| m.line())
        .collect()
}
