//! `heartvale interview`: a resident answers from what it knows, frozen in
//! time. On a save taken at the end of day 2, every resident is asked whom it
//! talked with yesterday, where it heard of the party, and about a bakery
//! that does not exist; the answers are checked against the run's own log.

mod util;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use util::heartvale;

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn events(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The day a resident calls "today" at a log time: before five in the
/// morning, still the evening's day.
fn social_day(time: &str) -> String {
    let t = heartvale::base::time::GameTime::parse(time).unwrap();
    heartvale::base::time::GameTime(t.social_day() * 86_400)
        .date()
        .to_string()
}

#[test]
fn residents_answer_what_they_know_and_only_that() {
    let dir = tempfile::tempdir().unwrap();
    let (save, log) = (dir.path().join("d2.db"), dir.path().join("d2.jsonl"));
    let (save_s, log_s) = (save.to_str().unwrap(), log.to_str().unwrap());
    let out = heartvale(&[
        "sim", "--days", "2", "--seed", "3", "--save", save_s, "--log", log_s, "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&log);
    let names: BTreeMap<String, String> = ev[0]["residents"]
        .as_array()
        .unwrap()
        .iter()
        .zip(ev[0]["names"].as_array().unwrap())
        .map(|(id, n)| (id.as_str().unwrap().into(), n.as_str().unwrap().into()))
        .collect();
    // Who talked with whom yesterday (as the save's time counts days), and
    // how each first heard of the party.
    let today = social_day(ev.last().unwrap()["time"].as_str().unwrap());
    let yesterday = (chrono::NaiveDate::parse_from_str(&today, "%Y-%m-%d").unwrap()
        - chrono::Duration::days(1))
    .to_string();
    let mut talked: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut heard: BTreeMap<&str, (String, Option<String>)> = BTreeMap::new();
    for e in &ev {
        let kind = e["kind"].as_str().unwrap();
        if kind == "conversation_end"
            && e["messages"].as_u64() >= Some(2)
            && social_day(e["time"].as_str().unwrap()) == yesterday
        {
            let ps: Vec<&str> = e["participants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            for a in &ps {
                talked
                    .entry(a)
                    .or_default()
                    .extend(ps.iter().filter(|b| *b != a));
            }
        }
        if kind == "learned" && e["fact"] == "gathering" {
            let who = e["resident"].as_str().unwrap();
            heard.entry(who).or_insert((
                e["source"].as_str().unwrap().into(),
                e["from"].as_str().map(String::from),
            ));
        }
    }
    let (mut right, mut asked) = (0, 0);
    let mut wrong = Vec::new();
    for (id, name) in &names {
        let ask = |q: &str| {
            json_of(&heartvale(&[
                "interview",
                id,
                q,
                "--load",
                save_s,
                "--json",
            ]))
        };
        // Whom it talked with yesterday: all of them, and nobody else.
        let a = ask("你昨天都和谁聊过天？");
        let text = a["answer"].as_str().unwrap();
        let said: BTreeSet<&str> = names
            .values()
            .filter(|n| *n != name && text.contains(n.as_str()))
            .map(String::as_str)
            .collect();
        let truth: BTreeSet<&str> = talked
            .get(id.as_str())
            .into_iter()
            .flatten()
            .map(|i| names[*i].as_str())
            .collect();
        asked += 1;
        if said == truth {
            right += 1
        } else {
            wrong.push(format!("{name}: {text} (truth {truth:?})"))
        }
        // Where it first heard of the party.
        let a = ask("你是从哪儿知道心谷联谊会的？");
        let text = a["answer"].as_str().unwrap();
        let ok = match heard.get(id.as_str()) {
            _ if id == "zhong" => text.contains("张罗") || text.contains("我办"),
            Some((source, Some(by))) if source == "told" => text.contains(names[by].as_str()),
            Some((source, _)) if source == "notice" => {
                text.contains("公告") || text.contains("告示")
            }
            Some(_) => true,
            None => text.contains("没听说"),
        };
        asked += 1;
        if ok {
            right += 1
        } else {
            wrong.push(format!(
                "{name}: {text} (first heard {:?})",
                heard.get(id.as_str())
            ))
        }
        assert!(
            !a["facts"].as_array().unwrap().is_empty()
                || !heard.contains_key(id.as_str()) && id != "zhong",
            "{a}"
        );
        // A bakery that does not exist.
        let a = ask("你听说镇上新开的那家面包店了吗？");
        let text = a["answer"].as_str().unwrap();
        asked += 1;
        if text.contains("没听说") || text.contains("不知道") || text.contains("头回听说")
        {
            right += 1
        } else {
            wrong.push(format!("{name}: {text}"))
        }
    }
    eprintln!("{right} of {asked} answers right");
    assert!(
        right * 10 >= asked * 9,
        "{right} of {asked} right:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn an_unknown_resident_is_a_clear_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("d1.db");
    let save_s = save.to_str().unwrap();
    let out = heartvale(&["sim", "--days", "1", "--save", save_s, "-q"]);
    assert!(out.status.success());
    let before = std::fs::read(&save).unwrap();
    let out = heartvale(&["interview", "nobody", "你好吗？", "--load", save_s]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nobody"));
    // Asking changes nothing: the save is the same afterwards.
    let out = heartvale(&[
        "interview",
        "阿朵",
        "你觉得钟大川怎么样？",
        "--load",
        save_s,
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("阿朵："), "{text}");
    assert_eq!(
        std::fs::read(&save).unwrap(),
        before,
        "the save is untouched"
    );
    // A scenario at its start: the organiser knows its party, others may not.
    let out = heartvale(&["interview", "zhong", "你听说心谷联谊会了吗？"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("心谷联谊会"),
        "{out:?}"
    );
}

/// With a model (a loopback fake): the prompt carries what the resident
/// knows with its sources and whom it talked with; the answer is the
/// model's; a failing model leaves the built-in answer.
#[test]
fn a_model_is_told_the_facts_with_their_sources() {
    use heartvale::llm::fake::{FakeReply, FakeRequest, FakeServer};
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("d2.db");
    let save_s = save.to_str().unwrap();
    let out = heartvale(&["sim", "--days", "2", "--seed", "3", "--save", save_s, "-q"]);
    assert!(out.status.success());
    let server = FakeServer::start(std::sync::Arc::new(|_: &FakeRequest| FakeReply::Json {
        status: 200,
        headers: vec![],
        body: serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "听苏文说的，告示我后来也看了。"}}]}),
    }));
    let url = server.url.clone();
    let tape = dir.path().join("tape");
    let ask = |extra: &[&str]| {
        let mut args = vec!["interview", "shisong", "你是从哪儿知道心谷联谊会的？"];
        args.extend(["--load", save_s, "--json"]);
        args.extend_from_slice(extra);
        heartvale(&args)
    };
    let out = ask(&[
        "--llm",
        &url,
        "--model",
        "fake",
        "--record",
        tape.to_str().unwrap(),
    ]);
    let a = json_of(&out);
    assert_eq!(a["source"], "llm", "{a}");
    assert_eq!(a["answer"], "听苏文说的，告示我后来也看了。");
    let prompt = server
        .requests()
        .last()
        .expect("the model was asked")
        .prompt();
    assert!(prompt.contains("心谷联谊会"), "{prompt}");
    assert!(
        prompt.contains("说的）") || prompt.contains("公告板上看到的）"),
        "sources: {prompt}"
    );
    assert!(prompt.contains("这几天你和谁聊过天"), "{prompt}");
    assert!(prompt.contains("你是从哪儿知道心谷联谊会的？"), "{prompt}");
    drop(server);
    // Recorded: the same answer again with the server gone.
    let out = ask(&["--replay", tape.to_str().unwrap()]);
    assert_eq!(json_of(&out), a);
    // The model gone: the built-in brain answers, and says so on stderr.
    let out = ask(&["--llm", &url, "--model", "fake", "--llm-timeout", "2"]);
    let a = json_of(&out);
    assert_eq!(a["source"], "builtin", "{a}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("内置大脑"));
}
