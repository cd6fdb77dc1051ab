//! A session hosted for an interactive UI (the window's chat panel): the
//! engine's state plus what a chat view and a debugging view need — the lines
//! shown so far, the current choices or prompt, the goal stack, and every
//! variable by scope. No Bevy and no I/O: the caller hands in the player's
//! inputs and the LLM's replies (or asks for the offline answer).

use crate::context::Budgeting;

use super::engine::{
    Course, Effect, Engine, EngineError, Input, LlmRequest, Script, SessionRecord, State, Var,
    Wait, client_text, offline_reply,
};

/// The engine over `script` at the host's clock `now`.
fn engine<'s>(script: &'s Script, now: &str, budgeting: Budgeting) -> Engine<'s> {
    Engine {
        script,
        now: now.to_string(),
        budgeting,
    }
}

/// One entry of the chat as shown.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Shown {
    /// A line of an AI role (or a `say`).
    Line {
        /// The speaking role.
        role: String,
        /// The words.
        text: String,
    },
    /// What the player said, clicked or chose.
    Player {
        /// What they said or the option's text.
        text: String,
    },
    /// Scene changes, warnings, the end.
    Note {
        /// The note.
        text: String,
    },
}

/// What the player can do now.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Prompt {
    /// Click the line to go on (`user_say`).
    Continue(String),
    /// Pick one option: (key, text).
    Choose(Vec<(String, String)>),
    /// Type an answer.
    Type,
    /// An LLM step is under way.
    Thinking,
    /// The session is over.
    Done,
}

/// A session in progress.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Host {
    /// The engine's state (what a save keeps).
    pub state: State,
    /// The chat so far.
    pub shown: Vec<Shown>,
    /// What the player can do now.
    pub prompt: Prompt,
    /// Goal paths entered and not yet left, innermost last.
    pub(crate) goals: Vec<String>,
    /// The stage under way.
    pub(crate) stage: String,
    /// Every variable ever set: (where it lived, name, last value), as the
    /// design's debugging page lists them (goal variables outlive their goal here).
    pub vars: Vec<(String, String, Var)>,
    /// LLM replies answered offline (no model, or the model failed).
    pub(crate) offline_replies: u32,
    /// A course session's record, once it ended (the host's to keep).
    #[serde(default)]
    pub recorded: Option<SessionRecord>,
    /// The engine's warnings (a value missing from a line, a call placed
    /// elsewhere than it asked): for the log, never shown to the player.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The prompts' budget and token count (the host's model; not saved: a
    /// loaded session counts with the defaults until its host sets it again).
    #[serde(skip)]
    budgeting: Budgeting,
}

impl Host {
    /// Starts `session` (the first one when `None`), its prompts cut to
    /// `budgeting`.
    pub fn start(
        script: &Script,
        session: Option<&str>,
        now: &str,
        budgeting: Budgeting,
    ) -> Result<Host, EngineError> {
        let name = match session {
            Some(s) => s.to_string(),
            None => script
                .sessions
                .first()
                .map(|s| s.session.value.clone())
                .ok_or_else(|| EngineError::NoSession(String::new()))?,
        };
        let engine = engine(script, now, budgeting);
        Self::begin(script, now, engine.start(&name)?, budgeting)
    }

    /// Starts `session` as the next of the player's `course`: it begins with
    /// what the past sessions left, and ends with its record in `recorded`.
    pub fn start_course(
        script: &Script,
        session: &str,
        course: &Course,
        now: &str,
        budgeting: Budgeting,
    ) -> Result<Host, EngineError> {
        let engine = engine(script, now, budgeting);
        let state = engine.start_course(session, course)?;
        Self::begin(script, now, state, budgeting)
    }

    /// Starts one skill of the set on its own, its variables set from `inputs`
    /// (a resident running a skill in a town conversation).
    pub fn start_skill(
        script: &Script,
        skill: &str,
        inputs: std::collections::BTreeMap<String, String>,
        now: &str,
    ) -> Result<Host, EngineError> {
        let budgeting = Budgeting::default();
        let engine = engine(script, now, budgeting);
        Self::begin(script, now, engine.start_skill(skill, inputs)?, budgeting)
    }

