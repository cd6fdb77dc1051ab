//! Memory across sessions (the design's 长记忆: the records and forms of a
//! whole course of sessions). A player's past sessions of a script set — the
//! values of the globals declared `persist: true`, the forms as filled, a
//! summary of each — are handed to [`Engine::start_course`]: the new session
//! starts with the persisted values, its prompts are told the past summaries
//! and the forms last filled, and `{history}` reads them. At its end the
//! engine asks for its summary (one request; offline, one is made from the
//! forms) and hands the host a [`SessionRecord`] to keep.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Engine;
use super::protocol::{Effect, EngineError, LlmKind, State, Var};
use crate::context::{Layer, PromptLayers};

/// One finished session of a player's course, as the save keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The session played.
    pub session: String,
    /// When it began and ended, by the host's clock.
    pub started: String,
    /// When it ended.
    pub ended: String,
    /// What happened in it, for the next session.
    pub summary: String,
    /// The forms as filled: form → field → value.
    pub forms: BTreeMap<String, BTreeMap<String, String>>,
    /// The `persist: true` globals' values at its end.
    pub persisted: BTreeMap<String, Var>,
}

/// A player's course of one script set: its finished sessions, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Course {
    /// The sessions, oldest first.
    pub sessions: Vec<SessionRecord>,
}

impl Course {
    /// Each persisted variable's latest value.
    pub fn persisted(&self) -> BTreeMap<String, Var> {
        let mut out = BTreeMap::new();
        for s in &self.sessions {
            out.extend(s.persisted.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        out
    }

    /// Each form field's latest value over the sessions.
    pub fn last_forms(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for s in &self.sessions {
            for (form, fields) in &s.forms {
                let f = out.entry(form.clone()).or_default();
                f.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        out
    }

    /// The session to play next out of `order` (the sessions in the order a
    /// course goes through them): the first not played yet; once all have
    /// been, the last one again. `None` when `order` is empty.
    pub fn next_session<'o>(&self, order: &'o [String]) -> Option<&'o str> {
        let played = |s: &String| self.sessions.iter().any(|r| r.session == *s);
        order
            .iter()
            .find(|s| !played(s))
            .or(order.last())
            .map(String::as_str)
    }

    /// `{history}`: one line per past session, oldest first (empty before
    /// the first: falsy in a condition).
    pub fn history_text(&self) -> String {
        let lines: Vec<String> = self.sessions.iter().map(past_line).collect();
        lines.join("\n")
    }
}

/// A past session as one line: when, which, and its summary.
fn past_line(s: &SessionRecord) -> String {
    format!("（{}）{}：{}", s.started, s.session, s.summary)
}

/// A session played as part of a course (in the state, so a saved session
/// resumes with it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CourseRun {
    /// The sessions before this one.
    pub(crate) past: Course,
    /// When this one began, by the host's clock.
    pub(crate) started: String,
    /// Its summary, once written (the session then ends).
    pub(crate) summary: Option<String>,
    /// The persisted values not set yet: set as the session starts (so
    /// they fill forms and show in the transcript as any value would).
    #[serde(default)]
    pub(crate) recall: BTreeMap<String, Var>,
}

impl Engine<'_> {
    /// A fresh state at the start of `session`, the next of `course`: the
    /// `persist: true` globals start with their last values (as something
    /// the conversation has told), and the session ends with its record.
    pub fn start_course(&self, session: &str, course: &Course) -> Result<State, EngineError> {
        let mut st = self.start(session)?;
        let recall = course
            .persisted()
            .into_iter()
            .filter(|(name, v)| self.script.persistent.contains(name) && *v != Var::Null)
            .collect();
        st.course = Some(CourseRun {
            past: course.clone(),
            started: self.now.clone(),
            summary: None,
            recall,
        });
        Ok(st)
    }

    /// As a course session starts: the persisted values are set (a
    /// `course_recalled` effect, then each as any `set`).
    pub(super) fn recall_course(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(run) = st.course.as_mut() else {
            return;
        };
        let recall = std::mem::take(&mut run.recall);
        let sessions = run.past.sessions.len();
        if sessions == 0 {
            return;
        }
        fx.push(Effect::CourseRecalled {
            sessions,
            values: recall.clone(),
        });
        for (name, v) in recall {
            self.set(st, &name, v, fx);
        }
    }

