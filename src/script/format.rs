//! The HEART RULE file format as writers type it: one struct per YAML shape,
//! unknown keys refused (the error lists the valid ones). An action is a
//! struct of optional keys; which keys make sense together is checked in a
//! second pass (`check.rs`), so a mistake gets a message about that action
//! rather than serde's "did not match any variant".

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

/// One YAML document of a script set; its top-level keys say what it holds.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// `sessions:` — the sessions of a script set (`main.yaml`).
    #[serde(default)]
    pub sessions: Option<Vec<Session>>,
    /// `global:` — variables every session sees.
    #[serde(default)]
    pub global: Option<Vec<VarDecl>>,
    /// `roles:` — who speaks: the AI roles and the human.
    #[serde(default)]
    pub roles: Option<Vec<Role>>,
    /// `skills:` — goals other goals may `call`.
    #[serde(default)]
    pub skills: Option<Vec<Goal>>,
    /// `forms:` — notes the scripts fill in (咨询笔记 …).
    #[serde(default)]
    pub forms: Option<Vec<Form>>,
    /// `rules:` — skills called when something is noticed in the talk (`rules.yaml`).
    #[serde(default)]
    pub rules: Option<Vec<Rule>>,
}

/// A rule (`rules.yaml`): after each answer of the human, in file order, the
/// first rule whose condition holds calls its skill, as a `call` action would
/// (`timing` default `NOW`: the running goal ends and the skill runs) — once
/// per session, unless `repeat: true`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The rule's name.
    #[schemars(with = "String")]
    pub rule: Spanned<String>,
    /// When it fires: a condition, checked after each answer (`{reply}` is
    /// the human's last answer, `{chat}` the running goal's chat).
    #[schemars(with = "String")]
    pub condition: Spanned<String>,
    /// The skill it calls.
    #[schemars(with = "String")]
    pub call: Spanned<String>,
    /// When the skill runs (default `NOW`).
    #[serde(default)]
    #[schemars(with = "Option<Timing>")]
    pub timing: Option<Spanned<Timing>>,
    /// The goal (or stage) the timing is relative to.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub timing_to: Option<Spanned<String>>,
    /// The skill's variables, set before it runs.
    #[serde(default)]
    pub input: Option<Vec<Output>>,
    /// What it hands back.
    #[serde(default)]
    pub output: Option<Vec<Output>>,
    /// Whether it may fire again in the same session (default: once).
    #[serde(default)]
    pub repeat: bool,
}

impl Rule {
    /// The `call` action the rule performs, its condition included (checked
    /// and run as any action is).
    pub fn action(&self) -> Action {
        Action {
            call: Some(Box::new(self.call.clone())),
            timing: self.timing.clone().map(Box::new),
            timing_to: self.timing_to.clone().map(Box::new),
            input: self.input.clone(),
            output: self.output.clone(),
            condition: Some(Box::new(self.condition.clone())),
            ..Action::default()
        }
    }
}

/// A session (会话): stages run in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// The session's name.
    #[schemars(with = "String")]
    pub session: Spanned<String>,
    /// Variables of the session's scope.
    #[serde(default)]
    pub declare: Vec<VarDecl>,
    /// The stages, in order.
    #[serde(default)]
    pub stages: Vec<Stage>,
}

/// A stage (阶段) of a session: goals run in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    /// The stage's name.
    #[schemars(with = "String")]
    pub stage: Spanned<String>,
    /// Variables of the stage's scope.
    #[serde(default)]
    pub declare: Vec<VarDecl>,
    /// Its time budget in minutes, by the host's clock (game time in the
    /// town, the wall clock in the terminal): once it has run out, the goals
    /// of its own it has not begun are skipped, except those marked `keep:
    /// true` (skills a call put in its queue still run).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1))]
    pub minutes: Option<Spanned<u32>>,
    /// A skill that runs when the budget runs out (a wrap-up), before the
    /// goals kept.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub overtime: Option<Spanned<String>>,
    /// The goals, in order.
    #[serde(default)]
    pub steps: Vec<Goal>,
}

/// A goal (话题) of a stage, or a skill in `skills.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    /// The goal's (or skill's) name.
    #[schemars(with = "String")]
    pub goal: Spanned<String>,
    /// `declare:` may be left empty (`declare:` with nothing after it).
    #[serde(default)]
    pub declare: Option<Vec<VarDecl>>,
    /// Runs even when its stage's time budget has run out.
    #[serde(default)]
    pub keep: Option<bool>,
    /// The actions, in order.
    #[serde(default)]
    pub actions: Vec<Action>,
}

impl Goal {
    /// The names in its `declare:`.
    pub fn declared(&self) -> impl Iterator<Item = &str> {
        self.declare.iter().flatten().map(|v| v.var.value.as_str())
    }
}