    fn begin(
        script: &Script,
        now: &str,
        state: State,
        budgeting: Budgeting,
    ) -> Result<Host, EngineError> {
        let mut host = Host {
            state,
            shown: Vec::new(),
            prompt: Prompt::Thinking,
            goals: Vec::new(),
            stage: String::new(),
            vars: Vec::new(),
            offline_replies: 0,
            recorded: None,
            warnings: Vec::new(),
            budgeting,
        };
        host.resume(script, now, Input::Start)?;
        Ok(host)
    }

    /// The request the engine waits on, if any.
    pub fn pending(&self) -> Option<&LlmRequest> {
        match self.state.wait {
            Wait::Llm { .. } => self.state.pending.as_ref(),
            _ => None,
        }
    }

    /// Clicks the `user_say` line.
    pub fn click(&mut self, script: &Script, now: &str) -> Result<(), EngineError> {
        if let Prompt::Continue(text) = &self.prompt {
            self.shown.push(Shown::Player { text: text.clone() });
        }
        self.resume(script, now, Input::Continue)
    }

    /// Picks option `key`.
    pub fn choose(&mut self, script: &Script, now: &str, key: &str) -> Result<(), EngineError> {
        let text = match &self.prompt {
            Prompt::Choose(options) => options
                .iter()
                .find(|(k, _)| k == key)
                .map_or(key.to_string(), |(_, t)| t.clone()),
            _ => key.to_string(),
        };
        let input = Input::Choose {
            key: key.to_string(),
        };
        self.answer(script, now, text, input)
    }

    /// Sends the player's own words.
    pub fn say(&mut self, script: &Script, now: &str, text: &str) -> Result<(), EngineError> {
        let input = Input::Text {
            text: text.to_string(),
        };
        self.answer(script, now, text.to_string(), input)
    }

    /// Shows the player's line and hands in `input`; a refused input shows nothing.
    fn answer(
        &mut self,
        script: &Script,
        now: &str,
        shown: String,
        input: Input,
    ) -> Result<(), EngineError> {
        let before = self.shown.len();
        self.shown.push(Shown::Player { text: shown });
        let r = self.resume(script, now, input);
        if r.is_err() {
            self.shown.truncate(before);
        }
        r
    }

    /// Hands in the model's reply to request `id`.
    pub fn reply(
        &mut self,
        script: &Script,
        now: &str,
        id: u64,
        text: String,
    ) -> Result<(), EngineError> {
        self.resume(script, now, Input::LlmReply { id, text })
    }

    /// Answers the pending request with the built-in offline answer.
    pub fn reply_offline(&mut self, script: &Script, now: &str) -> Result<(), EngineError> {
        let Some(req) = self.pending().cloned() else {
            return Ok(());
        };
        let text = offline_reply(&self.state, &req);
        self.offline_replies += 1;
        self.reply(script, now, req.id, text)
    }

