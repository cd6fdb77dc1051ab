//! Hostile and unlucky input, as a user meets it through the command line:
//! small files that expand to gigabytes, towns of ten thousand places, a log
//! that must survive a failed start, a cut-off `tuning.yaml`, a binary run
//! from somewhere else. Each test failed before its fix.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use util::heartvale;

/// A copy of the default town, to edit.
fn town_copy() -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("town");
    heartvale::headless::copy_dir(&src, &to).unwrap();
    (dir, to)
}

/// `heartvale ARGS` with its address space limited to `mib` MiB: a command
/// that would grow past it dies (abort, not exit 1).
fn within_memory(mib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", mib * 1024))
        .arg(env!("CARGO_BIN_EXE_heartvale"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HEARTVALE_LLM_BASE_URL")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .expect("sh runs")
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// Asserts the command failed (exit 1) saying `words` on stderr.
fn refused_saying(o: &Output, words: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(words), "{err}");
}

/// What `check` of the unedited town needs, with room to spare: the limit
/// the tests below run under.
const ROOM_MIB: u64 = 1_536;

#[test]
fn the_default_town_checks_within_the_memory_limit() {
    let o = within_memory(ROOM_MIB, &["check", "scenarios/heartvale"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// A 17 KB `locations.yaml` whose 10 KB description is repeated through two
/// levels of aliases would take a gigabyte: refused at the alias that
/// crosses 64 MiB, with its file, line and column, in bounded memory.
#[test]
fn an_alias_bomb_is_refused_at_its_place_in_bounded_memory() {
    let (_t, dir) = town_copy();
    let long = "长".repeat(3_400);
    let d = vec!["*d"; 100].join(", ");
    let mut yaml = format!(
        "locations:\n  - &p\n    id: a\n    name: A\n    description: &d \"{long}\"\n    kind: public\n    position: [1, 1]\n    size: [10, 10]\n    connections: [{d}]\n"
    );
    for _ in 0..1_000 {
        yaml.push_str("  - *p\n");
    }
    assert!(yaml.len() < 20_000, "{}", yaml.len());
    std::fs::write(dir.join("locations.yaml"), &yaml).unwrap();
    let o = within_memory(ROOM_MIB, &["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("aliases"), "{out}");
    // The first item costs 1 MB, each `*p` as much: the 65th crosses 64 MiB
    // (9 lines before them).
    assert!(out.contains("locations.yaml:74:5:"), "{out}");
    let o = within_memory(ROOM_MIB, &["sim", "--scenario", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
}

/// 10,000 places more: `check` took 515 s and 2.1 GB for the route table;
/// connectivity is all it needs.
#[test]
fn a_town_of_ten_thousand_places_checks_in_bounded_memory() {
    let (_t, dir) = town_copy();
    let mut yaml = std::fs::read_to_string(dir.join("locations.yaml")).unwrap();
    for i in 0..10_000 {
        let prev = if i == 0 {
            "square".to_string()
        } else {
            format!("p{}", i - 1)
        };
        let (x, y) = (10 + (i % 150) * 10, 10 + (i / 150) * 10);
        yaml.push_str(&format!(
            "  - {{id: p{i}, name: 地{i}, kind: public, position: [{x}, {y}], size: [8, 8], connections: [{prev}]}}\n"
        ));
    }
    std::fs::write(dir.join("locations.yaml"), yaml).unwrap();
    let o = within_memory(ROOM_MIB, &["check", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("10016 locations"),
        "{}",
        text(&o.stderr)
    );
}

/// A start that fails — no display for the window, an unknown resident for
/// the chat — leaves an existing `--log` file as it was.
#[test]
fn a_failed_start_leaves_the_log_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let before = "{\"kind\":\"yesterday's run\"}\n";
    let log_arg = log.to_str().unwrap();
    for args in [
        vec!["window", "--log", log_arg],
        vec!["chat", "nobody", "--log", log_arg],
    ] {
        std::fs::write(&log, before).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_heartvale"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("DISPLAY")
            .env_remove("HEARTVALE_LLM_BASE_URL")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o.stderr));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), before, "{args:?}");
    }
    // A run that starts writes it anew.
    let o = heartvale(&["sim", "--days", "1", "-q", "--log", log_arg]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.starts_with("{\"time\""), "{}", &written[..80]);
}

/// A `tuning.yaml` cut off on its way to the disk is refused (its first line
/// promises its last); a short file that promises nothing is read.
#[test]
fn a_cut_off_tuning_file_is_refused_and_a_short_one_read() {
    let (_t, dir) = town_copy();
    let path = dir.join("tuning.yaml");
    let whole = std::fs::read_to_string(&path).unwrap();
    let cut = &whole[..whole.find("social:").unwrap()];
    std::fs::write(&path, cut).unwrap();
    let o = heartvale(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("tuning.yaml:") && out.contains("cut off"),
        "{out}"
    );
    assert!(out.contains("tuning.yaml.bak"), "{out}");
    std::fs::write(&path, "walk_speed: 70\n").unwrap();
    let o = heartvale(&["check", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stdout));
}

/// The default scenario is found beside the binary (a desktop build's
/// folder), wherever it is run from, before the source tree it was built in.
#[test]
fn the_default_scenario_is_found_beside_the_binary() {
    let app = tempfile::tempdir().unwrap();
    let moved = app.path().join("scenarios").join("heartvale");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    heartvale::headless::copy_dir(&src, &moved).unwrap();
    let town_yaml = moved.join("town.yaml");
    let renamed =
        std::fs::read_to_string(&town_yaml)
            .unwrap()
            .replacen("name: 心谷镇", "name: 别处镇", 1);
    std::fs::write(&town_yaml, renamed).unwrap();
    std::fs::create_dir_all(app.path().join("bin")).unwrap();
    let exe = app.path().join("bin").join("heartvale");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_heartvale"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_heartvale"), &exe).unwrap();
    }
    let elsewhere = tempfile::tempdir().unwrap();
    let o = Command::new(&exe)
        .args(["sim", "--days", "1"])
        .current_dir(elsewhere.path())
        .env_remove("HEARTVALE_LLM_BASE_URL")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("别处镇"), "{}", text(&o.stdout));
}

/// A server answering `Retry-After: 1e20` once panicked the LLM thread (a
/// Duration overflow): `interview` hung or exited 101. Now the wait is
/// bounded, the deadline cuts it, and the built-in brain answers at once.
#[test]
fn a_huge_retry_after_ends_quickly_with_the_builtin_answer() {
    use heartvale::llm::fake::{FakeRequest, FakeServer, status};
    let server = FakeServer::start(std::sync::Arc::new(|_: &FakeRequest| {
        status(
            429,
            vec![("Retry-After".into(), "1e20".into())],
            "slow down",
        )
    }));
    let start = std::time::Instant::now();
    let out = heartvale(&[
        "interview",
        "xiaoxi",
        "你最近怎么样？",
        "--llm",
        &server.url,
        "--llm-timeout",
        "5",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).trim().is_empty());
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    // A deadline past an hour is refused before anything starts.
    let out = heartvale(&[
        "interview",
        "xiaoxi",
        "你好",
        "--llm",
        &server.url,
        "--llm-timeout",
        "1e19",
    ]);
    refused_saying(&out, "at most 3600 seconds");
}

/// A scenario (a shared file) once lifted the answer cap: `llm.max_body_kib`
/// of 8 GiB let an endless answer grow the process past 8 GB. Now the
/// scenario may only lower the user's cap, so the call fails at 1 MiB.
#[test]
fn a_scenario_cannot_raise_the_answer_cap() {
    use heartvale::llm::fake::{FakeReply, FakeRequest, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|_: &FakeRequest| FakeReply::Flood {
        bytes: u64::MAX,
        stream: false,
    }));
    let (_dir, town) = town_copy();
    let yaml = std::fs::read_to_string(town.join("town.yaml")).unwrap();
    let llm = format!(
        "\nllm:\n  base_url: {}\n  max_body_kib: 8388608\n  timeout_secs: 1e20\n",
        server.url
    );
    std::fs::write(town.join("town.yaml"), yaml + &llm).unwrap();
    let town_s = town.to_str().unwrap();
    let out = within_memory(
        ROOM_MIB,
        &["interview", "xiaoxi", "你好", "--scenario", town_s],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).trim().is_empty());
}

