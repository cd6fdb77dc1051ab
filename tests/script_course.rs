//! Memory across sessions (the design's 长记忆): a player's course of HEART
//! RULE sessions. A session played as the next of a course starts with the
//! `persist: true` globals the last one left (as set values: they fill forms),
//! its prompts carry the forms last filled and every past session's summary,
//! `{history}` reads them, and it ends with a summary and its record.

mod util;

use std::path::Path;

use heartvale::script::engine::{
    Course, Effect, Engine, Input, LlmKind, LlmRequest, Script, SessionRecord, State, Var, Wait,
    offline_reply,
};
use heartvale::script::load::{ScriptSources, load_text};

const SET: &str = r#"
global:
- var: 名字
  define: 对方希望被怎样称呼
  value: 你
  persist: true
- var: 心情
  define: 对方此刻的心情
  value: 平静
---
forms:
- form: 笔记
  fields:
  - field: 名字
  - field: 困扰
---
sessions:
- session: 初次
  declare:
  - var: 困扰
    define: 对方最想解决的困扰
  stages:
  - stage: 一
    steps:
    - goal: 认识
      actions:
      - say: 欢迎你来。
        condition: "!{history}"
      - ask: 我该怎么称呼你？
        output:
        - get: 名字
      - ask: 最近最困扰你的是什么？
        output:
        - get: 困扰
      - think: 对方此刻的心情
        output:
        - set: 心情
          value: 低落
- session: 再次
  stages:
  - stage: 一
    steps:
    - goal: 重逢
      actions:
      - say: "{名字}，你回来了。心情：{心情}。"
        condition: "{history}"
      - say: 初次见面。
        condition: "!{history}"
      - ai_say: 提起上次聊过的事
      - say: "往次：{history}"
"#;

fn script() -> Script {
    let mut src = ScriptSources::default();
    let mut diags = Vec::new();
    load_text(Path::new("t.yaml"), SET, &mut src, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    src.texts.push(("t.yaml".into(), SET.to_string()));
    Script::from_sources(&src)
}

fn engine<'s>(s: &'s Script, now: &str) -> Engine<'s> {
    Engine {
        script: s,
        now: now.into(),
        budgeting: Default::default(),
    }
}

/// What a run showed and did: its lines, every effect, every request.
struct Run {
    lines: Vec<String>,
    effects: Vec<Effect>,
    requests: Vec<LlmRequest>,
    state: State,
}

impl Run {
    fn record(&self) -> Option<&SessionRecord> {
        self.effects.iter().find_map(|e| match e {
            Effect::SessionRecorded { record } => Some(record),
            _ => None,
        })
    }
}

/// Plays `st` from its start to its end: `answers` for the human, `mind`
/// for the model.
fn drive(
    engine: &Engine,
    st: State,
    answers: &[&str],
    mind: impl FnMut(&State, &LlmRequest) -> String,
) -> Run {
    drive_from(engine, st, Input::Start, answers, mind)
}

/// [`drive`] with `next` as the first input.
fn drive_from(
    engine: &Engine,
    mut st: State,
    mut next: Input,
    answers: &[&str],
    mut mind: impl FnMut(&State, &LlmRequest) -> String,
) -> Run {
    let (mut lines, mut effects, mut requests) = (Vec::new(), Vec::new(), Vec::new());
    let mut answers = answers.iter();
    for _ in 0..100 {
        let fx = engine.resume(&mut st, next).unwrap();
        lines.extend(fx.iter().filter_map(|e| match e {
            Effect::Line { text, .. } => Some(text.clone()),
            _ => None,
        }));
        effects.extend(fx);
        next = match &st.wait {
            Wait::Done => {
                return Run {
                    lines,
                    effects,
                    requests,
                    state: st,
                };
            }
            Wait::Llm { .. } => {
                let req = st.pending.clone().unwrap();
                let text = mind(&st, &req);
                requests.push(req.clone());
                Input::LlmReply { id: req.id, text }
            }
            Wait::Text => Input::Text {
                text: answers.next().expect("an answer").to_string(),
            },
            Wait::Continue => Input::Continue,
            Wait::Choice { .. } | Wait::Start => panic!("unexpected wait {:?}", st.wait),
        };
    }
    panic!("never ended: {lines:?}");
}

