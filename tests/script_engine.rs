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
    mut mind: impl FnMut(&State, &LlmRequest) -> String,
) -> (Vec<String>, State) {
    let engine = Engine {
        script: s,
        now: "2026-04-06 10:00:00".into(),
    };
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
        next = match &st.wait {
            Wait::Done => return (shown, st),
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
            "守望精灵：向心旅者询问名字？",
            "守望精灵：好的，我记下了。",
            "守望精灵：根据心旅者给的名称叫我小林就好。",
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
    let engine = Engine {
        script: &s,
        now: "2026-04-06 10:00:00".into(),
    };
    let mut st = at_first_ask(&engine);
    // The first ai_ask round is out.
    let req = st.pending.clone().unwrap();
    assert!(
        req.prompt.contains("2026-04-06 10:00:00"),
        "time in every prompt"
    );
    assert!(req.prompt.contains("心旅者名"));
    engine
        .resume(
            &mut st,
            Input::LlmReply {
                id: req.id,
                text: r#"{"reply":"我该怎么称呼你？","exit":false,"vars":{}}"#.into(),
            },
        )
        .unwrap();
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
    let engine = Engine {
        script: &s,
        now: String::new(),
    };
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
    let engine = Engine {
        script: &looping,
        now: String::new(),
    };
    let mut st = engine.start("s").unwrap();
    assert!(matches!(
        engine.resume(&mut st, Input::Start),
        Err(EngineError::Runaway)
    ));
}

#[test]
fn a_garbage_reply_is_repaired_once_then_falls_back() {
    let s = script(HELLO);
    let engine = Engine {
        script: &s,
        now: String::new(),
    };
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

#[test]
fn an_ai_ask_is_told_what_is_known_already() {
    let s = script(
        r#"
global:
- var: 家庭成员情况
  define: 来访者的兄弟姐妹
  value: 两个姐姐
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
"#,
    );
    let mut prompts = Vec::new();
    play_with(&s, "s", &["好", "好", "好"], |st, req| {
        prompts.push(req.prompt.clone());
        offline_reply(st, req)
    });
    assert!(
        prompts[0].contains("已经知道的（不要重复问，可以接着深入问）：家庭成员情况：两个姐姐")
    );
    assert!(!prompts[0].contains("父母："));
}
