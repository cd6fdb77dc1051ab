//! What goes in and out of the engine, and the whole resumable [`State`]:
//! plain serde data, positions stored by names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::script::condition::Value;
use crate::script::format::ActionKind;

/// State format version: bump when [`State`] changes shape.
pub const STATE_VERSION: u32 = 1;
/// Actions one `resume` may run before it declares a runaway (a call cycle).
pub const STEP_BUDGET: u32 = 200_000;
/// Chat lines kept for prompts.
pub const CHAT_KEEP: usize = 40;
/// Lines kept at most, even for a long goal still running (its chat is read whole).
pub const CHAT_MOST: usize = 400;

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Var {
    /// Text.
    Text(String),
    /// `true` / `false`, as YAML or a `set` wrote it.
    Bool(bool),
    /// A number, as YAML or a `set` wrote it.
    Num(f64),
    /// A list of records (from `tolist`, or filled by `fromlist` calls).
    List(Vec<BTreeMap<String, String>>),
    /// Declared with no value yet.
    Null,
}

impl Var {
    /// A YAML or JSON value as a variable: lists of records stay lists.
    pub(super) fn from_json(v: &serde_json::Value) -> Var {
        match v {
            serde_json::Value::Null => Var::Null,
            serde_json::Value::String(s) => Var::Text(s.clone()),
            serde_json::Value::Bool(b) => Var::Bool(*b),
            serde_json::Value::Number(n) => n.as_f64().map_or(Var::Null, Var::Num),
            serde_json::Value::Array(items) => Var::List(
                items
                    .iter()
                    .map(|i| match i {
                        serde_json::Value::Object(m) => {
                            m.iter().map(|(k, v)| (k.clone(), json_text(v))).collect()
                        }
                        other => BTreeMap::from([("value".to_string(), json_text(other))]),
                    })
                    .collect(),
            ),
            other => Var::Text(json_text(other)),
        }
    }

    /// As interpolated into text.
    pub fn text(&self) -> String {
        match self {
            Var::Text(s) => s.clone(),
            Var::Bool(b) => b.to_string(),
            Var::Num(n) => number_text(*n),
            Var::Null => String::new(),
            Var::List(items) => {
                let rows: Vec<String> = items
                    .iter()
                    .map(|r| {
                        let fields: Vec<String> =
                            r.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        format!("{{{}}}", fields.join(", "))
                    })
                    .collect();
                format!("[{}]", rows.join(", "))
            }
        }
    }

    /// As the condition language sees it.
    pub(super) fn condition_value(&self) -> Value {
        match self {
            Var::Text(s) => Value::Str(s.clone()),
            Var::Bool(b) => Value::Bool(*b),
            Var::Num(n) => Value::Num(*n),
            Var::Null => Value::Null,
            Var::List(items) => Value::List(
                items
                    .iter()
                    .map(|r| r.values().cloned().collect::<Vec<_>>().join("/"))
                    .collect(),
            ),
        }
    }
}

/// A JSON value as text: strings without their quotes.
pub(super) fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A goal waiting in a stage's queue or running: the stage's own, or a skill
/// called with its bindings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoalRef {
    /// The goal's name (a skill's name for calls).
    pub(crate) goal: String,
    /// Inserted by a `call` (the debugging view marks these).
    pub(crate) skill: Option<SkillCall>,
}

/// How a skill goal was called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillCall {
    /// Skill variables set on entry (already evaluated in the caller's scope).
    pub(crate) inputs: BTreeMap<String, String>,
    /// (caller variable, value template in the skill's scope) written on exit.
    pub(crate) outputs: Vec<(String, String)>,
    /// With `fromlist`: the list variable and this goal's item.
    pub(crate) item: Option<(String, usize)>,
}

