//! Playing a session outside the game: the host loop around the engine, with
//! a pluggable human (a terminal or input file for `script run`, a persona for
//! `script play`) and a pluggable mind for the LLM steps (a real endpoint, or
//! the offline built-in answers). Every shown line, input and effect goes to a
//! JSON Lines transcript.

use std::io::Write;

use serde_json::json;

use super::engine::{
    Course, Effect, Engine, EngineError, Input, LlmRequest, SessionRecord, State, Var, Wait,
    client_text, offline_reply,
};

/// Who answers as the HUMAN role.
pub(crate) trait Human {
    /// Picks one of `options` (key, text); returns the key.
    fn choose(&mut self, options: &[(String, String)], state: &State) -> Option<String>;
    /// The human's own words after the AI's last line; `may_skip`: an empty
    /// answer is one (a `fill` field left blank).
    fn answer(&mut self, state: &State, may_skip: bool) -> Option<String>;
}

/// Answers LLM requests; `None` takes the built-in offline answer.
pub(crate) trait Mind {
    /// The model's answer to `req`, or `None` when there is none to be had.
    fn reply(&mut self, req: &LlmRequest) -> Option<String>;
}

/// No model: every request gets the built-in offline answer.
pub(crate) struct Offline;

impl Mind for Offline {
    fn reply(&mut self, _: &LlmRequest) -> Option<String> {
        None
    }
}

/// Replies read one per line: an option by its key (any case), its number or
/// its text; free text as is. A line that answers nothing is asked again
/// (what is accepted said on stderr), never the end of the session.
pub(crate) struct Scripted<I: Iterator<Item = String>> {
    pub(crate) lines: I,
}

impl<I: Iterator<Item = String>> Human for Scripted<I> {
    fn choose(&mut self, options: &[(String, String)], _: &State) -> Option<String> {
        loop {
            let line = self.lines.next()?;
            if let Some(key) = pick(options, line.trim()) {
                return Some(key);
            }
            let keys: Vec<&str> = options.iter().map(|(k, _)| k.as_str()).collect();
            eprintln!(
                "（请选 {}，或输入序号 1–{}）",
                keys.join("、"),
                options.len()
            );
        }
    }

    fn answer(&mut self, _: &State, may_skip: bool) -> Option<String> {
        loop {
            let line = self.lines.next()?;
            if may_skip || !line.trim().is_empty() {
                return Some(line.trim().to_string());
            }
            eprintln!("（请输入你的回答）");
        }
    }
}

/// The option `text` names: its key (any case), its number, or its text.
fn pick(options: &[(String, String)], text: &str) -> Option<String> {
    let by_key = options.iter().find(|(k, _)| k.eq_ignore_ascii_case(text));
    let by_number = text
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| options.get(i));
    let by_text = options.iter().find(|(_, t)| t == text);
    by_key.or(by_number).or(by_text).map(|(k, _)| k.clone())
}

/// The built-in playtester: a persona description answers in its own words
/// (the sentence of it nearest the question, fresh ones preferred; its
/// name when asked for one, its family when asked about it, a score when
/// asked for one), says so when nothing it knows answers, and picks the
/// option closest to what it says.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Persona {
    pub(crate) sentences: Vec<String>,
    used: Vec<usize>,
    /// Questions it had nothing for (its non-answers take turns).
    #[serde(default)]
    dodged: usize,
}

