//! The command line as a user runs it: `check` on broken scenarios, `sim`, `replay`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The LLM settings a developer's shell may carry; tests set them explicitly.
const LLM_ENV: [&str; 5] = [
    "HEARTVALE_LLM_BASE_URL",
    "HEARTVALE_LLM_MODEL",
    "HEARTVALE_LLM_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
];

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_heartvale"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for k in LLM_ENV {
        c.env_remove(k);
    }
    c
}

fn heartvale(args: &[&str]) -> Output {
    command(args).output().expect("the binary runs")
}

/// Runs `heartvale ARGS`, which must succeed (its stderr shown if not); returns stdout.
fn succeeds(args: &[&str]) -> String {
    let out = heartvale(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// `script play` of the hello sample with a persona file holding `persona`.
fn play_hello_as(persona: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.txt");
    std::fs::write(&file, persona).unwrap();
    let mut args = vec![
        "script",
        "play",
        "scenarios/heartvale/scripts/hello",
        "--persona",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    succeeds(&args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A copy of the default town with one file rewritten by `edit`.
fn broken(file: &str, edit: impl Fn(String) -> String) -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("town");
    heartvale::headless::copy_dir(&src, &to).unwrap();
    let text = std::fs::read_to_string(to.join(file)).unwrap();
    let changed = edit(text.clone());
    assert_ne!(text, changed, "the edit must change {file}");
    std::fs::write(to.join(file), changed).unwrap();
    (dir, to)
}

/// Runs `check`, asserts exit code 1 and one line per problem; returns the lines.
fn check_lines(dir: &Path) -> Vec<String> {
    let o = heartvale(&["check", dir.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(
            l.starts_with(&dir.display().to_string()),
            "not a file:line:col line: {l}"
        );
    }
    lines
}

/// As [`check_lines`] for an edit that causes exactly one problem.
fn check_fails(dir: &Path) -> String {
    let lines = check_lines(dir);
    assert_eq!(lines.len(), 1, "one problem, one line: {lines:?}");
    lines[0].clone()
}

fn line_of(dir: &Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in file")
        + 1
}

#[test]
fn the_default_town_checks_clean() {
    let o = heartvale(&["check", "scenarios/heartvale"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("10 residents"));
}

#[test]
fn bad_yaml_names_file_line_and_column() {
    let (_t, dir) = broken("locations.yaml", |t| {
        t.replace("size: [180, 130]", "size: [180, 130")
    });
    let line = check_fails(&dir);
    let path = dir.join("locations.yaml");
    assert!(line.starts_with(&format!("{}:", path.display())), "{line}");
    let pos: Vec<&str> = line[path.display().to_string().len() + 1..]
        .splitn(3, ':')
        .collect();
    assert!(
        pos[0].parse::<u32>().is_ok() && pos[1].parse::<u32>().is_ok(),
        "{line}"
    );
    assert!(line.contains("hint:"), "{line}");
}

#[test]
fn unknown_field_is_named_with_its_position() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("    age: 52\n", "    age: 52\n    hobby: 唱歌\n", 1)
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "residents.yaml", "hobby: 唱歌");
    assert!(
        line.contains(&format!("residents.yaml:{at}:5: unknown field `hobby`")),
        "{line}"
    );
    assert!(line.contains("residents[0].hobby"), "{line}");
}

#[test]
fn dangling_connection_is_reported_with_a_suggestion() {
    let (_t, dir) = broken("locations.yaml", |t| {
        t.replace(
            "connections: [square, home_zhong]",
            "connections: [square, home_zong]",
        )
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "locations.yaml", "home_zong");
    assert!(line.contains(&format!("locations.yaml:{at}:")), "{line}");
    assert!(line.contains("unknown location `home_zong`"), "{line}");
    assert!(line.contains("did you mean `home_zhong`?"), "{line}");
    assert!(line.contains("locations[1].connections[1]"), "{line}");
}

#[test]
fn a_converse_skill_is_checked_against_its_script_set() {
    // An unknown skill, with the nearest name suggested.
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replace("skill: 关心近况,", "skill: 关心近况吧,")
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "residents.yaml", "关心近况吧");
    assert!(line.contains(&format!("residents.yaml:{at}:")), "{line}");
    assert!(line.contains("no skill `关心近况吧`"), "{line}");
    assert!(line.contains("did you mean `关心近况`?"), "{line}");
    assert!(line.contains("converse.skills[0].skill"), "{line}");
    // A variable the skill does not declare, and a field the town does not fill.
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replace(
            "input: { 称呼: \"{对方}\" }",
            "input: { 名字: \"{对方名}\" }",
        )
    });
    let lines = check_lines(&dir);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].contains("skill `关心近况` declares no variable `名字`"),
        "{lines:?}"
    );
    assert!(
        lines[0].contains("its variables: 称呼, 心情, 近况"),
        "{lines:?}"
    );
    assert!(lines[1].contains("unknown field `{对方名}`"), "{lines:?}");
    assert!(lines[1].contains("{对方}"), "{lines:?}");
    // A broken script set is named from the resident, its first errors in the hint.
    let (_t, dir) = broken("scripts/guardian/town-skills.yaml", |t| {
        t.replace(
            "    max_rounds: 2\n    output:\n    - get: 近况",
            "    max_rounds: 20\n    output:\n    - get: 近况",
        )
    });
    let lines = check_lines(&dir);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("town-skills.yaml:") && l.contains("max_rounds")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("residents.yaml:")
            && l.contains("script set `scripts/guardian` has 1 error(s)")),
        "{lines:?}"
    );
}

