//! The HEART RULE engine on small scripts: every action kind, each `call`
//! timing, scopes, interpolation markers, save/restore mid-`ai_ask`, and the
//! typed errors. LLM steps are answered by the built-in offline brain.

use std::path::Path;

use heartvale::script::engine::{
    Effect, Engine, EngineError, Input, LlmKind, LlmRequest, Script, State, Wait, offline_reply,
};
use heartvale::script::load::{ScriptSources, load_text};

fn script(yaml: &str) -> Script {
    let mut src = ScriptSources::default();
    let mut diags = Vec::new();
    load_text(Path::new("t.yaml"), yaml, &mut src, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    src.texts.push(("t.yaml".into(), yaml.to_string()));
    Script::from_sources(&src)
}

/// An engine whose clock reads 2026-04-06 10:00:00.
fn engine(s: &Script) -> Engine<'_> {
    Engine {
        script: s,
        now: "2026-04-06 10:00:00".into(),
        budgeting: Default::default(),
    }
}

/// Runs a session feeding `inputs` whenever the human is asked (LLM steps are
/// answered offline); returns what was shown, one string per line or prompt.
fn play(s: &Script, session: &str, inputs: &[&str]) -> (Vec<String>, State) {
    play_with(s, session, inputs, offline_reply)
}

/// [`play`] with LLM requests answered by `mind`.
fn play_with(
    s: &Script,
    session: &str,
    inputs: &[&str],
    mind: impl FnMut(&State, &LlmRequest) -> String,
) -> (Vec<String>, State) {
    let (shown, st, _) = play_full(s, session, inputs, mind);
    (shown, st)
}

/// [`play_with`], also returning every effect.
fn play_full(
    s: &Script,
    session: &str,
    inputs: &[&str],
    mind: impl FnMut(&State, &LlmRequest) -> String,
) -> (Vec<String>, State, Vec<Effect>) {
    play_on(&engine(s), session, inputs, mind)
}