/// A model that extracts what the test says and writes a fixed summary.
fn mind(st: &State, req: &LlmRequest) -> String {
    match req.kind {
        LlmKind::Summary => "小林睡不好，约好每晚睡前放松十分钟。".into(),
        LlmKind::Say => "上次你说睡不好，现在好些了吗？".into(),
        _ => offline_reply(st, req),
    }
}

#[test]
fn a_course_carries_persisted_globals_forms_and_summaries_to_the_next_session() {
    let s = script();
    let first_engine = engine(&s, "2026-04-06 10:00:00");
    let st = first_engine
        .start_course("初次", &Course::default())
        .unwrap();
    let first = drive(&first_engine, st, &["叫我小林吧", "失眠，总是睡不着"], mind);
    assert_eq!(
        first.lines[0], "欢迎你来。",
        "no history in a first session"
    );
    // The session ends with one summary request, plain text, told the chat
    // and the forms filled.
    let summary = first.requests.last().unwrap();
    assert_eq!(summary.kind, LlmKind::Summary);
    assert!(summary.schema.is_none());
    assert!(
        summary.prompt.contains("失眠，总是睡不着"),
        "{}",
        summary.prompt
    );
    assert!(
        summary
            .prompt
            .contains("笔记：名字：小林；困扰：失眠，总是睡不着"),
        "{}",
        summary.prompt
    );
    let record = first.record().expect("a record").clone();
    assert_eq!(record.session, "初次");
    assert_eq!(record.summary, "小林睡不好，约好每晚睡前放松十分钟。");
    assert_eq!(record.started, "2026-04-06 10:00:00");
    // Only the persist: true global is kept, not 心情 (global) nor 困扰 (session).
    assert_eq!(
        record.persisted,
        [("名字".to_string(), Var::Text("小林".into()))].into()
    );
    assert_eq!(record.forms["笔记"]["困扰"], "失眠，总是睡不着");
    assert!(matches!(first.effects.last(), Some(Effect::SessionEnded)));

    // The next session, a week later.
    let course = Course {
        sessions: vec![record],
    };
    let second_engine = engine(&s, "2026-04-13 10:00:00");
    let st = second_engine.start_course("再次", &course).unwrap();
    let second = drive(&second_engine, st, &[], mind);
    // The persisted value is set as the session starts, filling the form.
    assert!(matches!(
        &second.effects[0],
        Effect::CourseRecalled { sessions: 1, values } if values["名字"] == Var::Text("小林".into())
    ));
    assert!(second.effects.iter().any(|e| matches!(e,
        Effect::FormFilled { form, field, value } if form == "笔记" && field == "名字" && value == "小林")));
    assert_eq!(
        second.lines[0], "小林，你回来了。心情：平静。",
        "the name is remembered; a global not marked persist starts afresh"
    );
    // Every prompt is told the past: the forms last filled, the summaries.
    let say = &second.requests[0];
    assert_eq!(say.kind, LlmKind::Say);
    for told in [
        "往次会谈填的表",
        "笔记：名字：小林；困扰：失眠，总是睡不着",
        "往次会谈",
        "约好每晚睡前放松十分钟",
    ] {
        assert!(
            say.prompt.contains(told),
            "{told} missing from:\n{}",
            say.prompt
        );
    }
    assert_eq!(
        second.lines[2],
        "往次：（2026-04-06 10:00:00）初次：小林睡不好，约好每晚睡前放松十分钟。"
    );
    let record = second.record().expect("a second record");
    assert_eq!(record.session, "再次");
    assert_eq!(record.started, "2026-04-13 10:00:00");
    assert_eq!(record.forms["笔记"]["名字"], "小林");
}

#[test]
fn without_a_course_a_session_has_no_history_and_no_summary() {
    let s = script();
    let e = engine(&s, "2026-04-06 10:00:00");
    let run = drive(&e, e.start("再次").unwrap(), &[], offline_reply);
    assert_eq!(run.lines[0], "初次见面。");
    assert_eq!(run.lines.last().unwrap(), "往次：");
    assert!(run.requests.iter().all(|r| r.kind != LlmKind::Summary));
    assert!(run.record().is_none());
    assert!(!run.requests[0].prompt.contains("往次会谈"));
}

