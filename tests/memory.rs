//! Memory retrieval from the command line: the shipped bench offline, a
//! paraphrase found only through embeddings (the fake server's
//! `/embeddings`), search in a save with its vectors kept, older saves.

use std::path::Path;

use serde_json::{Value, json};

#[path = "util/concepts.rs"]
mod concepts;
mod util;
use concepts::embedding_server;
use util::heartvale;

fn stdout_of(args: &[&str]) -> String {
    let out = heartvale(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn report(args: &[&str]) -> Value {
    serde_json::from_str(stdout_of(args).trim()).expect("one JSON object")
}

#[test]
fn the_shipped_bench_passes_offline() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/memory-bench.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let residents: std::collections::BTreeSet<&str> = lines
        .iter()
        .filter_map(|l| l["resident"].as_str())
        .collect();
    let days: std::collections::BTreeSet<&str> = lines
        .iter()
        .filter(|l| l["kind"] == "memory")
        .filter_map(|l| l["time"].as_str().map(|t| &t[..10]))
        .collect();
    assert_eq!(residents.len(), 5, "{residents:?}");
    assert_eq!(days.len(), 30, "a 30-day log");
    let r = report(&["memory", "bench", "tests/data/memory-bench.jsonl"]);
    assert!(r["queries"].as_u64().unwrap() >= 150, "{r}");
    for key in ["recall@5", "recall@10", "ndcg@10", "mrr"] {
        assert!(r[key].as_f64().is_some(), "{key} in {r}");
    }
    assert!(r["recall@5"].as_f64().unwrap() >= 0.70, "{r}");
}

#[test]
fn a_paraphrase_is_found_through_embeddings_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bench.jsonl");
    let mut lines = vec![
        json!({"kind":"memory","id":"bp","resident":"a","time":"2026-04-01 09:00","text":"医生说我血压高","importance":3}),
    ];
    // Newer, more important memories about other things crowd it out of a
    // search that has only words (the query shares none with it).
    for (i, text) in [
        "铁匠铺的炉子修好了",
        "在广场贴了公告",
        "新到了一批木料",
        "学会了弹吉他",
        "河边的柳树发芽了",
        "给马具上了油",
    ]
    .iter()
    .enumerate()
    {
        lines.push(json!({"kind":"memory","id":format!("d{i}"),"resident":"a","time":format!("2026-04-0{} 10:00", i + 2),"text":text,"importance":9}));
    }
    lines.push(json!({"kind":"query","id":"q","resident":"a","time":"2026-04-09 20:00","text":"身体要注意什么","expect":["bp"]}));
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let path = file.to_str().unwrap();
    let offline = report(&["memory", "bench", path]);
    assert_eq!(offline["recall@5"], 0.0, "words alone miss it: {offline}");
    let fake = embedding_server();
    let semantic = report(&[
        "memory",
        "bench",
        path,
        "--embed",
        &fake.url,
        "--embed-model",
        "e5-passage",
        "--embed-query-model",
        "e5-query",
    ]);
    assert_eq!(semantic["recall@5"], 1.0, "{semantic}");
    assert_eq!(semantic["mrr"], 1.0, "ranked first: {semantic}");
    let models: Vec<(String, usize)> = fake
        .requests()
        .iter()
        .map(|r| {
            assert!(r.path.ends_with("/embeddings"), "{}", r.path);
            let n = r.body["input"].as_array().map_or(0, Vec::len);
            (r.body["model"].as_str().unwrap_or("").to_string(), n)
        })
        .collect();
    assert_eq!(
        models,
        [("e5-passage".to_string(), 7), ("e5-query".to_string(), 1)]
    );
}

