//! `heartvale chat`: the player talks with the guardian spirit through the
//! command line — affection, key moments, the profile, streaks across game
//! days, the save, and memories brought up in a later chat.

use std::path::Path;

use serde_json::Value;

#[path = "util/concepts.rs"]
mod concepts;
mod util;
use util::heartvale;

fn chat(dir: &Path, name: &str, lines: &[&str], extra: &[&str]) -> (String, Vec<Value>) {
    let input = dir.join(format!("{name}.txt"));
    std::fs::write(&input, lines.join("\n")).unwrap();
    let transcript = dir.join(format!("{name}.jsonl"));
    let mut args = vec![
        "chat",
        "guardian",
        "--input",
        input.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = heartvale(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (String::from_utf8(out.stdout).unwrap(), records)
}

fn of<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

#[test]
fn a_chat_with_the_guardian_counts_affection_moments_and_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec!["你好", "叫我小林吧", "我喜欢在河边散步"];
    let more: Vec<String> = (4..=20).map(|i| format!("今天的第{i}句话")).collect();
    lines.extend(more.iter().map(String::as_str));
    let (stdout, records) = chat(dir.path(), "first", &lines, &[]);
    assert!(stdout.contains("守望精灵："), "{stdout}");
    let messages = of(&records, "message");
    assert_eq!(messages.len(), 40, "one line per message, both sides");
    for m in &messages {
        assert!(m["affection"].is_i64() && m["stage"] == "观察者", "{m}");
    }
    let moments: Vec<&str> = of(&records, "key_moment")
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(moments, ["first_meeting", "asked_name"]);
    let named = &of(&records, "key_moment")[1];
    assert_eq!(named["user"], "叫我小林吧", "kept verbatim");
    assert!(named["reply"].as_str().unwrap().contains("小林"));
    // 20 messages + 20 + 50 from the two moments.
    assert_eq!(messages.last().unwrap()["affection"], 90);
    let profiles = of(&records, "profile");
    assert_eq!(profiles.len(), 1, "rewritten at the 20th message");
    assert_eq!(profiles[0]["nickname"], "小林");
    assert!(
        profiles[0]["preferences"]
            .as_str()
            .unwrap()
            .contains("在河边散步")
    );
}

#[test]
fn a_week_of_talk_pays_the_streak_and_a_saved_chat_goes_on_remembering() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("town.db");
    let save_s = save.to_str().unwrap();
    let mut lines = vec!["你好", "我养了一只小猫"];
    for _ in 0..6 {
        lines.extend(["/wait 1", "早上好"]);
    }
    let (_, records) = chat(dir.path(), "week", &lines, &["--save", save_s]);
    let streaks: Vec<&Value> = of(&records, "affection")
        .into_iter()
        .filter(|c| c["reason"] == "streak:7")
        .collect();
    assert_eq!(streaks.len(), 1, "{records:?}");
    assert_eq!(streaks[0]["delta"], 50);
    assert_eq!(of(&records, "wait").len(), 6);
    // A later chat from the save: the affection goes on, the cat is remembered.
    let (stdout, later) = chat(
        dir.path(),
        "later",
        &["你还记得我的小猫吗"],
        &["--load", save_s],
    );
    let before = of(&records, "message").last().unwrap()["affection"]
        .as_i64()
        .unwrap();
    let after = of(&later, "message")[0]["affection"].as_i64().unwrap();
    assert_eq!(after, before + 1, "{stdout}");
    assert!(stdout.contains("我养了一只小猫"), "{stdout}");
}

#[test]
fn an_unknown_resident_is_a_clear_error() {
    let out = heartvale(&["chat", "nobody", "--input", "/dev/null"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no resident \"nobody\""));
}

#[test]
fn with_a_model_the_prompt_carries_the_layers_and_a_marked_reply_makes_the_moment() {
    use heartvale::llm::fake::{self, FakeReply, FakeRequest, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|req: &FakeRequest| {
        let prompt = req.prompt();
        if prompt.contains("坏掉") {
            return FakeReply::Json {
                status: 500,
                headers: vec![],
                body: serde_json::json!({"error": "down"}),
            };
        }
        if prompt.contains("【可能触发的关键时刻】第一次见面") {
            fake::chat("（眨眼）初次见面，我是守望精灵。【时刻:first_meeting】")
        } else {
            fake::chat("嗯，我在听。")
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let (stdout, records) = chat(
        dir.path(),
        "llm",
        &["你好", "今天的风很舒服", "坏掉的话会怎样"],
        &[
            "--llm",
            &server.url,
            "--model",
            "fake-model",
            "--llm-timeout",
            "5",
        ],
    );
    let replies: Vec<&Value> = of(&records, "message")
        .into_iter()
        .filter(|m| m["role"] == "companion")
        .collect();
    assert_eq!(
        replies[0]["content"], "（眨眼）初次见面，我是守望精灵。",
        "mark removed"
    );
    assert_eq!(replies[0]["source"], "llm");
    assert_eq!(replies[1]["content"], "嗯，我在听。");
    assert_eq!(
        replies[2]["source"], "builtin",
        "a failed call: the built-in brain answers"
    );
    assert_eq!(
        of(&records, "key_moment")[0]["id"],
        "first_meeting",
        "{stdout}"
    );
    let sent = server.requests();
    let first = sent[0].prompt();
    for part in [
        "守望精灵",
        "你刚认识这个来访者",
        "第1章：观察者",
        "用户画像",
        "你好",
    ] {
        assert!(first.contains(part), "{part} in {first}");
    }
    let second = sent[1].prompt();
    assert!(
        second.contains("初次见面，我是守望精灵"),
        "the chat so far: {second}"
    );
    assert!(
        !second.contains("【可能触发的关键时刻】第一次见面"),
        "it happened once"
    );
}

/// With `--embed`, what the player said long ago comes back for a message
/// that shares no word with it (the fake model knows 身体 and 血压 are one
/// concept); without it, lexical recall cannot find it. The vectors are kept
/// in the save.
#[test]
fn with_embeddings_the_resident_recalls_a_paraphrase() {
    use heartvale::llm::fake::FakeRequest;
    let server = concepts::embedding_server();
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("town.db");
    let lines = [
        "医生说我血压高",
        "今天的风很舒服",
        "河边的柳树发芽了",
        "身体要注意什么",
    ];
    let llm = ["--llm", &server.url, "--model", "fake-model"];
    let last_prompt = |embed: bool| {
        let mut extra = llm.to_vec();
        if embed {
            extra.extend(["--embed", &server.url, "--embed-model", "m"]);
            extra.extend(["--save", save.to_str().unwrap()]);
        }
        chat(dir.path(), "embed", &lines, &extra);
        let sent: Vec<FakeRequest> = server
            .requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .collect();
        sent.last().unwrap().prompt()
    };
    let lexical = last_prompt(false);
    // The 你记得的事 section (the chat so far comes after it).
    let retrieved = |p: &str| {
        let from = p.split("## 你记得的事").nth(1).unwrap_or("");
        from.split("## 最近的对话").next().unwrap_or("").to_string()
    };
    assert!(!retrieved(&lexical).contains("血压"), "{lexical}");
    let semantic = last_prompt(true);
    assert!(retrieved(&semantic).contains("血压高"), "{semantic}");
    let db = rusqlite::Connection::open(&save).unwrap();
    let kept: i64 = db
        .query_row("SELECT count(*) FROM memory_vectors", [], |r| r.get(0))
        .unwrap();
    assert!(kept >= 3, "{kept} vectors kept");
}