impl Persona {
    pub(crate) fn new(description: &str) -> Self {
        let sentences: Vec<String> = description
            .split(['。', '！', '？', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.starts_with('#'))
            .map(|s| format!("{s}。"))
            .collect();
        let used = vec![0; sentences.len()];
        Self {
            sentences,
            used,
            dodged: 0,
        }
    }
}

mod playtest;

/// Two-character words of `a` that `b` also has (Chinese words are mostly
/// two characters; single shared characters match too much).
fn overlap(a: &str, b: &str) -> usize {
    let chars: Vec<char> = a.chars().collect();
    chars
        .windows(2)
        .filter(|w| w.iter().all(|c| c.is_alphanumeric()))
        .map(|w| w.iter().collect::<String>())
        .filter(|w| !COMMON.contains(&w.as_str()) && b.contains(w.as_str()))
        .count()
}

/// Two-character words every question has (能说说, 什么, 最近): shared,
/// they say nothing about what is asked.
const COMMON: &[&str] = &[
    "说说", "什么", "怎么", "最近", "一下", "可以", "没有", "有没", "是不", "不是", "这个", "那个",
    "时候", "自己", "一个", "我们", "你们", "平时",
];

impl Human for Persona {
    fn choose(&mut self, options: &[(String, String)], _: &State) -> Option<String> {
        let me: String = self.sentences.concat();
        // The option closest to one of its sentences (shared two-character
        // words), then sharing most characters with the whole; the first on ties.
        options
            .iter()
            .max_by_key(|(k, text)| {
                let words = self
                    .sentences
                    .iter()
                    .map(|s| overlap(text, s))
                    .max()
                    .unwrap_or(0);
                let shared = text.chars().filter(|c| me.contains(*c)).count();
                (words, shared, std::cmp::Reverse(k.clone()))
            })
            .map(|(k, _)| k.clone())
    }

