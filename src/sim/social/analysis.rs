//! The social rules as plain functions of plain data: trigger chances,
//! emotion and topic labels, relationship deltas, importance, who speaks next.
//! The systems around them only gather inputs and apply the results.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::emotion::Emotion;
pub use super::keywords::{detect_emotion, detect_topic};
use crate::scenario::{BigFive, RelationKind, SocialTuning};
use crate::scenario::{RelationshipTuning, StageValues};
use crate::sim::residents::roster::RosterIdx;

/// How close two residents are, from strength alone (family and colleagues too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Below the acquaintance threshold.
    Stranger,
    /// Acquaintances.
    Acquaintance,
    /// Friends.
    Friend,
    /// Close friends.
    CloseFriend,
}

impl Stage {
    /// The stage a tie of this strength is at.
    pub fn of(strength: f32, r: &RelationshipTuning) -> Stage {
        if strength >= r.close_friend {
            Stage::CloseFriend
        } else if strength >= r.friend {
            Stage::Friend
        } else if strength >= r.acquaintance {
            Stage::Acquaintance
        } else {
            Stage::Stranger
        }
    }

    /// This stage's value of a per-stage table.
    pub fn pick(self, v: &StageValues) -> f32 {
        match self {
            Stage::Stranger => v.stranger,
            Stage::Acquaintance => v.acquaintance,
            Stage::Friend => v.friend,
            Stage::CloseFriend => v.close_friend,
        }
    }

    /// The relation kind of this stage.
    pub fn kind(self) -> RelationKind {
        match self {
            Stage::Stranger => RelationKind::Stranger,
            Stage::Acquaintance => RelationKind::Acquaintance,
            Stage::Friend => RelationKind::Friend,
            Stage::CloseFriend => RelationKind::CloseFriend,
        }
    }
}

/// The tie's type after a change of strength: strangers, acquaintances and
/// friends move up and down by the thresholds; family and colleagues keep theirs.
pub fn reclassify(kind: RelationKind, strength: f32, r: &RelationshipTuning) -> RelationKind {
    match kind {
        RelationKind::Family | RelationKind::Colleague => kind,
        _ => Stage::of(strength, r).kind(),
    }
}

/// Social need: 100 minus the `social` need's satisfaction (100 = lonely).
pub fn social_need(social_satisfaction: f32) -> f32 {
    (100.0 - social_satisfaction).clamp(0.0, 100.0)
}

/// The chance that two residents standing near each other start talking:
/// base × stage modifier × (mean extraversion / 50) × (max social need / 50).
pub fn proximity_chance(
    t: &SocialTuning,
    stage: Stage,
    extraversion: (f32, f32),
    social_need: (f32, f32),
) -> f32 {
    let p = &t.proximity;
    let ext = (extraversion.0 + extraversion.1) / 2.0 / 50.0;
    let need = social_need.0.max(social_need.1) / 50.0;
    (p.base_probability * stage.pick(&p.modifiers) * ext * need).clamp(0.0, 1.0)
}

/// The chance that a bystander joins a running conversation.
pub fn join_chance(t: &SocialTuning, extraversion: f32, stages: &[Stage]) -> f32 {
    if stages.is_empty() {
        return 0.0;
    }
    let ties = stages
        .iter()
        .map(|s| s.pick(&t.proximity.modifiers))
        .sum::<f32>()
        / stages.len() as f32;
    (t.group.join_probability * extraversion / 50.0 * ties).clamp(0.0, 1.0)
}

/// Chinese name of a topic label, for memories and reasons.
pub fn topic_zh(label: &str) -> &str {
    match label {
        "work" => "工作",
        "life" => "生活",
        "relationship" => "感情和家人",
        "hobby" => "爱好",
        "gossip" => "八卦",
        "plan" => "打算",
        "deep_talk" => "心里话",
        "help_offered" => "帮忙的事",
        "complaint" => "烦心事",
        "casual" => "家常",
        other => other,
    }
}

/// What a finished conversation does to a tie, before personality compatibility.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// Strength points the tie gains (or loses).
    pub(crate) points: f32,
    /// The rules that applied, e.g. `对话+2`, for the event's reason.
    pub(crate) rules: Rules,
}

/// The rules that moved a tie, as the event's reason lists them
/// (`对话+2、长谈+1`): written into one text as they apply, as a big town
/// closes hundreds of talks a step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules(String);

impl Rules {
    /// Adds a rule after those before it.
    pub(crate) fn push(&mut self, rule: std::fmt::Arguments) {
        use std::fmt::Write;
        if !self.0.is_empty() {
            self.0.push('、');
        }
        // Writing to a String cannot fail.
        let _ = self.0.write_fmt(rule);
    }