/// `- var: NAME  define: PROMPT  value: DEFAULT  auto: true|false`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VarDecl {
    /// The variable's name (`{NAME}` in text).
    #[schemars(with = "String")]
    pub var: Spanned<String>,
    /// What the variable holds, told to the model that fills it in.
    #[serde(default)]
    pub define: Option<String>,
    /// Any scalar (text, number, true/false) or a list; absent means no value yet.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    pub value: Option<Spanned<serde_json::Value>>,
    /// Filled in from the conversation by the model after each turn.
    #[serde(default)]
    pub auto: Option<bool>,
    /// The design's other spelling of `auto`: `update: auto | get`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub update: Option<Spanned<String>>,
    /// A taboo (敏感话题): what it holds (a topic, or several) is named in
    /// every later prompt as something not to bring up.
    #[serde(default)]
    pub taboo: Option<bool>,
    /// A global kept across sessions (the design's long-term memory): a
    /// player's next session starts with its last value.
    #[serde(default)]
    #[schemars(with = "Option<bool>")]
    pub persist: Option<Spanned<bool>>,
}

impl VarDecl {
    /// Whether the variable is filled in automatically (`auto: true` or `update: auto`).
    pub fn is_auto(&self) -> bool {
        self.auto == Some(true) || self.update.as_ref().is_some_and(|u| u.value == "auto")
    }
}

/// Who plays a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
pub enum RoleType {
    /// A model (or a resident) speaks it.
    #[serde(rename = "AI", alias = "ai")]
    Ai,
    /// The player speaks it.
    #[serde(rename = "HUMAN", alias = "human")]
    Human,
}

/// A role (角色) of a script set.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Role {
    /// The role's name.
    #[schemars(with = "String")]
    pub role: Spanned<String>,
    /// Who plays it.
    #[serde(rename = "type")]
    pub kind: RoleType,
    /// Who the role is, told to the model.
    #[serde(default)]
    pub define: Option<String>,
    /// The name shown for its lines.
    #[serde(default)]
    pub name: Option<String>,
    /// Default tone of an AI role's generated lines.
    #[serde(default)]
    pub tone: Option<String>,
    /// For the client (voice and picture); kept, not used by the engine.
    #[serde(default)]
    pub sound_mode: Option<String>,
    /// For the client (picture); kept, not used by the engine.
    #[serde(default)]
    pub pic: Option<String>,
}

/// A form (咨询笔记 …): named fields a script fills in for the counsellor.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Form {
    /// The form's name.
    #[schemars(with = "String")]
    pub form: Spanned<String>,
    /// What the form is for.
    #[serde(default)]
    pub define: Option<String>,
    /// Its fields, in order.
    #[serde(default)]
    pub fields: Vec<FormField>,
}

/// A field of a form.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormField {
    /// The field's name.
    #[schemars(with = "String")]
    pub field: Spanned<String>,
    /// What goes in it.
    #[serde(default)]
    pub define: Option<String>,
    /// A variable the field is filled from.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub var: Option<Spanned<String>>,
}

/// `call` timings, as the design names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
pub enum Timing {
    /// Run the skill now, ending the current goal.
    #[serde(rename = "NOW")]
    Now,
    /// Before the current goal (or the one in `timing_to`), pausing it.
    #[serde(rename = "BEFORE_GOAL")]
    BeforeGoal,
    /// After the current goal (or the one in `timing_to`).
    #[serde(rename = "AFTER_GOAL")]
    AfterGoal,
    /// After the current stage (or the one in `timing_to`).
    #[serde(rename = "AFTER_STAGE")]
    AfterStage,
}

