//! The date's rules against minds that break them, and the offline minds.

use std::sync::Arc;

use super::*;
use crate::scenario::Scenario;

/// The default town, loaded here rather than through `headless` (which
/// sits above this layer).
fn town() -> Arc<Scenario> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale");
    Arc::new(Scenario::load(&dir).unwrap_or_else(|e| panic!("{e}")))
}

fn bank() -> Arc<SceneBank> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/heartvale/cupid/scenes.yaml");
    Arc::new(SceneBank::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn avatars(town: &Scenario, a: &str, b: &str) -> (Avatar, Avatar) {
    let find = |id: &str| town.residents.iter().find(|p| p.id.as_str() == id).unwrap();
    (Avatar::new(find(a), find(b)), Avatar::new(find(b), find(a)))
}

/// A host that tries everything the rules forbid.
struct Unruly {
    delta: i32,
    time: &'static str,
    option: &'static str,
    end_after: Option<u32>,
}

impl Minds for Unruly {
    fn pose(&mut self, view: &DateView<'_>) -> Posed {
        let options = vec!["好".to_string(), "不好".to_string()];
        Posed {
            host: HostTurn {
                action: HostAction {
                    kind: "predict".into(),
                    object: ResidentId::new("nobody"),
                    question: "场景".into(),
                    answers: "A. 随便写的".into(),
                },
                time: self.time.into(),
                cumulative_rate: "80".into(),
                rationale: format!("第{}轮", view.rounds.len() + 1),
            },
            stage: Stage::Meeting,
            options,
            traits: vec![vec![], vec![]],
            place: String::new(),
        }
    }

    fn choose(
        &mut self,
        _: &DateView<'_>,
        _: &Posed,
        _: Side,
        _: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        AvatarTurn {
            gender: "?".into(),
            decision: Decision {
                option: self.option.into(),
                content: String::new(),
            },
            rationale: "因为".into(),
        }
    }

    fn judge(&mut self, view: &DateView<'_>, _: &Posed, _: &[(Side, usize); 2]) -> Judgement {
        Judgement {
            delta: self.delta,
            reason: "理由".into(),
            end: self.end_after == Some(view.rounds.len() as u32 + 1),
        }
    }
}

fn unruly(delta: i32) -> Unruly {
    Unruly {
        delta,
        time: "Day 1, Morning",
        option: "E",
        end_after: None,
    }
}

#[test]
fn the_rules_hold_whatever_the_host_says() {
    let t = town();
    let (a, b) = avatars(&t, "heqing", "shen");
    let mut date = Date::new(a, b, 10);
    let mut minds = unruly(40);
    let first = date.play_round(&mut minds);
    let Message::Host(host) = &first[0] else {
        panic!("{first:?}")
    };
    assert_eq!(
        host.action.object.as_str(),
        "heqing",
        "an unknown side → a real one"
    );
    assert_eq!(
        host.cumulative_rate, "25",
        "the score is the date's, not the host's 80"
    );
    assert_eq!(host.action.answers, "A. 好 B. 不好");
    for (m, gender) in first[1..3].iter().zip(["女", "男"]) {
        let Message::Avatar { turn, .. } = m else {
            panic!("{m:?}")
        };
        assert_eq!(turn.decision.option, "A", "E is not offered");
        assert!(turn.rationale.contains("不在选项中"), "{}", turn.rationale);
        assert_eq!(turn.gender, gender, "the resident's, not the mind's");
    }
    let Message::Score { before, after, .. } = &first[3] else {
        panic!()
    };
    assert_eq!((*before, *after), (25, 35), "+40 is bounded to +10");
    // The time never goes back: the host keeps writing Day 1, Morning.
    let second = date.play_round(&mut minds);
    let Message::Host(host) = &second[0] else {
        panic!()
    };
    assert_eq!(host.time, "Day 1, Noon");
    date.play(&mut minds);
    assert_eq!(date.score(), 50, "never over 50");
    assert_eq!(
        date.ended(),
        Some(EndReason::Established),
        "45+ after round 5"
    );
    assert_eq!(date.rounds().len(), 5);
}

#[test]
fn every_end_condition() {
    let t = town();
    let (a, b) = avatars(&t, "heqing", "shen");
    let mut down = Date::new(a.clone(), b.clone(), 10);
    down.play(&mut unruly(-80));
    assert_eq!(
        (down.ended(), down.rounds().len()),
        (Some(EndReason::BrokeUp), 2)
    );
    assert_eq!(down.score(), 5, "−10 a round: 15, then 5");
    let mut flat = Date::new(a.clone(), b.clone(), 10);
    let msgs = flat.play(&mut unruly(0));
    assert_eq!(
        (flat.ended(), flat.rounds().len()),
        (Some(EndReason::Rounds), 10)
    );
    let Some(Message::End {
        band,
        score,
        rounds,
        ..
    }) = msgs.last()
    else {
        panic!()
    };
    assert_eq!((*band, *score, *rounds), (Band::Fair, 25, 10));
    let mut ended = Date::new(a.clone(), b.clone(), 10);
    let mut host = unruly(1);
    host.end_after = Some(3);
    ended.play(&mut host);
    assert_eq!(
        (ended.ended(), ended.rounds().len()),
        (Some(EndReason::Host), 3)
    );
    let mut short = Date::new(a, b, 40);
    short.play(&mut unruly(0));
    assert_eq!(short.rounds().len(), 10, "at most 10 rounds");
    assert!(
        short.play_round(&mut unruly(0)).is_empty(),
        "nothing after the end"
    );
}

#[test]
fn an_offline_date_is_the_same_for_the_same_seed() {
    let t = town();
    let run = |seed| {
        let (a, b) = avatars(&t, "heqing", "shen");
        let mut date = Date::new(a, b, 10);
        let msgs = date.play(&mut OfflineMinds::new(bank(), seed));
        serde_json::to_string(&msgs).unwrap()
    };
    assert_eq!(run(7), run(7));
    let others: Vec<String> = (1..6).map(run).collect();
    assert!(others.iter().any(|o| *o != run(7)), "seeds change the date");
}

#[test]
fn offline_dates_tell_a_story_in_order() {
    let t = town();
    let (a, b) = avatars(&t, "su", "shisong");
    let mut date = Date::new(a, b, 10);
    let msgs = date.play(&mut OfflineMinds::new(bank(), 3));
    let mut last = Timeline::default();
    let mut questions = Vec::new();
    for m in &msgs {
        if let Message::Host(h) = m {
            let t = Timeline::parse(&h.time).unwrap();
            assert!(t > last, "{} after {last}", h.time);
            last = t;
            assert!(!questions.contains(&h.action.question), "a scene once");
            questions.push(h.action.question.clone());
            assert!(h.rationale.contains('轮'), "{}", h.rationale);
        }
    }
    let stages: Vec<Stage> = date.rounds().iter().map(|r| r.posed.stage).collect();
    assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{stages:?}");
    assert_eq!(stages[0], Stage::Meeting);
    for r in date.rounds() {
        assert!((r.after - r.before).abs() <= MAX_STEP);
        assert!(r.choices.iter().all(|(_, t, _)| !t.rationale.is_empty()));
    }
}

#[test]
fn the_host_scores_as_the_design_examples() {
    use super::offline::score_pair;
    use Trait::*;
    // Both greet warmly at a first meeting: up (the design: +7).
    let (d, why) = score_pair(
        &[Initiative, Warmth],
        &[Initiative, Warmth],
        Stage::Meeting,
        true,
        25,
    );
    assert!((6..=10).contains(&d), "{d}: {why:?}");
    // The same round when they are already close moves less.
    let (late, why) = score_pair(
        &[Initiative, Warmth],
        &[Initiative, Warmth],
        Stage::Meeting,
        true,
        40,
    );
    assert!(0 < late && late < d, "{late}: {why:?}");
    // Both insist in a conflict: down (the design: −6).
    let (d, why) = score_pair(&[Firmness], &[Firmness], Stage::Conflict, true, 30);
    assert_eq!(d, -6, "{why:?}");
    assert!(why.iter().any(|w| w.contains("不愿妥协")));
    let (d, _) = score_pair(&[Avoidance], &[Avoidance], Stage::Dating, true, 30);
    assert!(d < 0);
}

/// Ten adult pairs of 心谷镇, strangers to old friends, three seeds each.
fn many_dates() -> Vec<(String, String, Date)> {
    let t = town();
    let pairs = [
        ("su", "shisong"),
        ("heqing", "su"),
        ("adou", "xiaoxi"),
        ("ma", "shen"),
        ("zhong", "heqing"),
        ("adou", "ma"),
        ("xiaoxi", "shisong"),
        ("su", "shen"),
        ("heqing", "shisong"),
        ("zhong", "su"),
    ];
    let mut out = Vec::new();
    for (x, y) in pairs {
        for seed in 1..=3 {
            let (a, b) = avatars(&t, x, y);
            let mut date = Date::new(a, b, MAX_ROUNDS);
            date.play(&mut OfflineMinds::new(bank(), seed));
            out.push((x.to_string(), y.to_string(), date));
        }
    }
    out
}

#[test]
fn the_shipped_bank_is_big_tagged_and_names_nobody() {
    let t = town();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/heartvale/cupid/scenes.yaml");
    let bank = SceneBank::load_for(&path, &t).unwrap_or_else(|e| panic!("{e}"));
    let all: Vec<&scenes::Scene> = Stage::ALL.iter().flat_map(|&s| bank.scenes(s)).collect();
    assert!(all.len() >= 60, "{} scenes", all.len());
    for s in Stage::ALL {
        assert!(bank.scenes(s).len() >= 12, "{s:?}");
    }
    // Friends have scenes of their own at the first meeting.
    let friendly = bank
        .scenes(Stage::Meeting)
        .iter()
        .filter(|s| s.ties.contains(&scenes::Tie::Friend))
        .count();
    assert!(friendly >= 3, "{friendly}");
}

#[test]
fn a_scene_naming_a_resident_is_an_error_at_its_line() {
    let t = town();
    let dir = std::env::temp_dir().join(format!("heartvale-scenes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scenes.yaml");
    let good = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/heartvale/cupid/scenes.yaml"),
    )
    .unwrap();
    let bad = good.replacen("满屋的熟客起哄", "钟大川起哄", 1);
    std::fs::write(&path, bad).unwrap();
    let err = SceneBank::load_for(&path, &t).unwrap_err().to_string();
    assert!(err.contains("names 钟大川"), "{err}");
    assert!(err.contains("scenes.yaml:"), "{err}");
    let nowhere = good.replacen("places: [星火酒馆]", "places: [月球]", 1);
    std::fs::write(&path, nowhere).unwrap();
    let err = SceneBank::load_for(&path, &t).unwrap_err().to_string();
    assert!(err.contains("月球"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dates_vary_follow_the_story_and_last() {
    let dates = many_dates();
    let n = dates.len();
    let mut opens = std::collections::HashMap::<String, usize>::new();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let bank = bank();
    let step_of = |q: &str| {
        Stage::ALL
            .iter()
            .flat_map(|&s| bank.scenes(s))
            .find(|s| q.starts_with(&s.scene))
            .map(|s| s.step.value)
    };
    let mut rounds = 0;
    for (_, _, d) in &dates {
        rounds += d.rounds().len();
        let qs: Vec<&str> = d
            .rounds()
            .iter()
            .map(|r| r.posed.host.action.question.as_str())
            .collect();
        *opens.entry(qs[0].to_string()).or_default() += 1;
        for q in &qs {
            *seen.entry(q.to_string()).or_default() += 1;
        }
        // Within a stage the story never goes back a step.
        for w in d.rounds().windows(2) {
            let [x, y] = w else { unreachable!() };
            if x.posed.stage == y.posed.stage {
                let (a, b) = (
                    step_of(&x.posed.host.action.question),
                    step_of(&y.posed.host.action.question),
                );
                assert!(
                    a <= b,
                    "{:?} then {:?}",
                    x.posed.host.action.question,
                    y.posed.host.action.question
                );
            }
        }
    }
    assert!(opens.values().all(|&k| 2 * k <= n), "{opens:?}");
    assert!(
        seen.values().all(|&k| 2 * k <= n),
        "a scene in over half the dates"
    );
    assert!(
        rounds as f32 / n as f32 >= 5.0,
        "{rounds} rounds in {n} dates"
    );
}

#[test]
fn rationales_are_in_character_and_not_one_sentence() {
    let mut sentences = std::collections::HashMap::<String, usize>::new();
    let mut total = 0;
    let friends = [("heqing", "su"), ("adou", "xiaoxi")];
    for (x, y, d) in many_dates() {
        for (k, r) in d.rounds().iter().enumerate() {
            if k == 0 && friends.contains(&(x.as_str(), y.as_str())) {
                assert!(
                    !r.posed.host.rationale.contains("第一次见"),
                    "{}",
                    r.posed.host.rationale
                );
            }
            for (id, turn, _) in &r.choices {
                let me = d.avatars().iter().find(|a| a.id == *id);
                if let Some(a) = me.filter(|a| a.personality.extraversion < 30.0) {
                    assert!(
                        !turn.rationale.contains("热闹"),
                        "{}: {}",
                        a.name,
                        turn.rationale
                    );
                }
                for s in turn.rationale.split('。').filter(|s| !s.is_empty()) {
                    *sentences.entry(s.to_string()).or_default() += 1;
                    total += 1;
                }
            }
        }
    }
    let (top, k) = sentences.iter().max_by_key(|(_, k)| **k).unwrap();
    assert!(*k * 10 <= total, "「{top}」 is {k} of {total}");
}

#[test]
fn later_rounds_recall_earlier_ones() {
    let recalled = many_dates().iter().any(|(_, _, d)| {
        d.rounds().iter().skip(1).any(|r| {
            r.choices
                .iter()
                .any(|(_, t, _)| t.rationale.contains("上次在") || t.rationale.contains("那一回"))
        })
    });
    assert!(recalled, "an avatar's reason recalls an earlier round");
    let host_recalls = many_dates().iter().any(|(_, _, d)| {
        d.rounds()
            .iter()
            .any(|r| r.posed.host.rationale.contains("要紧的是第"))
    });
    assert!(
        host_recalls,
        "the host recalls the rounds that moved the score"
    );
}
