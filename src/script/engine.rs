//! The HEART RULE engine: a resumable state machine with no Bevy, no threads
//! and no I/O. The host calls [`Engine::resume`] with an [`Input`] (start,
//! continue, a choice, the human's text, an LLM reply) and gets back
//! [`Effect`]s (lines, prompts, choices, LLM requests, variable changes, goals
//! entered and left) until the engine waits again. Its whole [`State`] is a
//! plain serde struct, positions stored by names, so a save resumes at the
//! same action.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::condition::{Condition, Value};
use super::format::{Action, ActionKind, Goal, Output, RoleType, Timing, VarDecl};
use super::load::ScriptSources;

/// State format version: bump when [`State`] changes shape.
pub const STATE_VERSION: u32 = 1;
/// Actions one `resume` may run before it declares a runaway (a call cycle).
pub const STEP_BUDGET: u32 = 200_000;
/// Chat lines kept for prompts.
pub const CHAT_KEEP: usize = 40;

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Var {
    Text(String),
    /// A list of records (from `tolist`, or filled by `fromlist` calls).
    List(Vec<BTreeMap<String, String>>),
    Null,
}

impl Var {
    fn from_json(v: &serde_json::Value) -> Var {
        match v {
            serde_json::Value::Null => Var::Null,
            serde_json::Value::String(s) => Var::Text(s.clone()),
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

    fn condition_value(&self) -> Value {
        match self {
            Var::Text(s) => Value::Str(s.clone()),
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

fn json_text(v: &serde_json::Value) -> String {
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
    pub goal: String,
    /// Inserted by a `call` (the debugging view marks these).
    pub skill: Option<SkillCall>,
}

/// How a skill goal was called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillCall {
    /// Skill variables set on entry (already evaluated in the caller's scope).
    pub inputs: BTreeMap<String, String>,
    /// (caller variable, value template in the skill's scope) written on exit.
    pub outputs: Vec<(String, String)>,
    /// With `fromlist`: the list variable and this goal's item.
    pub item: Option<(String, usize)>,
}

/// A goal being run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub goal: GoalRef,
    /// Stage the goal belongs to (its own stage for stage goals).
    pub stage: String,
    /// Index of the next action, and its stable id (kind and text) as of the
    /// last wait, to find it again in an edited script.
    pub action: usize,
    #[serde(alias = "action_key")]
    pub action_id: String,
    /// `ai_ask` rounds done for the current action.
    pub rounds: u32,
    pub vars: BTreeMap<String, Var>,
    /// The goal's chat so far (for `think`).
    pub chat_from: usize,
    /// Goals to run before this one goes on (a `BEFORE_GOAL` call paused it).
    pub before: Vec<GoalRef>,
    /// The auto variables were brought up to date at this goal's end.
    #[serde(default)]
    pub updated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRun {
    pub stage: String,
    pub queue: Vec<GoalRef>,
    pub entered: bool,
}

/// What the engine waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Wait {
    Start,
    /// The human clicks the `user_say` line.
    Continue,
    Choice {
        var: String,
        keys: Vec<String>,
    },
    /// The human's own words.
    Text,
    /// The reply to LLM request `id`.
    Llm {
        id: u64,
    },
    Done,
}

/// One line of the chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    pub role: String,
    pub text: String,
}

/// Everything needed to resume: save it with serde.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    pub script_hash: u64,
    pub session: String,
    pub stages: Vec<StageRun>,
    pub frames: Vec<Frame>,
    pub global: BTreeMap<String, Var>,
    pub session_vars: BTreeMap<String, Var>,
    pub stage_vars: BTreeMap<String, Var>,
    pub chat: Vec<ChatLine>,
    /// Lines ever said (chat may have dropped the oldest).
    pub said: usize,
    pub ai_role: String,
    pub scene: Option<String>,
    pub wait: Wait,
    pub next_request: u64,
    /// The LLM request waited for.
    pub pending: Option<LlmRequest>,
    /// `said` at the last auto update: later lines are what it reads next.
    #[serde(default)]
    pub auto_from: usize,
    /// Form fields filled so far: form → field → value.
    #[serde(default)]
    pub forms: BTreeMap<String, BTreeMap<String, String>>,
    /// The HUMAN role's name (whose lines the offline brain reads).
    #[serde(default)]
    pub human_role: String,
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmRequest {
    pub id: u64,
    pub kind: LlmKind,
    /// The speaking role's definition and tone, the time, the recent chat and the task.
    pub prompt: String,
    /// Variables to produce: (name, definition).
    pub wants: Vec<(String, String)>,
    /// `tolist`: the variables come back as a list of records.
    pub list: bool,
    /// A second try after an answer that was not the JSON asked for.
    #[serde(default)]
    pub repair: bool,
    /// The JSON Schema of the answer (none for a plain line), for servers
    /// that constrain their output to it.
    #[serde(default)]
    pub schema: Option<serde_json::Value>,
}

/// The answer's schema for a request of `kind` producing `wants`.
fn answer_schema(
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
        LlmKind::Say => None,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    Line {
        role: String,
        text: String,
        action: ActionKind,
        path: String,
    },
    UserSay {
        text: String,
    },
    Choices {
        var: String,
        options: Vec<(String, String)>,
    },
    AwaitText,
    Llm(LlmRequest),
    VarSet {
        name: String,
        scope: String,
        value: Var,
    },
    GoalEntered {
        path: String,
        inserted: bool,
    },
    GoalLeft {
        path: String,
    },
    StageEntered {
        stage: String,
    },
    /// A variable a form field is filled from was set.
    FormFilled {
        form: String,
        field: String,
        value: String,
    },
    SessionEnded,
    Warning {
        message: String,
    },
}

/// What the host hands in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum Input {
    Start,
    Continue,
    Choose { key: String },
    Text { text: String },
    LlmReply { id: u64, text: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    #[error("no session named `{0}`")]
    NoSession(String),
    #[error("no skill named `{0}`")]
    NoSkill(String),
    #[error("waiting for {wanted}, got {got}")]
    WrongInput { wanted: String, got: String },
    #[error("`{0}` is not one of the choices")]
    BadChoice(String),
    #[error("more than {STEP_BUDGET} actions without waiting: a call cycle?")]
    Runaway,
    #[error("the saved state belongs to another script (hash {saved:x}, now {now:x})")]
    OtherScript { saved: u64, now: u64 },
}

/// A loaded script set, ready to run.
#[derive(Debug, Clone)]
pub struct Script {
    pub sessions: Vec<super::format::Session>,
    pub skills: BTreeMap<String, Goal>,
    pub global: Vec<VarDecl>,
    pub roles: Vec<super::format::Role>,
    pub hash: u64,
    /// Every condition, compiled once at load (by its source text).
    pub conditions: std::collections::HashMap<String, Result<Condition, String>>,
    /// Variables each skill reads or extracts, its calls included.
    skill_uses: BTreeMap<String, BTreeSet<String>>,
    /// Some global, session or stage variable is `auto: true`.
    has_auto: bool,
    /// The forms, in file order.
    pub forms: Vec<super::format::Form>,
    /// Variable → the (form, field) pairs it fills.
    form_fields: BTreeMap<String, Vec<(String, String)>>,
}

impl Script {
    /// Loads and checks the set in `dir`: the compiled set, or its error
    /// lines (`file:line:col: error[…]`; warnings do not stop it).
    pub fn load_clean(dir: &std::path::Path) -> Result<Script, Vec<String>> {
        let (src, diags) = super::check::check_dir(dir);
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.severity == super::diag::Severity::Error)
            .map(|d| d.to_string())
            .collect();
        if errors.is_empty() {
            Ok(Script::from_sources(&src))
        } else {
            Err(errors)
        }
    }

    pub fn from_sources(src: &ScriptSources) -> Script {
        let mut s = Script {
            sessions: Vec::new(),
            skills: BTreeMap::new(),
            global: Vec::new(),
            roles: Vec::new(),
            hash: 0xcbf2_9ce4_8422_2325,
            conditions: std::collections::HashMap::new(),
            skill_uses: BTreeMap::new(),
            has_auto: false,
            forms: Vec::new(),
            form_fields: BTreeMap::new(),
        };
        for d in &src.docs {
            s.sessions.extend(d.doc.sessions.iter().flatten().cloned());
            for g in d.doc.skills.iter().flatten() {
                s.skills
                    .entry(g.goal.value.clone())
                    .or_insert_with(|| g.clone());
            }
            s.global.extend(d.doc.global.iter().flatten().cloned());
            s.roles.extend(d.doc.roles.iter().flatten().cloned());
            s.forms.extend(d.doc.forms.iter().flatten().cloned());
        }
        for f in &s.forms {
            for field in &f.fields {
                let var = field.var.as_ref().unwrap_or(&field.field).value.clone();
                s.form_fields
                    .entry(var)
                    .or_default()
                    .push((f.form.value.clone(), field.field.value.clone()));
            }
        }
        let mut conditions = std::collections::HashMap::new();
        for g in super::check::all_goals(src) {
            for c in g.actions.iter().filter_map(|a| a.condition.as_ref()) {
                conditions
                    .entry(c.value.clone())
                    .or_insert_with(|| Condition::parse(&c.value).map_err(|e| e.to_string()));
            }
        }
        s.conditions = conditions;
        s.skill_uses = skill_uses(&s.skills);
        s.has_auto = s.global.iter().any(VarDecl::is_auto)
            || s.sessions.iter().any(|x| {
                x.declare.iter().any(VarDecl::is_auto)
                    || x.stages
                        .iter()
                        .flat_map(|st| &st.declare)
                        .any(VarDecl::is_auto)
            });
        for (_, text) in &src.texts {
            for b in text.bytes() {
                s.hash ^= b as u64;
                s.hash = s.hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        s
    }

    fn session(&self, name: &str) -> Option<&super::format::Session> {
        self.sessions.iter().find(|s| s.session.value == name)
    }

    fn stage_goal(&self, session: &str, stage: &str, goal: &str) -> Option<&Goal> {
        self.session(session)?
            .stages
            .iter()
            .find(|s| s.stage.value == stage)?
            .steps
            .iter()
            .find(|g| g.goal.value == goal)
    }

    fn goal(&self, state: &State, f: &Frame) -> Option<&Goal> {
        match &f.goal.skill {
            Some(_) => self.skills.get(&f.goal.goal),
            None => self.stage_goal(&state.session, &f.stage, &f.goal.goal),
        }
    }

    /// The first AI role (the default speaker) and the HUMAN role's name.
    fn default_roles(&self) -> (String, String) {
        let ai = self
            .roles
            .iter()
            .find(|r| r.kind == RoleType::Ai)
            .map_or("AI".to_string(), |r| r.role.value.clone());
        let human = self
            .roles
            .iter()
            .find(|r| r.kind == RoleType::Human)
            .map_or("用户".to_string(), |r| r.role.value.clone());
        (ai, human)
    }

    /// Uses of some actions, the skills they call included.
    fn actions_uses(&self, actions: &[Action], out: &mut BTreeSet<String>) {
        for a in actions {
            action_uses(a, out);
            if let Some(u) = a.call.as_ref().and_then(|c| self.skill_uses.get(&c.value)) {
                out.extend(u.iter().cloned());
            }
        }
    }

    /// Uses of a goal still to run.
    fn goal_uses(&self, session: &str, stage: &str, g: &GoalRef, out: &mut BTreeSet<String>) {
        match &g.skill {
            Some(_) => out.extend(self.skill_uses.get(&g.goal).into_iter().flatten().cloned()),
            None => {
                if let Some(goal) = self.stage_goal(session, stage, &g.goal) {
                    self.actions_uses(&goal.actions, out);
                }
            }
        }
    }

    fn role_tone(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|r| r.role.value == role)
            .and_then(|r| r.tone.as_deref())
    }

    fn role_define(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|r| r.role.value == role)
            .and_then(|r| r.define.as_deref())
    }
}

/// An action's stable id: its kind and text.
fn action_id(a: &Action) -> String {
    let kind = a.kind();
    let text = kind
        .and_then(|k| a.kind_text(k))
        .or(a.ai.as_deref())
        .map_or("", |t| t.value.as_str());
    format!("{}:{text}", kind.map_or("", ActionKind::key))
}

/// Variables an action reads (`{NAME}` anywhere in it, `fromlist`) or
/// extracts (`get`): what keeps an auto variable worth updating.
fn action_uses(a: &Action, out: &mut BTreeSet<String>) {
    let mut texts: Vec<&str> = ActionKind::ALL
        .iter()
        .filter_map(|k| a.kind_text(*k).map(|t| t.value.as_str()))
        .collect();
    texts.extend(a.condition.as_ref().map(|c| c.value.as_str()));
    texts.extend(a.tone.as_deref());
    texts.extend(a.exit.as_deref());
    for c in a.choices.iter().flatten() {
        texts.extend(c.values().map(String::as_str));
    }
    for o in a.output.iter().chain(&a.input).flatten() {
        texts.extend(o.define.as_deref());
        if let Some(serde_json::Value::String(v)) = &o.value {
            texts.push(v);
        }
        out.extend(o.get.as_ref().map(|g| g.value.clone()));
    }
    out.extend(a.fromlist.as_ref().map(|l| l.value.clone()));
    for t in texts {
        out.extend(
            super::check::referenced_vars(t)
                .into_iter()
                .map(str::to_string),
        );
    }
}

/// Each skill's uses with those of the skills it calls, to a fixed point.
fn skill_uses(skills: &BTreeMap<String, Goal>) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = skills
        .iter()
        .map(|(name, g)| {
            let mut u = BTreeSet::new();
            g.actions.iter().for_each(|a| action_uses(a, &mut u));
            (name.clone(), u)
        })
        .collect();
    loop {
        let mut grew = false;
        for (name, g) in skills {
            let called: BTreeSet<String> = g
                .actions
                .iter()
                .filter_map(|a| a.call.as_ref())
                .filter_map(|c| uses.get(&c.value))
                .flatten()
                .cloned()
                .collect();
            let mine = uses.get_mut(name).expect("every skill");
            let before = mine.len();
            mine.extend(called);
            grew |= mine.len() > before;
        }
        if !grew {
            return uses;
        }
    }
}