    fn answer(&mut self, state: &State, _: bool) -> Option<String> {
        if self.sentences.is_empty() {
            return Some("嗯。".into());
        }
        let question = state
            .chat
            .iter()
            .rev()
            .find(|l| l.role != state.human_role)
            .map_or("", |l| l.text.as_str());
        if let Some(a) = playtest::asked_for(question, &self.sentences) {
            return Some(a);
        }
        // Relevance first (shared words, the same topic); each earlier use
        // costs two shared words.
        // Its own name in the question (林小溪最近…) is no shared word.
        let question = match playtest::own_name(&self.sentences) {
            Some(name) => question.replace(name, "你"),
            None => question.to_string(),
        };
        let question = question.as_str();
        let relevance = |s: &str| 2 * overlap(s, question) + 3 * playtest::same_topic(question, s);
        let best = (0..self.sentences.len()).max_by_key(|&i| {
            let score = relevance(&self.sentences[i]) as i64 - 4 * self.used[i] as i64;
            (score, std::cmp::Reverse(self.used[i]), std::cmp::Reverse(i))
        })?;
        // Nothing asked (the talk opens with it): it introduces itself.
        if relevance(&self.sentences[best]) == 0 && !question.is_empty() {
            self.dodged += 1;
            return Some(playtest::dodge(question, self.dodged).to_string());
        }
        self.used[best] += 1;
        Some(self.sentences[best].clone())
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    Done,
    /// The human had nothing more to say (input file exhausted).
    OutOfInput,
}

/// A finished (or stopped) run.
#[derive(Debug, Clone)]
pub(crate) struct Played {
    pub(crate) outcome: Outcome,
    pub(crate) state: State,
    /// Every variable ever set, by where it lived (`global`, `session`,
    /// `stage 名`, `goal 阶段/话题`), with its last value: goal variables are
    /// gone from the state when their goal ends, but a playtest wants them.
    pub(crate) vars: Vec<(String, String, Var)>,
    /// In a course: the session's record for the next ones (once it ended).
    pub(crate) record: Option<SessionRecord>,
}

/// The people of a run: who answers as the human, and the model.
pub(crate) struct Players<'p> {
    pub(crate) human: &'p mut dyn Human,
    pub(crate) mind: &'p mut dyn Mind,
}

/// Plays `session` to the end. `show` prints each line as a terminal shows
/// it; `transcript` gets one JSON object per line, input and effect. With a
/// `course`, the session is the next of the player's course: it starts with
/// what the past ones left and ends with its record.
pub(crate) fn play(
    engine: &Engine,
    clock: &dyn Fn() -> String,
    (session, course): (&str, Option<&Course>),
    Players { human, mind }: Players<'_>,
    show: &mut dyn Write,
    transcript: &mut dyn Write,
) -> Result<Played, EngineError> {
    let mut st = match course {
        Some(c) => engine.start_course(session, c)?,
        None => engine.start(session)?,
    };
    // What a replay needs besides the inputs: the session, the clock, the
    // script, how prompt tokens were counted, the course it continued.
    let _ = writeln!(
        transcript,
        "{}",
        json!({ "start": {
            "session": session,
            "now": engine.now,
            "script_hash": format!("{:016x}", engine.script.hash),
            "counter": engine.budgeting.counter.name(),
            "course": course,
        } })
    );
    let mut input = Input::Start;
    let mut places = VarPlaces::default();
    let mut record = None;
    loop {
        // Prompts read the clock as it is now (kept with the input for a replay).
        let now = clock();
        let _ = writeln!(transcript, "{}", json!({ "input": input, "now": now }));
        let step = Engine { now, ..*engine };
        let effects = step.resume(&mut st, input)?;
        for e in &effects {
            let _ = writeln!(transcript, "{}", json!({ "effect": e }));
            show_effect(show, e);
            places.note(e);
            if let Effect::SessionRecorded { record: r } = e {
                record = Some(r.clone());
            }
        }
        let outcome = match st.wait {
            Wait::Done => Outcome::Done,
            _ => match answer(&st, &effects, (human, mind), show, transcript) {
                Some(next) => {
                    input = next;
                    continue;
                }
                None => Outcome::OutOfInput,
            },
        };
        return Ok(Played {
            outcome,
            state: st,
            vars: places.vars,
            record,
        });
    }
}

/// A terminal's view of an effect (nothing for the bookkeeping ones).
fn show_effect(show: &mut dyn Write, e: &Effect) {
    let _ = match e {
        Effect::Line { role, text, .. } => writeln!(show, "{role}：{}", client_text(text)),
        Effect::UserSay { text } => writeln!(show, "  ▶ {text}"),
        Effect::Choices { options, .. } => {
            for (i, (k, t)) in options.iter().enumerate() {
                let _ = writeln!(show, "  {}) {k}. {t}", i + 1);
            }
            Ok(())
        }
        // For the writer, not the client: stderr (and the transcript).
        Effect::Warning { message } => writeln!(std::io::stderr(), "⚠ {message}"),
        Effect::RuleFired { rule, skill } => writeln!(show, "  〔规则「{rule}」→ {skill}〕"),
        Effect::StageOvertime {
            stage,
            minutes,
            skipped,
        } => writeln!(
            show,
            "  〔「{stage}」{minutes} 分钟到了，跳过：{}〕",
            if skipped.is_empty() {
                "无".to_string()
            } else {
                skipped.join("、")
            }
        ),
        Effect::SessionEnded => writeln!(show, "— 会谈结束 —"),
        Effect::CourseRecalled { sessions, values } => {
            let kept: Vec<String> = values
                .iter()
                .map(|(k, v)| format!("{k}＝{}", v.text()))
                .collect();
            let kept = if kept.is_empty() {
                String::new()
            } else {
                format!("，记得：{}", kept.join("；"))
            };
            writeln!(show, "  〔疗程第 {} 次会谈{kept}〕", sessions + 1)
        }
        Effect::SessionRecorded { record } => {
            writeln!(show, "  〔会谈小结：{}〕", record.summary)
        }
        _ => Ok(()),
    };
}

/// Every variable ever set, by where it lived, with its last value (goal
/// variables are gone from the state when their goal ends).
#[derive(Default)]
struct VarPlaces {
    goals: Vec<String>,
    stage: String,
    vars: Vec<(String, String, Var)>,
}

impl VarPlaces {
    fn note(&mut self, e: &Effect) {
        match e {
            Effect::StageEntered { stage } => self.stage = stage.clone(),
            Effect::GoalEntered { path, .. } => self.goals.push(path.clone()),
            Effect::GoalLeft { .. } => {
                self.goals.pop();
            }
            Effect::VarSet { name, scope, value } => {
                let place = match scope.as_str() {
                    "goal" => format!(
                        "goal {}",
                        self.goals
                            .last()
                            .map_or("", |g| g.split_once('/').map_or(g.as_str(), |(_, p)| p))
                    ),
                    "stage" => format!("stage {}", self.stage),
                    other => other.to_string(),
                };
                match self
                    .vars
                    .iter_mut()
                    .find(|(p, n, _)| *p == place && n == name)
                {
                    Some(v) => v.2 = value.clone(),
                    None => self.vars.push((place, name.clone(), value.clone())),
                }
            }
            _ => {}
        }
    }
}

/// What the engine waits for, answered: by the human (`None` when it has no
/// more to say), or by the mind (offline when it has no answer).
fn answer(
    st: &State,
    effects: &[Effect],
    (human, mind): (&mut dyn Human, &mut dyn Mind),
    show: &mut dyn Write,
    transcript: &mut dyn Write,
) -> Option<Input> {
    match st.wait.clone() {
        Wait::Start | Wait::Done => Some(Input::Start),
        Wait::Continue => Some(Input::Continue),
        Wait::Choice { .. } => {
            let options: Vec<(String, String)> = effects
                .iter()
                .rev()
                .find_map(|e| match e {
                    Effect::Choices { options, .. } => Some(options.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            let key = human.choose(&options, st)?;
            let _ = writeln!(show, "  > {key}");
            Some(Input::Choose { key })
        }
        Wait::Text => {
            // A form's field may be left blank (an empty line).
            let fill = effects.iter().any(|e| {
                matches!(e, Effect::Line { action, .. } if *action == crate::script::format::ActionKind::Fill)
            });
            if fill {
                let _ = writeln!(show, "  （这一项可以直接回车跳过）");
            }
            let text = human.answer(st, fill)?;
            let _ = writeln!(show, "  > {text}");
            Some(Input::Text { text })
        }
        Wait::Llm { id } => {
            let req = st.pending.clone().expect("a pending request");
            let (text, offline) = match mind.reply(&req) {
                Some(t) => (t, false),
                None => (offline_reply(st, &req), true),
            };
            let _ = writeln!(
                transcript,
                "{}",
                json!({ "llm_reply": { "id": id, "offline": offline, "text": text } })
            );
            Some(Input::LlmReply { id, text })
        }
    }
}

/// Why a transcript does not replay.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ReplayError {
    #[error("line {line}: {message}")]
    Unreadable { line: usize, message: String },
    #[error("the transcript has no start line (session and clock)")]
    NoStart,
    #[error("{0}")]
    Engine(#[from] EngineError),
    #[error("effect {index} differs:\n  recorded: {recorded}\n  replayed: {replayed}")]
    Differs {
        index: usize,
        recorded: String,
        replayed: String,
    },
    #[error("the replay gave {replayed} effects, the transcript has {recorded}")]
    Length { recorded: usize, replayed: usize },
}

/// What a replay matched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replayed {
    pub(crate) inputs: usize,
    pub(crate) effects: usize,
    /// The script changed since the recording (the effects may still match).
    pub(crate) script_changed: bool,
}

/// A transcript read back: its start line, the inputs with the clock each
/// came at, and the effects recorded.
struct Recorded {
    start: serde_json::Value,
    inputs: Vec<(Input, Option<String>)>,
    effects: Vec<serde_json::Value>,
}

fn read_transcript(transcript: &str) -> Result<Recorded, ReplayError> {
    let mut start = None;
    let mut inputs = Vec::new();
    let mut effects = Vec::new();
    for (i, line) in transcript.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| ReplayError::Unreadable {
            line: i + 1,
            message,
        };
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        if let Some(s) = v.get("start") {
            start = Some(s.clone());
        } else if let Some(input) = v.get("input") {
            let now = v.get("now").and_then(|n| n.as_str()).map(str::to_string);
            let input = serde_json::from_value(input.clone()).map_err(|e| bad(e.to_string()))?;
            inputs.push((input, now));
        } else if let Some(effect) = v.get("effect") {
            effects.push(effect.clone());
        }
    }
    Ok(Recorded {
        start: start.ok_or(ReplayError::NoStart)?,
        inputs,
        effects,
    })
}

/// The course a recorded session continued (none: a session on its own).
fn course_of(start: &serde_json::Value) -> Result<Option<Course>, ReplayError> {
    match start.get("course") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(c) => {
            serde_json::from_value(c.clone())
                .map(Some)
                .map_err(|e| ReplayError::Unreadable {
                    line: 1,
                    message: format!("the start line's course: {e}"),
                })
        }
    }
}

/// Runs a transcript's inputs (the human's and the model's replies) through the
/// engine again and compares every effect with the recorded one: the same
/// script and inputs give the same run, so a playtest can be re-checked after
/// an engine change, and a changed script shows where it now differs.
pub(crate) fn replay(
    script: &super::engine::Script,
    transcript: &str,
) -> Result<Replayed, ReplayError> {
    let Recorded {
        start,
        inputs,
        effects: recorded,
    } = read_transcript(transcript)?;
    let text = |k: &str| {
        start
            .get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    // Prompts are cut as they were: default budget, the recorded counter.
    let budget = crate::context::PromptBudget::default();
    let engine = Engine {
        script,
        now: text("now"),
        budgeting: crate::context::Budgeting::new(
            &budget,
            crate::context::TokenCounter::named(&text("counter"), &budget),
        ),
    };
    let mut st = match course_of(&start)? {
        Some(c) => engine.start_course(&text("session"), &c)?,
        None => engine.start(&text("session"))?,
    };
    let mut replayed = Vec::new();
    for (input, now) in &inputs {
        let step = Engine {
            now: now.clone().unwrap_or_else(|| engine.now.clone()),
            ..engine
        };
        for e in step.resume(&mut st, input.clone())? {
            replayed.push(serde_json::to_value(&e).expect("effects are plain data"));
        }
    }
    for (index, (r, p)) in recorded.iter().zip(&replayed).enumerate() {
        if r != p {
            return Err(ReplayError::Differs {
                index,
                recorded: r.to_string(),
                replayed: p.to_string(),
            });
        }
    }
    if recorded.len() != replayed.len() {
        return Err(ReplayError::Length {
            recorded: recorded.len(),
            replayed: replayed.len(),
        });
    }
    Ok(Replayed {
        inputs: inputs.len(),
        effects: replayed.len(),
        script_changed: text("script_hash") != format!("{:016x}", script.hash),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persona_answers_in_turn_and_picks_the_closest_option() {
        let mut p = Persona::new("我叫小林，十五岁。最近总睡不好！想进去看看。");
        assert_eq!(
            p.sentences,
            ["我叫小林，十五岁。", "最近总睡不好。", "想进去看看。"]
        );
        let options = vec![
            ("A".to_string(), "心谷是什么地方?".to_string()),
            ("B".to_string(), "我要进去看看".to_string()),
        ];
        let st: State = serde_json::from_value(serde_json::json!({
            "version": 1, "script_hash": 0, "session": "s", "stages": [], "frames": [],
            "global": {}, "session_vars": {}, "stage_vars": {}, "chat": [], "said": 0,
            "ai_role": "AI", "scene": null, "wait": "Start", "next_request": 0, "pending": null
        }))
        .unwrap();
        assert_eq!(p.choose(&options, &st).as_deref(), Some("B"));
        assert_eq!(p.answer(&st, false).as_deref(), Some("我叫小林，十五岁。"));
        assert_eq!(p.answer(&st, false).as_deref(), Some("最近总睡不好。"));
    }
}