/// [`play_full`] on a given engine.
fn play_on(
    engine: &Engine,
    session: &str,
    inputs: &[&str],
    mut mind: impl FnMut(&State, &LlmRequest) -> String,
) -> (Vec<String>, State, Vec<Effect>) {
    let mut all = Vec::new();
    let mut st = engine.start(session).unwrap();
    let mut shown = Vec::new();
    let mut next = Input::Start;
    let mut inputs = inputs.iter();
    for _ in 0..200 {
        let fx = engine.resume(&mut st, next).unwrap();
        for e in &fx {
            match e {
                Effect::Line { role, text, .. } => shown.push(format!("{role}：{text}")),
                Effect::UserSay { text } => shown.push(format!("[click] {text}")),
                Effect::Choices { options, .. } => shown.push(format!(
                    "[choose] {}",
                    options
                        .iter()
                        .map(|(k, v)| format!("{k}.{v}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )),
                Effect::Warning { message } => shown.push(format!("[warn] {message}")),
                _ => {}
            }
        }
        all.extend(fx);
        next = match &st.wait {
            Wait::Done => return (shown, st, all),
            Wait::Llm { .. } => {
                let req = st.pending.clone().unwrap();
                Input::LlmReply {
                    id: req.id,
                    text: mind(&st, &req),
                }
            }
            Wait::Continue => Input::Continue,
            Wait::Choice { .. } => Input::Choose {
                key: inputs.next().expect("a choice").to_string(),
            },
            Wait::Text => Input::Text {
                text: inputs.next().expect("an answer").to_string(),
            },
            Wait::Start => Input::Start,
        };
    }
    panic!("the session never ended: {shown:#?}");
}

const HELLO: &str = include_str!("../scenarios/heartvale/scripts/hello/hello.yaml");

/// A step's prompt is built from the context builder's layers: over the
/// dialogue budget the oldest lines go, the persona and the task never do,
/// and the request carries its tokens per layer.
#[test]
fn step_prompts_keep_to_the_dialogue_budget() {
    use heartvale::context::{Budgeting, PromptBudget, TokenCounter};
    let s = script(HELLO);
    let prompts = |budget: PromptBudget| {
        let engine = Engine {
            budgeting: Budgeting::new(&budget, TokenCounter::estimate(&budget)),
            ..engine(&s)
        };
        let (_, _, fx) = play_on(&engine, "首次会谈", &["A", "叫我小林就好"], offline_reply);
        fx.into_iter()
            .filter_map(|e| match e {
                Effect::Llm(r) => Some(r),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let roomy = prompts(PromptBudget::default());
    let last = roomy.last().expect("the name is extracted by a model step");
    assert!(
        last.prompt.contains("守望精灵：欢迎来到游心谷"),
        "{}",
        last.prompt
    );
    assert!(
        last.prompt.contains("心旅者：叫我小林就好"),
        "{}",
        last.prompt
    );
    assert_eq!(last.tokens.cut, 0);
    assert!(last.tokens.dialogue > 40, "{:?}", last.tokens);
    let tight = prompts(PromptBudget {
        dialogue: 20,
        ..PromptBudget::default()
    });
    let last = tight.last().unwrap();
    assert!(!last.prompt.contains("欢迎来到游心谷"), "{}", last.prompt);
    assert!(
        last.prompt.contains("守望精灵：嗯，我明白了。"),
        "{}",
        last.prompt
    );
    assert!(last.prompt.starts_with("你是守望精灵"));
    assert!(last.prompt.contains("任务："));
    assert!(
        last.tokens.dialogue <= 20 && last.tokens.cut > 0,
        "{:?}",
        last.tokens
    );
}

#[test]
fn the_hello_script_plays_both_branches() {
    let s = script(HELLO);
    let (a, st) = play(&s, "首次会谈", &["A", "叫我小林就好"]);
    assert_eq!(
        a,
        [
            "守望精灵：欢迎来到游心谷，我是心谷的守望精灵。",
            "[choose] A.心谷是什么地方? B.我要进入心谷",
            "守望精灵：心谷是你的内心世界，你可以看到你的各种念头、想法、情绪，你要进去看看吗？",
            "[click] 是的，我想进去",
            "守望精灵：进去前，需要先收集你一些信息",
            "[click] 没问题，你问吧",
            "守望精灵：能说说你的名字吗？",
            "守望精灵：嗯，我明白了。",
            "守望精灵：小林，这个名字真好听，很配你！",
        ]
    );
    // The human's lines are in the chat, in order.
    let human: Vec<&str> = st
        .chat
        .iter()
        .filter(|l| l.role == "心旅者")
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(
        human,
        [
            "心谷是什么地方?",
            "是的，我想进去",
            "没问题，你问吧",
            "叫我小林就好"
        ]
    );
    // B skips both conditional actions.
    let (b, _) = play(&s, "首次会谈", &["B", "小林"]);
    assert!(!b.iter().any(|l| l.contains("心谷是你的内心世界")));
    assert!(!b.iter().any(|l| l.contains("是的，我想进去")));
}

/// The hello session up to its `ai_ask`, the first round's request out.
fn at_first_ask(engine: &Engine) -> State {
    let mut st = engine.start("首次会谈").unwrap();
    engine.resume(&mut st, Input::Start).unwrap();
    engine
        .resume(&mut st, Input::Choose { key: "B".into() })
        .unwrap();
    engine.resume(&mut st, Input::Continue).unwrap();
    st
}

/// [`at_first_ask`], then the model's first round asks the name; returns the
/// state (waiting for the human's text) and that first request.
fn asked_for_a_name(engine: &Engine) -> (State, LlmRequest) {
    let mut st = at_first_ask(engine);
    let req = st.pending.clone().unwrap();
    engine
        .resume(
            &mut st,
            Input::LlmReply {
                id: req.id,
                text: r#"{"reply":"我该怎么称呼你？","exit":false,"vars":{}}"#.into(),
            },
        )
        .unwrap();
    (st, req)
}

fn timing_script(call: &str) -> Script {
    script(&format!(
        r#"sessions:
- session: s
  stages:
  - stage: S1
    steps:
    - goal: G1
      actions:
      - say: g1a
      - call: K
{call}
      - say: g1b
    - goal: G2
      actions:
      - say: g2
  - stage: S2
    steps:
    - goal: G3
      actions:
      - say: g3
---
skills:
- goal: K
  actions:
  - say: k
"#
    ))
}

fn said(s: &Script) -> String {
    play(s, "s", &[])
        .0
        .iter()
        .map(|l| l.rsplit_once('：').unwrap().1.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_call_timing_lands_where_the_design_says() {
    for (call, want) in [
        ("        timing: NOW", "g1a k g2 g3"),
        ("        timing: BEFORE_GOAL", "g1a k g1b g2 g3"),
        (
            "        timing: BEFORE_GOAL\n        timing_to: G2",
            "g1a g1b k g2 g3",
        ),
        // Naming the running goal is the same as naming none: it pauses.
        (
            "        timing: BEFORE_GOAL\n        timing_to: G1",
            "g1a k g1b g2 g3",
        ),
        (
            "        timing: AFTER_GOAL\n        timing_to: G1",
            "g1a g1b k g2 g3",
        ),
        ("        timing: AFTER_GOAL", "g1a g1b k g2 g3"),
        (
            "        timing: AFTER_GOAL\n        timing_to: G2",
            "g1a g1b g2 k g3",
        ),
        ("        timing: AFTER_STAGE", "g1a g1b g2 k g3"),
        (
            "        timing: AFTER_STAGE\n        timing_to: S2",
            "g1a g1b g2 g3 k",
        ),
    ] {
        assert_eq!(said(&timing_script(call)), want, "{call}");
    }
}

/// Calls made inside a called skill are placed by the skill's own goal:
/// AFTER_GOAL runs when the skill ends (before its caller goes on),
/// BEFORE_GOAL pauses the skill, three deep stays right, and two calls at one
/// spot run in the order they were made.
#[test]
fn calls_inside_a_skill_attach_to_the_skill() {
    let s = script(
        r#"sessions:
- session: s
  stages:
  - stage: S1
    steps:
    - goal: G1
      actions:
      - say: g1a
      - call: K1
        timing: BEFORE_GOAL
      - say: g1b
    - goal: G2
      actions:
      - say: g2
---
skills:
- goal: K1
  actions:
  - say: k1a
  - call: K3
    timing: AFTER_GOAL
  - call: K5
    timing: AFTER_GOAL
  - call: K2
    timing: BEFORE_GOAL
  - say: k1b
- goal: K2
  actions:
  - say: k2
- goal: K3
  actions:
  - say: k3a
  - call: K4
    timing: AFTER_GOAL
  - say: k3b
- goal: K4
  actions:
  - say: k4
- goal: K5
  actions:
  - say: k5
"#,
    );
    assert_eq!(said(&s), "g1a k1a k2 k1b k3a k3b k4 k5 g1b g2");
}

/// A `timing_to` naming a goal or stage that has already ended: the skill
/// runs as if it named none, and a warning says where it went.
#[test]
fn calls_aimed_at_the_past_say_where_they_went() {
    let s = script(
        r#"sessions:
- session: s
  stages:
  - stage: S1
    steps:
    - goal: G0
      actions:
      - say: g0
  - stage: S2
    steps:
    - goal: G1
      actions:
      - say: g1
    - goal: G2
      actions:
      - say: g2a
      - call: A
        timing: AFTER_GOAL
        timing_to: G1
      - call: B
        timing: AFTER_STAGE
        timing_to: S1
      - call: C
        timing: AFTER_GOAL
        timing_to: G1
      - say: g2b
    - goal: G3
      actions:
      - say: g3
---
skills:
- goal: A
  actions:
  - say: a
- goal: B
  actions:
  - say: b
- goal: C
  actions:
  - say: c
"#,
    );
    let (shown, _) = play(&s, "s", &[]);
    let warnings: Vec<&String> = shown.iter().filter(|l| l.starts_with("[warn]")).collect();
    assert_eq!(warnings.len(), 3, "{shown:#?}");
    assert!(warnings[0].contains("`timing_to: G1` names a goal that has already ended; `A` runs right after the current goal `G2` instead"), "{}", warnings[0]);
    assert!(warnings[1].contains("`timing_to: S1` names a stage that has already ended; `B` runs at the end of the current stage `S2` instead"), "{}", warnings[1]);
    let lines: Vec<&str> = shown
        .iter()
        .filter(|l| !l.starts_with('['))
        .map(|l| l.rsplit_once('：').unwrap().1)
        .collect();
    // Both AFTER_GOAL calls in the order made (the stage's goals first for B).
    assert_eq!(lines.join(" "), "g0 g1 g2a g2b a c g3 b");
}

/// A number compared with extracted text that is no number (「大概七分」)
/// is false either way, as JavaScript has it — and the engine says so,
/// once per comparison; a number extracted offline compares as one.
#[test]
fn comparing_text_with_a_number_is_warned() {
    let yaml = |define: &str| {
        format!(
            r#"sessions:
- session: s
  stages:
  - stage: t
    steps:
    - goal: g
      actions:
      - ask: 焦虑有几分？
        output:
        - get: 焦虑程度
          define: {define}
      - say: 高
        condition: "{{焦虑程度}} >= 7"
      - say: 低
        condition: "{{焦虑程度}} < 7"
"#
        )
    };
    let (shown, _) = play(&script(&yaml("焦虑的程度")), "s", &["大概七分吧"]);
    let warned: Vec<&String> = shown.iter().filter(|l| l.starts_with("[warn]")).collect();
    assert_eq!(warned.len(), 2, "{shown:#?}");
    assert!(
        warned[0].contains(
            "`焦虑程度` is 「大概七分吧」, not a number, so `>=` with a number is false either way"
        ),
        "{}",
        warned[0]
    );
    assert!(
        !shown
            .iter()
            .any(|l| l.ends_with("：高") || l.ends_with("：低"))
    );
    // A definition asking for a number gets one offline: no warning, 高.
    let (shown, _) = play(&script(&yaml("0-10 打分，只写数字")), "s", &["大概七分吧"]);
    assert!(!shown.iter().any(|l| l.starts_with("[warn]")), "{shown:#?}");
    assert!(shown.iter().any(|l| l.ends_with("：高")), "{shown:#?}");
}

#[test]
fn fromlist_calls_run_per_item_and_write_back() {
    let s = script(
        r#"sessions:
- session: s
  stages:
  - stage: 家
    declare:
    - var: 家庭
      value: [{称呼: 珍姐}, {称呼: 老爹}]
    steps:
    - goal: 了解
      actions:
      - call: 关系
        timing: BEFORE_GOAL
        fromlist: 家庭
        input:
        - set: 人
          value: "{称呼}"
        output:
        - set: 情况
          value: "{人}挺好"
      - say: "{家庭}"
---
skills:
- goal: 关系
  declare:
  - var: 人
  actions:
  - say: 和{人}关系怎样？
"#,
    );
    let (lines, _) = play(&s, "s", &[]);
    assert_eq!(
        lines,
        [
            "AI：和珍姐关系怎样？",
            "AI：和老爹关系怎样？",
            "AI：[{情况=珍姐挺好, 称呼=珍姐}, {情况=老爹挺好, 称呼=老爹}]",
        ]
    );
}

#[test]
fn scopes_override_auto_declare_and_markers() {
    let s = script(
        r#"global:
- var: 名
  value: 全局
- var: 空的
---
sessions:
- session: s
  declare:
  - var: 名
    value: 会谈
  stages:
  - stage: t
    steps:
    - goal: a
      declare:
      - var: 名
        value: 话题
      actions:
      - say: "{名}"
      - user_option: 新变量
        choices:
        - X: 选X
      - say: "{新变量}"
      - say: "{空的}"
    - goal: b
      actions:
      - say: "{名}"
      - say: "{新变量}"
"#,
    );
    let (lines, _) = play(&s, "s", &["X"]);
    assert_eq!(
        lines,
        [
            "AI：话题",
            "[choose] X.选X",
            "AI：X",
            "[warn] `{空的}` has no value yet",
            "AI：⟨空的?⟩",
            "AI：会谈",
            // Auto-declared in goal a: gone in goal b.
            "[warn] `{新变量}` is not declared",
            "AI：⟨新变量!⟩",
        ]
    );
}

#[test]
fn a_save_in_the_middle_of_an_ai_ask_resumes() {
    let s = script(HELLO);
    let engine = engine(&s);
    let (st, req) = asked_for_a_name(&engine);
    assert!(
        req.prompt.contains("2026-04-06 10:00:00"),
        "time in every prompt"
    );
    assert!(req.prompt.contains("心旅者名"));
    assert_eq!(st.wait, Wait::Text);
    let saved = serde_json::to_string(&st).unwrap();
    let mut back: State = serde_json::from_str(&saved).unwrap();
    assert_eq!(back, st);
    engine
        .resume(
            &mut back,
            Input::Text {
                text: "叫我阿溪".into(),
            },
        )
        .unwrap();
    let req = back.pending.clone().unwrap();
    let fx = engine
        .resume(&mut back, Input::LlmReply { id: req.id, text: "好的```json\n{\"reply\":\"阿溪，你好！\",\"exit\":\"true\",\"vars\":{\"心旅者名\":\"阿溪\",}}\n```".into() })
        .unwrap();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::VarSet { name, .. } if name == "心旅者名"))
    );
    assert_eq!(
        engine.lookup(&back, "心旅者名"),
        Some(heartvale::script::engine::Var::Text("阿溪".into()))
    );
}

#[test]
fn wrong_inputs_and_runaways_are_typed_errors() {
    let s = script(HELLO);
    let engine = engine(&s);
    let mut st = engine.start("首次会谈").unwrap();
    assert!(matches!(
        engine.start("没有"),
        Err(EngineError::NoSession(_))
    ));
    engine.resume(&mut st, Input::Start).unwrap();
    assert!(matches!(
        engine.resume(&mut st, Input::Continue),
        Err(EngineError::WrongInput { .. })
    ));
    assert!(matches!(
        engine.resume(&mut st, Input::Choose { key: "Z".into() }),
        Err(EngineError::BadChoice(_))
    ));
    let looping = script(
        "sessions:\n- session: s\n  stages:\n  - stage: t\n    steps:\n    - goal: g\n      actions:\n      - call: K\n---\nskills:\n- goal: K\n  actions:\n  - call: K\n    timing: NOW\n",
    );
    let runaway = Engine {
        script: &looping,
        now: String::new(),
        budgeting: Default::default(),
    };
    let mut st = runaway.start("s").unwrap();
    assert!(matches!(
        runaway.resume(&mut st, Input::Start),
        Err(EngineError::Runaway)
    ));
}

#[test]
fn a_garbage_reply_is_repaired_once_then_falls_back() {
    let s = script(HELLO);
    let engine = engine(&s);
    let mut st = at_first_ask(&engine);
    let first = st.pending.clone().unwrap();
    assert!(!first.repair);
    // Not JSON: one repair request, quoting the bad answer.
    let fx = engine
        .resume(
            &mut st,
            Input::LlmReply {
                id: first.id,
                text: "你叫什么名字呀".into(),
            },
        )
        .unwrap();
    let retry = st.pending.clone().unwrap();
    assert!(retry.repair && retry.id != first.id);
    assert!(retry.prompt.contains("你叫什么名字呀"));
    assert!(fx.iter().any(|e| matches!(e, Effect::Warning { .. })));
    // Garbage again: the text itself is used as the question, and the script goes on.
    let fx = engine
        .resume(
            &mut st,
            Input::LlmReply {
                id: retry.id,
                text: "你叫什么名字呀".into(),
            },
        )
        .unwrap();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Line { text, .. } if text == "你叫什么名字呀"))
    );
    assert_eq!(st.wait, Wait::Text);
}

#[test]
fn auto_variables_follow_corrections_until_their_last_use() {
    let s = script(
        r#"
roles:
- role: 守望精灵
  type: AI
- role: 心旅者
  type: HUMAN
sessions:
- session: 家庭
  declare:
  - var: 家庭成员情况
    define: 来访者的兄弟姐妹
    auto: true
  - var: 睡眠
    define: 睡眠情况
    update: auto
  - var: 爱好
    define: 来访者的爱好
  stages:
  - stage: 了解
    steps:
    - goal: 兄弟姐妹
      actions:
      - ask: 你有几个兄弟姐妹？
        output:
        - get: 家庭成员情况
    - goal: 闲聊
      actions:
      - ask: 最近怎么样？
    - goal: 关系
      actions:
      - say: 你和{家庭成员情况}关系如何？
    - goal: 结束
      actions:
      - ask: 还有什么想说的？
"#,
    );
    let mut asked: Vec<(LlmKind, Vec<String>)> = Vec::new();
    let (shown, st) = play_with(
        &s,
        "家庭",
        &["有一个姐姐", "刚说得不准确，我有两个姐姐", "没有了"],
        |st, req| {
            asked.push((req.kind, req.wants.iter().map(|(n, _)| n.clone()).collect()));
            match req.kind {
                LlmKind::Update if req.prompt.contains("两个姐姐") => {
                    assert!(
                        req.prompt
                            .contains("- 家庭成员情况（来访者的兄弟姐妹）：有一个姐姐")
                    );
                    assert!(req.prompt.contains("现在是2026-04-06 10:00:00"));
                    r#"{"vars": {"家庭成员情况": "两个姐姐，大姐是母亲养大的"}}"#.into()
                }
                LlmKind::Update => r#"{"vars": {}}"#.into(),
                _ => offline_reply(st, req),
            }
        },
    );
    // `睡眠` is auto but never used, `爱好` is used but not auto: neither is
    // asked for. After the last use of `家庭成员情况`, and after a goal with no
    // new words from the human, nothing is asked.
    assert_eq!(
        asked,
        [
            (LlmKind::Extract, vec!["家庭成员情况".to_string()]),
            (LlmKind::Update, vec!["家庭成员情况".to_string()]),
            (LlmKind::Update, vec!["家庭成员情况".to_string()]),
        ]
    );
    assert!(
        shown.contains(&"守望精灵：你和两个姐姐，大姐是母亲养大的关系如何？".to_string()),
        "{shown:#?}"
    );
    assert_eq!(st.wait, Wait::Done);
}

/// An `ai_ask` is told what the conversation has already told of its
/// outputs (follow up, don't ask again), but not a declared default, which
/// nobody has said yet.
#[test]
fn an_ai_ask_is_told_what_is_known_already() {
    let s = script(
        r#"
global:
- var: 家庭成员情况
  define: 来访者的兄弟姐妹
  value: 两个姐姐
- var: 父母
  define: 父母的情况
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - ai_ask: 了解来访者的家庭成员
        output:
        - get: 家庭成员情况
        - get: 父母
    - goal: h
      actions:
      - think: 记下父母
        output:
        - set: 父母
          value: 都在老家
      - ai_ask: 再聊聊家里
        output:
        - get: 父母
"#,
    );
    let mut prompts = Vec::new();
    play_with(&s, "s", &["好", "好", "好", "好", "好"], |st, req| {
        prompts.push(req.prompt.clone());
        offline_reply(st, req)
    });
    assert!(!prompts[0].contains("已经知道的"), "{}", prompts[0]);
    let later = prompts.iter().find(|p| p.contains("再聊聊家里")).unwrap();
    assert!(
        later.contains("已经知道的（不要重复问，可以接着深入问）：父母：都在老家"),
        "{later}"
    );
}

/// A stand-in model for the first-day sample: fixed values per variable, a
/// question in the first round of each `ai_ask` and an exit in the next.
fn first_day_mind(st: &State, req: &LlmRequest) -> String {
    let value = |name: &str| -> serde_json::Value {
        match name {
            "心旅者名" => "小满".into(),
            "主诉" => "失眠".into(),
            "开始时间" => "开学以后".into(),
            "用户当前心情" => "焦虑".into(),
            "风险" => "有".into(),
            "陪伴者" => "室友".into(),
            "睡眠情况" => "凌晨三点就醒".into(),
            "关系情况" => "还行".into(),
            "成员角色" => serde_json::json!(["父", "姐"]),
            "成员称呼" => serde_json::json!(["爸爸", "姐姐"]),
            other => panic!("unexpected variable {other}"),
        }
    };
    let vars: serde_json::Map<String, serde_json::Value> = req
        .wants
        .iter()
        .map(|(n, _)| (n.clone(), value(n)))
        .collect();
    match req.kind {
        LlmKind::Say => "（一句温暖的话）".into(),
        LlmKind::AskRound if st.frames.last().unwrap().rounds > 1 => {
            serde_json::json!({"reply": "明白了。", "exit": true, "vars": vars}).to_string()
        }
        LlmKind::AskRound => r#"{"reply": "能多说一点吗？", "exit": false, "vars": {}}"#.into(),
        LlmKind::Extract => serde_json::json!({ "vars": vars }).to_string(),
        LlmKind::Update => r#"{"vars": {}}"#.into(),
        LlmKind::Summary => "（小结）".into(),
    }
}

fn guardian() -> Script {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale/scripts/guardian");
    let (src, diags) = heartvale::script::check::check_dir(&dir);
    assert!(diags.is_empty(), "{diags:?}");
    Script::from_sources(&src)
}

#[test]
fn the_first_day_sample_uses_every_action_timing_and_scope() {
    use heartvale::script::format::ActionKind;
    let s = guardian();
    // The visitor hesitates (a NOW call), then answers everything with "嗯".
    let inputs = [
        "犹豫",
        "嗯",
        "嗯",
        "嗯",
        "嗯",
        "嗯",
        "嗯",
        "嗯",
        "想睡得好一点",
        "好些",
    ];
    let (shown, st, fx) = play_full(&s, "初次会谈", &inputs, first_day_mind);
    assert_eq!(st.wait, Wait::Done, "{shown:#?}");
    let entered: Vec<(&str, bool)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::GoalEntered { path, inserted } => Some((path.as_str(), *inserted)),
            _ => None,
        })
        .collect();
    let s_ = |p: &'static str, i| (p, i);
    assert_eq!(
        entered,
        [
            s_("初次会谈/进入心谷/迎接", false),
            s_("初次会谈/进入心谷/安抚", true),
            s_("初次会谈/进入心谷/称呼", false),
            s_("初次会谈/了解近况/主诉", false),
            s_("初次会谈/了解近况/危机关怀", true),
            s_("初次会谈/了解近况/呼吸练习", true),
            s_("初次会谈/了解近况/睡眠", false),
            s_("初次会谈/了解近况/睡眠小贴士", true),
            s_("初次会谈/家庭/家人", false),
            s_("初次会谈/家庭/深度了解关系情况", true),
            s_("初次会谈/家庭/深度了解关系情况", true),
            s_("初次会谈/道别/小结", false),
        ]
    );
    // NOW skipped the rest of 迎接; the `了解` branch did not show.
    assert!(!shown.iter().any(|l| l.contains("那我们走吧")));
    assert!(!shown.iter().any(|l| l.contains("心谷是你的内心世界")));
    // Every kind of line, both AI roles (scene changes), options and clicks.
    let kinds: std::collections::BTreeSet<String> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Line { action, .. } => Some(ActionKind::key(*action).to_string()),
            Effect::UserSay { .. } => Some("user_say".into()),
            Effect::Choices { .. } => Some("user_option".into()),
            Effect::Llm(r) if r.prompt.contains("判断心旅者现在的心情") => {
                Some("think".into())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "ai_ask",
            "ai_say",
            "ask",
            "fill",
            "say",
            "think",
            "user_option",
            "user_say"
        ]
    );
    for line in [
        "守望精灵：欢迎来到游心谷，我是守望精灵小爱。",
        "心谷向导：谢谢你告诉我，小满。",
        "心谷向导：我记下了你和家人的情况：[{成员关系情况=还行, 成员称呼=爸爸, 成员角色=父}, {成员关系情况=还行, 成员称呼=姐姐, 成员角色=姐}]",
        "守望精灵：能说出来就是很大的一步。下次见，小满。",
    ] {
        assert!(shown.iter().any(|l| l == line), "{line} in {shown:#?}");
    }
    // The counselling note, filled as the variables were set.
    let engine = engine(&s);
    let note: Vec<(String, Option<String>)> = engine.filled_forms(&st).remove(0).1;
    let value = |f: &str| note.iter().find(|(k, _)| k == f).unwrap().1.clone();
    assert_eq!(value("称呼").as_deref(), Some("小满"));
    assert_eq!(value("开始时间").as_deref(), Some("开学以后"));
    assert_eq!(value("当前心情").as_deref(), Some("焦虑"));
    assert_eq!(value("风险").as_deref(), Some("有"));
    assert_eq!(value("陪伴者").as_deref(), Some("室友"));
    assert!(value("家庭成员").unwrap().contains("成员关系情况=还行"));
    assert_eq!(value("期待").as_deref(), Some("想睡得好一点"));
    assert_eq!(note.len(), 9);
}