/// A variable in the scopes outside every goal: stage, then session, then global.
fn outer<'s>(st: &'s State, name: &str) -> Option<&'s Var> {
    st.stage_vars
        .get(name)
        .or_else(|| st.session_vars.get(name))
        .or_else(|| st.global.get(name))
}

fn decl_vars(d: &[VarDecl]) -> BTreeMap<String, Var> {
    d.iter()
        .map(|v| {
            (
                v.var.value.clone(),
                v.value.as_ref().map_or(Var::Null, Var::from_json),
            )
        })
        .collect()
}

/// Runs one script with one state.
pub struct Engine<'a> {
    pub script: &'a Script,
    /// The current time, to the second, for prompts (the host's clock).
    pub now: String,
}

impl Engine<'_> {
    /// A fresh state at the start of `session`.
    pub fn start(&self, session: &str) -> Result<State, EngineError> {
        let s = self
            .script
            .session(session)
            .ok_or_else(|| EngineError::NoSession(session.to_string()))?;
        let stages = s
            .stages
            .iter()
            .map(|st| StageRun {
                stage: st.stage.value.clone(),
                queue: st
                    .steps
                    .iter()
                    .map(|g| GoalRef {
                        goal: g.goal.value.clone(),
                        skill: None,
                    })
                    .collect(),
                entered: false,
            })
            .collect();
        Ok(self.fresh(session, stages, decl_vars(&s.declare)))
    }

    /// A fresh state that runs one skill on its own, its variables set from
    /// `inputs` (a resident's conversation in the town, not a session). The
    /// run's session and only stage are both named after the skill.
    pub fn start_skill(
        &self,
        skill: &str,
        inputs: BTreeMap<String, String>,
    ) -> Result<State, EngineError> {
        if !self.script.skills.contains_key(skill) {
            return Err(EngineError::NoSkill(skill.to_string()));
        }
        let stage = StageRun {
            stage: skill.to_string(),
            queue: vec![GoalRef {
                goal: skill.to_string(),
                skill: Some(SkillCall {
                    inputs,
                    outputs: Vec::new(),
                    item: None,
                }),
            }],
            entered: false,
        };
        Ok(self.fresh(skill, vec![stage], BTreeMap::new()))
    }

    fn fresh(
        &self,
        session: &str,
        stages: Vec<StageRun>,
        session_vars: BTreeMap<String, Var>,
    ) -> State {
        let (ai, human) = self.script.default_roles();
        State {
            version: STATE_VERSION,
            script_hash: self.script.hash,
            session: session.to_string(),
            stages,
            frames: Vec::new(),
            global: decl_vars(&self.script.global),
            session_vars,
            stage_vars: BTreeMap::new(),
            chat: Vec::new(),
            said: 0,
            ai_role: ai,
            scene: None,
            wait: Wait::Start,
            next_request: 0,
            pending: None,
            auto_from: 0,
            forms: BTreeMap::new(),
            human_role: human,
        }
    }

    /// Hands in `input`; runs until the engine waits again.
    pub fn resume(&self, st: &mut State, input: Input) -> Result<Vec<Effect>, EngineError> {
        if st.script_hash != self.script.hash && st.version != STATE_VERSION {
            return Err(EngineError::OtherScript {
                saved: st.script_hash,
                now: self.script.hash,
            });
        }
        let mut fx = Vec::new();
        if st.script_hash != self.script.hash {
            self.relocate(st, &mut fx);
        }
        self.accept(st, input, &mut fx)?;
        self.run(st, &mut fx)?;
        self.mark_places(st);
        Ok(fx)
    }

    /// Records each frame's action id, for [`Engine::relocate`].
    fn mark_places(&self, st: &mut State) {
        for i in 0..st.frames.len() {
            let f = &st.frames[i];
            let id = self
                .script
                .goal(st, f)
                .and_then(|g| g.actions.get(f.action))
                .map_or_else(String::new, action_id);
            st.frames[i].action_id = id;
        }
    }

    /// The script was edited since this state was saved (a hot reload): each
    /// frame goes to the action with its recorded id nearest its old index,
    /// so lines added or removed elsewhere in the goal do not shift it.
    fn relocate(&self, st: &mut State, fx: &mut Vec<Effect>) {
        for i in 0..st.frames.len() {
            let f = &st.frames[i];
            if f.action_id.is_empty() {
                continue;
            }
            let Some(goal) = self.script.goal(st, f) else {
                continue;
            };
            if goal.actions.get(f.action).map(action_id).as_ref() == Some(&f.action_id) {
                continue;
            }
            let found = goal
                .actions
                .iter()
                .enumerate()
                .filter(|(_, a)| action_id(a) == f.action_id)
                .min_by_key(|(j, _)| j.abs_diff(f.action))
                .map(|(j, _)| j);
            match found {
                Some(j) => st.frames[i].action = j,
                None => fx.push(Effect::Warning {
                    message: format!(
                        "the action `{}` of goal `{}` is gone from the script; going on at its old place",
                        f.action_id, f.goal.goal
                    ),
                }),
            }
        }
        st.script_hash = self.script.hash;
    }

    fn wrong(st: &State, got: &Input) -> EngineError {
        EngineError::WrongInput {
            wanted: format!("{:?}", st.wait),
            got: format!("{got:?}"),
        }
    }

    /// Applies the input to the action that was waiting for it.
    fn accept(
        &self,
        st: &mut State,
        input: Input,
        fx: &mut Vec<Effect>,
    ) -> Result<(), EngineError> {
        let (_, human) = self.script.default_roles();
        match (&st.wait, &input) {
            (Wait::Start, Input::Start) => {}
            (Wait::Continue, Input::Continue) => {
                let text = self
                    .current_action(st)
                    .and_then(|a| a.user_say.as_ref())
                    .map(|t| self.interpolate(st, &t.value, fx));
                if let Some(text) = text {
                    self.push_chat(st, &human, &text);
                }
                self.advance(st);
            }
            (Wait::Choice { var, keys }, Input::Choose { key }) => {
                if !keys.contains(key) {
                    return Err(EngineError::BadChoice(key.clone()));
                }
                let var = var.clone();
                let shown = self
                    .current_action(st)
                    .and_then(|a| a.choices.as_ref())
                    .and_then(|c| c.iter().find_map(|m| m.get(key).cloned()))
                    .unwrap_or_else(|| key.clone());
                self.push_chat(st, &human, &shown);
                self.set(st, &var, Var::Text(key.clone()), fx);
                self.advance(st);
            }
            (Wait::Text, Input::Text { text }) => {
                self.push_chat(st, &human, text);
                let kind = self.current_action(st).and_then(Action::kind);
                match kind {
                    // After `ask`, the outputs are extracted from the answer.
                    Some(ActionKind::Ask) => self.request_outputs(st, LlmKind::Extract, fx),
                    // Another round of `ai_ask`.
                    Some(ActionKind::AiAsk) => self.request_round(st, fx),
                    _ => self.advance(st),
                }
                return Ok(());
            }
            (Wait::Llm { id }, Input::LlmReply { id: got, text }) if id == got => {
                self.llm_reply(st, text, fx);
                return Ok(());
            }
            _ => return Err(Self::wrong(st, &input)),
        }
        st.wait = Wait::Start;
        Ok(())
    }

    fn current_action<'s>(&'s self, st: &State) -> Option<&'s Action> {
        let f = st.frames.last()?;
        self.script.goal(st, f)?.actions.get(f.action)
    }

    fn path(&self, st: &State) -> String {
        match st.frames.last() {
            Some(f) => format!("{}/{}/{}#{}", st.session, f.stage, f.goal.goal, f.action),
            None => st.session.clone(),
        }
    }

    fn advance(&self, st: &mut State) {
        if let Some(f) = st.frames.last_mut() {
            f.action += 1;
            f.rounds = 0;
        }
        st.wait = Wait::Start;
    }

    /// The speaking AI role says `text`: into the chat, and shown.
    fn ai_line(&self, st: &mut State, text: String, action: ActionKind, fx: &mut Vec<Effect>) {
        let role = st.ai_role.clone();
        let path = self.path(st);
        self.push_chat(st, &role, &text);
        fx.push(Effect::Line {
            role,
            text,
            action,
            path,
        });
    }

    fn push_chat(&self, st: &mut State, role: &str, text: &str) {
        st.chat.push(ChatLine {
            role: role.to_string(),
            text: text.to_string(),
        });
        st.said += 1;
        if st.chat.len() > CHAT_KEEP {
            st.chat.remove(0);
        }
    }

    /// A variable by scope: goal (innermost frame) > stage > session > global.
    pub fn lookup(&self, st: &State, name: &str) -> Option<Var> {
        if let Some(f) = st.frames.last() {
            if let Some(v) = f.vars.get(name) {
                return Some(v.clone());
            }
            // A fromlist item's fields read as variables in its goal.
            if let Some(item) = self.item_of(st, f)
                && let Some(v) = item.get(name)
            {
                return Some(Var::Text(v.clone()));
            }
        }
        outer(st, name).cloned()
    }

    fn item_of(&self, st: &State, f: &Frame) -> Option<BTreeMap<String, String>> {
        let (list, i) = f.goal.skill.as_ref()?.item.as_ref()?;
        match self.lookup_outside(st, list)? {
            Var::List(items) => items.get(*i).cloned(),
            _ => None,
        }
    }

    /// Lookup skipping the innermost frame (the caller's view from a skill).
    fn lookup_outside(&self, st: &State, name: &str) -> Option<Var> {
        for f in st.frames.iter().rev().skip(1) {
            if let Some(v) = f.vars.get(name) {
                return Some(v.clone());
            }
        }
        outer(st, name).cloned()
    }

    /// Sets a variable where it is declared (innermost first); an undeclared one
    /// is declared in the current goal.
    fn set(&self, st: &mut State, name: &str, value: Var, fx: &mut Vec<Effect>) {
        let scope = if let Some(f) = st.frames.last_mut()
            && f.vars.contains_key(name)
        {
            f.vars.insert(name.to_string(), value.clone());
            "goal"
        } else if st.stage_vars.contains_key(name) {
            st.stage_vars.insert(name.to_string(), value.clone());
            "stage"
        } else if st.session_vars.contains_key(name) {
            st.session_vars.insert(name.to_string(), value.clone());
            "session"
        } else if st.global.contains_key(name) {
            st.global.insert(name.to_string(), value.clone());
            "global"
        } else if let Some(f) = st.frames.last_mut() {
            f.vars.insert(name.to_string(), value.clone());
            "goal"
        } else {
            st.session_vars.insert(name.to_string(), value.clone());
            "session"
        };
        for (form, field) in self.script.form_fields.get(name).into_iter().flatten() {
            let text = value.text();
            st.forms
                .entry(form.clone())
                .or_default()
                .insert(field.clone(), text.clone());
            fx.push(Effect::FormFilled {
                form: form.clone(),
                field: field.clone(),
                value: text,
            });
        }
        fx.push(Effect::VarSet {
            name: name.to_string(),
            scope: scope.to_string(),
            value,
        });
    }

    /// Every form with its fields in order, and the value each holds (None: not filled yet).
    pub fn filled_forms(&self, st: &State) -> Vec<(String, FormFields)> {
        self.script
            .forms
            .iter()
            .map(|f| {
                let values = st.forms.get(&f.form.value);
                let fields = f
                    .fields
                    .iter()
                    .map(|x| {
                        let v = values.and_then(|m| m.get(&x.field.value)).cloned();
                        (x.field.value.clone(), v)
                    })
                    .collect();
                (f.form.value.clone(), fields)
            })
            .collect()
    }

    /// `{NAME}` → its value; a declared variable with no value yet shows as
    /// `⟨NAME?⟩` (and a warning), an undeclared one as `⟨NAME!⟩`.
    pub fn interpolate(&self, st: &State, text: &str, fx: &mut Vec<Effect>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find('}') {
                Some(close) if !after[..close].contains('{') => {
                    let name = after[..close].trim();
                    // Most names are plain variables: read them in place (not
                    // inside a fromlist goal, whose item fields come between).
                    let top = st.frames.last();
                    let in_item = top
                        .is_some_and(|f| f.goal.skill.as_ref().is_some_and(|c| c.item.is_some()));
                    let direct = match top.and_then(|f| f.vars.get(name)) {
                        Some(v) => Some(v),
                        None if in_item => None,
                        None => outer(st, name),
                    };
                    if let Some(Var::Text(t)) = direct {
                        out.push_str(t);
                        rest = &after[close + 1..];
                        continue;
                    }
                    match self.lookup(st, name) {
                        Some(Var::Null) => {
                            out.push_str(&format!("⟨{name}?⟩"));
                            fx.push(Effect::Warning {
                                message: format!("`{{{name}}}` has no value yet"),
                            });
                        }
                        Some(v) => out.push_str(&v.text()),
                        None => {
                            out.push_str(&format!("⟨{name}!⟩"));
                            fx.push(Effect::Warning {
                                message: format!("`{{{name}}}` is not declared"),
                            });
                        }
                    }
                    rest = &after[close + 1..];
                }
                _ => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn condition_holds(&self, st: &State, a: &Action, fx: &mut Vec<Effect>) -> bool {
        let Some(c) = &a.condition else {
            return true;
        };
        let parsed;
        let compiled = match self.script.conditions.get(&c.value) {
            Some(c) => c.as_ref(),
            None => {
                parsed = Condition::parse(&c.value).map_err(|e| e.to_string());
                parsed.as_ref()
            }
        };
        match compiled {
            Ok(cond) => cond.eval(&|name| {
                self.lookup(st, name)
                    .map_or(Value::Undefined, |v| v.condition_value())
            }),
            Err(e) => {
                fx.push(Effect::Warning {
                    message: format!("condition `{}` skipped: {e}", c.value),
                });
                false
            }
        }
    }

    /// Runs actions until something must be waited for.
    fn run(&self, st: &mut State, fx: &mut Vec<Effect>) -> Result<(), EngineError> {
        let mut budget = STEP_BUDGET;
        while st.wait == Wait::Start {
            budget = budget.checked_sub(1).ok_or(EngineError::Runaway)?;
            if st.frames.is_empty() {
                self.next_goal(st, fx);
                continue;
            }
            if let Some(f) = st.frames.last_mut()
                && !f.before.is_empty()
            {
                let g = f.before.remove(0);
                let stage = f.stage.clone();
                self.enter(st, g, stage, fx);
                continue;
            }
            let f = st.frames.last().expect("checked");
            let Some(goal) = self.script.goal(st, f) else {
                // The goal vanished (edited script): leave it.
                fx.push(Effect::Warning {
                    message: format!("goal `{}` is no longer in the script", f.goal.goal),
                });
                st.frames.pop();
                continue;
            };
            let Some(action) = goal.actions.get(f.action) else {
                if !f.updated && self.script.has_auto {
                    self.update_auto(st, fx);
                    continue;
                }
                self.leave_goal(st, fx);
                continue;
            };
            let kind = action.kind();
            if !self.condition_holds(st, action, fx) {
                self.advance(st);
                continue;
            }
            match kind {
                Some(ActionKind::Say) => {
                    let text = self.interpolate(st, &action.say.as_ref().expect("say").value, fx);
                    self.ai_line(st, text, ActionKind::Say, fx);
                    self.advance(st);
                }
                Some(ActionKind::UserSay) => {
                    let text = self.interpolate(
                        st,
                        &action.user_say.as_ref().expect("user_say").value,
                        fx,
                    );
                    fx.push(Effect::UserSay { text });
                    st.wait = Wait::Continue;
                }
                Some(ActionKind::UserOption) => {
                    let var = action
                        .user_option
                        .as_ref()
                        .expect("user_option")
                        .value
                        .clone();
                    let options: Vec<(String, String)> = action
                        .choices
                        .iter()
                        .flatten()
                        .flat_map(|m| m.iter())
                        .map(|(k, v)| (k.clone(), self.interpolate(st, v, fx)))
                        .collect();
                    st.wait = Wait::Choice {
                        var: var.clone(),
                        keys: options.iter().map(|(k, _)| k.clone()).collect(),
                    };
                    fx.push(Effect::Choices { var, options });
                }
                Some(ActionKind::Ask) => {
                    let text = self.interpolate(st, &action.ask.as_ref().expect("ask").value, fx);
                    self.ai_line(st, text, ActionKind::Ask, fx);
                    fx.push(Effect::AwaitText);
                    st.wait = Wait::Text;
                }
                Some(ActionKind::AiSay) => {
                    let task =
                        self.interpolate(st, &action.ai_say.as_ref().expect("ai_say").value, fx);
                    let prompt = self.prompt(st, action, &task, "说一句话（只输出这句话）。");
                    self.request(st, LlmKind::Say, prompt, Vec::new(), false, fx);
                }
                Some(ActionKind::AiAsk) => self.request_round(st, fx),
                Some(ActionKind::Think) => self.request_outputs(st, LlmKind::Extract, fx),
                Some(ActionKind::Call) => self.call(st, action, fx),
                Some(ActionKind::Scene) => {
                    if let Some(s) = &action.scene {
                        st.scene = Some(self.interpolate(st, &s.value, fx));
                    }
                    if let Some(ai) = &action.ai {
                        st.ai_role = ai.value.clone();
                    }
                    self.advance(st);
                }
                None => self.advance(st),
            }
        }
        Ok(())
    }

    /// Enters the next goal of the current stage, or the next stage, or ends.
    fn next_goal(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(i) = st
            .stages
            .iter()
            .position(|s| !s.queue.is_empty() || !s.entered)
        else {
            st.wait = Wait::Done;
            fx.push(Effect::SessionEnded);
            return;
        };
        if !st.stages[i].entered {
            st.stages[i].entered = true;
            let name = st.stages[i].stage.clone();
            st.stage_vars = self
                .script
                .session(&st.session)
                .and_then(|s| s.stages.iter().find(|x| x.stage.value == name))
                .map_or_else(BTreeMap::new, |x| decl_vars(&x.declare));
            fx.push(Effect::StageEntered { stage: name });
        }
        if st.stages[i].queue.is_empty() {
            return;
        }
        let g = st.stages[i].queue.remove(0);
        let stage = st.stages[i].stage.clone();
        self.enter(st, g, stage, fx);
    }

    fn enter(&self, st: &mut State, g: GoalRef, stage: String, fx: &mut Vec<Effect>) {
        let decl = match &g.skill {
            Some(_) => self
                .script
                .skills
                .get(&g.goal)
                .and_then(|x| x.declare.clone()),
            None => self
                .script
                .stage_goal(&st.session, &stage, &g.goal)
                .and_then(|x| x.declare.clone()),
        };
        let mut vars = decl_vars(decl.as_deref().unwrap_or_default());
        if let Some(call) = &g.skill {
            for (k, v) in &call.inputs {
                vars.insert(k.clone(), Var::Text(v.clone()));
            }
        }
        let inserted = g.skill.is_some();
        fx.push(Effect::GoalEntered {
            path: format!("{}/{}/{}", st.session, stage, g.goal),
            inserted,
        });
        st.frames.push(Frame {
            goal: g,
            stage,
            action: 0,
            action_id: String::new(),
            rounds: 0,
            vars,
            chat_from: st.said,
            before: Vec::new(),
            updated: false,
        });
    }

    /// At a goal's end: the `auto: true` variables in scope that the rest of
    /// the run still uses are re-read from the chat since the last update, so a
    /// later question does not ask again what was said, and a correction
    /// replaces what was noted. A variable stops updating after its last use.
    fn update_auto(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(f) = st.frames.last_mut() else {
            return;
        };
        f.updated = true;
        let stage = f.stage.clone();
        let (_, human) = self.script.default_roles();
        let fresh = st.said.saturating_sub(st.auto_from).min(st.chat.len());
        let lines = &st.chat[st.chat.len() - fresh..];
        if !lines.iter().any(|l| l.role == human) {
            return;
        }
        // What runs after this goal: the rest of the paused goals, and the queues.
        let mut in_stage = BTreeSet::new();
        let depth = st.frames.len();
        for f in &st.frames[..depth - 1] {
            if let Some(g) = self.script.goal(st, f) {
                self.script
                    .actions_uses(g.actions.get(f.action..).unwrap_or_default(), &mut in_stage);
            }
        }
        for f in &st.frames {
            for g in &f.before {
                self.script
                    .goal_uses(&st.session, &f.stage, g, &mut in_stage);
            }
        }
        let mut later = in_stage.clone();
        for run in &st.stages {
            let into = if run.stage == stage {
                &mut in_stage
            } else {
                &mut later
            };
            for g in &run.queue {
                self.script.goal_uses(&st.session, &run.stage, g, into);
            }
        }
        later.extend(in_stage.iter().cloned());
        let Some(session) = self.script.session(&st.session) else {
            return;
        };
        let stage_decls = session
            .stages
            .iter()
            .filter(|x| x.stage.value == stage)
            .flat_map(|x| &x.declare);
        let wanted: Vec<&VarDecl> = self
            .script
            .global
            .iter()
            .chain(&session.declare)
            .filter(|d| later.contains(&d.var.value))
            .chain(stage_decls.filter(|d| in_stage.contains(&d.var.value)))
            .filter(|d| d.is_auto())
            .collect();
        if wanted.is_empty() {
            return;
        }
        let mut known = String::new();
        let wants: Vec<(String, String)> = wanted
            .iter()
            .map(|d| {
                let name = d.var.value.clone();
                let value = self.lookup(st, &name).map_or(String::new(), |v| v.text());
                known.push_str(&format!(
                    "- {name}（{}）：{}\n",
                    d.define.as_deref().unwrap_or(""),
                    if value.is_empty() {
                        "（还没有）"
                    } else {
                        &value
                    }
                ));
                (name, d.define.clone().unwrap_or_default())
            })
            .collect();
        let mut chat = String::new();
        for l in lines {
            chat.push_str(&format!("{}：{}\n", l.role, l.text));
        }
        let prompt = format!(
            "你在整理一段对话的记录。现在是{}。\n\n变量和它们现在的值：\n{known}\n新的对话：\n{chat}\n任务：如果新的对话里{human}提到了某个变量的信息，或者更正了之前说的，写出更新后的完整值；没有新信息的变量不要写。\n只输出一个 JSON 对象：{{\"vars\": {{变量名: 新的值}}}}",
            self.now
        );
        self.request(st, LlmKind::Update, prompt, wants, false, fx);
    }

    /// A goal is done: a skill writes its outputs back to the caller (or its list item).
    fn leave_goal(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let path = self.path(st);
        // A skill's outputs are read in its own scope, before it goes.
        let call = st.frames.last().and_then(|f| f.goal.skill.clone());
        let values: Vec<(String, String)> = call
            .iter()
            .flat_map(|c| &c.outputs)
            .map(|(caller, template)| (caller.clone(), self.interpolate(st, template, fx)))
            .collect();
        st.frames.pop();
        // Left first: the write-back below happens in the caller's goal.
        fx.push(Effect::GoalLeft {
            path: path
                .rsplit_once('#')
                .map_or(path.clone(), |(p, _)| p.to_string()),
        });
        let Some(call) = call else { return };
        match &call.item {
            Some((list, i)) => {
                if let Some(Var::List(mut items)) = self.lookup(st, list) {
                    if let Some(item) = items.get_mut(*i) {
                        for (k, v) in values {
                            item.insert(k, v);
                        }
                    }
                    self.set(st, list, Var::List(items), fx);
                }
            }
            None => {
                for (k, v) in values {
                    self.set(st, &k, Var::Text(v), fx);
                }
            }
        }
        // The paused goal (BEFORE_GOAL) resumes where it was.
    }

    /// `call`: builds one goal per list item (or one), binds inputs in the
    /// caller's scope, and places them by `timing`.
    fn call(&self, st: &mut State, a: &Action, fx: &mut Vec<Effect>) {
        let name = a.call.as_ref().expect("call").value.clone();
        let timing = a.timing.as_ref().map_or(Timing::Now, |t| t.value);
        let items: Vec<Option<(String, usize)>> = match &a.fromlist {
            Some(list) => match self.lookup(st, &list.value) {
                Some(Var::List(v)) => (0..v.len())
                    .map(|i| Some((list.value.clone(), i)))
                    .collect(),
                _ => {
                    fx.push(Effect::Warning {
                        message: format!("`fromlist: {}` is not a list now; no goals", list.value),
                    });
                    Vec::new()
                }
            },
            None => vec![None],
        };
        let outputs: Vec<(String, String)> = a
            .output
            .iter()
            .flatten()
            .filter_map(|o: &Output| {
                Some((o.set.as_ref()?.value.clone(), json_text(o.value.as_ref()?)))
            })
            .collect();
        let goals: Vec<GoalRef> = items
            .into_iter()
            .map(|item| {
                // Inputs read the item's fields first, then the caller's scopes.
                let record = item.as_ref().and_then(|(l, i)| match self.lookup(st, l) {
                    Some(Var::List(v)) => v.get(*i).cloned(),
                    _ => None,
                });
                let inputs = a
                    .input
                    .iter()
                    .flatten()
                    .filter_map(|o| {
                        let set = o.set.as_ref()?.value.clone();
                        let template = json_text(o.value.as_ref()?);
                        let value = match &record {
                            Some(r) => {
                                let mut t = template.clone();
                                for (k, v) in r {
                                    t = t.replace(&format!("{{{k}}}"), v);
                                }
                                self.interpolate(st, &t, fx)
                            }
                            None => self.interpolate(st, &template, fx),
                        };
                        Some((set, value))
                    })
                    .collect();
                GoalRef {
                    goal: name.clone(),
                    skill: Some(SkillCall {
                        inputs,
                        outputs: outputs.clone(),
                        item,
                    }),
                }
            })
            .collect();
        self.advance(st);
        let current_stage = st
            .frames
            .last()
            .map(|f| f.stage.clone())
            .unwrap_or_default();
        let stage_i = st
            .stages
            .iter()
            .position(|s| s.stage == current_stage)
            .unwrap_or(0);
        let to = a.timing_to.as_ref().map(|t| t.value.clone());
        match (timing, to) {
            (Timing::Now, _) => {
                // The current goal ends; the skill goals run next, in order.
                self.leave_goal(st, fx);
                match st.frames.last_mut() {
                    Some(parent) => {
                        parent.before.splice(0..0, goals);
                    }
                    None => {
                        for g in goals.into_iter().rev() {
                            st.stages[stage_i].queue.insert(0, g);
                        }
                    }
                }
            }
            (Timing::BeforeGoal, None) => {
                // Pause the current goal: the new ones run first, then it resumes.
                if let Some(f) = st.frames.last_mut() {
                    f.before.extend(goals);
                }
            }
            (Timing::BeforeGoal, Some(to)) | (Timing::AfterGoal, Some(to)) => {
                let q = &mut st.stages[stage_i].queue;
                let at = q.iter().position(|g| g.goal == to && g.skill.is_none());
                let at = match (timing, at) {
                    (Timing::BeforeGoal, Some(i)) => i,
                    (_, Some(i)) => i + 1,
                    // The named goal is running or done: right after the current one.
                    (_, None) => 0,
                };
                for (k, g) in goals.into_iter().enumerate() {
                    q.insert(at + k, g);
                }
            }
            (Timing::AfterGoal, None) => {
                let q = &mut st.stages[stage_i].queue;
                for (k, g) in goals.into_iter().enumerate() {
                    q.insert(k, g);
                }
            }
            (Timing::AfterStage, to) => {
                let i = to
                    .and_then(|t| st.stages.iter().position(|s| s.stage == t))
                    .filter(|&i| i >= stage_i)
                    .unwrap_or(stage_i);
                st.stages[i].queue.extend(goals);
            }
        }
    }

    /// The prompt of an LLM step: who speaks (definition, tone), the time to the
    /// second, the scene, the recent chat (bounded), the task.
    fn prompt(&self, st: &State, a: &Action, task: &str, ask: &str) -> String {
        let role = &st.ai_role;
        let mut p = format!("你是{role}");
        if let Some(d) = self.script.role_define(role) {
            p.push_str(&format!("（{d}）"));
        }
        p.push('。');
        let tone = a.tone.as_deref().or(self.script.role_tone(role));
        if let Some(t) = tone {
            p.push_str(&format!("说话风格：{t}。"));
        }
        p.push_str(&format!("\n现在是{}。", self.now));
        if let Some(scene) = &st.scene {
            p.push_str(&format!("场景：{scene}。"));
        }
        p.push_str("\n\n最近的对话：\n");
        if st.chat.is_empty() {
            p.push_str("（还没有）\n");
        }
        for l in st
            .chat
            .iter()
            .rev()
            .take(12)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            p.push_str(&format!("{}：{}\n", l.role, l.text));
        }
        p.push_str(&format!("\n任务：{task}\n{ask}"));
        p
    }

    fn request(
        &self,
        st: &mut State,
        kind: LlmKind,
        prompt: String,
        wants: Vec<(String, String)>,
        list: bool,
        fx: &mut Vec<Effect>,
    ) {
        st.next_request += 1;
        let req = LlmRequest {
            id: st.next_request,
            kind,
            prompt,
            schema: answer_schema(kind, &wants, list),
            wants,
            list,
            repair: false,
        };
        st.wait = Wait::Llm { id: req.id };
        st.pending = Some(req.clone());
        fx.push(Effect::Llm(req));
    }

    /// Variables an action's outputs extract: (name, definition).
    fn wants(&self, st: &State, a: &Action, fx: &mut Vec<Effect>) -> Vec<(String, String)> {
        a.output
            .iter()
            .flatten()
            .filter_map(|o| {
                let name = o.get.as_ref()?.value.clone();
                let define = o
                    .define
                    .as_deref()
                    .map_or(String::new(), |d| self.interpolate(st, d, fx));
                Some((name, define))
            })
            .collect()
    }

    /// One round of `ai_ask`.
    fn request_round(&self, st: &mut State, fx: &mut Vec<Effect>) {
        let Some(a) = self.current_action(st) else {
            return;
        };
        let task = self.interpolate(st, &a.ai_ask.as_ref().expect("ai_ask").value, fx);
        let exit = a.exit.as_deref().unwrap_or("when the task is complete");
        let wants = self.wants(st, a, fx);
        let list = a.tolist.is_some();
        let names: Vec<String> = wants.iter().map(|(n, d)| format!("{n}（{d}）")).collect();
        let ask = format!(
            "继续追问或回答对方的问题，直到满足结束条件：{exit}。\n只输出一个 JSON 对象：{{\"reply\": 你要说的一句话, \"exit\": 是否已满足结束条件(true/false), \"vars\": {{{}}}}}{}",
            names.join("，"),
            if list {
                "；vars 的每个值是一个列表，每项对应提到的一个对象"
            } else {
                ""
            }
        );
        // What is already known (said before the recent chat, or kept up to
        // date by `auto`): follow it up rather than ask again.
        let known: Vec<String> = wants
            .iter()
            .filter_map(|(n, _)| match self.lookup(st, n) {
                Some(Var::Null) | None => None,
                Some(v) => Some(format!("{n}：{}", v.text())),
            })
            .collect();
        let task = if known.is_empty() {
            task
        } else {
            format!(
                "{task}\n已经知道的（不要重复问，可以接着深入问）：{}",
                known.join("；")
            )
        };
        let prompt = self.prompt(st, a, &task, &ask);
        if let Some(f) = st.frames.last_mut() {
            f.rounds += 1;
        }
        self.request(st, LlmKind::AskRound, prompt, wants, list, fx);
    }

    /// `think`, or the extraction after `ask`: one call for the outputs
    /// (none when the action only `set`s).
    fn request_outputs(&self, st: &mut State, kind: LlmKind, fx: &mut Vec<Effect>) {
        let Some(a) = self.current_action(st) else {
            return;
        };
        let wants = self.wants(st, a, fx);
        if wants.is_empty() {
            self.commit(st, &serde_json::Map::new(), fx);
            self.advance(st);
            return;
        }
        let task = match &a.think {
            Some(t) => self.interpolate(st, &t.value, fx),
            None => "从对方刚才的回答中提取信息".to_string(),
        };
        let names: Vec<String> = wants.iter().map(|(n, d)| format!("{n}（{d}）")).collect();
        let ask = format!(
            "只输出一个 JSON 对象：{{\"vars\": {{{}}}}}",
            names.join("，")
        );
        let list = a.tolist.is_some();
        let prompt = self.prompt(st, a, &task, &ask);
        self.request(st, kind, prompt, wants, list, fx);
    }

    /// Writes an action's outputs: `get`s from `vars`, `set`s from their values.
    fn commit(
        &self,
        st: &mut State,
        vars: &serde_json::Map<String, serde_json::Value>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(a) = self.current_action(st).cloned() else {
            return;
        };
        if let Some(list) = &a.tolist {
            // One record per item: each wanted field is a list (or one value for all).
            let fields: Vec<String> = self.wants(st, &a, fx).into_iter().map(|(n, _)| n).collect();
            let len = fields
                .iter()
                .filter_map(|f| vars.get(f).and_then(|v| v.as_array()).map(Vec::len))
                .max()
                .unwrap_or(0);
            let items: Vec<BTreeMap<String, String>> = (0..len)
                .map(|i| {
                    fields
                        .iter()
                        .filter_map(|f| {
                            let v = vars.get(f)?;
                            let x = v.as_array().map_or(Some(v), |arr| arr.get(i))?;
                            Some((f.clone(), json_text(x)))
                        })
                        .collect()
                })
                .collect();
            self.set(st, &list.value, Var::List(items), fx);
        }
        for o in a.output.iter().flatten() {
            if let Some(get) = &o.get {
                if a.tolist.is_some() {
                    continue;
                }
                match vars.get(&get.value) {
                    Some(v) if !v.is_null() => {
                        self.set(st, &get.value, Var::Text(json_text(v)), fx)
                    }
                    _ => fx.push(Effect::Warning {
                        message: format!("`{}` was not extracted; left as it was", get.value),
                    }),
                }
            } else if let (Some(set), Some(value)) = (&o.set, &o.value) {
                let v = self.interpolate(st, &json_text(value), fx);
                self.set(st, &set.value, Var::Text(v), fx);
            }
        }
    }

    /// An LLM reply: parsed leniently; garbage falls back so the script always advances.
    fn llm_reply(&self, st: &mut State, text: &str, fx: &mut Vec<Effect>) {
        let Some(req) = st.pending.take() else { return };
        st.wait = Wait::Start;
        let object = crate::base::json::extract_object(text).ok();
        // JSON was asked for and not given: one repair request, then the fallbacks.
        if object.is_none() && req.kind != LlmKind::Say && !req.repair {
            fx.push(Effect::Warning {
                message: "the reply was not the JSON asked for; asking once more".into(),
            });
            st.next_request += 1;
            let retry = LlmRequest {
                id: st.next_request,
                prompt: format!(
                    "{}\n\n你上一次的回答不是要求的 JSON：\n{}\n请只输出那个 JSON 对象，不要别的文字。",
                    req.prompt,
                    text.chars().take(400).collect::<String>()
                ),
                repair: true,
                ..req
            };
            st.wait = Wait::Llm { id: retry.id };
            st.pending = Some(retry.clone());
            fx.push(Effect::Llm(retry));
            return;
        }
        let vars = object
            .as_ref()
            .and_then(|o| o.get("vars"))
            .and_then(|v| v.as_object())
            .cloned()
            .or_else(|| object.as_ref().and_then(|o| o.as_object()).cloned())
            .unwrap_or_default();
        match req.kind {
            LlmKind::Say => {
                let line = text
                    .trim()
                    .trim_matches(['"', '「', '」', '“', '”'])
                    .trim()
                    .to_string();
                let line = if line.is_empty() {
                    fx.push(Effect::Warning {
                        message: "empty ai_say reply; the built-in line is used".into(),
                    });
                    offline_say(&req)
                } else {
                    line
                };
                self.ai_line(st, line, ActionKind::AiSay, fx);
                self.advance(st);
            }
            LlmKind::AskRound => {
                let reply = object
                    .as_ref()
                    .and_then(|o| o.get("reply"))
                    .and_then(|r| r.as_str())
                    .map(str::to_string)
                    .unwrap_or_else(|| {
                        if object.is_none() && !text.trim().is_empty() && !text.contains('{') {
                            text.trim().to_string()
                        } else {
                            String::new()
                        }
                    });
                let said_exit = object
                    .as_ref()
                    .and_then(|o| o.get("exit"))
                    .is_some_and(|e| {
                        e.as_bool() == Some(true)
                            || e.as_str().is_some_and(|s| s.eq_ignore_ascii_case("true"))
                    });
                let max = self
                    .current_action(st)
                    .and_then(|a| a.max_rounds.as_ref())
                    .map_or(3, |m| m.value.clamp(1, 10) as u32);
                let rounds = st.frames.last().map_or(0, |f| f.rounds);
                if !reply.is_empty() {
                    self.ai_line(st, reply, ActionKind::AiAsk, fx);
                }
                if said_exit || rounds >= max {
                    // Variables are committed at exit, as the design says.
                    self.commit(st, &vars, fx);
                    self.advance(st);
                } else {
                    fx.push(Effect::AwaitText);
                    st.wait = Wait::Text;
                }
            }
            LlmKind::Extract => {
                self.commit(st, &vars, fx);
                self.advance(st);
            }
            LlmKind::Update => {
                st.auto_from = st.said;
                for (name, _) in &req.wants {
                    let Some(v) = vars.get(name).filter(|v| !v.is_null()) else {
                        continue;
                    };
                    let v = Var::from_json(v);
                    if v != Var::Text(String::new()) && self.lookup(st, name).as_ref() != Some(&v) {
                        self.set(st, name, v, fx);
                    }
                }
                // The loop now leaves the goal (`updated` is set).
            }
        }
    }
}

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