#[test]
fn duplicate_id_is_reported() {
    let (_t, dir) = broken("locations.yaml", |t| {
        t.replace("  - id: library\n", "  - id: tavern\n")
    });
    // The lost `library` id also breaks what referred to it: reported too, in file order.
    let lines = check_lines(&dir);
    let line = lines
        .iter()
        .find(|l| l.contains("duplicate"))
        .expect("the duplicate is reported")
        .clone();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("unknown location `library`"))
    );
    let at = line_of(&dir, "locations.yaml", "name: 晨光图书馆") - 1;
    assert!(line.contains(&format!("locations.yaml:{at}:")), "{line}");
    assert!(line.contains("duplicate location id `tavern`"), "{line}");
}

#[test]
fn unknown_home_is_reported() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("home: home_ma", "home: home_horse", 1)
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "residents.yaml", "home: home_horse");
    assert!(
        line.contains(&format!(
            "residents.yaml:{at}:11: unknown location `home_horse`"
        )),
        "{line}"
    );
    assert!(line.contains("(field `residents[6].home`)"), "{line}");
}

/// `sprite:` names a shipped character sheet; an unquoted number is fine,
/// one that is not a sheet is an error at its position with the range.
#[test]
fn an_unknown_character_sheet_is_reported() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("sprite: \"22\"", "sprite: 22", 1)
            .replacen("sprite: \"4\"", "sprite: 26", 1)
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "residents.yaml", "sprite: 26");
    assert!(
        line.contains(&format!("residents.yaml:{at}:13: no character sheet `26`")),
        "{line}"
    );
    assert!(line.contains("(field `residents[1].sprite`)"), "{line}");
    assert!(line.contains("numbered 1 to 25"), "{line}");
}

/// `counsel: next:` names a session of the set, else an error at it with
/// the nearest name.
#[test]
fn an_unknown_next_counsel_session_is_reported() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("next: 再次会谈", "next: 再见会谈", 1)
    });
    let line = check_fails(&dir);
    let at = line_of(&dir, "residents.yaml", "next: 再见会谈");
    assert!(line.contains(&format!("residents.yaml:{at}:")), "{line}");
    assert!(line.contains("no session `再见会谈`"), "{line}");
    assert!(line.contains("counsel.next`)"), "{line}");
    assert!(line.contains("did you mean `再次会谈`?"), "{line}");
}