#[test]
fn the_first_day_sample_plays_offline_to_the_end() {
    let s = guardian();
    let inputs = [
        "了解",
        "我叫小满",
        "睡不着",
        "我很好",
        "爸爸、姐姐",
        "还行",
        "还行",
        "睡得踏实一点",
        "一样",
    ];
    let (shown, st) = play(&s, "初次会谈", &inputs);
    assert_eq!(st.wait, Wait::Done);
    assert!(shown.contains(
        &"守望精灵：心谷是你的内心世界，在这里可以慢慢看清自己的念头和情绪。".to_string()
    ));
    assert!(
        shown.contains(&"守望精灵：变化常常是慢慢来的。下次我们接着聊，小满。".to_string()),
        "{shown:#?}"
    );
}

#[test]
fn a_saved_run_resumes_at_its_action_in_an_edited_script() {
    let s = script(HELLO);
    let engine = engine(&s);
    let (st, req) = asked_for_a_name(&engine);
    // Every JSON step says what its answer looks like.
    let schema = req.schema.clone().unwrap();
    assert_eq!(
        schema["required"],
        serde_json::json!(["reply", "exit", "vars"])
    );
    assert_eq!(
        schema["properties"]["vars"]["properties"]["心旅者名"]["description"],
        "心旅者给出的名称"
    );
    let saved = serde_json::to_string(&st).unwrap();
    // The writer adds two lines before the ai_ask while the visitor is typing.
    let edited = HELLO.replace(
        "        - say: 进去前，需要先收集你一些信息\n",
        "        - say: 进去前，需要先收集你一些信息\n        - say: 新加的一句\n        - say: 又一句\n",
    );
    assert_ne!(edited, HELLO);
    let s2 = script(&edited);
    let engine2 = Engine {
        script: &s2,
        now: "2026-04-06 10:05:00".into(),
        budgeting: Default::default(),
    };
    let mut back: State = serde_json::from_str(&saved).unwrap();
    let fx = engine2
        .resume(
            &mut back,
            Input::Text {
                text: "叫我阿溪".into(),
            },
        )
        .unwrap();
    // Still the same ai_ask (now two places later): its next round is asked.
    assert!(
        matches!(fx.last(), Some(Effect::Llm(r)) if r.prompt.contains("向心旅者询问名字")),
        "{fx:#?}"
    );
    assert_eq!(back.frames[0].action, 8);
    assert_eq!(back.script_hash, s2.hash);
}

