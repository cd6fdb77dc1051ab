//! `heartvale date`, as a user runs it: a full offline date with its
//! transcript, the same date for the same seed, `--repeat`, and the errors a
//! mistyped name or a broken scene file get.

mod util;

use std::path::{Path, PathBuf};

use serde_json::Value;
use util::heartvale;

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// A full date: its printout and its transcript, parsed.
fn date(args: &[&str]) -> (String, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("date.jsonl");
    let mut all = vec!["date"];
    all.extend_from_slice(args);
    all.extend(["--transcript", out.to_str().unwrap()]);
    let o = heartvale(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let lines = std::fs::read_to_string(&out).unwrap();
    let msgs = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (text(&o.stdout), msgs)
}

fn str_of<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not text in {v}"))
}

/// Each round is host, avatar, avatar, score; the last line is the end.
#[test]
fn an_offline_date_runs_end_to_end_with_its_transcript() {
    let (shown, msgs) = date(&["heqing", "shisong", "--seed", "11"]);
    let (end, rounds) = msgs.split_last().unwrap();
    assert_eq!(rounds.len() % 4, 0, "{rounds:?}");
    let played = rounds.len() / 4;
    assert!((1..=10).contains(&played));
    let mut score = 25;
    for (n, round) in rounds.chunks(4).enumerate() {
        let host = &round[0];
        assert_eq!(str_of(host, "kind"), "host");
        let action = &host["action"];
        assert_eq!(str_of(action, "type"), "predict");
        assert!(["heqing", "shisong"].contains(&str_of(action, "object")));
        assert!(str_of(action, "answers").starts_with("A. "));
        assert!(str_of(host, "time").starts_with("Day "));
        assert_eq!(str_of(host, "cumulative_rate"), score.to_string());
        assert!(!str_of(host, "rationale").is_empty());
        let sides: Vec<&str> = round[1..3]
            .iter()
            .map(|a| {
                assert_eq!(str_of(a, "kind"), "avatar");
                let option = str_of(&a["decision"], "option");
                assert!(str_of(action, "answers").contains(&format!("{option}. ")));
                assert!(!str_of(a, "rationale").is_empty());
                assert!(!str_of(a, "gender").is_empty());
                str_of(a, "resident")
            })
            .collect();
        assert_eq!(
            sides[0],
            str_of(action, "object"),
            "the side asked answers first"
        );
        assert_ne!(sides[0], sides[1]);
        let s = &round[3];
        assert_eq!(str_of(s, "kind"), "score");
        assert_eq!(s["round"], n + 1);
        assert_eq!(s["before"], score);
        let after = s["after"].as_i64().unwrap();
        assert!((0..=50).contains(&after) && (after - score).abs() <= 10);
        assert!(!str_of(s, "reason").is_empty());
        score = after;
    }
    assert_eq!(str_of(end, "kind"), "end");
    assert_eq!(end["score"], score);
    assert_eq!(end["rounds"], played);
    assert!(["host", "rounds", "broke_up", "established"].contains(&str_of(end, "reason")));
    let band = str_of(end, "band");
    assert!(["不和谐", "一般", "良好", "高度契合"].contains(&band));
    // The printout tells the same date, with both names and the summary.
    assert!(shown.contains("何青") && shown.contains("石松"), "{shown}");
    assert!(shown.contains(&format!("{score} 分，{band}")), "{shown}");
    assert!(shown.contains("选择最常体现"), "{shown}");
}

#[test]
fn the_same_seed_gives_the_same_date_and_another_seed_another() {
    let (_, first) = date(&["adou", "林小溪", "--seed", "5"]);
    let (_, again) = date(&["adou", "xiaoxi", "--seed", "5"]);
    assert_eq!(first, again, "a name and an id are the same resident");
    let others: Vec<Vec<Value>> = (6..10)
        .map(|s| date(&["adou", "xiaoxi", "--seed", &s.to_string()]).1)
        .collect();
    assert!(others.iter().any(|o| *o != first));
}

#[test]
fn rounds_cap_the_date() {
    let (_, msgs) = date(&["su", "ma", "--rounds", "2"]);
    let end = msgs.last().unwrap();
    assert!(end["rounds"].as_u64().unwrap() <= 2, "{end}");
    let o = heartvale(&["date", "su", "ma", "--rounds", "11"]);
    assert!(!o.status.success());
}