#[test]
fn offline_the_summary_says_what_the_forms_hold() {
    let s = script();
    let e = engine(&s, "2026-04-06 10:00:00");
    let st = e.start_course("初次", &Course::default()).unwrap();
    let run = drive(&e, st, &["我叫小林", "失眠"], offline_reply);
    let record = run.record().unwrap();
    assert_eq!(record.summary, "「初次」：名字：小林；困扰：失眠。");
    assert!(matches!(run.state.wait, Wait::Done));
}

#[test]
fn the_next_session_is_the_first_not_played_then_the_last_again() {
    let order = ["初次".to_string(), "再次".to_string()];
    let mut course = Course::default();
    assert_eq!(course.next_session(&order), Some("初次"));
    let record = |session: &str| SessionRecord {
        session: session.into(),
        started: String::new(),
        ended: String::new(),
        summary: String::new(),
        forms: Default::default(),
        persisted: Default::default(),
    };
    course.sessions.push(record("初次"));
    assert_eq!(course.next_session(&order), Some("再次"));
    course.sessions.push(record("再次"));
    assert_eq!(course.next_session(&order), Some("再次"));
    assert_eq!(course.next_session(&[]), None);
}

/// A course session saved in the middle (the state is what a save keeps)
/// goes on with its course and still ends with its record.
#[test]
fn a_course_session_saved_midway_resumes_with_its_course() {
    let s = script();
    let e = engine(&s, "2026-04-06 10:00:00");
    let mut st = e.start_course("初次", &Course::default()).unwrap();
    e.resume(&mut st, Input::Start).unwrap();
    let saved = serde_json::to_string(&st).unwrap();
    let st: State = serde_json::from_str(&saved).unwrap();
    assert_eq!(st.wait, Wait::Text);
    let first = Input::Text {
        text: "小林".into(),
    };
    let run = drive_from(&e, st, first, &["失眠"], offline_reply);
    assert_eq!(run.record().unwrap().forms["笔记"]["名字"], "小林");
}