/// A goal being run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Which goal.
    pub(crate) goal: GoalRef,
    /// Stage the goal belongs to (its own stage for stage goals).
    pub(crate) stage: String,
    /// Index of the next action, and its stable id (kind and text) as of the
    /// last wait, to find it again in an edited script.
    pub action: usize,
    /// The action's stable id (see `action`).
    #[serde(alias = "action_key")]
    pub(crate) action_id: String,
    /// `ai_ask` rounds done for the current action.
    pub rounds: u32,
    /// The goal's own variables.
    pub(crate) vars: BTreeMap<String, Var>,
    /// The goal's chat so far (for `think`).
    pub(crate) chat_from: usize,
    /// Goals to run before this one goes on (a `BEFORE_GOAL` call paused it).
    pub(crate) before: Vec<GoalRef>,
    /// Goals to run as soon as this one ends (`AFTER_GOAL` calls made in it):
    /// inside a called skill they run before its caller goes on.
    #[serde(default)]
    pub(crate) after: Vec<GoalRef>,
    /// The auto variables were brought up to date at this goal's end.
    #[serde(default)]
    pub(crate) updated: bool,
    /// `said` when the current action began (the chat an `ask` extracts from).
    #[serde(default)]
    pub(crate) action_from: usize,
    /// An `ai_ask` used its rounds on a question: the human answers it, then
    /// the outputs are extracted and the goal goes on.
    #[serde(default)]
    pub(crate) closing: bool,
    /// The action before which the auto variables it reads were brought up
    /// to date (once per action, not per `ai_ask` round).
    #[serde(default)]
    pub(crate) updated_before: Option<usize>,
}

/// A stage of the session: the goals still queued, and whether it began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRun {
    /// The stage's name.
    pub(crate) stage: String,
    /// Goals still to run, in order (calls insert theirs here).
    pub(crate) queue: Vec<GoalRef>,
    /// Its variables are declared and `StageEntered` was reported.
    pub(crate) entered: bool,
    /// When it was entered, by the host's clock (its time budget counts from here).
    #[serde(default)]
    pub(crate) entered_at: Option<String>,
    /// Its time budget ran out (what was left was skipped, once).
    #[serde(default)]
    pub(crate) overtime: bool,
}

/// What the engine waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Wait {
    /// Nothing yet (a fresh state), or running.
    Start,
    /// The human clicks the `user_say` line.
    Continue,
    /// A `user_option`: one of `keys`, stored in `var`.
    Choice {
        /// The variable the chosen key goes to.
        var: String,
        /// The keys offered.
        keys: Vec<String>,
    },
    /// The human's own words.
    Text,
    /// The reply to LLM request `id`.
    Llm {
        /// The request's id.
        id: u64,
    },
    /// The session ended.
    Done,
}

/// One line of the chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Who said it (a role's name).
    pub role: String,
    /// What was said.
    pub text: String,
}

/// Everything needed to resume: save it with serde.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// [`STATE_VERSION`] when saved.
    pub(crate) version: u32,
    /// The script's hash when saved (a different one relocates the frames).
    pub script_hash: u64,
    /// The session played (a skill's name for a skill run on its own).
    pub session: String,
    /// The session's stages, in order.
    pub(crate) stages: Vec<StageRun>,
    /// Goals being run, innermost (the one acting) last.
    pub frames: Vec<Frame>,
    /// Global variables.
    pub(crate) global: BTreeMap<String, Var>,
    /// The session's variables.
    pub(crate) session_vars: BTreeMap<String, Var>,
    /// The current stage's variables.
    pub(crate) stage_vars: BTreeMap<String, Var>,
    /// The latest lines of the chat (at most [`CHAT_KEEP`]).
    pub chat: Vec<ChatLine>,
    /// Lines ever said (chat may have dropped the oldest).
    pub(crate) said: usize,
    /// The AI role speaking now (`scene`'s `ai:` changes it).
    pub(crate) ai_role: String,
    /// The scene set by the last `scene:` action.
    pub(crate) scene: Option<String>,
    /// What the engine waits for.
    pub wait: Wait,
    /// The last LLM request id given out.
    pub(crate) next_request: u64,
    /// The LLM request waited for.
    pub pending: Option<LlmRequest>,
    /// `said` at the last auto update: later lines are what it reads next.
    #[serde(default)]
    pub(crate) auto_from: usize,
    /// Form fields filled so far: form → field → value.
    #[serde(default)]
    pub(crate) forms: BTreeMap<String, BTreeMap<String, String>>,
    /// The HUMAN role's name (whose lines the offline brain reads).
    #[serde(default)]
    pub(crate) human_role: String,
    /// Variables given a value during the run (a declared default is not
    /// something the conversation has told yet).
    #[serde(default)]
    pub(crate) given: std::collections::BTreeSet<String>,
    /// `said` when each variable was last set: an auto variable set after
    /// the human's last words is up to date with them.
    #[serde(default)]
    pub(crate) set_at: BTreeMap<String, usize>,
    /// Rules that have fired this session (a rule fires once unless `repeat`).
    #[serde(default)]
    pub(crate) rules_fired: Vec<String>,
    /// The course this session is part of (None: a session on its own).
    #[serde(default)]
    pub(crate) course: Option<super::course::CourseRun>,
}