    /// Adds `other`'s rules after these.
    pub(crate) fn append(&mut self, other: &Rules) {
        if !other.0.is_empty() {
            self.push(format_args!("{}", other.0));
        }
    }

    /// The rules joined, as the reason shows them.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// What one conversation does to the tie between `a` and `b`, by cause:
/// the lines the two said to each other (in a group, what others said to
/// each other is not theirs) — being together, a long talk, shared joy, a
/// sharp word between them, comfort one gave the other — and the topic when
/// they talked it together. Returned for `a`'s view of `b`.
pub fn tie_delta(
    r: &RelationshipTuning,
    messages: &[super::message::ChatMessage],
    (a, b): (RosterIdx, RosterIdx),
    (participants, topic): (usize, &str),
) -> Delta {
    let mut d = Delta {
        points: 0.0,
        rules: Rules::default(),
    };
    let mut add = |points: f32, what: &str| {
        d.points += points;
        d.rules.push(format_args!("{what}{points:+}"));
    };
    let between: Vec<&super::message::ChatMessage> = messages
        .iter()
        .filter(|m| participants <= 2 || said_between(m, a, b))
        .collect();
    // In a group, two who said nothing to each other only shared the table.
    if between.is_empty() {
        add(r.base / 4.0, "同桌");
        return d;
    }
    add(r.base, "对话");
    let count = |e: Emotion| between.iter().filter(|m| m.emotion == e).count();
    // A sharp word between them outweighs the pleasant rest.
    let quarrel = count(Emotion::Angry) >= 1;
    if between.len() >= r.long_messages as usize && !quarrel {
        add(r.long_bonus, "长谈");
    }
    if count(Emotion::Happy) >= 2 && !quarrel {
        add(r.resonance, "情绪共鸣");
    }
    if quarrel {
        add(r.argument, "争吵");
    }
    let comforted = between
        .iter()
        .any(|m| m.speaker == b && m.to == Some(a) && m.cue == Some(super::cue::Cue::Comfort));
    if comforted && !quarrel {
        add(r.comforted, "被安慰");
    }
    if between.len() >= 2 {
        match topic {
            "deep_talk" => add(r.deep_talk, "深谈"),
            "gossip" => add(r.gossip, "八卦"),
            "help_offered" => add(r.help_offered, "帮忙"),
            "complaint" => add(r.complaint, "抱怨"),
            _ => {}
        }
    }
    d
}

/// Whether a group's line passed between `a` and `b` (a line to nobody in
/// particular counts for both).
fn said_between(m: &super::message::ChatMessage, a: RosterIdx, b: RosterIdx) -> bool {
    match m.to {
        Some(to) => (m.speaker == a && to == b) || (m.speaker == b && to == a),
        None => m.speaker == a || m.speaker == b,
    }
}

/// A gain shrinks as the tie nears the top (with the square of the room
/// left above `diminish_from`, to a twentieth); a loss counts in full.
pub fn diminished(r: &RelationshipTuning, strength: f32, points: f32) -> f32 {
    if points <= 0.0 {
        return points;
    }
    let room = ((100.0 - strength) / (100.0 - r.diminish_from).max(1.0)).min(1.0);
    points * (room * room).clamp(0.05, 1.0)
}

/// Personality compatibility of two residents: similar extraversion ×1.2,
/// opposite agreeableness ×0.8 (both may apply).
pub fn compatibility(r: &RelationshipTuning, a: &BigFive, b: &BigFive) -> (f32, Rules) {
    let mut m = 1.0;
    let mut why = Rules::default();
    if (a.extraversion - b.extraversion).abs() <= r.similar_within {
        m *= r.similar_extraversion;
        why.push(format_args!("性格相近×{}", r.similar_extraversion));
    }
    if (a.agreeableness - b.agreeableness).abs() >= r.opposite_gap {
        m *= r.opposite_agreeableness;
        why.push(format_args!("脾气相左×{}", r.opposite_agreeableness));
    }
    (m, why)
}

/// New strength after `delta` points, clamped to 0–100.
pub fn apply_delta(strength: f32, delta: f32) -> f32 {
    (strength + delta).clamp(0.0, 100.0)
}

/// One meeting's mark on a tie (a conversation, a date): the strength moves
/// by `points`, the stage follows, the meeting is counted and dated.
/// Returns the strength and kind before.
pub(crate) fn meet(
    tie: &mut crate::sim::residents::Relationship,
    points: f32,
    now: crate::base::time::GameTime,
    r: &RelationshipTuning,
) -> (f32, RelationKind) {
    let before = (tie.strength, tie.kind);
    tie.strength = apply_delta(tie.strength, points);
    tie.kind = reclassify(tie.kind, tie.strength, r);
    tie.interactions += 1;
    tie.last_interaction.set(now);
    if tie.met.get().is_none() {
        tie.met.set(now);
    }
    let day = now.social_day() as i32;
    tie.talk_days.note(day);
    before
}

/// How much a conversation matters to one participant, 0–100.
pub fn importance(
    t: &SocialTuning,
    messages: usize,
    emotions: &[Emotion],
    moved: f32,
    topic: &str,
) -> u32 {
    let i = &t.importance;
    let mut score = i.base;
    if messages >= 8 {
        score += i.very_long;
    } else if messages >= 5 {
        score += i.long;
    }
    if emotions
        .iter()
        .any(|e| matches!(e, Emotion::Happy | Emotion::Angry | Emotion::Sad))
    {
        score += i.emotional;
    }
    if moved.abs() >= 5.0 {
        score += i.moved;
    }
    if matches!(topic, "plan" | "relationship" | "deep_talk") {
        score += i.weighty_topic;
    }
    score.min(100)
}

/// Who speaks next: the first participant @-mentioned in the last message
/// (not its speaker), else an extraversion-weighted pick among those who did
/// not speak last. `people` are (roster idx, extraversion).
pub fn next_speaker(
    people: &[(RosterIdx, f32)],
    last_speaker: Option<RosterIdx>,
    mentioned: &[RosterIdx],
    rng: &mut ChaCha8Rng,
) -> RosterIdx {
    if let Some(&m) = mentioned
        .iter()
        .find(|m| Some(**m) != last_speaker && people.iter().any(|p| p.0 == **m))
    {
        return m;
    }
    let candidates: Vec<(RosterIdx, f32)> = people
        .iter()
        .copied()
        .filter(|p| Some(p.0) != last_speaker)
        .collect();
    if candidates.len() <= 1 {
        return candidates.first().map_or(people[0].0, |c| c.0);
    }
    // Everyone gets a little weight, so the shyest still speaks sometimes.
    let total: f32 = candidates.iter().map(|c| c.1.max(1.0)).sum();
    let mut x = rng.random::<f32>() * total;
    for c in &candidates {
        x -= c.1.max(1.0);
        if x < 0.0 {
            return c.0;
        }
    }
    candidates[candidates.len() - 1].0
}

/// Participants @-mentioned in `text` (`@名字`), in order of appearance.
pub fn mentions(text: &str, people: &[(RosterIdx, &str)]) -> Vec<RosterIdx> {
    let mut found: Vec<(usize, RosterIdx)> = Vec::new();
    for (at, _) in text.match_indices('@').chain(text.match_indices('＠')) {
        let rest = &text[at..];
        let rest = rest.trim_start_matches(['@', '＠']);
        // The longest name that follows, so 小林 does not match 小林子.
        if let Some(&(idx, _)) = people
            .iter()
            .filter(|(_, name)| !name.is_empty() && rest.starts_with(name))
            .max_by_key(|(_, name)| name.len())
            && !found.iter().any(|f| f.1 == idx)
        {
            found.push((at, idx));
        }
    }
    found.sort_unstable();
    found.into_iter().map(|f| f.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn t() -> SocialTuning {
        SocialTuning::default()
    }

    #[test]
    fn proximity_chances_match_the_design() {
        let t = t();
        // Base conditions: extraversion 50 each, social need 50.
        for (stage, want) in [
            (Stage::Stranger, 0.03),
            (Stage::Acquaintance, 0.15),
            (Stage::Friend, 0.30),
            (Stage::CloseFriend, 0.45),
        ] {
            let p = proximity_chance(&t, stage, (50.0, 50.0), (50.0, 50.0));
            assert!((p - want).abs() < 1e-6, "{stage:?}: {p} ≠ {want}");
        }
        // Mean extraversion 75 → ×1.5; max need 100 → ×2.
        let p = proximity_chance(&t, Stage::Friend, (60.0, 90.0), (100.0, 10.0));
        assert!((p - 0.9).abs() < 1e-6, "{p}");
        // Introverts who are content barely talk.
        let p = proximity_chance(&t, Stage::Acquaintance, (20.0, 20.0), (10.0, 20.0));
        assert!((p - 0.15 * 0.4 * 0.4).abs() < 1e-6, "{p}");
        // Capped at certainty.
        assert_eq!(
            proximity_chance(&t, Stage::CloseFriend, (100.0, 100.0), (100.0, 100.0)),
            1.0
        );
    }

    #[test]
    fn stages_follow_thresholds_both_ways() {
        let r = RelationshipTuning::default();
        assert_eq!(
            reclassify(RelationKind::Stranger, 20.0, &r),
            RelationKind::Acquaintance
        );
        assert_eq!(
            reclassify(RelationKind::Acquaintance, 55.0, &r),
            RelationKind::Friend
        );
        assert_eq!(
            reclassify(RelationKind::Friend, 80.0, &r),
            RelationKind::CloseFriend
        );
        // Demotion.
        assert_eq!(
            reclassify(RelationKind::CloseFriend, 79.0, &r),
            RelationKind::Friend
        );
        assert_eq!(
            reclassify(RelationKind::Friend, 49.9, &r),
            RelationKind::Acquaintance
        );
        assert_eq!(
            reclassify(RelationKind::Acquaintance, 10.0, &r),
            RelationKind::Stranger
        );
        // Family stays family.
        assert_eq!(
            reclassify(RelationKind::Family, 10.0, &r),
            RelationKind::Family
        );
        assert_eq!(Stage::of(90.0, &r), Stage::CloseFriend);
    }

    /// Lines of a conversation: (speaker, to, emotion, cue).
    fn talk(
        lines: &[(u32, u32, Emotion, Option<super::super::Cue>)],
    ) -> Vec<super::super::ChatMessage> {
        lines
            .iter()
            .map(|&(s, t, emotion, cue)| super::super::ChatMessage {
                speaker: RosterIdx(s),
                text: String::new(),
                emotion,
                mentions: Vec::new(),
                time: crate::base::time::GameTime(0),
                cue,
                to: Some(RosterIdx(t)),
            })
            .collect()
    }

    #[test]
    fn relationship_deltas_rule_by_rule() {
        let r = RelationshipTuning::default();
        use Emotion::*;
        let (a, b) = (RosterIdx(0), RosterIdx(1));
        let pair = |e: &[Emotion], topic| {
            let lines: Vec<_> = e
                .iter()
                .enumerate()
                .map(|(i, &e)| (i as u32 % 2, 1 - i as u32 % 2, e, None))
                .collect();
            tie_delta(&r, &talk(&lines), (a, b), (2, topic)).points
        };
        assert_eq!(pair(&[Neutral, Neutral], "casual"), 2.0);
        assert_eq!(pair(&[Neutral; 5], "casual"), 7.0);
        assert_eq!(pair(&[Happy, Happy], "casual"), 5.0);
        assert_eq!(pair(&[Angry, Neutral], "casual"), -8.0);
        assert_eq!(pair(&[Neutral; 2], "deep_talk"), 7.0);
        assert_eq!(pair(&[Neutral; 2], "gossip"), 4.0);
        assert_eq!(pair(&[Neutral; 2], "help_offered"), 10.0);
        assert_eq!(pair(&[Neutral; 2], "complaint"), 0.0);
        assert_eq!(pair(&[Neutral; 2], "work"), 2.0);
        // An argument outweighs length and good moods: 2 − 10 + 5.
        let all = pair(&[Happy, Happy, Angry, Neutral, Sad, Curious], "deep_talk");
        assert_eq!(all, -3.0);
    }

    #[test]
    fn in_a_group_a_quarrel_is_between_the_two_who_had_it() {
        let r = RelationshipTuning::default();
        use Emotion::*;
        let sharp = Some(super::super::Cue::Argue);
        // 0 grumbles to 1, 1 snaps at 0; 2 only listened.
        let lines = talk(&[
            (0, 1, Sad, None),
            (1, 0, Angry, sharp),
            (2, 0, Neutral, None),
        ]);
        let d = |a: u32, b: u32| {
            tie_delta(&r, &lines, (RosterIdx(a), RosterIdx(b)), (3, "casual")).points
        };
        assert_eq!(d(0, 1), -8.0);
        assert_eq!(d(1, 0), -8.0);
        // Sharing the table warms a little: nothing was said between them.
        assert_eq!(d(2, 1), 0.5, "a bystander does not quarrel");
        // Comfort warms the one comforted.
        let lines = talk(&[
            (0, 1, Sad, None),
            (1, 0, Neutral, Some(super::super::Cue::Comfort)),
        ]);
        assert_eq!(
            tie_delta(&r, &lines, (RosterIdx(0), RosterIdx(1)), (2, "casual")).points,
            5.0
        );
        assert_eq!(
            tie_delta(&r, &lines, (RosterIdx(1), RosterIdx(0)), (2, "casual")).points,
            2.0
        );
    }

    #[test]
    fn gains_diminish_near_the_top() {
        let r = RelationshipTuning::default();
        assert_eq!(diminished(&r, 30.0, 10.0), 10.0);
        assert_eq!(diminished(&r, 80.0, 10.0), 2.5);
        assert!((diminished(&r, 99.0, 10.0) - 0.5).abs() < 1e-4);
        assert_eq!(diminished(&r, 90.0, -10.0), -10.0, "a loss counts in full");
    }

    #[test]
    fn compatibility_multiplies() {
        let r = RelationshipTuning::default();
        let p = |e, a| BigFive {
            openness: 50.0,
            conscientiousness: 50.0,
            extraversion: e,
            agreeableness: a,
            neuroticism: 50.0,
        };
        assert_eq!(compatibility(&r, &p(60.0, 50.0), &p(70.0, 60.0)).0, 1.2);
        assert_eq!(compatibility(&r, &p(20.0, 90.0), &p(90.0, 30.0)).0, 0.8);
        assert!((compatibility(&r, &p(50.0, 90.0), &p(55.0, 40.0)).0 - 0.96).abs() < 1e-6);
        assert_eq!(compatibility(&r, &p(10.0, 50.0), &p(90.0, 50.0)).0, 1.0);
        // Clamped at both ends.
        assert_eq!(apply_delta(98.0, 2.0 * 1.2 + 5.0), 100.0);
        assert_eq!(apply_delta(4.0, -10.0), 0.0);
    }

    #[test]
    fn importance_scores() {
        let t = t();
        use Emotion::*;
        assert_eq!(importance(&t, 2, &[Neutral, Curious], 2.0, "casual"), 30);
        assert_eq!(importance(&t, 5, &[Neutral; 5], 2.0, "work"), 40);
        assert_eq!(importance(&t, 8, &[Neutral; 8], 2.0, "work"), 50);
        assert_eq!(importance(&t, 2, &[Sad, Neutral], 0.0, "casual"), 45);
        assert_eq!(importance(&t, 2, &[Neutral; 2], -8.0, "casual"), 50);
        assert_eq!(importance(&t, 2, &[Neutral; 2], 2.0, "plan"), 45);
        assert_eq!(importance(&t, 10, &[Happy; 10], 9.0, "deep_talk"), 100);
    }

    #[test]
    fn next_speaker_prefers_mentions_then_weights_extraversion() {
        let r = RosterIdx;
        let people = [(r(0), 90.0), (r(1), 10.0), (r(2), 50.0)];
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        assert_eq!(next_speaker(&people, Some(r(0)), &[r(1)], &mut rng), r(1));
        // A mention of the speaker themselves or an outsider is ignored.
        for _ in 0..50 {
            assert_ne!(
                next_speaker(&people, Some(r(0)), &[r(0), r(9)], &mut rng),
                r(0)
            );
        }
        // Weighted: after 0 spoke, 2 (50) should win 5/6 of the time against 1 (10).
        let n = 60_000;
        let twos = (0..n)
            .filter(|_| next_speaker(&people, Some(r(0)), &[], &mut rng) == r(2))
            .count();
        let share = twos as f64 / n as f64;
        assert!((share - 50.0 / 60.0).abs() < 0.01, "{share}");
        // Three candidates when nobody has spoken yet: 90/150, 10/150, 50/150.
        let mut counts = [0usize; 3];
        for _ in 0..n {
            counts[next_speaker(&people, None, &[], &mut rng).i()] += 1;
        }
        for (i, want) in [0.6, 1.0 / 15.0, 1.0 / 3.0].iter().enumerate() {
            let got = counts[i] as f64 / n as f64;
            assert!((got - want).abs() < 0.01, "speaker {i}: {got} vs {want}");
        }
        // Two people simply alternate.
        assert_eq!(next_speaker(&people[..2], Some(r(0)), &[], &mut rng), r(1));
    }

    #[test]
    fn mentions_are_found_in_order() {
        let r = RosterIdx;
        let people = [(r(0), "阿朵"), (r(1), "小林"), (r(2), "小林子")];
        assert_eq!(mentions("@小林子 你呢？@阿朵", &people), [r(2), r(0)]);
        assert_eq!(mentions("＠小林 来！", &people), [r(1)]);
        assert_eq!(mentions("没有提到谁", &people), Vec::<RosterIdx>::new());
        assert_eq!(mentions("@阿朵 @阿朵", &people), [r(0)]);
    }
}