fn count(db: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn search_a_save_and_keep_its_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("town.db");
    let save_s = save.to_str().unwrap();
    stdout_of(&["sim", "--days", "1", "--save", save_s]);
    let out = stdout_of(&[
        "memory", "search", "--load", save_s, "阿朵", "酒馆", "-k", "2",
    ]);
    assert!(out.contains("阿朵（adou）"), "{out}");
    let rows = out
        .lines()
        .filter(|l| l.starts_with('│') && l.contains("2026-04-"))
        .count();
    assert_eq!(rows, 2, "{out}");
    let memories = count(
        &save,
        "SELECT COUNT(*) FROM memories WHERE resident = 'adou'",
    );
    assert_eq!(count(&save, "SELECT COUNT(*) FROM memory_vectors"), 0);
    let fake = embedding_server();
    let embed = ["--embed", fake.url.as_str(), "--embed-model", "m"];
    let args = |q: &'static str| {
        let mut a = vec!["memory", "search", "--load", save_s, "adou", q];
        a.extend(embed);
        a
    };
    stdout_of(&args("身体"));
    assert_eq!(
        count(&save, "SELECT COUNT(*) FROM memory_vectors"),
        memories
    );
    let first = fake.requests().len();
    stdout_of(&args("天气"));
    let again = &fake.requests()[first..];
    assert_eq!(
        again.len(),
        1,
        "the stored vectors are reused; only the query is embedded"
    );
    // A run from the save keeps the vectors of the memories it keeps.
    stdout_of(&["sim", "--load", save_s, "--days", "1", "--save", save_s]);
    assert!(
        count(
            &save,
            "SELECT COUNT(*) FROM memory_vectors WHERE resident = 'adou'"
        ) > 0
    );
}

/// `sim --embed`: every memory gets a vector, kept in the save, and a
/// model's plan recalls by meaning. 钟大川's old memory of his rocking chair
/// shares no word with 钟家, where he wakes, and sits behind newer ones, so
/// it reaches his first plan's prompt only through embeddings. A headless run
/// waits for the vectors at each step: two runs give the same log.
#[test]
fn the_town_recalls_by_meaning_with_embed() {
    use heartvale::llm::fake::FakeRequest;
    let dir = tempfile::tempdir().unwrap();
    let town = dir.path().join("town");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    heartvale::headless::copy_dir(&shipped, &town).unwrap();
    let residents = town.join("residents.yaml");
    let yaml = std::fs::read_to_string(&residents).unwrap();
    let mut memories =
        String::from("    memories:\n      - 壁炉边那把摇椅是我最爱的位置，一坐就是一晚上。\n");
    for i in 1..=14 {
        memories.push_str(&format!("      - 第{i}件小事：擦了一遍柜台。\n"));
    }
    let yaml = yaml.replacen("    memories:\n", &memories, 1);
    std::fs::write(&residents, yaml).unwrap();
    let server = concepts::town_server();
    let town_s = town.to_str().unwrap();
    let run = |embed: bool, name: &str| {
        let log = dir.path().join(format!("{name}.jsonl"));
        let save = dir.path().join(format!("{name}.db"));
        let mut args = vec!["sim", "--scenario", town_s, "--days", "1"];
        args.extend(["--llm", server.url.as_str(), "--model", "fake-model"]);
        args.extend([
            "--log",
            log.to_str().unwrap(),
            "--save",
            save.to_str().unwrap(),
        ]);
        if embed {
            args.extend(["--embed", server.url.as_str(), "--embed-model", "m"]);
        }
        let before = server.requests().len();
        let out = stdout_of(&args);
        let sent: Vec<FakeRequest> = server.requests()[before..].to_vec();
        let first_plan = sent
            .iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .map(FakeRequest::prompt)
            .find(|p| p.contains("姓名：钟大川"))
            .expect("钟大川 plans with the model");
        let log = std::fs::read_to_string(&log).unwrap();
        (out, first_plan, log, save)
    };
    let (_, lexical, _, plain_save) = run(false, "lexical");
    assert!(!lexical.contains("摇椅"), "{lexical}");
    assert_eq!(count(&plain_save, "SELECT COUNT(*) FROM memory_vectors"), 0);
    let (out, semantic, log, save) = run(true, "semantic");
    assert!(semantic.contains("摇椅"), "{semantic}");
    assert!(
        out.contains("embeddings (m):") && out.contains("0 failed"),
        "{out}"
    );
    let all = count(&save, "SELECT COUNT(*) FROM memories");
    let vectors = count(&save, "SELECT COUNT(*) FROM memory_vectors");
    assert!(
        all > 20 && vectors == all,
        "{vectors} vectors for {all} memories"
    );
    let (_, _, again, _) = run(true, "again");
    assert_eq!(timeless(&log), timeless(&again), "two runs, one log");
}