/// A form's fields in order, each with its value (None: not filled yet).
pub type FormFields = Vec<(String, Option<String>)>;

/// What an LLM request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmKind {
    /// One line (`ai_say`): plain text.
    Say,
    /// One round of `ai_ask`: JSON `{reply, exit, vars}`.
    AskRound,
    /// `think` or the extraction after `ask`: JSON `{vars}`.
    Extract,
    /// At a goal's end, the `auto: true` variables still used later, from the
    /// chat since the last update: JSON `{vars}` holding only what changed.
    Update,
    /// At the end of a session of a course: its summary for the next
    /// sessions, plain text.
    Summary,
}

/// A request for the host's model (or the offline answers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmRequest {
    /// Answered with this id in [`Input::LlmReply`].
    pub id: u64,
    /// What the answer is for.
    pub kind: LlmKind,
    /// The speaking role's definition and tone, the time, the recent chat and the task.
    pub prompt: String,
    /// The prompt's tokens per layer, as the budget left them.
    #[serde(default)]
    pub tokens: crate::context::LayerTokens,
    /// Variables to produce: (name, definition).
    pub wants: Vec<(String, String)>,
    /// `tolist`: the variables come back as a list of records.
    pub(crate) list: bool,
    /// A second try after an answer that was not the JSON asked for.
    #[serde(default)]
    pub repair: bool,
    /// The JSON Schema of the answer (none for a plain line), for servers
    /// that constrain their output to it.
    #[serde(default)]
    pub schema: Option<serde_json::Value>,
}

/// The answer's schema for a request of `kind` producing `wants`.
pub(super) fn answer_schema(
    kind: LlmKind,
    wants: &[(String, String)],
    list: bool,
) -> Option<serde_json::Value> {
    use serde_json::json;
    let value = if list {
        json!({ "type": "array", "items": { "type": "string" } })
    } else {
        json!({ "type": "string" })
    };
    let properties: serde_json::Map<String, serde_json::Value> = wants
        .iter()
        .map(|(name, define)| {
            let mut v = value.clone();
            if !define.is_empty() {
                v["description"] = json!(define);
            }
            (name.clone(), v)
        })
        .collect();
    // Nothing in `vars` is required: what was not said stays unset.
    let vars = json!({ "type": "object", "properties": properties });
    match kind {
        LlmKind::Say | LlmKind::Summary => None,
        LlmKind::AskRound => Some(json!({
            "type": "object",
            "properties": { "reply": { "type": "string" }, "exit": { "type": "boolean" }, "vars": vars },
            "required": ["reply", "exit", "vars"]
        })),
        LlmKind::Extract | LlmKind::Update => Some(json!({
            "type": "object",
            "properties": { "vars": vars },
            "required": ["vars"]
        })),
    }
}

