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
    assert!(stdout.contains("你养了小猫"), "{stdout}");
}

/// A correction once went unheard: 「年糕不是橘猫，是一只白猫」 and 「我其实
/// 不是老师了，现在在图书馆…」 left the orange cat and the teacher in place,
/// and both came back when asked. Now each puts the fact right, says so,
/// and the recall answers with the new one.
#[test]
fn a_correction_replaces_what_the_companion_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let (shown, records) = chat(
        dir.path(),
        "fix",
        &[
            "我叫晓晓，是一名小学老师。",
            "我养了一只橘猫，叫年糕。",
            "其实我说错了，年糕不是橘猫，是一只白猫。",
            "我其实不是老师了，现在在图书馆帮苏文整理旧书。",
            "你还记得年糕是什么颜色的吗？",
            "所以你现在记得我的工作是什么？",
        ],
        &[],
    );
    let replaced: Vec<&str> = of(&records, "fact")
        .iter()
        .filter(|f| f["learnt"] == "replaced")
        .map(|f| f["value"].as_str().unwrap())
        .collect();
    assert_eq!(replaced, ["年糕", "在图书馆帮苏文整理旧书"], "{shown}");
    let replies: Vec<&str> = shown
        .lines()
        .filter_map(|l| l.strip_prefix("守望精灵："))
        .collect();
    assert!(
        replies[4].contains("白猫") && !replies[4].contains("橘猫"),
        "{shown}"
    );
    assert!(
        replies[5].contains("图书馆") && !replies[5].contains("老师"),
        "{shown}"
    );
}

/// 「你觉得我该怎么办？」 was once read as 「你觉得我（是什么样的人）」 and
/// answered with the player's personality. Now it is answered about the
/// worry the player told.
#[test]
fn asked_what_to_do_the_companion_speaks_of_the_worry() {
    let dir = tempfile::tempdir().unwrap();
    let (shown, _) = chat(
        dir.path(),
        "advice",
        &[
            "我叫晓晓。",
            "最近有点烦，班上有个孩子总不说话，我不知道怎么帮他。",
            "你觉得我该怎么办？",
        ],
        &[],
    );
    let last = shown
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("守望精灵："))
        .unwrap();
    assert!(last.contains("孩子总不说话"), "{shown}");
    assert!(!last.contains("在我看来"), "{shown}");
}

/// 「何医生」 is 何青 the doctor: asked about by surname and trade, the
/// companion speaks of her (it once said 「我也不知道呢」); and a choice asked
/// about is answered about that choice, a sore knee told before or not.
#[test]
fn a_townsfolk_named_by_title_and_a_choice_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (shown, _) = chat(
        dir.path(),
        "title",
        &[
            "我叫王老师。",
            "最近膝盖疼，上下楼有点吃力",
            "镇上的何医生人怎么样？",
            "你觉得我是不是该去省城跟儿子住？",
        ],
        &[],
    );
    let replies: Vec<&str> = shown
        .lines()
        .filter_map(|l| l.strip_prefix("守望精灵："))
        .collect();
    let n = replies.len();
    assert!(n >= 2, "{shown}");
    assert!(replies[n - 2].contains("何青"), "{shown}");
    assert!(replies[n - 1].contains("去省城跟儿子住"), "{shown}");
}

#[test]
fn an_unknown_resident_is_a_clear_error() {
    let out = heartvale(&["chat", "nobody", "--input", "/dev/null"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no resident \"nobody\""));
}

/// A bad byte or a `/wait abc` once lost the whole conversation and its
/// save: now the line is skipped with the reason, the chat goes on and the
/// save is written. Endless input (`/dev/zero`) ends at the bound, and an
/// input file that cannot be opened leaves the transcript and log as they were.
#[test]
fn bad_lines_are_skipped_and_the_chat_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let mut bytes = "你好\n".as_bytes().to_vec();
    bytes.extend(b"\xff\xfe\n/wait abc\n/wait 99999\n");
    bytes.extend("我叫小雨\n".as_bytes());
    std::fs::write(&input, bytes).unwrap();
    let save = dir.path().join("s.db");
    let out = heartvale(&[
        "chat",
        "guardian",
        "--input",
        input.to_str().unwrap(),
        "--save",
        save.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("第 2 行不是 UTF-8 文字，跳过"), "{err}");
    assert!(err.contains("`/wait abc` 没看懂"), "{err}");
    assert!(err.contains("`/wait 99999` 没看懂"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("守望精灵：")
            .count(),
        2
    );
    assert!(save.is_file(), "the save it was asked for is written");

    let zero = heartvale(&["chat", "guardian", "--input", "/dev/zero"]);
    assert!(zero.status.success());
    assert!(String::from_utf8_lossy(&zero.stderr).contains("后面的不再读"));

    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&transcript, "kept\n").unwrap();
    let log = dir.path().join("events.jsonl");
    std::fs::write(&log, "kept too\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let out = heartvale(&[
        "chat",
        "guardian",
        "--input",
        missing.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&transcript).unwrap(), "kept\n");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "kept too\n");
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
    // The replies' requests (the others read facts from the messages).
    let sent: Vec<FakeRequest> = server
        .requests()
        .into_iter()
        .filter(|r| r.prompt().contains("## 请回复"))
        .collect();
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