/// An embeddings server that is down costs a warning, not the run: recall
/// goes on by words, and the server is left alone for a while after each
/// failure.
#[test]
fn the_town_runs_on_when_the_embeddings_server_is_down() {
    let dead = "http://127.0.0.1:9/v1";
    let out = heartvale(&["sim", "--days", "1", "--embed", dead, "--embed-model", "m"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("warning: embeddings from"), "{stderr}");
    let requests: u32 = stdout
        .split("embeddings (m): ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the embeddings line");
    assert!(requests <= 30, "{requests} requests in a day: {stdout}");
    assert!(stdout.contains(&format!("{requests} failed")), "{stdout}");
}

/// A log's events without the run's start and end records and without
/// wall-clock latencies (all that may differ between two live runs).
fn timeless(log: &str) -> Vec<Value> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|k, _| !k.contains("latency"));
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    log.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] != "start" && v["kind"] != "end")
        .map(|mut v| {
            strip(&mut v);
            v
        })
        .collect()
}

/// The player's facts, asked for in other words after days: 66 questions
/// over six players' chats (written by `scripts/companion-bench.py` from
/// what `heartvale chat` stores).
#[test]
fn the_companion_bench_finds_what_the_player_told() {
    let r = report(&["memory", "bench", "tests/data/companion-bench.jsonl"]);
    assert!(r["queries"].as_u64().unwrap() >= 60, "{r}");
    assert!(r["recall@3"].as_f64().unwrap() >= 0.9, "{r}");
}

#[test]
fn an_older_save_is_read_through_its_migrations_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("old.db");
    let save_s = save.to_str().unwrap();
    stdout_of(&["sim", "--days", "1", "--save", save_s]);
    {
        // What version 1 wrote: no recall times, no vectors, no last talks,
        // no counselling courses, no facts.
        let c = rusqlite::Connection::open(&save).unwrap();
        c.execute_batch(
            "ALTER TABLE memories DROP COLUMN last_access; DROP TABLE memory_vectors;
             ALTER TABLE relationships DROP COLUMN last_talk; DROP TABLE counsel_sessions;
             DROP TABLE facts; DELETE FROM meta WHERE key = 'knowledge';
             ALTER TABLE relationships DROP COLUMN talk_days;
             DROP TABLE player_facts; DROP TABLE profile_versions;
             ALTER TABLE user_profiles DROP COLUMN profile_version;
             ALTER TABLE user_profiles DROP COLUMN profile_written_by;
             ALTER TABLE user_profiles DROP COLUMN recent_state;
             PRAGMA user_version = 1; PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .unwrap();
    }
    let before = std::fs::read(&save).unwrap();
    let out = stdout_of(&[
        "memory", "search", "--load", save_s, "何青", "诊所", "-k", "2",
    ]);
    assert!(out.contains("何青"), "{out}");
    stdout_of(&["sim", "--load", save_s, "--days", "1"]);
    assert!(
        std::fs::read(&save).unwrap() == before,
        "the file is unchanged"
    );
    assert_eq!(count(&save, "PRAGMA user_version"), 1);
}

/// Against a real local embedding model (multilingual-e5-small, started by
/// `scripts/local-embed.sh --background`):
///
///     cargo test --test memory -- --ignored --nocapture
#[test]
#[ignore = "needs scripts/local-embed.sh running"]
fn the_bench_with_a_real_local_embedding_model() {
    let url = std::env::var("HEARTVALE_LOCAL_EMBED_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8090/v1".into());
    let r = report(&[
        "memory",
        "bench",
        "tests/data/memory-bench.jsonl",
        "--embed",
        &url,
        "--embed-model",
        "e5-passage",
        "--embed-query-model",
        "e5-query",
    ]);
    println!("{r}");
    assert!(r["recall@5"].as_f64().unwrap() >= 0.85, "{r}");
}
