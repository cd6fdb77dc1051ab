//! Cupid with a model: the host and both avatars asked through the bridge
//! (pools, record and replay as everywhere), with json_schema structured
//! output — the avatars' option an enum of the letters offered. A bad answer
//! gets one repair call; if that fails too, the offline minds answer that
//! turn (said in `LlmMinds::take_notes`). The date's rules bound whatever comes
//! back.
//!
//! Three calls a round: the two avatars, and one host call that judges the
//! round and writes the next scene in the design's JSON (`cumulative_rate`
//! is the score after the round; `action.type` `end` ends the date); one
//! more opens the date.

mod prompts;
mod stream;

pub use stream::preview;

use std::sync::Arc;

use serde_json::Value;

use super::LlmSettings;
use super::calls::{CallError, Calls, StartError};
use super::client::{ChatRequest, Format, Message, Pieces, estimate_tokens};
use super::parse::Unusable;
use super::pool::Pool;
use crate::base::json::extract_object;
use crate::cupid::Side;
use crate::cupid::{
    AvatarTurn, DateView, Decision, HostAction, HostTurn, Judgement, Minds, OfflineMinds, Posed,
    SceneBank, stage_of,
};
use crate::sim::dating::ModelDates;

/// What a date's calls came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DateCalls {
    /// Calls sent (repairs included).
    pub calls: u32,
    /// Of which repair calls.
    pub repairs: u32,
    /// Turns the offline minds answered instead.
    pub fallbacks: u32,
    /// Prompt tokens (the server's count, or the estimate when it sends none).
    pub prompt_tokens: u64,
    /// Answer tokens, likewise.
    pub completion_tokens: u64,
}

/// The host and avatars played by a model.
pub struct LlmMinds {
    calls: Calls,
    pool: Arc<Pool>,
    offline: OfflineMinds,
    temperature: f32,
    seed: u64,
    /// The next round's scene, written by the host with its last judgement.
    next: Option<Posed>,
    counted: DateCalls,
    notes: Vec<String>,
    /// Where streamed answers' pieces go, when someone watches them written.
    pieces: Option<Pieces>,
}

impl LlmMinds {
    /// Minds on the settings' default endpoint; `None` without one. The
    /// offline minds (over `bank`, seeded) answer any turn the model cannot.
    pub fn new(
        settings: &LlmSettings,
        bank: Arc<SceneBank>,
        seed: u64,
    ) -> Option<Result<Self, StartError>> {
        let pool = Arc::new(settings.default.clone()?);
        Some(Calls::start(settings).map(|calls| Self {
            calls,
            pool,
            offline: OfflineMinds::new(bank, seed),
            temperature: settings.temperature,
            seed,
            next: None,
            counted: DateCalls::default(),
            notes: Vec::new(),
            pieces: None,
        }))
    }

    /// Streams every later call, its pieces sent to `pieces` as they come
    /// (read them with [`preview`]); the answers are used whole, as before.
    pub fn stream_to(&mut self, pieces: Pieces) {
        self.pieces = Some(pieces);
    }

    /// The model asked.
    pub fn model(&self) -> &str {
        self.pool.model()
    }

    /// The calls so far.
    pub fn calls(&self) -> DateCalls {
        self.counted
    }

    /// What went wrong since the last call of this (repairs, fallbacks).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// One call, waited for: the terminal's date waits on each answer (town
    /// dates are played offline, so no frame waits on this).
    fn call(&mut self, messages: Vec<Message>, schema: (&str, Value)) -> Result<String, CallError> {
        let request = ChatRequest {
            messages,
            temperature: self.temperature,
            max_tokens: 700,
            seed: Some(self.seed),
            format: Format::Json {
                name: schema.0.to_string(),
                schema: schema.1,
            },
            stream: self.pieces.is_some(),
        };
        let prompt: String = request
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        self.counted.calls += 1;
        let reply = self
            .calls
            .call_streamed(&self.pool, request, self.pieces.clone())
            .map_err(|e| CallError::failed(&self.pool, e))?;
        let (p, c) = reply.usage.map_or(
            (estimate_tokens(&prompt), estimate_tokens(&reply.content)),
            |u| (u.prompt_tokens, u.completion_tokens),
        );
        self.counted.prompt_tokens += u64::from(p);
        self.counted.completion_tokens += u64::from(c);
        Ok(reply.content)
    }

