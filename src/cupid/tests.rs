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
                    object: ResidentId(Arc::from("nobody")),
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
        }
    }

    fn choose(
        &mut self,
        _: &DateView<'_>,
        _: &Posed,
        _: usize,
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

    fn judge(&mut self, view: &DateView<'_>, _: &Posed, _: &[(usize, usize); 2]) -> Judgement {
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