/// One action: exactly one of the kind keys (`say`, `user_say`, `user_option`,
/// `ask`, `ai_say`, `ai_ask`, `think`, `call`, `scene`/`ai`, `fill`) plus the
/// keys that kind takes.
// The keys are boxed: most are absent, and a flat struct of them was over a
// kilobyte, moved at every step of parsing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// A fixed line the AI role says.
    #[schemars(with = "Option<String>")]
    pub say: Option<Box<Spanned<String>>>,
    /// A fixed line the human says (clicks to go on).
    #[schemars(with = "Option<String>")]
    pub user_say: Option<Box<Spanned<String>>>,
    /// A multiple choice; the chosen key goes to this variable.
    #[schemars(with = "Option<String>")]
    pub user_option: Option<Box<Spanned<String>>>,
    /// A fixed question; the human's free answer feeds `output`.
    #[schemars(with = "Option<String>")]
    pub ask: Option<Box<Spanned<String>>>,
    /// A line the model writes to this task.
    #[schemars(with = "Option<String>")]
    pub ai_say: Option<Box<Spanned<String>>>,
    /// A conversation the model holds to this task, up to `max_rounds`.
    #[schemars(with = "Option<String>")]
    pub ai_ask: Option<Box<Spanned<String>>>,
    /// A silent task: the model fills in `output` variables.
    #[schemars(with = "Option<String>")]
    pub think: Option<Box<Spanned<String>>>,
    /// A skill (or goal) to run, at `timing`.
    #[schemars(with = "Option<String>")]
    pub call: Option<Box<Spanned<String>>>,
    /// A scene change (where, when, mood), told to later prompts.
    #[schemars(with = "Option<String>")]
    pub scene: Option<Box<Spanned<String>>>,
    /// The AI role that speaks from here on.
    #[schemars(with = "Option<String>")]
    pub ai: Option<Box<Spanned<String>>>,
    /// A form (`forms.yaml`) the human fills in, field by field.
    #[schemars(with = "Option<String>")]
    pub fill: Option<Box<Spanned<String>>>,

    /// `user_option`: `- KEY: TEXT`, in order.
    pub choices: Option<Vec<BTreeMap<String, String>>>,
    /// The tone of a generated line.
    pub tone: Option<String>,
    /// `ai_ask`: when the model should end the conversation.
    pub exit: Option<String>,
    /// `ai_ask`: the most rounds before it exits anyway (default 6; a last
    /// question is still answered).
    #[schemars(with = "Option<i64>", range(min = 1, max = 10))]
    pub max_rounds: Option<Box<Spanned<i64>>>,
    /// `ai_ask` / `think`: a list variable each answer's outputs are appended to as one record.
    #[schemars(with = "Option<String>")]
    pub tolist: Option<Box<Spanned<String>>>,
    /// Variables the action fills in (`get`) or sets (`set`).
    pub output: Option<Vec<Output>>,

    /// `call`: when the skill runs (default `NOW`).
    #[schemars(with = "Option<Timing>")]
    pub timing: Option<Box<Spanned<Timing>>>,
    /// `call`: the goal (or stage) the timing is relative to.
    #[schemars(with = "Option<String>")]
    pub timing_to: Option<Box<Spanned<String>>>,
    /// `call`: a list variable; the skill runs once per item.
    #[schemars(with = "Option<String>")]
    pub fromlist: Option<Box<Spanned<String>>>,
    /// `call`: the skill's variables, set before it runs.
    pub input: Option<Vec<Output>>,
    /// `fill`: only these fields (default: every field of the form).
    #[schemars(with = "Option<Vec<String>>")]
    pub fields: Option<Vec<Spanned<String>>>,

    /// The action runs only when this holds (`{心情} == '焦虑' && {分数} >= 3`).
    #[schemars(with = "Option<String>")]
    pub condition: Option<Box<Spanned<String>>>,
}

/// `- get: VAR  define: PROMPT` or `- set: VAR  value: VALUE`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// A variable to fill in.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub get: Option<Spanned<String>>,
    /// What to fill it in with, told to the model.
    #[serde(default)]
    pub define: Option<String>,
    /// A variable to set.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub set: Option<Spanned<String>>,
    /// The value `set` gives it.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    pub value: Option<Spanned<serde_json::Value>>,
}

/// The kinds of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// `say`
    Say,
    /// `user_say`
    UserSay,
    /// `user_option`
    UserOption,
    /// `ask`
    Ask,
    /// `ai_say`
    AiSay,
    /// `ai_ask`
    AiAsk,
    /// `think`
    Think,
    /// `call`
    Call,
    /// `scene` (or `ai:` alone)
    Scene,
    /// `fill`
    Fill,
}

impl ActionKind {
    /// Every kind, in the order an action's keys are read.
    pub const ALL: [ActionKind; 10] = [
        ActionKind::Say,
        ActionKind::UserSay,
        ActionKind::UserOption,
        ActionKind::Ask,
        ActionKind::AiSay,
        ActionKind::AiAsk,
        ActionKind::Think,
        ActionKind::Call,
        ActionKind::Scene,
        ActionKind::Fill,
    ];

