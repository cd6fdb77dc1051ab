//! `heartvale chat`: the player talks with the guardian spirit through the
//! command line — affection, key moments, the profile, streaks across game
//! days, the save, and memories brought up in a later chat.

use std::path::Path;

use serde_json::Value;

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