    fn resume(&mut self, script: &Script, now: &str, input: Input) -> Result<(), EngineError> {
        let engine = engine(script, now, self.budgeting);
        let effects = engine.resume(&mut self.state, input)?;
        let mut choices = None;
        let mut user_say = None;
        for e in effects {
            match e {
                Effect::Line { role, text, .. } => self.shown.push(Shown::Line {
                    role,
                    text: client_text(&text),
                }),
                Effect::UserSay { text } => user_say = Some(text),
                Effect::Choices { options, .. } => choices = Some(options),
                Effect::Warning { message } => self.warnings.push(message),
                Effect::SessionEnded => self.shown.push(Shown::Note {
                    text: "— 会谈结束 —".into(),
                }),
                Effect::CourseRecalled { sessions, .. } => self.shown.push(Shown::Note {
                    text: format!("— 第 {} 次会谈 —", sessions + 1),
                }),
                Effect::SessionRecorded { record } => {
                    self.shown.push(Shown::Note {
                        text: format!("📝 会谈小结：{}", record.summary),
                    });
                    self.recorded = Some(record);
                }
                Effect::StageEntered { stage } => self.stage = stage,
                Effect::GoalEntered { path, .. } => self.goals.push(path),
                Effect::GoalLeft { path } => {
                    if let Some(i) = self.goals.iter().rposition(|g| *g == path) {
                        self.goals.remove(i);
                    }
                }
                Effect::VarSet { name, scope, value } => {
                    let place = match scope.as_str() {
                        "goal" => format!("goal {}", self.goals.last().map_or("", String::as_str)),
                        "stage" => format!("stage {}", self.stage),
                        other => other.to_string(),
                    };
                    match self
                        .vars
                        .iter_mut()
                        .find(|(p, n, _)| *p == place && *n == name)
                    {
                        Some(v) => v.2 = value,
                        None => self.vars.push((place, name, value)),
                    }
                }
                _ => {}
            }
        }
        self.prompt = match &self.state.wait {
            Wait::Done => Prompt::Done,
            Wait::Continue => Prompt::Continue(user_say.unwrap_or_default()),
            Wait::Choice { .. } => Prompt::Choose(choices.unwrap_or_default()),
            Wait::Text => Prompt::Type,
            Wait::Llm { .. } | Wait::Start => Prompt::Thinking,
        };
        Ok(())
    }

    /// Where the session is: the stage, the goal path, and the action index
    /// with its stable id (the debugging view's header).
    pub fn position(&self) -> (String, String, Option<(usize, String)>) {
        let frame = self.state.frames.last();
        (
            self.stage.clone(),
            self.goals.last().cloned().unwrap_or_default(),
            frame.map(|f| (f.action, f.action_id.clone())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guardian() -> Script {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/heartvale/scripts/guardian");
        Script::load_clean(&dir).unwrap_or_else(|e| panic!("{e:#?}"))
    }

    /// A player clicks, chooses and types through the first session, the
    /// LLM steps answered offline, to the end.
    #[test]
    fn a_player_plays_the_first_session_to_the_end_offline() {
        let script = guardian();
        let now = "2026-04-06 10:00:00";
        let mut host = Host::start(&script, Some("初次会谈"), now, Budgeting::default()).unwrap();
        let mut steps = 0;
        let mut kinds = std::collections::BTreeSet::new();
        while host.prompt != Prompt::Done {
            steps += 1;
            assert!(steps < 500, "stuck at {:?}", host.prompt);
            match host.prompt.clone() {
                Prompt::Thinking => host.reply_offline(&script, now).unwrap(),
                Prompt::Continue(text) => {
                    assert!(!text.is_empty());
                    kinds.insert("continue");
                    host.click(&script, now).unwrap();
                }
                Prompt::Choose(options) => {
                    kinds.insert("choose");
                    // A wrong key is refused and shows nothing.
                    let shown = host.shown.len();
                    assert!(host.choose(&script, now, "不存在的选项").is_err());
                    assert_eq!(host.shown.len(), shown);
                    let (key, text) = options.last().unwrap().clone();
                    host.choose(&script, now, &key).unwrap();
                    assert!(host.shown.contains(&Shown::Player { text }));
                }
                Prompt::Type => {
                    kinds.insert("type");
                    host.say(
                        &script,
                        now,
                        "我叫小满，今年十六岁，家里有爸爸妈妈和一个姐姐。",
                    )
                    .unwrap();
                }
                Prompt::Done => {}
            }
        }
        assert_eq!(kinds.len(), 3, "{kinds:?}");
        assert!(host.offline_replies > 0);
        assert!(host.shown.iter().any(|s| matches!(s, Shown::Line { .. })));
        assert_eq!(
            host.shown.last(),
            Some(&Shown::Note {
                text: "— 会谈结束 —".into()
            })
        );
        assert!(
            host.vars.iter().any(|(_, _, v)| !v.text().is_empty()),
            "{:?}",
            host.vars
        );
        assert!(host.goals.is_empty(), "every goal left: {:?}", host.goals);
        assert_eq!(host.pending(), None);
    }
}