#[test]
fn sim_refuses_a_broken_scenario_and_runs_a_good_one() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("home: home_ma", "home: nowhere", 1)
    });
    let o = heartvale(&["sim", "--scenario", dir.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown location `nowhere`"));

    let log = tempfile::NamedTempFile::new().unwrap();
    let o = heartvale(&[
        "sim",
        "--days",
        "1",
        "--seed",
        "3",
        "--log",
        log.path().to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = stdout(&o);
    for col in [
        "plans",
        "conversations",
        "notices",
        "nights",
        "energy",
        "钟大川",
    ] {
        assert!(out.contains(col), "summary lacks {col}: {out}");
    }
    let replay = heartvale(&["replay", log.path().to_str().unwrap(), "--kind", "notice"]);
    assert_eq!(replay.status.code(), Some(0));
    assert!(
        stdout(&replay).contains("钟大川 在 心谷广场 贴出公告：【心谷联谊会】"),
        "{}",
        stdout(&replay)
    );
    // Filtered by resident: only lines about 阿朵, told by name.
    let replay = heartvale(&["replay", log.path().to_str().unwrap(), "--resident", "adou"]);
    let told = stdout(&replay);
    assert!(told.lines().count() > 20, "{told}");
    assert!(told.lines().all(|l| l.contains("阿朵")), "{told}");
}

/// Every event of a run reads back as the narrator's typed events, and
/// writes out again to the same line: the log's schema and the types agree.
#[test]
fn every_logged_event_reads_back_as_it_was_written() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let o = heartvale(&[
        "sim",
        "--days",
        "3",
        "-q",
        "--log",
        log.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(log.path()).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let event: heartvale::sim::event_log::SimEvent =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(serde_json::to_string(&event).unwrap(), line);
        kinds.insert(event.body.kind());
    }
    assert!(kinds.len() >= 18, "{kinds:?}");
}

#[test]
fn replay_rejects_garbage_with_its_line() {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), "{\"time\":\"2026-04-06 06:00\",\"kind\":\"end\",\"reason\":\"stopped\",\"day\":1}\nnot json\n").unwrap();
    let o = heartvale(&["replay", f.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(":2:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn sim_with_an_llm_records_replays_and_never_leaks_the_key() {
    let fake = heartvale::llm::fake::FakeServer::start(heartvale::llm::fake::town_handler());
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassette");
    let (log1, log2) = (
        dir.path().join("live.jsonl"),
        dir.path().join("replayed.jsonl"),
    );
    let secret = "sk-test-9f8e7d6c5b4a-SECRET";
    let live = command(&[
        "sim",
        "--days",
        "1",
        "--llm",
        &fake.url,
        "--model",
        "fake-model",
        "--record",
        cassette.to_str().unwrap(),
        "--log",
        log1.to_str().unwrap(),
    ])
    .env("HEARTVALE_LLM_API_KEY", secret)
    .output()
    .unwrap();
    assert_eq!(
        live.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    let out = stdout(&live);
    assert!(
        out.contains("LLM total:") && out.contains("per resident per day"),
        "{out}"
    );
    // The key went to the server, and nowhere else.
    let auth = fake.requests()[0]
        .header("authorization")
        .unwrap_or("")
        .to_string();
    assert_eq!(auth, format!("Bearer {secret}"));
    let mut places = vec![out, String::from_utf8_lossy(&live.stderr).into_owned()];
    places.push(std::fs::read_to_string(&log1).unwrap());
    for f in std::fs::read_dir(&cassette).unwrap() {
        places.push(std::fs::read_to_string(f.unwrap().path()).unwrap());
    }
    assert!(
        places
            .iter()
            .all(|p| !p.contains(secret) && !p.contains("9f8e7d6c5b4a"))
    );
    // Replay: no server, no flags but the cassette; the same log byte for byte.
    drop(fake);
    let replay = heartvale(&[
        "sim",
        "--days",
        "1",
        "--replay",
        cassette.to_str().unwrap(),
        "--log",
        log2.to_str().unwrap(),
    ]);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(
        std::fs::read(&log1).unwrap() == std::fs::read(&log2).unwrap(),
        "replayed log differs"
    );
    // A different seed misses the cassette: a clear error, exit 1.
    let miss = heartvale(&[
        "sim",
        "--days",
        "1",
        "--seed",
        "99",
        "--replay",
        cassette.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(miss.status.code(), Some(1));
    let err = String::from_utf8_lossy(&miss.stderr);
    assert!(
        err.contains("no recorded answer") && err.contains("--record"),
        "{err}"
    );
    // A run killed while writing leaves a cut-off last line: the entries before
    // it still replay, and the run says so once.
    let calls = cassette.join("calls.jsonl");
    let mut text = std::fs::read_to_string(&calls).unwrap();
    text.push_str("{\"key\":\"0123\",\"mod");
    std::fs::write(&calls, &text).unwrap();
    let args = ["sim", "--days", "1", "--replay", cassette.to_str().unwrap()];
    let cut = heartvale(&args);
    let err = String::from_utf8_lossy(&cut.stderr);
    assert_eq!(cut.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("the last line is cut off").count(), 1, "{err}");
    // Damage before the end is an error with the line.
    let lines = text.lines().count();
    std::fs::write(&calls, format!("{text}\n{{}}\n")).unwrap();
    let bad = heartvale(&args);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains(&format!("calls.jsonl:{lines}:")), "{err}");
}

#[test]
fn bad_llm_settings_are_clear_errors() {
    let o = heartvale(&["sim", "--llm", "localhost:8080", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("must start with http://"));
    let o = heartvale(&["sim", "--replay", "/nonexistent/cassette", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/nonexistent/cassette"), "{err}");
    // An endpoint that is down: one clear warning, and the town runs on the built-in brain.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let o = heartvale(&[
        "sim",
        "--days",
        "1",
        "--llm",
        &url,
        "--max-llm-calls-per-day",
        "3",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("warning: LLM call failed").count(), 1, "{err}");
    assert!(
        err.contains("Connection refused") || err.contains("connect"),
        "{err}"
    );
    // --no-llm wins over the environment.
    let o = command(&["sim", "--days", "1", "--no-llm", "-q"])
        .env("HEARTVALE_LLM_BASE_URL", "http://127.0.0.1:9/v1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn check_reads_script_folders_too() {
    let ok = heartvale(&["check", "scenarios/heartvale/scripts/guardian"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let bad = heartvale(&["check", "tests/scripts/broken"]);
    assert_eq!(bad.status.code(), Some(1));
    let out = stdout(&bad);
    assert!(
        out.lines()
            .any(|l| l.ends_with("error[E220]: unknown skill `甲乙` (help: did you mean `乙`?)")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 35, "{out}");
}

/// Input that answers nothing (an empty line, an unknown or out-of-range
/// option) is asked again; a lowercase key is the option.
#[test]
fn script_run_asks_again_on_input_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "\n9\nx\nb\n\n叫我小林\n").unwrap();
    let out = heartvale(&[
        "script",
        "run",
        "scenarios/heartvale/scripts/hello",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = stdout(&out);
    assert!(shown.contains("  > B"), "{shown}");
    assert!(shown.contains("  > 叫我小林"), "{shown}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("请选 A、B").count(), 3, "{err}");
    assert_eq!(err.matches("请输入你的回答").count(), 1, "{err}");
}

/// The hello sample asked 「你是谁呀？」 for a name answers it and asks
/// again (a nickname will do, as the design's strategy says), then takes the
/// name and praises it.
#[test]
fn hello_answers_a_question_then_takes_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "B\n你是谁呀？\n不想说\n叫我小雨吧\n").unwrap();
    let shown = succeeds(&[
        "script",
        "run",
        "scenarios/heartvale/scripts/hello",
        "--input",
        input.to_str().unwrap(),
    ]);
    let tail: Vec<&str> = shown.lines().skip(6).collect();
    assert_eq!(
        tail,
        [
            "守望精灵：能说说你的名字吗？",
            "  > 你是谁呀？",
            "守望精灵：我是守望精灵，在这里陪你说说话。网名、小名都可以，我该怎么称呼你？",
            "  > 不想说",
            "守望精灵：没关系，不一定要用真名。网名、小名都可以，我该怎么称呼你？",
            "  > 叫我小雨吧",
            "守望精灵：嗯，我明白了。",
            "守望精灵：小雨，这个名字真好听，很配你！",
            "— 会谈结束 —",
        ],
        "{shown}"
    );
}

/// Issue 42's nested probe: a skill with an AFTER_GOAL call, itself called
/// BEFORE_GOAL from a goal, prints the skill's last line, the AFTER_GOAL
/// skill, then the goal's next line.
#[test]
fn a_skills_after_goal_call_runs_when_the_skill_ends() {
    let out = heartvale(&["script", "run", "tests/scripts/probes/nested-timing"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = stdout(&out);
    assert!(
        shown.contains("向导：技能一最后一句\n向导：技能三\n向导：主线下一句\n"),
        "{shown}"
    );
}

/// A form's field can be left blank from the terminal: an empty line is the
/// answer (noted 「（未填）」, not asked again).
#[test]
fn script_run_leaves_a_fill_field_blank_on_an_empty_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&input, "\n有人听我说话\n").unwrap();
    let shown = succeeds(&[
        "script",
        "run",
        "tests/scripts/probes/fill-blank",
        "--input",
        input.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert!(
        shown.contains("  > \n向导：请填一下「笔记」里的「期待」"),
        "{shown}"
    );
    assert!(shown.ends_with("向导：好的。\n— 会谈结束 —\n"), "{shown}");
    let t = std::fs::read_to_string(&transcript).unwrap();
    assert!(
        t.contains(r#""name":"心情","scope":"goal","value":"（未填）""#),
        "{t}"
    );
}

#[test]
fn script_run_plays_a_session_from_an_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&input, "2\n叫我小林\n").unwrap();
    let shown = succeeds(&[
        "script",
        "run",
        "scenarios/heartvale/scripts/hello",
        "--input",
        input.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    let want = [
        "守望精灵：欢迎来到游心谷，我是心谷的守望精灵。",
        "  1) A. 心谷是什么地方?",
        "  2) B. 我要进入心谷",
        "  > B",
        "守望精灵：进去前，需要先收集你一些信息",
        "  ▶ 没问题，你问吧",
        "守望精灵：能说说你的名字吗？",
        "  > 叫我小林",
        "守望精灵：嗯，我明白了。",
        "守望精灵：小林，这个名字真好听，很配你！",
        "— 会谈结束 —",
    ];
    assert_eq!(shown.lines().collect::<Vec<_>>(), want);
    // The transcript has every line as shown, the inputs, the variables and the offline marks.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let said: Vec<&str> = lines
        .iter()
        .filter(|l| l["effect"]["effect"] == "line")
        .map(|l| l["effect"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(said.len(), 5);
    assert!(
        lines
            .iter()
            .any(|l| l["input"]["input"] == "choose" && l["input"]["key"] == "B")
    );
    assert!(lines.iter().any(|l| l["effect"]["effect"] == "var_set"
        && l["effect"]["name"] == "心旅者名"
        && l["effect"]["value"] == "小林"));
    assert!(lines.iter().any(|l| l["llm_reply"]["offline"] == true));
    assert!(
        lines
            .iter()
            .any(|l| l["effect"]["effect"] == "session_ended")
    );
    // Prompts read the local wall clock (with its offset) as each input
    // comes, kept with it for a replay.
    let stamped = |l: &&serde_json::Value| {
        l["now"]
            .as_str()
            .is_some_and(|n| chrono::DateTime::parse_from_str(n, "%Y-%m-%d %H:%M:%S %:z").is_ok())
    };
    let inputs: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l.get("input").is_some()).collect();
    assert!(
        !inputs.is_empty() && inputs.iter().all(stamped),
        "{inputs:?}"
    );
}

#[test]
fn script_play_lets_a_persona_finish_a_session() {
    let shown = play_hello_as("我叫阿溪，十六岁。我想进去看看。", &[]);
    assert!(
        shown.contains("  > B"),
        "the persona picks the option closest to it: {shown}"
    );
    assert!(shown.contains("— 会谈结束 —"), "{shown}");
}

#[test]
fn script_play_with_a_model_plays_the_persona_in_character() {
    use heartvale::llm::fake::{FakeServer, chat};
    // The model picks A (the built-in playtester would pick B for this
    // persona), answers in character, and serves the AI steps.
    let fake = FakeServer::start(std::sync::Arc::new(|req| {
        let p = req.prompt();
        if p.contains("你在扮演一位来访者") && p.contains("只输出选项前的编号") {
            chat("A")
        } else if p.contains("你在扮演一位来访者") {
            chat("「叫我阿溪吧，我有点紧张。」")
        } else if p.contains("\"reply\"") && !p.contains("叫我阿溪") {
            chat(r#"{"reply": "我该怎么称呼你？", "exit": false, "vars": {}}"#)
        } else if p.contains("\"reply\"") {
            chat(r#"{"reply": "阿溪，欢迎你。", "exit": true, "vars": {"心旅者名": "阿溪"}}"#)
        } else {
            chat("阿溪这个名字真好听。")
        }
    }));
    let shown = play_hello_as(
        "我叫阿溪，十六岁。我想进去看看。",
        &["--llm", &fake.url, "--model", "fake"],
    );
    for line in [
        "  > A",
        "守望精灵：心谷是你的内心世界，你可以看到你的各种念头、想法、情绪，你要进去看看吗？",
        "守望精灵：我该怎么称呼你？",
        "  > 叫我阿溪吧，我有点紧张。",
        "守望精灵：阿溪，欢迎你。",
        "守望精灵：阿溪这个名字真好听。",
        "— 会谈结束 —",
        "goal 进入心谷大门/询问名称 · 心旅者名 = 阿溪",
        "goal 进入心谷大门/询问名称 · 用户选择 = A",
    ] {
        assert!(shown.lines().any(|l| l == line), "{line:?} in\n{shown}");
    }
    // The persona's prompts carry its description and the chat so far.
    let persona_prompts: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| r.prompt())
        .filter(|p| p.contains("你在扮演一位来访者"))
        .collect();
    assert_eq!(persona_prompts.len(), 2);
    assert!(persona_prompts[1].contains("我叫阿溪，十六岁。"));
    assert!(persona_prompts[1].contains("守望精灵：我该怎么称呼你？"));
}

#[test]
fn a_script_transcript_replays_and_shows_where_an_edit_differs() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("hello");
    std::fs::create_dir(&scripts).unwrap();
    let hello = "scenarios/heartvale/scripts/hello/hello.yaml";
    std::fs::copy(hello, scripts.join("hello.yaml")).unwrap();
    let input = dir.path().join("in.txt");
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&input, "A\n叫我小林\n").unwrap();
    let run = heartvale(&[
        "script",
        "run",
        scripts.to_str().unwrap(),
        "--input",
        input.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert!(run.status.success());
    let replay = |dir: &Path| {
        heartvale(&[
            "script",
            "replay",
            dir.to_str().unwrap(),
            transcript.to_str().unwrap(),
        ])
    };
    let same = replay(&scripts);
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(
        stdout(&same).contains("replayed 8 inputs; all 19 effects are the same\n"),
        "{}",
        stdout(&same)
    );
    // A writer rewords a line: the replay points at it.
    let text = std::fs::read_to_string(hello).unwrap();
    std::fs::write(
        scripts.join("hello.yaml"),
        text.replace("进去前，需要先收集你一些信息", "进去前，先认识一下你"),
    )
    .unwrap();
    let changed = replay(&scripts);
    assert_eq!(changed.status.code(), Some(1));
    let err = String::from_utf8_lossy(&changed.stderr);
    assert!(err.contains("differs:"), "{err}");
    assert!(err.contains("recorded: {\"action\":\"say\""), "{err}");
    assert!(err.contains("进去前，先认识一下你"), "{err}");
}

#[test]
fn script_play_can_cast_a_town_resident_as_the_visitor() {
    let shown = succeeds(&[
        "script",
        "play",
        "scenarios/heartvale/scripts/guardian",
        "--session",
        "初次会谈",
        "--resident",
        "xiaoxi",
    ]);
    // Asked for a name, the resident gives its name from its persona.
    assert!(
        shown.contains("守望精灵：进去前，我该怎么称呼你？\n  > 叫我林小溪就好。"),
        "{shown}"
    );
    // The name, not the whole introduction, goes in the note.
    assert!(shown.contains("== 咨询笔记\n称呼：林小溪\n"), "{shown}");
    let unknown = heartvale(&[
        "script",
        "play",
        "scenarios/heartvale/scripts/guardian",
        "--resident",
        "xiaoxy",
    ]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("did you mean `xiaoxi`?"));
}

/// Without a subcommand the window opens; with no display to open it on, the
/// town runs headless instead, saying so.
#[test]
fn no_subcommand_without_a_display_runs_headless() {
    let out = command(&[]).env_remove("DISPLAY").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no display found"), "{err}");
    assert!(
        stdout(&out).contains("钟大川"),
        "the summary of the default town"
    );
}

/// A stale `DISPLAY` (no X server there) counts as no display: bare
/// `heartvale` runs headless, `heartvale window` says why it cannot open and
/// exits 1 instead of panicking.
#[test]
fn a_stale_display_is_no_display() {
    let out = command(&[]).env("DISPLAY", ":987").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no display found"));
    for display in [":987", "", "garbage"] {
        let out = command(&["window"])
            .env("DISPLAY", display)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "DISPLAY={display:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no usable display"), "{err}");
    }
}

/// The window's options are checked before any window opens.
#[test]
fn window_reports_a_broken_scenario_before_opening() {
    let (_dir, path) = broken("town.yaml", |t| t.replace("days: 3", "days: many"));
    let out = heartvale(&["window", "--scenario", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("town.yaml:") && err.contains("days"), "{err}");
}

#[test]
fn sim_timings_show_where_the_step_went() {
    let out = succeeds(&["sim", "--generate", "200", "--days", "1", "-q", "--timings"]);
    for phase in [
        "census",
        "social: triggers",
        "planning: answer",
        "end + log",
        "step (",
    ] {
        assert!(out.contains(phase), "{phase} missing:\n{out}");
    }
    // The phases' shares add up to the step.
    let shares: f64 = out
        .lines()
        .filter(|l| !l.contains("step ("))
        .filter_map(|l| l.split('┆').nth(2))
        .filter_map(|c| {
            c.trim()
                .trim_end_matches(['%', '│', ' '])
                .parse::<f64>()
                .ok()
        })
        .sum();
    assert!((shares - 100.0).abs() < 1.0, "{shares}\n{out}");
}

/// A scenario may name only API-key variables for its endpoints: any other
/// (a cloud secret, a token) is refused by `check`, with the place and the fix.
#[test]
fn api_key_env_must_name_an_api_key() {
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen(
            "  - id: zhong\n",
            "  - id: zhong\n    brain: { endpoint: \"https://x.example/v1\", api_key_env: AWS_SECRET_ACCESS_KEY }\n",
            1,
        )
    });
    let lines = check_lines(&dir);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("residents.yaml:4:"), "{lines:?}");
    assert!(lines[0].contains("brain.api_key_env"), "{lines:?}");
    assert!(lines[0].contains("`AWS_SECRET_ACCESS_KEY` is not an API key's name"));
    assert!(lines[0].contains("ending in _API_KEY"), "{lines:?}");
    let (_t, dir) = broken("town.yaml", |t| {
        t.replacen(
            "name: 心谷镇\n",
            "name: 心谷镇\nllm: { api_key_env: GITHUB_TOKEN }\n",
            1,
        )
    });
    let lines = check_lines(&dir);
    assert!(
        lines[0].contains("town.yaml") && lines[0].contains("GITHUB_TOKEN"),
        "{lines:?}"
    );
}

/// Sizes that are not positive finite numbers (NaN, infinity, negative) are
/// refused by `check` with the place, instead of reaching the simulation.
#[test]
fn non_finite_sizes_are_refused() {
    for bad in ["[.nan, .nan]", "[.inf, 10]", "[-5, 10]"] {
        let (_t, dir) = broken("locations.yaml", |t| {
            t.replacen("size: [180, 130]", &format!("size: {bad}"), 1)
        });
        let lines = check_lines(&dir);
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(lines[0].contains("locations.yaml:"), "{lines:?}");
        assert!(lines[0].contains(".size"), "{lines:?}");
        // `sim` refuses it the same way: exit 1, no panic.
        let o = heartvale(&["sim", "--scenario", dir.to_str().unwrap(), "--days", "1"]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
    }
    let (_t, dir) = broken("town.yaml", |t| {
        t.replace(
            "map: { width: 1600, height: 1000 }",
            "map: { width: .nan, height: 1000 }",
        )
    });
    let lines = check_lines(&dir);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("`map` must be two positive sizes")),
        "{lines:?}"
    );
}

/// `--llm` with several servers: a pool; the end-of-run table counts each one.
#[test]
fn sim_spreads_calls_over_a_pool_and_reports_each_server() {
    use heartvale::llm::fake::{FakeServer, town_handler};
    let (a, b) = (
        FakeServer::start(town_handler()),
        FakeServer::start(town_handler()),
    );
    let o = command(&[
        "sim",
        "--days",
        "1",
        "--llm",
        &a.url,
        "--llm",
        &format!("{}#weight=2", b.url),
        "--model",
        "fake-model",
    ])
    .output()
    .unwrap();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    // Both serve. (How the weight shows depends on which residents stay on
    // which server, and plans asked ahead come in bursts: the weight's split
    // is the router's unit tests' to check, not a ten-resident day's.)
    assert!(
        a.count() > 0 && b.count() > 0,
        "{} {}",
        a.count(),
        b.count()
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{},{}#weight=2", a.url, b.url)),
        "{err}"
    );
    for url in [&a.url, &b.url] {
        let row = out
            .lines()
            .find(|l| l.contains(url.as_str()) && l.contains('│'));
        assert!(row.is_some(), "a row for {url}: {out}");
    }
    // A weight that does not read is refused before anything runs.
    let o = heartvale(&["sim", "--days", "1", "--llm", "http://a/v1#weight=0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("#weight=N"));
    let (_t, dir) = broken("town.yaml", |t| {
        t.replacen(
            "name: 心谷镇\n",
            "name: 心谷镇\nllm: { base_url: [\"http://a/v1\", \"ftp://b\"] }\n",
            1,
        )
    });
    let lines = check_lines(&dir);
    assert!(
        lines[0].contains("llm.base_url") && lines[0].contains("ftp://b"),
        "{lines:?}"
    );
}

/// A huge value in a file is quoted briefly in the error, not echoed whole.
#[test]
fn errors_quote_at_most_a_few_hundred_characters_of_a_value() {
    let huge = "x".repeat(5_000_000);
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("home: home_zhong", &format!("home: {huge}"), 1)
    });
    let lines = check_lines(&dir);
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(line.len() < 2000, "{} bytes", line.len());
    }
    assert!(lines[0].contains(".home"), "{}", &lines[0][..200]);
}

/// SIGTERM and SIGHUP end a run like Ctrl-C: the log gets its `end` line
/// and the save is written.
#[test]
fn sigterm_and_sighup_end_a_run_with_its_end_line() {
    for signal in ["-TERM", "-HUP"] {
        let dir = tempfile::tempdir().unwrap();
        let (log, save) = (dir.path().join("run.jsonl"), dir.path().join("town.db"));
        let mut child = command(&[
            "sim",
            "--generate",
            "2000",
            "--days",
            "30",
            "--log",
            log.to_str().unwrap(),
            "--save",
            save.to_str().unwrap(),
            "-q",
        ])
        .spawn()
        .unwrap();
        // Wait until the run is stepping (its log has lines), then signal it.
        let started = std::time::Instant::now();
        while std::fs::metadata(&log).map_or(0, |m| m.len()) < 10_000 {
            assert!(started.elapsed().as_secs() < 60, "the run did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let pid = child.id().to_string();
        let killed = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{signal}");
        let text = std::fs::read_to_string(&log).unwrap();
        let last = text.lines().last().unwrap();
        assert!(
            last.contains(r#""kind":"end""#) && last.contains("stopped"),
            "{signal}: {last}"
        );
        assert!(save.exists(), "{signal}: the save is written");
    }
}

/// NaN, infinite or negative speeds and need rates are refused with the field.
#[test]
fn bad_speeds_and_need_rates_are_refused() {
    for (from, to, field) in [
        ("walk_speed: ", "walk_speed: .nan #", "walk_speed"),
        ("walk_speed: ", "walk_speed: -3 #", "walk_speed"),
        (
            "sleep_restore: 0.22",
            "sleep_restore: .inf",
            "needs.sleep_restore",
        ),
        (
            "walking_decay: 1.3",
            "walking_decay: -1",
            "needs.walking_decay",
        ),
        (
            "decay: { energy: 0.07",
            "decay: { energy: .nan",
            "needs.decay.energy",
        ),
    ] {
        let (_t, dir) = broken("tuning.yaml", |t| {
            assert!(t.contains(from), "{from}");
            t.replacen(from, to, 1)
        });
        let lines = check_lines(&dir);
        assert_eq!(lines.len(), 1, "{to}: {lines:?}");
        assert!(lines[0].contains(&format!("`{field}`")), "{lines:?}");
        let o = heartvale(&["sim", "--scenario", dir.to_str().unwrap(), "--days", "1"]);
        assert_eq!(o.status.code(), Some(1), "{to}");
    }
}

/// `--days 0` and `--generate 0` are refused, not quietly made 1.
#[test]
fn zero_days_or_residents_are_refused() {
    for args in [["sim", "--days", "0"], ["sim", "--generate", "0"]] {
        let o = heartvale(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("not in 1.."), "{err}");
    }
}

/// `counsel:` and `converse:` sets must be inside the scenario folder and
/// load, a named session must exist; every broken set under `scripts/` is
/// reported, and a folder of broken YAML is checked as a script set.
#[test]
fn script_sets_are_checked_wherever_they_are_named() {
    for (path, expect) in [
        ("../..", "outside the scenario folder"),
        ("/etc", "outside the scenario folder"),
        (
            "scripts/guardian/../guardian",
            "outside the scenario folder",
        ),
    ] {
        let (_t, dir) = broken("residents.yaml", |t| {
            let from = "counsel: { scripts: scripts/guardian,";
            t.replacen(from, &format!("counsel: {{ scripts: \"{path}\","), 1)
        });
        let lines = check_lines(&dir);
        assert!(
            lines.iter().any(|l| l.contains(expect)),
            "{path}: {lines:?}"
        );
    }
    let (_t, dir) = broken("residents.yaml", |t| {
        t.replacen("session: 初次会谈,", "session: 不存在,", 1)
    });
    let lines = check_lines(&dir);
    assert!(
        lines.iter().any(|l| l.contains("no session `不存在`")),
        "{lines:?}"
    );
    // A broken set under scripts/ is reported, not skipped.
    let (_t, dir) = broken("town.yaml", |t| t + "\n");
    let set = dir.join("scripts").join("broken");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(set.join("a.yaml"), "  sessions: [\n").unwrap();
    let o = heartvale(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("broken/a.yaml:"), "{}", stdout(&o));
    // A folder of YAML with no town.yaml is a script set: its own error, once.
    let o = heartvale(&["check", set.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(!out.contains("town.yaml"), "{out}");
}

/// A FIFO (or any non-file) as `tuning.yaml` is refused at once, not read forever.
#[test]
fn a_fifo_as_a_scenario_file_is_refused_not_waited_on() {
    let (_t, dir) = broken("town.yaml", |t| t + "\n");
    let tuning = dir.join("tuning.yaml");
    std::fs::remove_file(&tuning).unwrap();
    let made = Command::new("mkfifo").arg(&tuning).status().unwrap();
    assert!(made.success());
    let lines = check_lines(&dir);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("tuning.yaml") && lines[0].contains("not a regular file"));
}

/// `script new` lists the templates per problem type, copies one into a new
/// folder that checks clean and plays, and refuses to write over a folder.
#[test]
fn script_new_starts_a_set_from_a_template() {
    let listed = succeeds(&["script", "new"]);
    for t in [
        "anxiety",
        "焦虑",
        "low-mood",
        "情绪低落",
        "insomnia",
        "失眠",
    ] {
        assert!(listed.contains(t), "{listed}");
    }
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("我的失眠会谈");
    let set_s = set.to_str().unwrap();
    let wrote = succeeds(&["script", "new", set_s, "--template", "失眠"]);
    assert!(
        wrote.contains("session.yaml") && wrote.contains("yaml_schema.json"),
        "{wrote}"
    );
    succeeds(&["check", set_s]);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "小林\n半夜总醒\n一个小时\n刷手机\n下次聊聊工作\n").unwrap();
    let played = succeeds(&["script", "run", set_s, "--input", input.to_str().unwrap()]);
    assert!(
        played.contains("请填一下「咨询笔记」里的「下次想聊」"),
        "{played}"
    );
    assert!(played.contains("— 会谈结束 —"), "{played}");
    let again = heartvale(&["script", "new", set_s, "--template", "失眠"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
}

/// The step's parallel parts (built-in plans, conversations' turns, the log's
/// lines, the log file's writer) merge their results in a fixed order: a
/// town of a thousand gives the same day on one thread and on two.
#[test]
fn one_thread_or_two_give_the_same_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = |threads: &str| {
        let path = dir.path().join(format!("threads-{threads}.jsonl"));
        let p = path.to_str().unwrap();
        succeeds(&[
            "sim",
            "--generate",
            "1000",
            "--days",
            "1",
            "--seed",
            "2",
            "--threads",
            threads,
            "-q",
            "--log",
            p,
        ]);
        std::fs::read_to_string(&path).unwrap()
    };
    let (one, two) = (log("1"), log("2"));
    assert!(
        one.lines().count() > 10_000,
        "{} lines",
        one.lines().count()
    );
    assert!(one == two, "the log depends on the number of threads");
}