#[test]
fn repeat_prints_the_mean_the_spread_and_the_swapped_roles() {
    let o = heartvale(&["date", "su", "ma", "--repeat", "12", "--seed", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let shown = text(&o.stdout);
    assert!(shown.contains("12 次约会"), "{shown}");
    assert!(
        shown.contains("平均") && shown.contains("标准差"),
        "{shown}"
    );
    assert!(shown.contains("角色对调（马铁 在先）"), "{shown}");
}

/// One rule for every date: adults only, never family — the command says
/// why and exits 1.
#[test]
fn minors_and_family_are_refused_with_the_reason() {
    for (a, b, why) in [
        ("shen", "yue", "沈月 is 17: only adults"),
        ("yue", "ma", "沈月 is 17"),
        ("heqing", "xiaoxi", "何青 and 林小溪 are family"),
        ("xiaoxi", "heqing", "林小溪 and 何青 are family"),
    ] {
        let o = heartvale(&["date", a, b]);
        assert_eq!(o.status.code(), Some(1), "{a} {b}");
        assert!(text(&o.stderr).contains(why), "{}", text(&o.stderr));
    }
}

/// The host's own scene (钟大川起哄让你们俩上去合唱) is never played on a date
/// 钟大川 is on.
#[test]
fn no_scene_names_one_of_the_two() {
    for seed in 1..=6 {
        let (shown, _) = date(&["zhong", "heqing", "--seed", &seed.to_string()]);
        assert!(!shown.contains("钟大川起哄"), "{shown}");
        assert!(!shown.contains("何青告诉你"), "{shown}");
    }
}

#[test]
fn unknown_and_self_dates_are_refused() {
    let o = heartvale(&["date", "heqng", "shen"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("no resident `heqng`"), "{err}");
    assert!(err.contains("did you mean `heqing`"), "{err}");
    let o = heartvale(&["date", "shen", "沈博远"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("cannot date themself"));
}

/// A copy of the default town whose scene file is `edit`ed.
fn town_with_scenes(edit: impl FnOnce(String) -> String) -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("town");
    heartvale::headless::copy_dir(&src, &to).unwrap();
    let scenes = to.join("cupid/scenes.yaml");
    let yaml = std::fs::read_to_string(&scenes).unwrap();
    std::fs::write(&scenes, edit(yaml)).unwrap();
    (dir, to)
}

#[test]
fn a_broken_scene_file_is_named_with_its_line_and_column() {
    let (_t, town) =
        town_with_scenes(|y| y.replacen("traits: [冒险, 主动]", "traits: [冒险, 飞翔]", 1));
    let line = std::fs::read_to_string(town.join("cupid/scenes.yaml"))
        .unwrap()
        .lines()
        .position(|l| l.contains("飞翔"))
        .unwrap()
        + 1;
    let out = town.parent().unwrap().join("never.jsonl");
    let o = heartvale(&[
        "date",
        "su",
        "ma",
        "--scenario",
        town.to_str().unwrap(),
        "--transcript",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains(&format!("scenes.yaml:{line}:")), "{err}");
    assert!(err.contains("飞翔"), "{err}");
    assert!(!out.exists(), "no transcript for a date that never started");
    // `check` reports the same file.
    let o = heartvale(&["check", town.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let told = text(&o.stdout) + &text(&o.stderr);
    assert!(told.contains(&format!("scenes.yaml:{line}:")), "{told}");
}

#[test]
fn a_scene_with_one_option_is_refused() {
    let (_t, town) = town_with_scenes(|y| {
        y.replacen(
            "          - text: 点头回以微笑，安静地吃饭\n            traits: [稳妥, 体贴]\n          - text: 端着碗换到角落去站着吃\n            traits: [回避, 独立]\n",
            "",
            1,
        )
    });
    let o = heartvale(&["date", "su", "ma", "--scenario", town.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("scenes.yaml:") && err.contains("options"),
        "{err}"
    );
}

/// With a model: three calls a round (one more to open), the design's JSON
/// in the transcript, the bill printed; recorded, then replayed with the
/// server gone, the same date.
#[test]
fn a_date_with_a_model_records_and_replays() {
    use heartvale::llm::fake::{FakeServer, cupid_handler};
    let server = FakeServer::start(cupid_handler());
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("tape");
    let (shown, live) = date(&[
        "heqing",
        "shisong",
        "--llm",
        &server.url,
        "--model",
        "fake",
        "--record",
        tape.to_str().unwrap(),
    ]);
    assert!(shown.contains("来自模型 fake"), "{shown}");
    let rounds = live.iter().filter(|m| m["kind"] == "score").count();
    assert_eq!(server.count(), 3 * rounds + 1, "{shown}");
    assert!(
        shown.contains(&format!("LLM：{} 次调用", 3 * rounds + 1)),
        "{shown}"
    );
    assert!(
        live[0]["action"]["question"]
            .as_str()
            .unwrap()
            .starts_with("第1幕")
    );
    drop(server);
    let (_, replayed) = date(&["heqing", "shisong", "--replay", tape.to_str().unwrap()]);
    assert_eq!(live, replayed);
}

/// `heartvale sim --date A,B`: the pair goes to the host's place, the date
/// is logged round by round, and it ends by moving both ties.
#[test]
fn a_town_date_booked_from_the_command_line_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("town.jsonl");
    let o = heartvale(&[
        "sim",
        "--days",
        "1",
        "-q",
        "--date",
        "何青,shisong",
        "--log",
        log.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let events: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |k: &str| events.iter().filter(|e| e["kind"] == k).collect::<Vec<_>>();
    // The host may pair two others of its own accord that evening.
    let start: Vec<&Value> = of("date_start")
        .into_iter()
        .filter(|e| e["requested"] == true)
        .collect();
    assert_eq!(start.len(), 1);
    assert_eq!(
        start[0]["residents"],
        serde_json::json!(["heqing", "shisong"])
    );
    let ours = |k: &str| -> Vec<&Value> {
        of(k)
            .into_iter()
            .filter(|e| e["date"] == start[0]["date"])
            .collect()
    };
    let rounds = ours("date_round");
    let end = ours("date_end");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["rounds"].as_u64().unwrap() as usize, rounds.len());
    let mut score = 25;
    for r in &rounds {
        assert_eq!(r["before"], score);
        score = r["after"].as_i64().unwrap();
        assert!((score - r["before"].as_i64().unwrap()).abs() <= 10);
    }
    assert_eq!(end[0]["score"], score);
    let changed: Vec<&Value> = of("relationship_change")
        .into_iter()
        .filter(|c| str_of(c, "reason").starts_with("约会"))
        .filter(|c| {
            let pair = ["heqing", "shisong"];
            pair.contains(&str_of(c, "resident")) && pair.contains(&str_of(c, "other"))
        })
        .collect();
    assert_eq!(changed.len(), 2, "both ties move");
}

#[test]
fn a_town_date_needs_two_residents_and_not_the_host() {
    for (pair, says) in [
        ("heqing", "two residents"),
        ("heqing,heqing", "themself"),
        ("heqing,xiaoxi", "are family"),
        ("shen,yue", "only adults"),
        ("zhong,heqing", "hosts the dates"),
        ("heqing,nobody", "no resident `nobody`"),
    ] {
        let o = heartvale(&["sim", "--days", "1", "-q", "--date", pair]);
        assert_eq!(o.status.code(), Some(1), "{pair}");
        assert!(
            text(&o.stderr).contains(says),
            "{pair}: {}",
            text(&o.stderr)
        );
    }
}

/// Introverts (沈博远 28, 石松 18) never say they love crowds, and old
/// friends (阿朵 and 林小溪) are not told it is their first meeting.
#[test]
fn rationales_fit_who_gives_them() {
    for seed in 1..=4 {
        let (shown, _) = date(&["shen", "shisong", "--seed", &seed.to_string()]);
        assert!(!shown.contains("热热闹闹"), "{shown}");
        let (shown, _) = date(&["adou", "xiaoxi", "--seed", &seed.to_string()]);
        assert!(!shown.contains("第一次见面"), "{shown}");
    }
}