    /// The kind's YAML key.
    pub fn key(self) -> &'static str {
        match self {
            ActionKind::Say => "say",
            ActionKind::UserSay => "user_say",
            ActionKind::UserOption => "user_option",
            ActionKind::Ask => "ask",
            ActionKind::AiSay => "ai_say",
            ActionKind::AiAsk => "ai_ask",
            ActionKind::Think => "think",
            ActionKind::Call => "call",
            ActionKind::Scene => "scene",
            ActionKind::Fill => "fill",
        }
    }

    /// The keys this kind takes besides its own and `condition`.
    pub fn extra_keys(self) -> &'static [&'static str] {
        match self {
            ActionKind::Say | ActionKind::UserSay => &[],
            ActionKind::UserOption => &["choices"],
            ActionKind::Ask => &["output"],
            ActionKind::AiSay => &["tone"],
            ActionKind::AiAsk => &["tone", "exit", "max_rounds", "tolist", "output"],
            ActionKind::Think => &["output", "tolist"],
            ActionKind::Call => &["timing", "timing_to", "fromlist", "input", "output"],
            // `scene:` may name the speaking AI role with `ai:` (or `ai:` alone).
            ActionKind::Scene => &["ai"],
            ActionKind::Fill => &["fields"],
        }
    }
}

/// What an action does, with the text under its kind's key: the first kind
/// present, as the engine runs it (`ai:` alone is a scene change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// `say`: a fixed line.
    Say(&'a str),
    /// `user_say`: a line the human clicks.
    UserSay(&'a str),
    /// `user_option`: the variable the choice goes to.
    UserOption(&'a str),
    /// `ask`: a fixed question.
    Ask(&'a str),
    /// `ai_say`: the task of a generated line.
    AiSay(&'a str),
    /// `ai_ask`: the task of a generated conversation.
    AiAsk(&'a str),
    /// `think`: the task of an extraction.
    Think(&'a str),
    /// `call`: the skill called.
    Call(&'a str),
    /// `scene`: the new scene, if one is named (the speaker is in `ai:`).
    Scene(Option<&'a str>),
    /// `fill`: the form the human fills in.
    Fill(&'a str),
}

impl Action {
    /// What the engine runs for this action.
    pub fn step(&self) -> Option<Step<'_>> {
        let kind = self.kind()?;
        let text = self.kind_text(kind).map(|t| t.value.as_str());
        Some(match kind {
            ActionKind::Say => Step::Say(text?),
            ActionKind::UserSay => Step::UserSay(text?),
            ActionKind::UserOption => Step::UserOption(text?),
            ActionKind::Ask => Step::Ask(text?),
            ActionKind::AiSay => Step::AiSay(text?),
            ActionKind::AiAsk => Step::AiAsk(text?),
            ActionKind::Think => Step::Think(text?),
            ActionKind::Call => Step::Call(text?),
            ActionKind::Scene => Step::Scene(text),
            ActionKind::Fill => Step::Fill(text?),
        })
    }

    /// The kind keys present, in the order of [`ActionKind::ALL`]. `ai:` alone
    /// (no `scene:`) counts as a scene change.
    pub fn kinds(&self) -> Vec<ActionKind> {
        let mut out: Vec<ActionKind> = ActionKind::ALL
            .into_iter()
            .filter(|k| self.kind_text(*k).is_some())
            .collect();
        if self.scene.is_none() && self.ai.is_some() {
            out.push(ActionKind::Scene);
        }
        out
    }

    /// The first kind present (what the engine runs), without allocating.
    pub fn kind(&self) -> Option<ActionKind> {
        ActionKind::ALL
            .into_iter()
            .find(|k| self.kind_text(*k).is_some())
            .or_else(|| self.ai.as_ref().map(|_| ActionKind::Scene))
    }

    /// The text under a kind's key.
    pub fn kind_text(&self, k: ActionKind) -> Option<&Spanned<String>> {
        match k {
            ActionKind::Say => self.say.as_deref(),
            ActionKind::UserSay => self.user_say.as_deref(),
            ActionKind::UserOption => self.user_option.as_deref(),
            ActionKind::Ask => self.ask.as_deref(),
            ActionKind::AiSay => self.ai_say.as_deref(),
            ActionKind::AiAsk => self.ai_ask.as_deref(),
            ActionKind::Think => self.think.as_deref(),
            ActionKind::Call => self.call.as_deref(),
            ActionKind::Scene => self.scene.as_deref(),
            ActionKind::Fill => self.fill.as_deref(),
        }
    }

    /// The non-kind keys present.
    pub fn extra_keys_present(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut has = |present: bool, key| {
            if present {
                v.push(key);
            }
        };
        has(self.choices.is_some(), "choices");
        has(self.tone.is_some(), "tone");
        has(self.exit.is_some(), "exit");
        has(self.max_rounds.is_some(), "max_rounds");
        has(self.tolist.is_some(), "tolist");
        has(self.output.is_some(), "output");
        has(self.timing.is_some(), "timing");
        has(self.timing_to.is_some(), "timing_to");
        has(self.fromlist.is_some(), "fromlist");
        has(self.input.is_some(), "input");
        has(self.fields.is_some(), "fields");
        has(self.ai.is_some() && self.scene.is_some(), "ai");
        v
    }
}