/// What a run step did, for the host to show or act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// An AI role said something.
    Line {
        /// The speaking role.
        role: String,
        /// The line.
        text: String,
        /// The kind of action that said it.
        action: ActionKind,
        /// `session/stage/goal#action`.
        path: String,
    },
    /// A line for the human to click (`user_say`).
    UserSay {
        /// The line.
        text: String,
    },
    /// Options for the human (`user_option`).
    Choices {
        /// The variable the choice goes to.
        var: String,
        /// (key, text), in order.
        options: Vec<(String, String)>,
    },
    /// The human's own words are awaited.
    AwaitText,
    /// The host's model is asked.
    Llm(LlmRequest),
    /// A variable was set.
    VarSet {
        /// Its name.
        name: String,
        /// Where it lives: `goal`, `stage`, `session` or `global`.
        scope: String,
        /// The new value.
        value: Var,
    },
    /// A goal began.
    GoalEntered {
        /// `session/stage/goal`.
        path: String,
        /// Put there by a `call`.
        inserted: bool,
    },
    /// A goal ended.
    GoalLeft {
        /// `session/stage/goal`.
        path: String,
    },
    /// A stage began.
    StageEntered {
        /// Its name.
        stage: String,
    },
    /// A variable a form field is filled from was set.
    FormFilled {
        /// The form.
        form: String,
        /// The field.
        field: String,
        /// Its value now.
        value: String,
    },
    /// A stage's time budget ran out: the goals it had left were skipped
    /// (those marked `keep` stay), its `overtime` skill, if any, runs next.
    StageOvertime {
        /// The stage.
        stage: String,
        /// Its budget, in minutes.
        minutes: u32,
        /// The goals skipped, in order.
        skipped: Vec<String>,
    },
    /// A rule noticed something in the human's answer and called its skill.
    RuleFired {
        /// The rule's name.
        rule: String,
        /// The skill it called.
        skill: String,
    },
    /// A session of a course began with what the earlier ones left.
    CourseRecalled {
        /// How many sessions came before this one.
        sessions: usize,
        /// The `persist: true` globals' values, set next.
        values: BTreeMap<String, Var>,
    },
    /// A session of a course ended: what the host keeps for the next ones.
    SessionRecorded {
        /// The session's record.
        record: super::course::SessionRecord,
    },
    /// The session is over.
    SessionEnded,
    /// Something the writer should know (a missing value, a vanished goal …).
    Warning {
        /// What happened.
        message: String,
    },
}

/// What the host hands in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum Input {
    /// Begin (the first input of a run).
    Start,
    /// The human clicked the `user_say` line.
    Continue,
    /// The human picked an option.
    Choose {
        /// The option's key.
        key: String,
    },
    /// The human's own words.
    Text {
        /// What they wrote.
        text: String,
    },
    /// The model's answer to a request.
    LlmReply {
        /// The request's id.
        id: u64,
        /// The answer as the model wrote it.
        text: String,
    },
}

/// Why the engine refused an input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The session to start does not exist.
    #[error("no session named `{0}`")]
    NoSession(String),
    /// The skill to start does not exist.
    #[error("no skill named `{0}`")]
    NoSkill(String),
    /// The input is not what the engine waits for.
    #[error("waiting for {wanted}, got {got}")]
    WrongInput {
        /// What it waits for.
        wanted: String,
        /// What came.
        got: String,
    },
    /// A choice key that was not offered.
    #[error("`{0}` is not one of the choices")]
    BadChoice(String),
    /// Too many actions without waiting.
    #[error("more than {STEP_BUDGET} actions without waiting: a call cycle?")]
    Runaway,
    /// A saved state of another script version and format.
    #[error("the saved state belongs to another script (hash {saved:x}, now {now:x})")]
    OtherScript {
        /// The hash in the saved state.
        saved: u64,
        /// The loaded script's hash.
        now: u64,
    },
}

/// A number as JavaScript writes it: `3`, not `3.0`.
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

impl State {
    /// The kept chat from line `from` on (counted as `said` counts: lines
    /// ever said); all that is kept when older lines were dropped.
    pub(crate) fn chat_since(&self, from: usize) -> &[ChatLine] {
        let first = self.said - self.chat.len();
        &self.chat[from.saturating_sub(first).min(self.chat.len())..]
    }
}