    /// At a course session's end, asks for its summary (true: asked).
    pub(super) fn request_summary(&self, st: &mut State, fx: &mut Vec<Effect>) -> bool {
        if st.course.as_ref().is_none_or(|c| c.summary.is_some()) {
            return false;
        }
        let (ai, human) = self.script.default_roles();
        let forms = filled_forms_text(st);
        let task = format!(
            "任务：会谈「{}」刚刚结束。写一段会谈小结，留给下一次会谈时的你看：{human}的情况和变化、这次聊了什么、约定了什么（作业、下次的打算）。不超过150字，只写小结本身。",
            st.session
        );
        let moment = format!("现在是{}。会谈已经结束。{forms}", self.now);
        let persona = format!("你是{ai}，在写会谈记录。");
        let prompt = self.step_prompt(st, persona, moment, st.chat_since(0), task);
        self.request(st, LlmKind::Summary, prompt, Vec::new(), false, fx);
        true
    }

    /// The summary came back (an empty one — the offline answer — is made
    /// from the forms): the record is handed to the host.
    pub(super) fn summary_answered(&self, st: &mut State, text: &str, fx: &mut Vec<Effect>) {
        let text = unquoted(text.trim());
        let summary = if text.is_empty() {
            self.offline_summary(st)
        } else {
            text.to_string()
        };
        let persisted = self
            .script
            .persistent
            .iter()
            .filter_map(|name| st.global.get(name).map(|v| (name.clone(), v.clone())))
            .filter(|(_, v)| *v != Var::Null)
            .collect();
        let Some(run) = st.course.as_mut() else {
            return;
        };
        run.summary = Some(summary.clone());
        let record = SessionRecord {
            session: st.session.clone(),
            started: run.started.clone(),
            ended: self.now.clone(),
            summary,
            forms: st.forms.clone(),
            persisted,
        };
        fx.push(Effect::SessionRecorded { record });
    }

    /// A summary without a model: the session and what its forms hold, in
    /// the forms' order, each field once (else the variables the
    /// conversation gave).
    pub(super) fn offline_summary(&self, st: &State) -> String {
        let mut noted: Vec<String> = Vec::new();
        for (_, fields) in self.filled_forms(st) {
            for (field, value) in fields {
                let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
                    continue;
                };
                let item = format!("{field}：{}", brief(&value));
                if !noted.contains(&item) {
                    noted.push(item);
                }
            }
        }
        if noted.is_empty() {
            let given = st.global.iter().chain(&st.session_vars);
            noted = given
                .filter(|(k, v)| st.given.contains(*k) && !v.text().trim().is_empty())
                .map(|(k, v)| format!("{k}：{}", brief(&v.text())))
                .collect();
        }
        if noted.is_empty() {
            format!("「{}」：聊了{}句，没有记下什么。", st.session, st.said)
        } else {
            format!("「{}」：{}。", st.session, noted.join("；"))
        }
    }
}

/// A model's summary without the quotes it may wrap it in (a pair only:
/// 「初次会谈」：… keeps its own).
fn unquoted(text: &str) -> &str {
    for (open, close) in [('"', '"'), ('「', '」'), ('“', '”')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close))
            && !inner.contains([open, close])
        {
            return inner.trim();
        }
    }
    text
}

/// The course's layers of a prompt: the forms last filled (用户画像) and
/// the past sessions' summaries, newest first (相关历史: the oldest cut first).
pub(super) fn course_layers(st: &State, l: &mut PromptLayers) {
    let Some(run) = &st.course else {
        return;
    };
    for (form, fields) in run.past.last_forms() {
        l.push(Layer::Profile, format!("{form}：{}", fields_line(&fields)));
    }
    l.extend(
        Layer::Retrieved,
        run.past.sessions.iter().rev().map(past_line),
    );
}

/// A form's fields as a prompt lists them: `称呼：小林；主诉：失眠`.
fn fields_line(fields: &BTreeMap<String, String>) -> String {
    let filled: Vec<String> = fields.iter().map(|(k, v)| format!("{k}：{v}")).collect();
    filled.join("；")
}

/// The forms filled this session, for the summary's prompt.
fn filled_forms_text(st: &State) -> String {
    let forms: Vec<String> = st
        .forms
        .iter()
        .map(|(form, fields)| format!("\n- {form}：{}", fields_line(fields)))
        .collect();
    if forms.is_empty() {
        String::new()
    } else {
        format!("\n这次填好的表：{}", forms.concat())
    }
}

/// A value as a summary lists it: without its closing stop, at most 40
/// characters.
fn brief(value: &str) -> String {
    let value = value.trim().trim_end_matches(super::offline::SENTENCE_END);
    if value.chars().count() <= 40 {
        return value.to_string();
    }
    let cut: String = value.chars().take(39).collect();
    format!("{cut}…")
}
