//! The save: a town written to SQLite and read back goes on exactly as it
//! would have; damaged, foreign and newer files are refused untouched.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use heartvale::headless::{default_scenario, headless_app};
use heartvale::save::{self, TownSource};
use heartvale::sim::clock::Clock;
use heartvale::sim::event_log::EventLog;
use heartvale::sim::outcome::SimOutcome;
use heartvale::sim::residents::Walking;

mod util;
use util::heartvale;

fn succeeds(args: &[&str]) {
    let out = heartvale(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A run's lines without its own `start` and `end` records.
fn body(lines: &[String]) -> &[String] {
    let start = usize::from(
        lines
            .first()
            .is_some_and(|l| l.contains("\"kind\":\"start\"")),
    );
    let end =
        lines.len() - usize::from(lines.last().is_some_and(|l| l.contains("\"kind\":\"end\"")));
    &lines[start..end]
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn p(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn one_day_saved_then_two_more_is_the_three_day_run() {
    let d = temp();
    let (whole, first, rest, file) = (
        p(&d, "3.jsonl"),
        p(&d, "1.jsonl"),
        p(&d, "2.jsonl"),
        p(&d, "town.db"),
    );
    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    succeeds(&["sim", "-q", "--days", "3", "--log", &s(&whole)]);
    succeeds(&[
        "sim",
        "-q",
        "--days",
        "1",
        "--log",
        &s(&first),
        "--save",
        &s(&file),
    ]);
    succeeds(&[
        "sim",
        "-q",
        "--load",
        &s(&file),
        "--days",
        "2",
        "--log",
        &s(&rest),
    ]);
    let (whole, first, rest) = (lines(&whole), lines(&first), lines(&rest));
    assert!(rest[0].contains("\"resumed\":true"), "{}", rest[0]);
    assert!(rest[0].contains("\"days\":3"), "{}", rest[0]);
    let resumed: Vec<&String> = body(&first).iter().chain(body(&rest)).collect();
    let expected: Vec<&String> = body(&whole).iter().collect();
    assert_eq!(resumed.len(), expected.len(), "line counts differ");
    for (i, (a, b)) in expected.iter().zip(&resumed).enumerate() {
        assert_eq!(a, b, "line {i} differs");
    }
    assert_eq!(whole.last(), rest.last(), "the same end");
}

/// Steps `app` to a moment of the second day when someone is on the way
/// somewhere (with the built-in brain a conversation starts and ends within
/// one step, so none is open between steps).
fn step_into_day_two(app: &mut bevy::prelude::App) {
    let from = heartvale::base::time::GameTime::parse("2026-04-07 11:00").unwrap();
    loop {
        app.update();
        let world = app.world_mut();
        let walking = world.query::<&Walking>().iter(world).count();
        if world.resource::<Clock>().now >= from && walking > 0 {
            return;
        }
        assert!(
            !world.resource::<SimOutcome>().ended(),
            "nobody walks on day 2"
        );
    }
}

fn run_out(app: &mut bevy::prelude::App) -> Vec<String> {
    heartvale::headless::run_to_end(app, 10_000);
    let text = app.world().resource::<EventLog>().text().to_string();
    text.lines().map(str::to_string).collect()
}

#[test]
fn a_town_saved_mid_day_goes_on_the_same() {
    let d = temp();
    let file = p(&d, "mid.db");
    let scenario = default_scenario();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let source = TownSource::folder(&dir, &scenario).unwrap();
    let mut a = headless_app(scenario.clone(), 11, 3, EventLog::in_memory());
    step_into_day_two(&mut a);
    let before = a.world().resource::<EventLog>().text().lines().count();
    save::save_world(a.world_mut(), &file, &source).unwrap();
    let whole = run_out(&mut a);

    let loaded = save::load(&file).unwrap();
    let mut b = headless_app(Arc::new(loaded.scenario), 11, 3, EventLog::in_memory());
    save::restore(b.world_mut(), loaded.snapshot).unwrap();
    let rest = run_out(&mut b);
    assert!(rest[0].contains("\"resumed\":true"));
    assert_eq!(&whole[before..], &rest[1..], "the resumed run differs");
}

/// Every table of a save, as text, apart from who wrote it.
fn dump(path: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(path).unwrap();
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = Vec::new();
    for t in tables {
        let mut q = db
            .prepare(&format!("SELECT * FROM {t} ORDER BY rowid"))
            .unwrap();
        let n = q.column_count();
        let rows = q
            .query_map([], |r| {
                let cells: Vec<String> = (0..n)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect();
                Ok(format!("{t}: {}", cells.join(" | ")))
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

#[test]
fn every_component_survives_a_round_trip() {
    let d = temp();
    let (first, second) = (p(&d, "a.db"), p(&d, "b.db"));
    let scenario = default_scenario();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let source = TownSource::folder(&dir, &scenario).unwrap();
    let mut a = headless_app(scenario, 5, 3, EventLog::in_memory());
    step_into_day_two(&mut a);
    // The player's counselling course with the guardian spirit (one session).
    let record: heartvale::script::engine::SessionRecord =
        serde_json::from_value(serde_json::json!({
            "session": "初次会谈", "started": "2026-04-06 10:00:00", "ended": "2026-04-06 10:40:00",
            "summary": "聊到失眠。", "forms": {"咨询笔记": {"称呼": "小林"}},
            "persisted": {"心旅者名": "小林"}
        }))
        .unwrap();
    let mut courses = heartvale::sim::companion::CounselCourses::default();
    courses
        .0
        .entry(heartvale::scenario::ResidentId::new("guardian"))
        .or_default()
        .sessions
        .push(record);
    a.world_mut().insert_resource(courses);
    save::save_world(a.world_mut(), &first, &source).unwrap();
    let loaded = save::load(&first).unwrap();
    let mut b = headless_app(Arc::new(loaded.scenario), 5, 3, EventLog::in_memory());
    save::restore(b.world_mut(), loaded.snapshot).unwrap();
    save::save_world(b.world_mut(), &second, &loaded.source).unwrap();
    let (x, y) = (dump(&first), dump(&second));
    assert!(
        x.iter()
            .any(|l| l.starts_with("appointments:") || l.starts_with("notices:"))
    );
    assert!(x.iter().any(|l| l.starts_with("memories:")));
    assert!(x.iter().any(|l| l.starts_with("relationships:")));
    // What everyone knows, and from whom.
    let facts = x.iter().filter(|l| l.starts_with("facts:")).count();
    assert!(facts >= 20, "{facts} facts saved");
    assert_eq!(
        x.iter()
            .filter(|l| l.starts_with("counsel_sessions:"))
            .count(),
        1,
        "the course is saved"
    );
    assert_eq!(x.len(), y.len());
    for (l, r) in x.iter().zip(&y) {
        assert_eq!(l, r);
    }
}

fn refused(file: &Path, why: &str) {
    let before = std::fs::read(file).unwrap();
    let out = heartvale(&["sim", "-q", "--load", file.to_str().unwrap(), "--days", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(why), "{err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    assert_eq!(std::fs::read(file).unwrap(), before, "the file was changed");
}

#[test]
fn foreign_damaged_and_newer_files_are_refused_untouched() {
    let d = temp();
    let text = p(&d, "notes.txt");
    std::fs::write(&text, "这不是存档。\n".repeat(100)).unwrap();
    refused(&text, "not a Heartvale save");

    let good = p(&d, "good.db");
    succeeds(&["sim", "-q", "--days", "1", "--save", good.to_str().unwrap()]);
    let newer = p(&d, "newer.db");
    std::fs::copy(&good, &newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    refused(&newer, "newer Heartvale");

    let damaged = p(&d, "damaged.db");
    let mut bytes = std::fs::read(&good).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 4096] {
        *b = 0xA5;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    refused(&damaged, "damaged");
}

/// A save is untrusted input: a trigger it carries (which would run on the
/// next save and could wipe the town), a clock past the year 9999 (a run
/// that never ended) or a century-plus run is refused, untouched — and a
/// seed of 2^63 or more, which once wrote a save that could not be read
/// back, now round-trips.
#[test]
fn a_save_carrying_triggers_or_impossible_numbers_is_refused() {
    let d = temp();
    let good = p(&d, "good.db");
    succeeds(&["sim", "-q", "--days", "1", "--save", good.to_str().unwrap()]);
    let edited = |name: &str, sql: &str| {
        let f = p(&d, name);
        std::fs::copy(&good, &f).unwrap();
        rusqlite::Connection::open(&f)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        f
    };
    let trigger = edited(
        "trigger.db",
        "CREATE TRIGGER wipe AFTER INSERT ON meta BEGIN DELETE FROM residents; END;",
    );
    refused(&trigger, "trigger `wipe` Heartvale did not create");
    let clock = edited(
        "clock.db",
        "UPDATE meta SET value = '9223372036854775000' WHERE key = 'now';",
    );
    refused(&clock, "not a moment between the years 1970 and 9999");
    let days = edited(
        "days.db",
        "UPDATE meta SET value = '4000000000' WHERE key = 'days';",
    );
    refused(&days, "a run is 1 to 36500 days");
    // Inverted durations once panicked the run: the tuning is checked as
    // `tuning.yaml` is.
    let tuning = edited(
        "tuning.db",
        "UPDATE sim_state SET value = json_set(value, '$.tuning.durations.min', 500, '$.tuning.durations.max', 10) WHERE key = 'bookkeeping';",
    );
    refused(
        &tuning,
        "the saved tuning: durations.min: must be positive and not above durations.max",
    );

    // A FIFO once blocked `--load` forever.
    let fifo = p(&d, "fifo.db");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = heartvale(&["sim", "-q", "--load", fifo.to_str().unwrap(), "--days", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a Heartvale save"));

    let big_seed = p(&d, "seed.db");
    let seed = "18446744073709551615";
    succeeds(&[
        "sim",
        "-q",
        "--days",
        "1",
        "--seed",
        seed,
        "--save",
        big_seed.to_str().unwrap(),
    ]);
    succeeds(&[
        "sim",
        "-q",
        "--load",
        big_seed.to_str().unwrap(),
        "--days",
        "1",
    ]);
}

#[test]
fn a_kill_during_autosave_leaves_the_last_save_loadable() {
    let d = temp();
    let file = p(&d, "big.db");
    let f = file.to_str().unwrap();
    // A large town saves for long enough that a kill lands inside a write.
    let mut child = Command::new(env!("CARGO_BIN_EXE_heartvale"))
        .args([
            "sim",
            "-q",
            "--generate",
            "2000",
            "--days",
            "4",
            "--save",
            f,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .spawn()
        .unwrap();
    let wal = PathBuf::from(format!("{f}-wal"));
    let started = std::time::Instant::now();
    let mut wait_for = |what: &str, done: &dyn Fn() -> bool| {
        while !done() {
            assert!(
                started.elapsed().as_secs() < 600,
                "waited too long for {what}"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "the run ended before {what}"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    };
    // The first midnight's save complete: its WAL folded into the file and
    // gone. The file alone is no sign: switching to WAL mode writes its first
    // page before the save's transaction makes the WAL, and a loaded machine
    // may sit between the two for long. A 2,000-resident town is megabytes,
    // which only a finished save's checkpoint puts in the file itself.
    let saved = || {
        !wal.exists() && std::fs::metadata(&file).is_ok_and(|m| m.len() > 1 << 20) && !wal.exists()
    };
    wait_for("a first save", &saved);
    // … then the next one under way.
    wait_for("a second save", &|| wal.exists());
    std::thread::sleep(std::time::Duration::from_millis(5));
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    // Its write-ahead log is still there: the kill landed inside the save.
    assert!(wal.exists(), "the save finished before the kill");
    let out = heartvale(&["sim", "-q", "--load", f, "--days", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A conversation waiting on a model's line when the town is saved: the call
/// is not kept; the resumed town asks again and the conversation goes on.
#[test]
fn a_conversation_waiting_on_a_model_line_survives_a_save() {
    use heartvale::headless::headless_app_with_llm;
    use heartvale::llm::LlmSettings;
    use heartvale::llm::fake::{self, FakeReply, FakeRequest, FakeServer};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    let lines_hang = Arc::new(AtomicBool::new(true));
    let town = fake::town_handler();
    let hang = lines_hang.clone();
    let server = FakeServer::start(Arc::new(move |req: &FakeRequest| {
        let prompt = req.prompt();
        let is_line =
            req.format().is_none() && (prompt.contains("打招呼") || prompt.contains("对你说"));
        if hang.load(Ordering::SeqCst) && is_line {
            return FakeReply::Hang;
        }
        town(req)
    }));
    let settings = || {
        let mut s = LlmSettings::for_endpoint(&server.url, "fake-model");
        s.timeout = Duration::from_secs(30);
        s
    };
    let scenario = default_scenario();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let source = TownSource::folder(&dir, &scenario).unwrap();
    let mut a = headless_app_with_llm(scenario, 7, 1, EventLog::in_memory(), Some(settings()))
        .expect("the LLM brain starts");
    // Run until a conversation has started and a line call hangs.
    let mut waiting = None;
    for _ in 0..20_000 {
        a.update();
        heartvale::llm::wait_if_gated(a.world(), Duration::from_millis(5));
        let log = a.world().resource::<EventLog>().text().to_string();
        let started: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("\"kind\":\"conversation_start\""))
            .collect();
        let brain = a.world().resource::<heartvale::llm::LlmBrain>();
        if !started.is_empty() && brain.outstanding() > 0 {
            let v: serde_json::Value = serde_json::from_str(started[0]).unwrap();
            waiting = Some(v["conversation"].as_u64().unwrap());
            break;
        }
    }
    let conversation = waiting.expect("a conversation waits on a line");
    let d = temp();
    let file = p(&d, "waiting.db");
    save::save_world(a.world_mut(), &file, &source).unwrap();
    drop(a);
    lines_hang.store(false, Ordering::SeqCst);
    let loaded = save::load(&file).unwrap();
    let mut b = headless_app_with_llm(
        Arc::new(loaded.scenario),
        7,
        1,
        EventLog::in_memory(),
        Some(settings()),
    )
    .expect("the LLM brain starts");
    save::restore(b.world_mut(), loaded.snapshot).unwrap();
    heartvale::headless::run_to_end(&mut b, 5000);
    let log = b.world().resource::<EventLog>().text().to_string();
    let ended = log.lines().any(|l| {
        l.contains("\"kind\":\"conversation_end\"")
            && l.contains(&format!("\"conversation\":{conversation},"))
    });
    assert!(
        ended,
        "conversation {conversation} goes on and ends after the load"
    );
    assert!(
        log.lines().any(|l| l.contains("\"kind\":\"end\"")),
        "{}",
        log.lines().rev().take(3).collect::<Vec<_>>().join("\n")
    );
}

/// A save from before the phrase bank's format changed still loads: its
/// `dialogue.yaml` no longer parses, so the town speaks with the built-in
/// bank and says so; the rest of the save is used as it was.
#[test]
fn a_save_with_an_older_phrase_bank_speaks_with_the_built_in_one() {
    let d = temp();
    let file = p(&d, "old.db");
    let f = file.to_str().unwrap();
    succeeds(&["sim", "-q", "--days", "1", "--save", f]);
    let db = rusqlite::Connection::open(&file).unwrap();
    let bank: Vec<u8> = db
        .query_row(
            "SELECT content FROM scenario_files WHERE path = 'dialogue.yaml'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let old = String::from_utf8(bank)
        .unwrap()
        .replacen("greetings:", "greeting:", 1);
    db.execute(
        "UPDATE scenario_files SET content = ?1 WHERE path = 'dialogue.yaml'",
        [old.as_bytes()],
    )
    .unwrap();
    drop(db);
    let out = heartvale(&["sim", "-q", "--load", f, "--days", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built-in phrase bank"), "{err}");
    // Any other broken file is still refused.
    let db = rusqlite::Connection::open(&file).unwrap();
    db.execute(
        "UPDATE scenario_files SET content = X'3A3A' WHERE path = 'residents.yaml'",
        [],
    )
    .unwrap();
    drop(db);
    refused(&file, "residents.yaml");
}

/// A save in a folder that cannot be written (its journal's side files
/// cannot be made there) was reported "damaged": it is read, read-only, and
/// saving back into it says the file system's reason. The folder is made
/// unwritable with `chattr +i` (which holds for root too); where that cannot
/// be done (no root, a file system without it) the check is skipped, saying so.
#[test]
fn a_save_in_a_read_only_folder_is_read() {
    let d = temp();
    let folder = d.path().join("ro");
    std::fs::create_dir(&folder).unwrap();
    let save = folder.join("town.db");
    let save_s = save.to_str().unwrap();
    succeeds(&["sim", "-q", "--days", "1", "--save", save_s]);
    let locked = Command::new("chattr")
        .arg("+i")
        .arg(&folder)
        .status()
        .is_ok_and(|s| s.success());
    if !locked || std::fs::write(folder.join("probe"), "x").is_ok() {
        eprintln!("skipped: cannot make a folder unwritable here (chattr +i)");
        let _ = Command::new("chattr").arg("-i").arg(&folder).status();
        return;
    }
    let read = heartvale(&["sim", "-q", "--load", save_s, "--days", "1"]);
    let into = heartvale(&[
        "sim", "-q", "--load", save_s, "--days", "1", "--save", save_s,
    ]);
    let _ = Command::new("chattr").arg("-i").arg(&folder).status();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(into.status.code(), Some(1));
    let err = String::from_utf8_lossy(&into.stderr);
    assert!(
        err.contains("cannot save to") && !err.contains("damaged"),
        "{err}"
    );
}