    /// A call whose answer `read` accepts, with one repair call if it does
    /// not; `Err` says why both failed.
    fn ask<T>(
        &mut self,
        messages: Vec<Message>,
        schema: (&str, Value),
        read: impl Fn(&str) -> Result<T, Unusable>,
    ) -> Result<T, CallError> {
        let answer = self.call(messages.clone(), (schema.0, schema.1.clone()))?;
        let problem = match read(&answer) {
            Ok(v) => return Ok(v),
            Err(p) => p,
        };
        self.counted.repairs += 1;
        self.notes
            .push(format!("{}: {problem}; asking once to repair", schema.0));
        let mut again = messages;
        again.push(Message::assistant(
            answer.chars().take(1_500).collect::<String>(),
        ));
        again.push(Message::user(prompts::repair(&problem.0)));
        let answer = self.call(again, schema)?;
        read(&answer).map_err(|p| Unusable(format!("the repair did not help either: {p}")).into())
    }

    /// Logs a turn the offline minds take over.
    fn fall_back(&mut self, who: &str, why: &dyn std::fmt::Display) {
        self.counted.fallbacks += 1;
        self.notes.push(format!(
            "{who}: {why}; the built-in host/avatar answers this turn"
        ));
    }
}

impl Minds for LlmMinds {
    fn pose(&mut self, view: &DateView<'_>) -> Posed {
        if let Some(next) = self.next.take() {
            return next;
        }
        let ids = [view.avatars[0].id.as_str(), view.avatars[1].id.as_str()];
        let messages = prompts::opening(view);
        match self.ask(messages, prompts::host_schema(ids), |t| read_host(t, ids)) {
            Ok(h) if !h.end => h.posed(view.rounds.len() as u32 + 1, view.max_rounds),
            Ok(_) => {
                self.fall_back("host", &"ended the date before it began");
                self.offline.pose(view)
            }
            Err(why) => {
                self.fall_back("host", &why);
                self.offline.pose(view)
            }
        }
    }

    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: Side,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        let letters: Vec<String> = (0..posed.options.len()).map(Posed::letter).collect();
        let messages = prompts::avatar(view, posed, who, first);
        let schema = prompts::avatar_schema(&letters);
        let gender = view.avatars[who].gender.clone();
        match self.ask(messages, schema, |t| read_avatar(t, &letters, &gender)) {
            Ok(turn) => turn,
            Err(why) => {
                let name = view.avatars[who].name.clone();
                self.fall_back(&name, &why);
                self.offline.choose(view, posed, who, first)
            }
        }
    }

    fn upcoming(&self) -> Option<Posed> {
        self.next.clone()
    }

    fn set_upcoming(&mut self, posed: Posed) {
        self.next = Some(posed);
    }

    fn take_notes(&mut self) -> Vec<String> {
        LlmMinds::take_notes(self)
    }

    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(Side, usize); 2],
    ) -> Judgement {
        let round = view.rounds.len() as u32 + 1;
        let last = round >= view.max_rounds;
        let ids = [view.avatars[0].id.as_str(), view.avatars[1].id.as_str()];
        let messages = prompts::judge(view, posed, choices, last);
        match self.ask(messages, prompts::host_schema(ids), |t| read_host(t, ids)) {
            Ok(h) => {
                let (reason, next_why) = h.split_rationale();
                let end = h.end;
                // The rate is a score (0–50): read in that range first, so
                // i32::MIN cannot wrap round into a rise.
                let delta = h.rate.map_or(0, |r| r.clamp(0, 50) - view.score);
                if !end && !last {
                    let mut next = h.posed(round + 1, view.max_rounds);
                    next.host.rationale = next_why;
                    self.next = Some(next);
                }
                Judgement { delta, reason, end }
            }
            Err(why) => {
                self.fall_back("host", &why);
                if posed.traits.iter().all(Vec::is_empty) {
                    // A model's scene has no traits for the built-in rules to weigh.
                    Judgement {
                        delta: 0,
                        reason: "主持人这一轮没有给出可用的评分，分数不变".into(),
                        end: false,
                    }
                } else {
                    self.offline.judge(view, posed, choices)
                }
            }
        }
    }
}