/// `--generate 1000000` once ran to 16 GB; a 300 KB save claiming 100 M
/// generated residents drove even `sim --load` to 10 GB. Both are refused
/// at once, with the range.
#[test]
fn huge_generated_towns_are_refused_before_anything_is_built() {
    let out = within_memory(
        ROOM_MIB,
        &["sim", "--generate", "1000000", "--days", "1", "-q"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("1..=100000"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("g.db");
    let save_s = save.to_str().unwrap();
    let made = heartvale(&[
        "sim",
        "--generate",
        "10",
        "--days",
        "1",
        "-q",
        "--save",
        save_s,
    ]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let db = rusqlite::Connection::open(&save).unwrap();
    db.execute(
        "UPDATE meta SET value = '100000000' WHERE key = 'generated_residents'",
        [],
    )
    .unwrap();
    drop(db);
    let out = within_memory(ROOM_MIB, &["sim", "--load", save_s, "--days", "1", "-q"]);
    refused_saying(&out, "claims a generated town of 100000000 residents");
}

/// `http://127.0.0.1:PORT\@api.deepseek.com/v1` read as deepseek to the
/// trust check and connected to 127.0.0.1 with the key: refused now.
#[test]
fn an_endpoint_with_a_backslash_is_refused() {
    let out = heartvale(&[
        "interview",
        "xiaoxi",
        "你好",
        "--llm",
        "http://127.0.0.1:9\\@api.deepseek.com/v1",
    ]);
    refused_saying(&out, "backslash");
}

/// A model's answer carrying terminal escapes (clear the screen, set the
/// title, ring the bell) once reached the user's terminal as it was. Now
/// what a terminal would act on is dropped before anything shows or keeps it.
#[test]
fn escape_sequences_from_a_model_never_reach_the_terminal() {
    use heartvale::llm::fake::{FakeRequest, FakeServer, chat};
    let server = FakeServer::start(std::sync::Arc::new(|_: &FakeRequest| {
        chat("\u{1b}[2J\u{1b}]0;pwned\u{7}我挺好的，\u{9b}31m谢谢关心。")
    }));
    let out = heartvale(&[
        "interview",
        "xiaoxi",
        "你最近怎么样？",
        "--llm",
        &server.url,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        shown.contains("我挺好的"),
        "the model's answer is used: {shown}"
    );
    assert!(!shown.contains(['\u{1b}', '\u{7}', '\u{9b}']), "{shown:?}");
}

/// Two runs saving to one file once both went on, the later writes over
/// the earlier: one whole run lost with exit 0. Now the second is refused
/// at its start, and the first keeps the file.
#[test]
fn a_second_run_saving_to_the_same_file_is_refused_at_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("town.db");
    let save_arg = save.to_str().unwrap();
    let mut first = Command::new(env!("CARGO_BIN_EXE_heartvale"))
        .args(["sim", "-q", "--generate", "3000", "--days", "60", "--save"])
        .arg(&save)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HEARTVALE_LLM_BASE_URL")
        .env_remove("OPENAI_BASE_URL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The file is claimed before the town is built.
    let start = std::time::Instant::now();
    while !save.exists() && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = heartvale(&["sim", "-q", "--days", "1", "--save", save_arg]);
    let still_running = first.try_wait().unwrap().is_none();
    first.kill().ok();
    first.wait().ok();
    assert!(still_running, "the first run was still going");
    refused_saying(&second, "another Heartvale is saving to this file");
}

/// A `--log` naming the save it goes on from once emptied the save with its
/// first line; a `--save` into a missing folder was said only when the chat
/// (its whole conversation) was over. Both are refused before anything runs.
#[test]
fn files_that_would_destroy_each_other_or_cannot_be_written_are_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("town.db");
    let save_arg = save.to_str().unwrap();
    let out = heartvale(&["sim", "-q", "--days", "1", "--save", save_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = std::fs::read(&save).unwrap();
    let spelled = format!("{}/./town.db", dir.path().display());
    let out = heartvale(&["sim", "-q", "--load", save_arg, "--log", &spelled]);
    refused_saying(&out, "--load and --log name the same file");
    assert_eq!(std::fs::read(&save).unwrap(), before, "the save untouched");
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "你好呀\n").unwrap();
    let missing = dir.path().join("no/such/folder/x.db");
    let out = heartvale(&[
        "chat",
        "xiaoxi",
        "--input",
        input.to_str().unwrap(),
        "--save",
        missing.to_str().unwrap(),
    ]);
    refused_saying(&out, "does not exist");
    assert!(!text(&out.stderr).contains("damaged"));
    assert!(
        !text(&out.stdout).contains("林小溪："),
        "no conversation before the refusal: {}",
        text(&out.stdout)
    );
}

/// A broken `cupid/scenes.yaml` once left `sim` silent (the warning went to a
/// log a headless run does not show) and the dates on the built-in scenes.
/// Now the run is refused as `check` reports it, with file, line and column.
#[test]
fn a_broken_scene_bank_is_refused_where_it_is_broken() {
    let (_t, dir) = town_copy();
    let scenes = dir.join("cupid/scenes.yaml");
    let text_of = std::fs::read_to_string(&scenes).unwrap();
    std::fs::write(
        &scenes,
        text_of.replacen("stages:", "stages:\n  - [broken", 1),
    )
    .unwrap();
    let out = heartvale(&[
        "sim",
        "-q",
        "--days",
        "1",
        "--scenario",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    // file:line:col: the parser names where the unclosed bracket went wrong.
    let at = err
        .split("cupid/scenes.yaml:")
        .nth(1)
        .expect("the file named");
    let line_col: Vec<&str> = at.splitn(3, ':').take(2).collect();
    assert!(line_col.iter().all(|n| n.parse::<u32>().is_ok()), "{err}");
}

/// A run waiting on a server that never answers (an hour's timeout) once
/// ignored Ctrl-C: the step waited for the answer before the stop was
/// taken. Now Ctrl-C ends the waiting, the run stops after that step and
/// logs its end; a second Ctrl-C would end the process at once.
#[test]
fn ctrl_c_stops_a_run_waiting_on_a_server_that_never_answers() {
    use heartvale::llm::fake::{FakeReply, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|_| FakeReply::Hang));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let mut run = Command::new(env!("CARGO_BIN_EXE_heartvale"))
        .args(["sim", "-q", "--days", "1", "--llm", &server.url])
        .args(["--llm-timeout", "3600", "--log"])
        .arg(&log)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while server.count() == 0 && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(server.count() > 0, "the run asked the server");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(run.id() as i32, libc::SIGINT) };
    let asked = std::time::Instant::now();
    let status = loop {
        if let Some(status) = run.try_wait().unwrap() {
            break status;
        }
        if asked.elapsed() > std::time::Duration::from_secs(30) {
            run.kill().ok();
            panic!("still running 30 s after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut run.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(err.contains("stopping after this step"), "{err}");
    let events = std::fs::read_to_string(&log).unwrap();
    assert!(
        events
            .lines()
            .any(|l| l.contains("\"kind\":\"end\"") && l.contains("stopped")),
        "{events}"
    );
}

/// An event log someone sends may carry terminal escapes in a line's text
/// (written by an older build, or by hand): `replay` shows the words only.
#[test]
fn replay_shows_no_terminal_escapes_from_a_log() {
    let f = tempfile::NamedTempFile::new().unwrap();
    let line = r#"{"time":"2026-04-06 06:46","kind":"message","conversation":1,"participants":["yue","shen"],"location":"home_shen","speaker":"yue","text":"\u001b]0;pwned\u0007爸，正想着你呢。\u001b[2J","emotion":"neutral","mentions":[]}"#;
    std::fs::write(f.path(), format!("{line}\n")).unwrap();
    let out = heartvale(&["replay", f.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("爸，正想着你呢。"), "{shown}");
    assert!(!shown.contains(['\u{1b}', '\u{7}']), "{shown:?}");
}
