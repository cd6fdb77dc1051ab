//! Reading what a model wrote, and dates against the fake server: a
//! well-behaved model, one that breaks every rule, one that writes garbage.

use std::time::Duration;

use std::sync::Arc;

use super::*;
use crate::cupid::{Avatar, Date, EndReason, Message as Line};
use crate::llm::fake::{self, FakeReply, FakeRequest, FakeServer};

#[test]
fn options_are_split_as_models_write_them() {
    assert_eq!(
        split_options("A. 主动打招呼 B. 微笑 C. 走开"),
        ["主动打招呼", "微笑", "走开"]
    );
    assert_eq!(split_options("A、去 B、不去"), ["去", "不去"]);
    assert_eq!(split_options("A）去B）不去"), ["去", "不去"]);
    // A letter inside a word is not an option.
    assert_eq!(split_options("A. Bob's idea B. no"), ["Bob's idea", "no"]);
    assert!(split_options("随便").is_empty());
}

#[test]
fn the_host_json_is_read_leniently_and_checked() {
    let ids = ["a", "b"];
    let text = r#"好的：```json
{"action":{"type":"predict","object":"b","question":"下雨了","answers":["A. 撑伞","B. 跑"]},"time":"Day 2, Noon","cumulative_rate":32,"rationale":"✅ 互补。下一幕：雨停"}
```"#;
    let h = read_host(text, ids).unwrap();
    assert_eq!(h.options, ["撑伞", "跑"]);
    assert_eq!(h.turn.action.answers, "A. 撑伞 B. 跑");
    assert_eq!(h.rate, Some(32));
    assert_eq!(h.split_rationale(), ("✅ 互补".into(), "雨停".into()));
    let err = read_host(
        r#"{"action":{"type":"predict","object":"c","question":"q","answers":"A. x B. y"}}"#,
        ids,
    )
    .unwrap_err();
    assert!(err.0.contains("object"), "{err}");
    let err = read_host(
        r#"{"action":{"type":"predict","object":"a","question":"q","answers":"只有一个"}}"#,
        ids,
    )
    .unwrap_err();
    assert!(err.0.contains("2–4"), "{err}");
    // Ending needs no scene.
    assert!(
        read_host(r#"{"action":{"type":"end"},"cumulative_rate":"40分"}"#, ids)
            .unwrap()
            .end
    );
}

#[test]
fn an_avatar_must_choose_an_offered_letter() {
    let letters = ["A".to_string(), "B".to_string()];
    let t = read_avatar(
        r#"{"decision":{"option":"b.","content":"跑"},"rationale":"想跑"}"#,
        &letters,
        "男",
    )
    .unwrap();
    assert_eq!((t.decision.option.as_str(), t.gender.as_str()), ("B", "男"));
    let err = read_avatar(r#"{"decision":{"option":"E"}}"#, &letters, "男").unwrap_err();
    assert!(err.0.contains("not offered"), "{err}");
}

fn bank() -> Arc<SceneBank> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/heartvale/cupid/scenes.yaml");
    Arc::new(SceneBank::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn pair() -> (Avatar, Avatar) {
    // Loaded here rather than through `headless`, which sits above `llm`.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    let town = crate::scenario::Scenario::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let find = |id: &str| town.residents.iter().find(|p| p.id.as_str() == id).unwrap();
    (
        Avatar::new(find("heqing"), find("shisong")),
        Avatar::new(find("shisong"), find("heqing")),
    )
}

fn minds(server: &FakeServer) -> LlmMinds {
    let mut settings = LlmSettings::for_endpoint(&server.url, "fake");
    settings.timeout = Duration::from_secs(10);
    LlmMinds::new(&settings, bank(), 7).unwrap().unwrap()
}

#[test]
fn a_date_with_a_model_takes_three_calls_a_round() {
    let server = FakeServer::start(fake::cupid_handler());
    let mut m = minds(&server);
    let (a, b) = pair();
    let mut date = Date::new(a, b, 10);
    let lines = date.play(&mut m);
    let calls = m.calls();
    let rounds = date.rounds().len() as u32;
    assert_eq!(calls.calls, 3 * rounds + 1, "{calls:?}");
    assert_eq!(
        (calls.repairs, calls.fallbacks),
        (0, 0),
        "{:?}",
        m.take_notes()
    );
    assert!(calls.prompt_tokens > 0);
    let Some(Line::Host(h)) = lines.first() else {
        panic!()
    };
    assert!(h.action.question.starts_with("第1幕"), "{h:?}");
    // Every request asked for the design's JSON by schema; the avatars'
    // option an enum of the letters offered.
    for r in server.requests() {
        assert_eq!(r.format(), Some("json_schema"), "{}", r.raw);
    }
    let avatar = server
        .requests()
        .into_iter()
        .find(|r| r.body["response_format"]["json_schema"]["name"] == "cupid_avatar")
        .unwrap();
    let letters = &avatar.body["response_format"]["json_schema"]["schema"]["properties"]["decision"]
        ["properties"]["option"]["enum"];
    assert_eq!(letters, &serde_json::json!(["A", "B", "C"]));
    // The host's last prompt carries the whole date.
    let last = server.requests().last().unwrap().prompt();
    if rounds > 1 {
        assert!(last.contains("第 1 轮"), "{last}");
    }
}

/// The well-behaved model's answers, bent by `bend` (the request, the answer).
fn bent(bend: impl Fn(&FakeRequest, Value) -> String + Send + Sync + 'static) -> FakeServer {
    let good = fake::cupid_handler();
    FakeServer::start(Arc::new(move |req: &FakeRequest| {
        let FakeReply::Json { body, .. } = good(req) else {
            unreachable!("the Cupid handler answers JSON")
        };
        let content = body["choices"][0]["message"]["content"].as_str().unwrap();
        fake::chat(&bend(req, serde_json::from_str(content).unwrap()))
    }))
}

fn is_host(req: &FakeRequest) -> bool {
    req.body["response_format"]["json_schema"]["name"] == "cupid_host"
}

#[test]
fn the_rules_hold_whatever_the_model_says() {
    // +40 a round, a score of 80, time stuck in the morning of day 1, option E.
    let server = bent(|req, mut v| {
        if is_host(req) {
            let now: i64 = req
                .prompt()
                .rsplit("当前分数：")
                .next()
                .and_then(|r| r.split('，').next()?.parse().ok())
                .unwrap_or(25);
            v["cumulative_rate"] = (now + 40).min(80).to_string().into();
            v["time"] = "Day 1, Morning".into();
        } else {
            v["decision"]["option"] = "E".into();
        }
        v.to_string()
    });
    let mut m = minds(&server);
    let (a, b) = pair();
    let mut date = Date::new(a, b, 10);
    let lines = date.play(&mut m);
    let mut last = crate::cupid::Timeline::default();
    for line in &lines {
        match line {
            Line::Host(h) => {
                let t = crate::cupid::Timeline::parse(&h.time).unwrap();
                assert!(t > last, "{} after {last}", h.time);
                last = t;
            }
            Line::Avatar { turn, .. } => {
                assert!(
                    ["A", "B", "C"].contains(&turn.decision.option.as_str()),
                    "{turn:?}"
                );
            }
            Line::Score { before, after, .. } => {
                assert!((after - before).abs() <= 10 && (0..=50).contains(after));
            }
            Line::End { score, .. } => assert!(*score <= 50),
        }
    }
    assert_eq!(
        date.ended(),
        Some(EndReason::Established),
        "+10 a round from 25"
    );
    let calls = m.calls();
    assert!(calls.fallbacks >= 2 && calls.repairs >= 2, "{calls:?}");
    let notes = m.take_notes().join("\n");
    assert!(notes.contains("not offered"), "{notes}");
}

#[test]
fn garbage_is_repaired_once_then_replaced_by_the_built_in_minds() {
    // The first answer of every call is prose; the repair is good.
    let server = bent(|req, v| {
        if req.prompt().contains("你上一次的回答不能用") {
            v.to_string()
        } else {
            "嗯……我觉得挺好的。".into()
        }
    });
    let mut m = minds(&server);
    let (a, b) = pair();
    let mut date = Date::new(a.clone(), b.clone(), 3);
    date.play(&mut m);
    let c = m.calls();
    assert_eq!((c.repairs, c.fallbacks), (c.calls / 2, 0), "{c:?}");
    // Garbage every time: every turn falls back, and the date still ends.
    let server = bent(|_, _| "{\"action\": ".into());
    let mut m = minds(&server);
    let mut date = Date::new(a, b, 3);
    let lines = date.play(&mut m);
    assert!(matches!(lines.last(), Some(Line::End { .. })));
    let c = m.calls();
    assert_eq!(
        c.calls,
        2 * c.fallbacks,
        "a call and its repair per turn: {c:?}"
    );
    assert!(m.take_notes().iter().any(|n| n.contains("built-in")));
}

/// Watched, every call streams: its pieces come as they are written and,
/// read with `preview`, show the field being written; the answers are used
/// whole, exactly as without streaming.
#[test]
fn a_watched_date_streams_its_answers() {
    let good = fake::cupid_handler();
    let server = FakeServer::start(Arc::new(move |req: &FakeRequest| {
        let whole = good(req);
        if req.body["stream"] != true {
            return whole;
        }
        let FakeReply::Json { body, .. } = whole else {
            unreachable!("the Cupid handler answers JSON")
        };
        fake::stream(body["choices"][0]["message"]["content"].as_str().unwrap())
    }));
    let (a, b) = pair();
    let plain = Date::new(a.clone(), b.clone(), 3).play(&mut minds(&server));
    let mut m = minds(&server);
    let (tx, rx) = crossbeam_channel::unbounded();
    m.stream_to(tx);
    let mut date = Date::new(a, b, 3);
    let first = date.step(&mut m);
    let pieces: Vec<String> = rx.try_iter().collect();
    assert!(pieces.len() > 5, "{pieces:?}");
    let written: String = pieces.concat();
    let halfway: String = written
        .chars()
        .take(written.chars().count() * 2 / 3)
        .collect();
    assert!(preview(&halfway).is_some(), "{halfway}");
    let Some(Line::Host(h)) = first.first() else {
        panic!("{first:?}")
    };
    assert!(written.contains(&h.action.question), "{written}");
    let mut lines = first;
    lines.extend(date.play(&mut m));
    let text = |l: &[Line]| serde_json::to_string(l).unwrap();
    assert_eq!(text(&lines), text(&plain), "streaming changes nothing else");
    assert_eq!(m.calls().fallbacks, 0, "{:?}", m.take_notes());
    assert!(server.requests().iter().any(|r| r.body["stream"] == true));
}

/// A model writing 200 KB rationales once made the host's tenth prompt
/// re-send every one of them (16 MB under the default cap): now each quote
/// is cut and the early rounds are one line, so the prompt stays small.
#[test]
fn the_hosts_prompt_stays_small_whatever_the_answers_hold() {
    let long = "很长的理由".repeat(40_000);
    let server = bent(move |_, mut v| {
        v["rationale"] = long.clone().into();
        v.to_string()
    });
    let mut m = minds(&server);
    let (a, b) = pair();
    let mut date = Date::new(a, b, 10);
    date.play(&mut m);
    assert!(date.rounds().len() >= 5, "{}", date.rounds().len());
    let biggest = server.requests().iter().map(|r| r.raw.len()).max().unwrap();
    assert!(biggest < 40_000, "a prompt of {biggest} bytes");
}

/// A host rate of i32::MIN once wrapped round (rate − score) into a rise:
/// now it is a fall, as far as one round may go.
#[test]
fn the_lowest_rate_a_model_can_write_is_a_fall() {
    let server = bent(|req, mut v| {
        if is_host(req) {
            v["cumulative_rate"] = i64::from(i32::MIN).into();
        }
        v.to_string()
    });
    let mut m = minds(&server);
    let (a, b) = pair();
    let mut date = Date::new(a, b, 10);
    let lines = date.play(&mut m);
    let first = lines.iter().find_map(|l| match l {
        Line::Score { before, after, .. } => Some((*before, *after)),
        _ => None,
    });
    assert_eq!(first, Some((25, 15)), "{lines:?}");
}