/// Town dates played by `pool`'s model (the host's endpoint): each date
/// gets minds of its own, streaming when the window watches.
pub(crate) fn town_dates(settings: &LlmSettings, pool: &Pool, bank: Arc<SceneBank>) -> ModelDates {
    let mut settings = settings.clone();
    settings.default = Some(pool.clone());
    let make = move |seed: u64, pieces: Option<Pieces>| {
        let mut minds = LlmMinds::new(&settings, bank.clone(), seed)
            .ok_or_else(|| "no endpoint for the host".to_string())?
            .map_err(|e| e.to_string())?;
        if let Some(pieces) = pieces {
            minds.stream_to(pieces);
        }
        Ok(Box::new(minds) as Box<dyn Minds + Send + Sync>)
    };
    ModelDates {
        make: Arc::new(make),
        model: pool.model().to_string(),
        stream: false,
    }
}

/// A host's answer as read.
#[derive(Debug, Clone)]
struct HostRead {
    turn: HostTurn,
    options: Vec<String>,
    rate: Option<i32>,
    end: bool,
}

impl HostRead {
    fn posed(self, round: u32, max: u32) -> Posed {
        Posed {
            host: self.turn,
            stage: stage_of(round, max),
            traits: vec![Vec::new(); self.options.len()],
            options: self.options,
            place: String::new(),
        }
    }

    /// The judgement of the round, and the reasoning behind the next scene
    /// (the prompt asks for `下一幕：` between them).
    fn split_rationale(&self) -> (String, String) {
        let r = self.turn.rationale.trim();
        match r.split_once("下一幕") {
            Some((judged, next)) if !judged.trim().is_empty() => (
                judged
                    .trim()
                    .trim_end_matches(['。', '；', ';'])
                    .to_string(),
                next.trim_start_matches(['：', ':', ' ']).trim().to_string(),
            ),
            _ => (r.to_string(), r.to_string()),
        }
    }
}

/// Reads the host's JSON: the design's fields; the options split out of
/// `answers` (2–4 of them, or the host must still be ending the date).
fn read_host(text: &str, ids: [&str; 2]) -> Result<HostRead, Unusable> {
    let v = extract_object(text)?;
    let action = v.get("action").ok_or("missing `action`")?;
    let field = |o: &Value, k: &str| o.get(k).and_then(text_of);
    let end = field(action, "type").is_some_and(|t| t.eq_ignore_ascii_case("end"));
    let object = field(action, "object").unwrap_or_default();
    let question = field(action, "question").unwrap_or_default();
    let answers = action.get("answers").map(answers_of).unwrap_or_default();
    let options = split_options(&answers);
    if !end {
        if !ids.contains(&object.as_str()) {
            return Err(format!("`action.object` must be one of {ids:?}").into());
        }
        if question.trim().is_empty() {
            return Err("`action.question` is empty".into());
        }
        if !(2..=4).contains(&options.len()) {
            return Err("`action.answers` must offer 2–4 options: \"A. … B. …\"".into());
        }
    }
    let rate = v.get("cumulative_rate").and_then(number_of);
    let turn = HostTurn {
        action: HostAction {
            kind: if end { "end" } else { "predict" }.into(),
            object: crate::scenario::ResidentId::new(object.as_str()),
            question,
            answers,
        },
        time: field(&v, "time").unwrap_or_default(),
        cumulative_rate: rate.map(|r| r.to_string()).unwrap_or_default(),
        rationale: field(&v, "rationale").unwrap_or_default(),
    };
    Ok(HostRead {
        turn,
        options,
        rate,
        end,
    })
}