/// A skill runs on its own (a resident's conversation in the town): its
/// variables come from the inputs, and with no model the offline brain asks
/// what the task asks, as a question, and says what it says.
#[test]
fn a_skill_runs_on_its_own_with_inputs_and_offline_phrasing() {
    use heartvale::script::host::{Host, Prompt, Shown};
    let s = script(
        "skills:\n- goal: 问候\n  declare:\n  - var: 称呼\n  - var: 近况\n  actions:\n  - ai_ask: 温和地询问{称呼}最近在忙什么\n    output:\n    - get: 近况\n      define: 最近在忙的事\n  - ai_ask: 询问与家人日常相处的情况\n  - ai_ask: 向心旅者询问名字\n  - ai_say: 用一句话温柔地祝福{称呼}\n  - ai_say: 鼓励刚做完练习的心旅者\n",
    );
    let now = "2026-04-06 10:00:00";
    assert_eq!(
        Host::start_skill(&s, "问好", Default::default(), now).unwrap_err(),
        EngineError::NoSkill("问好".into())
    );
    let inputs = [("称呼".to_string(), "小林".to_string())].into();
    let mut host = Host::start_skill(&s, "问候", inputs, now).unwrap();
    let answers = ["在准备考试。", "挺好的。", "我叫小林。"];
    let mut answers = answers.iter();
    for _ in 0..50 {
        match host.prompt.clone() {
            Prompt::Done => break,
            Prompt::Thinking => host.reply_offline(&s, now).unwrap(),
            Prompt::Type => host.say(&s, now, answers.next().unwrap()).unwrap(),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(host.prompt, Prompt::Done);
    let lines: Vec<&str> = host
        .shown
        .iter()
        .filter_map(|l| match l {
            Shown::Line { text, .. } | Shown::Player { text } => Some(text.as_str()),
            Shown::Note { .. } => None,
        })
        .collect();
    assert_eq!(
        lines,
        [
            "小林最近在忙什么？",
            "在准备考试。",
            "在准备考试，我明白了。",
            "你跟家人平时处得怎么样？",
            "挺好的。",
            "挺好的，我明白了。",
            "能说说你的名字吗？",
            "我叫小林。",
            "嗯，我明白了。",
            "小林，祝你一切顺利！",
            "刚做完练习的你，做得很好，继续加油！",
        ]
    );
    assert!(
        host.vars
            .iter()
            .any(|(_, n, v)| n == "近况" && v.text() == "在准备考试"),
        "{:?}",
        host.vars
    );
    assert_eq!(host.state.session, "问候");
}

/// `ai_ask` never leaves its last question hanging: when `max_rounds` is
/// used up on a question, the human answers it, what it holds is extracted,
/// and only then the goal goes on; the last round's prompt asks for no new
/// question. Without `max_rounds` the cap (6) lets the design's five-round
/// example run all five rounds.
#[test]
fn ai_ask_lets_the_last_question_be_answered() {
    let yaml = |rounds: &str| {
        format!(
            r#"
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - ai_ask: 了解来访者想聊的话题{rounds}
        output:
        - get: 话题
      - say: 好的，{{话题}}
"#
        )
    };
    let mut prompts = Vec::new();
    let asking = |prompts: &mut Vec<String>, req: &LlmRequest, exit_after: u32, st: &State| {
        prompts.push(req.prompt.clone());
        let round = st.frames.last().map_or(0, |f| f.rounds);
        match req.kind {
            LlmKind::AskRound if round >= exit_after => {
                serde_json::json!({"reply": "谢谢你。", "exit": true, "vars": {"话题": "五轮"}})
                    .to_string()
            }
            LlmKind::AskRound => {
                let q = format!("第{round}个问题：还有呢？");
                serde_json::json!({"reply": q, "exit": false, "vars": {}}).to_string()
            }
            _ => serde_json::json!({"vars": {"话题": "最后的回答"}}).to_string(),
        }
    };
    let capped = script(&yaml("\n        max_rounds: 2"));
    let (shown, _) = play_with(&capped, "s", &["一", "二", "三"], |st, req| {
        asking(&mut prompts, req, 99, st)
    });
    let questions = shown.iter().filter(|l| l.contains("个问题")).count();
    assert_eq!(questions, 2, "{shown:#?}");
    assert!(
        shown.last().unwrap().ends_with("好的，最后的回答"),
        "{shown:#?}"
    );
    assert!(prompts[1].contains("这是最后一轮"), "{}", prompts[1]);
    assert!(!prompts[0].contains("这是最后一轮"));
    // The design's example: five rounds, then the model closes.
    let open = script(&yaml(""));
    let five = ["一", "二", "三", "四", "五", "六"];
    let (shown, _) = play_with(&open, "s", &five, |st, req| {
        asking(&mut Vec::new(), req, 5, st)
    });
    let questions = shown.iter().filter(|l| l.contains("个问题")).count();
    assert_eq!(questions, 4, "{shown:#?}");
    assert!(shown.last().unwrap().ends_with("好的，五轮"), "{shown:#?}");
}

/// Prompts in Chinese, as the task asks: an `ai_say` whose task sets a
/// length or a form is not told to say one sentence; `ai_ask`'s default exit
/// is the design's 完成引导任务后; a variable with no value reaches the model
/// as plain words, never as the writer's `⟨NAME?⟩` marker.
#[test]
fn prompts_follow_the_task_and_stay_chinese() {
    let s = script(
        r#"
global:
- var: 名字
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - ai_say: 用100字左右介绍今天的练习
      - ai_say: 问候{名字}
      - ai_ask: 了解来访者的睡眠
"#,
    );
    let mut prompts = Vec::new();
    play_with(&s, "s", &["好", "好", "好"], |st, req| {
        prompts.push(req.prompt.clone());
        offline_reply(st, req)
    });
    assert!(!prompts[0].contains("说一句话"), "{}", prompts[0]);
    assert!(prompts[0].contains("按任务的要求说"), "{}", prompts[0]);
    assert!(prompts[1].contains("说一句话"), "{}", prompts[1]);
    assert!(!prompts[1].contains('⟨'), "{}", prompts[1]);
    assert!(prompts[1].contains("名字：还不知道"), "{}", prompts[1]);
    assert!(prompts[2].contains("完成引导任务后"), "{}", prompts[2]);
    assert!(prompts.iter().all(|p| !p.contains("when the task")));
}

/// YAML's booleans and numbers stay typed through globals, `set` and
/// conditions, with JavaScript's truthiness and equality: the design's
/// `!{是否已登录}` fires for `false`, `== false` holds, `=== 3` holds for the
/// number 3 (not for the text "3"), and `{x}` shows `false`, `3`.
#[test]
fn booleans_and_numbers_stay_typed() {
    let s = script(
        r#"
global:
- var: 是否已登录
  value: false
- var: 分数
  value: 3
- var: 文本
  value: "3"
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - say: 请先登录
        condition: "!{是否已登录}"
      - say: 等于假
        condition: "{是否已登录} == false"
      - say: 严格等于三
        condition: "{分数} === 3"
      - say: 文本不严格等于三
        condition: "{文本} !== 3"
      - say: 宽松等于三
        condition: "{文本} == 3"
      - say: 登录状态：{是否已登录}，分数：{分数}
      - think: 记下登录
        output:
        - set: 是否已登录
          value: true
      - say: 已登录
        condition: "{是否已登录} === true"
"#,
    );
    let said = play(&s, "s", &[]).0.join("\n");
    for line in [
        "请先登录",
        "等于假",
        "严格等于三",
        "文本不严格等于三",
        "宽松等于三",
        "登录状态：false，分数：3",
        "已登录",
    ] {
        assert!(said.contains(line), "{line} missing in:\n{said}");
    }
}

/// Each step reads the chat the design gives it: the extraction after `ask`
/// the question and its answer only, `think` its goal's whole chat (however
/// long), never an earlier goal's lines.
#[test]
fn steps_read_the_chat_of_their_goal_or_action() {
    let mut long = String::new();
    for i in 0..50 {
        long.push_str(&format!("      - say: 第{i}句\n"));
    }
    let s = script(&format!(
        r#"
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: 上一个
      actions:
      - say: 上一个话题的话
    - goal: g
      actions:
{long}      - ask: 你最近睡得好吗
        output:
        - get: 睡眠
      - think: 总结这一段
        output:
        - get: 总结
"#
    ));
    let mut prompts = Vec::new();
    play_with(&s, "s", &["还行"], |st, req| {
        prompts.push(req.prompt.clone());
        offline_reply(st, req)
    });
    let extract = &prompts[0];
    assert!(
        extract.contains("你最近睡得好吗") && extract.contains("还行"),
        "{extract}"
    );
    assert!(!extract.contains("第49句"), "{extract}");
    let think = &prompts[1];
    assert!(think.contains("第0句") && think.contains("还行"), "{think}");
    assert!(!think.contains("上一个话题的话"), "{think}");
}

/// `{chat} contains '…'` reads what was said in the running goal: the
/// counsellor's follow-up fires only when the visitor mentioned 失眠, and
/// only in the goal where it was said.
#[test]
fn conditions_read_what_was_said_in_the_goal() {
    let s = script(
        r#"
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: 近况
      actions:
      - ask: 最近睡得怎么样？
      - say: 失眠多久了？
        condition: "{chat} contains '失眠'"
      - say: 那就好。
        condition: "!({chat} contains '失眠')"
    - goal: 下一个
      actions:
      - say: 这一段没人提失眠
        condition: "!({chat} contains '睡不着')"
"#,
    );
    let (said, _) = play(&s, "s", &["这周一直失眠，睡不着"]);
    let said = said.join("\n");
    assert!(said.contains("失眠多久了？"), "{said}");
    assert!(!said.contains("那就好。"), "{said}");
    // The next goal's chat starts afresh.
    assert!(said.contains("这一段没人提失眠"), "{said}");
    let (said, _) = play(&s, "s", &["睡得挺好"]);
    let said = said.join("\n");
    assert!(
        said.contains("那就好。") && !said.contains("失眠多久了？"),
        "{said}"
    );
}

const RULES: &str = r#"
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: 近况
      actions:
      - ask: 最近怎么样？
      - ask: 和家里人处得好吗？
      - say: 这句在 NOW 规则之后不会说
    - goal: 结尾
      actions:
      - ask: 还有什么想说的吗？
      - say: 今天就到这里。
---
skills:
- goal: 换个话题
  actions:
  - say: 好，不想说就先不说。
- goal: 记下睡眠
  actions:
  - say: 睡眠的事我记下了，等会儿再细聊。
---
rules:
- rule: 想停下来
  condition: "{reply} contains '不想说' || {reply} contains '别问了'"
  call: 换个话题
- rule: 提到失眠
  condition: "{reply} contains '失眠'"
  call: 记下睡眠
  timing: AFTER_GOAL
"#;

#[test]
fn rules_call_their_skill_when_the_answer_fits() {
    let s = script(RULES);
    // A NOW rule ends the goal the answer was for; the skill runs, then the next goal.
    let (said, _, fx) = play_full(&s, "s", &["不想说", "没了"], offline_reply);
    let said = said.join("\n");
    assert!(said.contains("好，不想说就先不说。"), "{said}");
    assert!(!said.contains("和家里人处得好吗？"), "{said}");
    assert!(!said.contains("NOW 规则之后"), "{said}");
    assert!(said.contains("今天就到这里。"), "{said}");
    let fired: Vec<(&str, &str)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::RuleFired { rule, skill } => Some((rule.as_str(), skill.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(fired, [("想停下来", "换个话题")]);
    // Once a session: the second "别问了" fires nothing.
    let (_, st, fx) = play_full(&s, "s", &["别问了", "别问了"], offline_reply);
    let n = fx
        .iter()
        .filter(|e| matches!(e, Effect::RuleFired { .. }))
        .count();
    assert_eq!(n, 1);
    assert!(matches!(st.wait, Wait::Done));
    // AFTER_GOAL: the goal goes on, the skill comes right after it.
    let (said, _) = play(&s, "s", &["最近老失眠", "还行", "没了"]);
    let i = |t: &str| {
        said.iter()
            .position(|l| l.contains(t))
            .unwrap_or_else(|| panic!("{t}: {said:#?}"))
    };
    assert!(i("和家里人处得好吗？") < i("NOW 规则之后"));
    assert!(i("NOW 规则之后") < i("睡眠的事我记下了"));
    assert!(i("睡眠的事我记下了") < i("还有什么想说的吗？"));
    // Nothing fits: no rule.
    let (_, _, fx) = play_full(&s, "s", &["挺好", "还行", "没了"], offline_reply);
    assert!(!fx.iter().any(|e| matches!(e, Effect::RuleFired { .. })));
}

#[test]
fn a_taboo_once_known_is_kept_out_of_later_prompts() {
    let s = script(
        r#"
global:
- var: 用户禁忌
  define: 对方不愿意谈的话题
  value: 无
  taboo: true
---
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - ai_say: 问候对方
      - ask: 最近家里怎么样？
      - think: 对方不愿意谈什么
        output:
        - get: 用户禁忌
      - ai_say: 聊聊最近的天气
"#,
    );
    let mut prompts = Vec::new();
    let (_, st) = play_with(&s, "s", &["别提我爸的病了"], |st, req| {
        prompts.push(req.prompt.clone());
        match req.kind {
            LlmKind::Extract => r#"{"用户禁忌": "父亲的病"}"#.to_string(),
            _ => offline_reply(st, req),
        }
    });
    assert!(matches!(st.wait, Wait::Done));
    // "无" (nothing yet) is no taboo: the first prompt names none.
    assert!(!prompts[0].contains("忌讳"), "{}", prompts[0]);
    let last = prompts.last().unwrap();
    assert!(
        last.contains("对方忌讳的话题，不要主动提起：父亲的病"),
        "{last}"
    );
}

#[test]
fn a_stage_out_of_time_skips_what_it_has_not_begun() {
    let s = script(
        r#"
sessions:
- session: s
  stages:
  - stage: 了解近况
    minutes: 15
    overtime: 收尾
    steps:
    - goal: 主诉
      actions:
      - ask: 最近最困扰你的是什么？
    - goal: 睡眠
      actions:
      - ask: 睡得怎么样？
    - goal: 布置作业
      keep: true
      actions:
      - say: 这周试着每天写三件小事。
  - stage: 结束
    steps:
    - goal: 道别
      actions:
      - say: 下次见。
---
skills:
- goal: 收尾
  actions:
  - say: 时间差不多了，剩下的我们下次再聊。
"#,
    );
    // Each answer comes `gap` minutes after the last.
    let run = |gap: i64| {
        let mut e = engine(&s);
        let mut st = e.start("s").unwrap();
        let (mut shown, mut all) = (Vec::new(), Vec::new());
        let mut input = Input::Start;
        let mut clock =
            chrono::NaiveDateTime::parse_from_str("2026-04-06 10:00:00", "%Y-%m-%d %H:%M:%S")
                .unwrap();
        for _ in 0..50 {
            let fx = e.resume(&mut st, input).unwrap();
            for f in &fx {
                if let Effect::Line { text, .. } = f {
                    shown.push(text.clone());
                }
            }
            all.extend(fx);
            input = match st.wait {
                Wait::Done => break,
                Wait::Text => {
                    clock += chrono::Duration::minutes(gap);
                    e.now = clock.format("%Y-%m-%d %H:%M:%S").to_string();
                    Input::Text {
                        text: "还行".into(),
                    }
                }
                _ => Input::Start,
            };
        }
        (shown, all)
    };
    // In time: everything, no wrap-up.
    let (shown, all) = run(5);
    assert!(shown.iter().any(|l| l == "睡得怎么样？"), "{shown:?}");
    assert!(
        !shown.iter().any(|l| l.contains("时间差不多了")),
        "{shown:?}"
    );
    assert!(
        !all.iter()
            .any(|e| matches!(e, Effect::StageOvertime { .. }))
    );
    // Twenty minutes on the first answer: 睡眠 is skipped, the wrap-up runs,
    // the goal marked `keep` still does, and the next stage begins.
    let (shown, all) = run(20);
    assert_eq!(
        shown,
        [
            "最近最困扰你的是什么？",
            "时间差不多了，剩下的我们下次再聊。",
            "这周试着每天写三件小事。",
            "下次见。"
        ]
    );
    let over: Vec<&Effect> = all
        .iter()
        .filter(|e| matches!(e, Effect::StageOvertime { .. }))
        .collect();
    assert_eq!(
        over,
        [&Effect::StageOvertime {
            stage: "了解近况".into(),
            minutes: 15,
            skipped: vec!["睡眠".into()],
        }]
    );
}

#[test]
fn fill_asks_for_each_field_not_filled_yet() {
    let s = script(
        r#"
forms:
- form: 咨询笔记
  fields:
  - field: 称呼
    var: 名字
  - field: 主诉
    define: 这次最想解决的困扰
  - field: 期待
    define: 希望咨询带来什么改变
---
sessions:
- session: s
  stages:
  - stage: a
    steps:
    - goal: g
      actions:
      - ask: 怎么称呼你？
        output:
        - get: 名字
      - fill: 咨询笔记
      - fill: 咨询笔记
        fields: [期待]
      - say: 谢谢，{主诉}，我记下了。
"#,
    );
    let (said, _, fx) = play_full(&s, "s", &["小林", "总是睡不好", ""], offline_reply);
    // 称呼 was filled by the ask: only 主诉 and 期待 are asked, each once.
    let asks: Vec<&String> = said.iter().filter(|l| l.contains("请填一下")).collect();
    assert_eq!(asks.len(), 2, "{said:#?}");
    assert!(
        asks[0].contains("「主诉」（这次最想解决的困扰）"),
        "{}",
        asks[0]
    );
    assert!(asks[1].contains("「期待」"), "{}", asks[1]);
    assert!(
        said.iter()
            .any(|l| l.contains("谢谢，总是睡不好，我记下了。")),
        "{said:#?}"
    );
    let filled: Vec<(&str, &str)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::FormFilled { field, value, .. } => Some((field.as_str(), value.as_str())),
            _ => None,
        })
        .collect();
    // An empty answer is not asked again.
    assert_eq!(
        filled,
        [
            ("称呼", "小林"),
            ("主诉", "总是睡不好"),
            ("期待", "（未填）")
        ]
    );
}

/// An `auto` variable a form field is filled from is read by the form at the
/// end: it keeps updating after its last use in the script, a goal's own too.
#[test]
fn auto_variables_a_form_reads_keep_updating() {
    let s = script(
        r#"
forms:
- form: 笔记
  fields:
  - field: 心情
  - field: 爱好
---
sessions:
- session: s
  declare:
  - var: 心情
    define: 来访者的心情
    auto: true
  stages:
  - stage: a
    steps:
    - goal: 一
      declare:
      - var: 爱好
        define: 来访者的爱好
        auto: true
      actions:
      - ask: 最近怎么样？
    - goal: 二
      actions:
      - ask: 还有呢？
"#,
    );
    let mut updates = Vec::new();
    let (_, _, fx) = play_full(
        &s,
        "s",
        &["挺开心，周末在画画", "其实这两天有点累"],
        |st, req| {
            if req.kind != LlmKind::Update {
                return offline_reply(st, req);
            }
            let wanted: Vec<&str> = req.wants.iter().map(|(n, _)| n.as_str()).collect();
            updates.push(wanted.join(","));
            if req.prompt.contains("有点累") {
                r#"{"vars": {"心情": "有点累"}}"#.into()
            } else {
                r#"{"vars": {"心情": "开心", "爱好": "画画"}}"#.into()
            }
        },
    );
    // 一's end asks for both (爱好 is 一's own), 二's end for 心情 only.
    assert_eq!(updates, ["心情,爱好", "心情"]);
    let last = |field: &str| {
        fx.iter().rev().find_map(|e| match e {
            Effect::FormFilled {
                field: f, value, ..
            } if f == field => Some(value.clone()),
            _ => None,
        })
    };
    assert_eq!(
        last("心情").as_deref(),
        Some("有点累"),
        "the correction reaches the note"
    );
    assert_eq!(last("爱好").as_deref(), Some("画画"));
}

/// An `auto` variable is brought up to date before an action that reads it
/// in the middle of a goal (the design's two problems: what was said before
/// the question, and a correction), once per action; one just extracted
/// from the human's last words is not asked for again.
#[test]
fn auto_variables_update_before_an_action_reads_them() {
    let s = script(
        r#"
roles:
- role: 守望精灵
  type: AI
- role: 心旅者
  type: HUMAN
sessions:
- session: s
  declare:
  - var: 名字
    define: 来访者的名字
    auto: true
  stages:
  - stage: a
    steps:
    - goal: 一
      declare:
      - var: 朋友关系
        define: 来访者和朋友们的关系
        auto: true
      actions:
      - ask: 你遇到了什么困扰？
      - condition: "{朋友关系}"
        say: 你说到了朋友：{朋友关系}。
      - ask: 还想聊什么？
      - say: 记下了：{朋友关系}。
    - goal: 二
      actions:
      - ask: 你叫什么？
        output:
        - get: 名字
      - say: 你好，{名字}。
"#,
    );
    let mut asked = Vec::new();
    let (shown, st) = play_with(
        &s,
        "s",
        &["我和最好的朋友阿东吵架了", "其实后来和好了", "林小溪"],
        |st, req| {
            asked.push(req.kind);
            match req.kind {
                LlmKind::Update if req.prompt.contains("和好了") => {
                    assert!(req.prompt.contains("：和阿东吵架了"), "{}", req.prompt);
                    r#"{"vars": {"朋友关系": "和阿东吵架后和好了"}}"#.into()
                }
                LlmKind::Update => r#"{"vars": {"朋友关系": "和阿东吵架了"}}"#.into(),
                _ => offline_reply(st, req),
            }
        },
    );
    assert!(
        shown.contains(&"守望精灵：你说到了朋友：和阿东吵架了。".to_string()),
        "{shown:#?}"
    );
    assert!(
        shown.contains(&"守望精灵：记下了：和阿东吵架后和好了。".to_string()),
        "{shown:#?}"
    );
    assert!(
        shown.contains(&"守望精灵：你好，林小溪。".to_string()),
        "{shown:#?}"
    );
    // Before the condition, before the last `say`; then only 名字's extraction.
    assert_eq!(asked, [LlmKind::Update, LlmKind::Update, LlmKind::Extract]);
    assert_eq!(st.wait, Wait::Done);
}