/// `heartvale ARGS` (no model in its environment), which must succeed.
fn heartvale(args: &[&str]) -> std::process::Output {
    let out = util::heartvale(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The guardian set's two sessions played by the same traveller as a
/// course kept in a file: the second remembers the name, reads the first's
/// summary, and its transcript replays.
#[test]
fn the_guardian_course_goes_on_from_a_course_file_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let persona = dir.path().join("p.txt");
    std::fs::write(
        &persona,
        "我叫小林，十五岁。最近总是失眠，躺下两个小时都睡不着。上次之后我试着睡前听音乐。今天想聊聊考试的压力。",
    )
    .unwrap();
    let course = dir.path().join("小林.course.json");
    let transcript = dir.path().join("t.jsonl");
    let play = |session: &str, extra: &[&str]| {
        let mut args = vec![
            "script",
            "play",
            "scenarios/heartvale/scripts/guardian",
            "--session",
            session,
            "--persona",
            persona.to_str().unwrap(),
            "--course",
            course.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        heartvale(&args)
    };
    let first = play("初次会谈", &[]);
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("course: session 1 recorded"),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&course).unwrap()).unwrap();
    assert_eq!(kept["heartvale_course"], 1);
    assert_eq!(kept["sessions"][0]["session"], "初次会谈");
    assert_eq!(kept["sessions"][0]["persisted"]["心旅者名"], "小林");
    assert!(kept["sessions"][0]["forms"]["咨询笔记"]["主诉"].is_string());

    let second = play("再次会谈", &["--transcript", transcript.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&second.stdout);
    assert!(
        out.contains("〔疗程第 2 次会谈，记得：主诉＝最近总是失眠")
            && out.contains("心旅者名＝小林"),
        "{out}"
    );
    assert!(out.contains("小林，你回来了！我一直记着你。"), "{out}");
    assert!(
        out.contains("上次你跟我说，最困扰你的是「最近总是失眠，躺下两个小时都睡不着」。"),
        "{out}"
    );
    assert!(
        !out.contains("我该怎么称呼你"),
        "the name is not asked again: {out}"
    );
    assert!(
        out.contains("== 复诊记录") && out.contains("称呼：小林"),
        "{out}"
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&course).unwrap()).unwrap();
    assert_eq!(kept["sessions"].as_array().unwrap().len(), 2);

    let replayed = heartvale(&[
        "script",
        "replay",
        "scenarios/heartvale/scripts/guardian",
        transcript.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&replayed.stdout);
    assert!(said.contains("effects are the same"), "{said}");
}

/// With a model (a real HTTP server on 127.0.0.1), a course session's
/// prompts are told the past sessions, and the summary the model writes at
/// the end — asked as plain text, told the chat and the forms — is what the
/// course file keeps.
#[test]
fn a_model_writes_the_summary_the_course_keeps() {
    use heartvale::llm::fake::{self, FakeRequest, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|req: &FakeRequest| {
        let prompt = req.prompt();
        if prompt.contains("写一段会谈小结") {
            fake::chat("「小林睡得好些了，约好继续睡前听音乐。」")
        } else if req.format().is_some() {
            fake::chat(r#"{"reply": "嗯，我明白了。", "exit": true, "vars": {}}"#)
        } else {
            fake::chat("我记得你，欢迎回来。")
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let course = dir.path().join("c.json");
    let first = serde_json::json!({
        "heartvale_course": 1,
        "sessions": [{
            "session": "初次会谈", "started": "2026-04-06 10:00:00 +08:00",
            "ended": "2026-04-06 10:40:00 +08:00",
            "summary": "小林入睡难，约好睡前听音乐放松。",
            "forms": {"咨询笔记": {"主诉": "入睡难"}},
            "persisted": {"心旅者名": "小林", "主诉": "入睡难"}
        }]
    });
    std::fs::write(&course, first.to_string()).unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "好些了\n睡前听了音乐\n考试\n").unwrap();
    let out = heartvale(&[
        "script",
        "run",
        "scenarios/heartvale/scripts/guardian",
        "--session",
        "再次会谈",
        "--course",
        course.to_str().unwrap(),
        "--input",
        input.to_str().unwrap(),
        "--llm",
        &server.url,
        "--model",
        "fake",
    ]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("上次你跟我说，最困扰你的是「入睡难」。"),
        "{shown}"
    );
    let requests = server.requests();
    let summary = requests
        .iter()
        .find(|r| r.prompt().contains("写一段会谈小结"))
        .expect("a summary request");
    assert_eq!(summary.format(), None, "plain text, no JSON");
    let prompt = summary.prompt();
    for told in [
        "往次会谈",
        "小林入睡难，约好睡前听音乐放松。",
        "这次填好的表",
        "睡前听了音乐",
    ] {
        assert!(prompt.contains(told), "{told} missing from:\n{prompt}");
    }
    // Every step of the session was told the past too.
    assert!(
        requests
            .iter()
            .all(|r| r.prompt().contains("小林入睡难，约好睡前听音乐放松。"))
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&course).unwrap()).unwrap();
    assert_eq!(kept["sessions"][1]["session"], "再次会谈");
    assert_eq!(
        kept["sessions"][1]["summary"], "小林睡得好些了，约好继续睡前听音乐。",
        "the model's quotes are taken off"
    );
}

/// `script run --record DIR` once accepted the flag and wrote nothing: the
/// steps' calls went around the recording. Now they go through the same
/// calls as the town's, so the run is recorded, and `--replay DIR` plays it
/// again with the server gone, line for line, however much later.
#[test]
fn a_script_run_with_a_model_records_and_replays() {
    use heartvale::llm::fake::{self, FakeRequest, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|req: &FakeRequest| {
        if req.format().is_some() {
            fake::chat(
                r#"{"reply": "小雨，这名字真好听。", "exit": true, "vars": {"名字": "小雨"}}"#,
            )
        } else {
            fake::chat("你好呀，我是守望精灵。")
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "B\n叫我小雨吧\n").unwrap();
    let tape = dir.path().join("tape");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "script",
            "run",
            "scenarios/heartvale/scripts/hello",
            "--input",
            input.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        String::from_utf8_lossy(&heartvale(&args).stdout).into_owned()
    };
    let live = run(&[
        "--llm",
        &server.url,
        "--model",
        "fake",
        "--record",
        tape.to_str().unwrap(),
    ]);
    let asked = server.count();
    assert!(asked > 0);
    let recorded = std::fs::read_to_string(tape.join("calls.jsonl")).unwrap();
    assert_eq!(recorded.lines().count(), asked, "every call recorded");
    assert!(live.contains("你好呀，我是守望精灵。"), "{live}");
    drop(server);
    // Prompts carry the time to the second: the replay comes in another
    // second, and still finds every call (the clock's readings are kept).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let replayed = run(&["--replay", tape.to_str().unwrap()]);
    assert_eq!(live, replayed);
}
