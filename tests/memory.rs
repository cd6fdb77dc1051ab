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

#[test]
fn an_older_save_is_read_through_its_migrations_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("old.db");
    let save_s = save.to_str().unwrap();
    stdout_of(&["sim", "--days", "1", "--save", save_s]);
    {
        // What version 1 wrote: no recall times, no vectors.
        let c = rusqlite::Connection::open(&save).unwrap();
        c.execute_batch(
            "ALTER TABLE memories DROP COLUMN last_access; DROP TABLE memory_vectors;
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