/// Reads an avatar's JSON; the option must be one of `letters`.
fn read_avatar(text: &str, letters: &[String], gender: &str) -> Result<AvatarTurn, Unusable> {
    let v = extract_object(text)?;
    let decision = v.get("decision").ok_or("missing `decision`")?;
    let option = decision
        .get("option")
        .and_then(text_of)
        .map(|o| {
            o.trim()
                .trim_end_matches(['.', '．', '、'])
                .to_ascii_uppercase()
        })
        .ok_or("missing `decision.option`")?;
    if !letters.contains(&option) {
        return Err(format!(
            "`decision.option` {option:?} is not offered: choose one of {}",
            letters.join(", ")
        )
        .into());
    }
    Ok(AvatarTurn {
        gender: gender.to_string(),
        decision: Decision {
            option,
            content: decision
                .get("content")
                .and_then(text_of)
                .unwrap_or_default(),
        },
        rationale: v.get("rationale").and_then(text_of).unwrap_or_default(),
    })
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A score as a model writes it: `"32"`, `32`, `"32分"`.
fn number_of(v: &Value) -> Option<i32> {
    match v {
        Value::Number(n) => n.as_f64().map(|f| f.round() as i32),
        Value::String(s) => {
            let digits: String = s
                .trim()
                .chars()
                .skip_while(|c| !c.is_ascii_digit() && *c != '-')
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            digits.parse().ok()
        }
        _ => None,
    }
}

/// `answers` as the design writes it, or a list a model may send instead.
fn answers_of(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let texts: Vec<String> = items.iter().filter_map(text_of).collect();
            let bare: Vec<String> = texts
                .iter()
                .map(|t| strip_letter(t).unwrap_or(t).trim().to_string())
                .collect();
            Posed::answers(&bare)
        }
        other => text_of(other).unwrap_or_default(),
    }
}

/// `"A. x"` → `"x"`.
fn strip_letter(t: &str) -> Option<&str> {
    let t = t.trim_start();
    let mut chars = t.chars();
    let letter = chars.next()?;
    let sep = chars.next()?;
    (('A'..='D').contains(&letter) && is_separator(sep)).then_some(chars.as_str())
}

fn is_separator(c: char) -> bool {
    matches!(c, '.' | '．' | '、' | ':' | '：' | ')' | '）')
}

/// `"A. x B. y C. z"` → `[x, y, z]`: each letter in turn, at the start or
/// after a space or punctuation, followed by a separator.
pub(crate) fn split_options(answers: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = answers.char_indices().collect();
    let mut marks = Vec::new();
    let mut want = 'A';
    for (k, &(at, c)) in chars.iter().enumerate() {
        let starts = k == 0 || !chars[k - 1].1.is_ascii_alphanumeric();
        let sep = chars.get(k + 1).is_some_and(|&(_, s)| is_separator(s));
        if c == want && starts && sep {
            marks.push((at, chars[k + 1].0 + chars[k + 1].1.len_utf8()));
            want = char::from(want as u8 + 1);
            if want > 'D' {
                break;
            }
        }
    }
    marks
        .iter()
        .enumerate()
        .map(|(i, &(_, from))| {
            let to = marks.get(i + 1).map_or(answers.len(), |m| m.0);
            answers[from..to].trim().to_string()
        })
        .filter(|o| !o.is_empty())
        .collect()
}

#[cfg(test)]
mod tests;