/// With a model: each statement's facts are read as JSON, a recall question's
/// prompt carries the fact it asks for (in words it shares none with), the
/// 用户画像 is written by the model every 20 messages, and `--record` then
/// `--replay` (no server) gives the same chat.
#[test]
fn a_model_reads_facts_writes_the_profile_and_the_chat_replays() {
    use heartvale::llm::fake::{self, FakeRequest, FakeServer};
    let server = FakeServer::start(std::sync::Arc::new(|req: &FakeRequest| {
        let prompt = req.prompt();
        if prompt.contains("只输出 JSON") {
            let facts = if prompt.contains("豆包") {
                r#"{"facts":[{"kind":"pet","about":"橘猫","value":"豆包"}]}"#
            } else if prompt.contains("护士") {
                r#"{"facts":[{"kind":"job","about":"","value":"护士"}]}"#
            } else {
                r#"{"facts":[]}"#
            };
            fake::chat(facts)
        } else if prompt.contains("用户画像") && prompt.contains("请写用户画像") {
            fake::chat(
                "性格：温和，爱讲猫的事\n偏好：喜欢橘猫\n最近状态：夜班很累\n关系进展：刚认识\n最近话题：豆包、夜班",
            )
        } else {
            fake::chat("（柳叶晃了晃）嗯。")
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec!["你好", "我最喜欢的东西是一只叫豆包的橘猫", "我是一名护士"];
    let filler = [
        "今天的风很舒服",
        "河边的柳树发芽了",
        "夜班好累",
        "晚霞很好看",
    ];
    while lines.len() < 20 {
        lines.push(filler[lines.len() % filler.len()]);
    }
    lines.push("那只猫叫什么名字");
    while lines.len() < 40 {
        lines.push(filler[lines.len() % filler.len()]);
    }
    let rec = dir.path().join("rec");
    let save = dir.path().join("town.db");
    let llm = [
        "--llm",
        &server.url,
        "--model",
        "fake-model",
        "--llm-timeout",
        "5",
    ];
    let mut extra = llm.to_vec();
    extra.extend([
        "--record",
        rec.to_str().unwrap(),
        "--save",
        save.to_str().unwrap(),
    ]);
    let (_, records) = chat(dir.path(), "listen", &lines, &extra);
    let sent = server.requests();
    let prompts: Vec<String> = sent.iter().map(FakeRequest::prompt).collect();
    let profiles = prompts
        .iter()
        .filter(|p| p.contains("请写用户画像"))
        .count();
    assert_eq!(profiles, 2, "a 用户画像 request at 20 and 40 messages");
    let asked = prompts
        .iter()
        .find(|p| p.contains("## 请回复") && p.ends_with("那只猫叫什么名字"))
        .or_else(|| prompts.iter().filter(|p| p.contains("## 请回复")).nth(20))
        .unwrap();
    let retrieved = asked
        .split("## 你记得的事")
        .nth(1)
        .unwrap()
        .split("## 最近的对话")
        .next()
        .unwrap();
    assert!(retrieved.contains("豆包"), "{retrieved}");
    let profile = asked
        .split("## 用户画像")
        .nth(1)
        .unwrap()
        .split("## 关键记忆")
        .next()
        .unwrap();
    assert!(
        profile.contains("护士") && profile.contains("豆包"),
        "{profile}"
    );
    let written = of(&records, "profile");
    assert_eq!(written.len(), 2);
    assert_eq!(written[0]["written_by"], "llm:fake-model");
    assert_eq!(written[1]["personality"], "温和，爱讲猫的事");
    let db = rusqlite::Connection::open(&save).unwrap();
    let versions: i64 = db
        .query_row("SELECT count(*) FROM profile_versions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(versions, 2);
    let last: String = db
        .query_row(
            "SELECT profile FROM profile_versions ORDER BY version DESC",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        last.contains("护士") && last.contains("豆包"),
        "the saved profile: {last}"
    );
    let pet: String = db
        .query_row(
            "SELECT value FROM player_facts WHERE kind = 'pet'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(pet, "豆包");
    // Replayed with the server gone: the same replies, no network.
    let calls = sent.len();
    drop(server);
    let input = dir.path().join("listen.txt");
    let out = heartvale(&[
        "chat",
        "guardian",
        "--input",
        input.to_str().unwrap(),
        "--replay",
        rec.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("40 句回复全部相同"), "{err}");
    assert!(calls > 40, "{calls}");
}

/// Offline too: `--record` keeps the chat, `--replay` reproduces it, and a
/// changed reply is named and fails the run.
#[test]
fn an_offline_chat_records_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let lines = [
        "你好",
        "我叫林夏",
        "/wait 2",
        "好久不见",
        "你还记得我叫什么吗？",
    ];
    let (stdout, _) = chat(
        dir.path(),
        "offline",
        &lines,
        &["--record", rec.to_str().unwrap()],
    );
    assert!(
        stdout.contains("林夏呀") || stdout.contains("林夏。"),
        "{stdout}"
    );
    let replay = |dir: &Path| {
        heartvale(&[
            "chat",
            "guardian",
            "--input",
            "/dev/null",
            "--replay",
            dir.to_str().unwrap(),
        ])
    };
    let out = replay(&rec);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("4 句回复全部相同"),
        "{err}"
    );
    let file = rec.join("chat.jsonl");
    let mut steps: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    steps.last_mut().unwrap()["reply"] = "（别的回答）".into();
    let text: Vec<String> = steps.iter().map(Value::to_string).collect();
    std::fs::write(&file, text.join("\n")).unwrap();
    let out = replay(&rec);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("differ"), "{err}");
}
