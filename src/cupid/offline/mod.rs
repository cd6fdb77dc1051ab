//! The host and the avatars with no model: the host picks scenes from the
//! bank by stage and by how the last round went, and scores two choices by
//! how they meet (complement, conflict handling); an avatar picks the option
//! whose traits fit its Big Five, its interests and its tie to the other,
//! with seeded noise. Same seed, same date.

use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod host;
mod score;
mod voice;

use super::scenes::{After, Scene, SceneBank, Stage, Tie, Trait};
use super::{
    Avatar, AvatarTurn, DateView, Decision, HostAction, HostTurn, Judgement, Minds, Posed,
};
use crate::cupid::Side;
use crate::scenario::RelationKind;
pub(crate) use score::score_pair;

/// How much chance moves an avatar's choice (utilities are about −1…1).
const NOISE: f32 = 0.35;
/// How far one's own leanings of the day move a trait's pull (±): two
/// people alike on paper still want different things, and keep wanting
/// them through the date.
const STYLE: f32 = 0.5;
/// How much an agreeable side leans towards the other's choice.
const LEAN: f32 = 0.1;

/// The offline host and both avatars.
pub struct OfflineMinds {
    bank: Arc<SceneBank>,
    rng: ChaCha8Rng,
    seed: u64,
}

impl OfflineMinds {
    /// Minds drawing scenes from `bank`, seeded.
    pub fn new(bank: Arc<SceneBank>, seed: u64) -> Self {
        Self {
            bank,
            rng: ChaCha8Rng::seed_from_u64(seed),
            seed,
        }
    }

    /// `me`'s leanings for this date, one per trait: from the seed and its
    /// id alone, so the same after a save and whatever was asked before.
    fn style(&self, me: &Avatar) -> [f32; Trait::ALL.len()] {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ id_hash(&me.id));
        std::array::from_fn(|_| (rng.random::<f32>() * 2.0 - 1.0) * STYLE)
    }
}

/// The stage of round `round` (1-based) of `max`: a fifth meeting, then
/// dates, conflict, commitment (2, 3, 3, 2 of ten).
pub fn stage_of(round: u32, max: u32) -> Stage {
    let at = (round - 1) as f32 / max.max(1) as f32;
    match at {
        a if a < 0.2 => Stage::Meeting,
        a if a < 0.5 => Stage::Dating,
        a if a < 0.8 => Stage::Conflict,
        _ => Stage::Commitment,
    }
}

impl Minds for OfflineMinds {
    fn pose(&mut self, view: &DateView<'_>) -> Posed {
        // Each pair its own story for a seed: the same seed does not
        // open every pair's date with the same scene.
        if view.rounds.is_empty() {
            let pair = id_hash(&view.avatars[0].id) ^ id_hash(&view.avatars[1].id).rotate_left(17);
            self.rng = ChaCha8Rng::seed_from_u64(self.seed ^ pair);
        }
        let round = view.rounds.len() as u32 + 1;
        let stage = stage_of(round, view.max_rounds);
        let last = view.rounds.last().map(|r| r.after - r.before);
        let scene = self.pick(view, stage, last).clone();
        let object = first_side(view);
        let when = view.timeline.at_next(scene.time);
        let rationale = host::rationale(view, stage, &scene, &mut self.rng);
        let options: Vec<String> = scene.options.value.iter().map(|o| o.text.clone()).collect();
        Posed {
            host: HostTurn {
                action: HostAction {
                    kind: "predict".into(),
                    object: view.avatars[object].id.clone(),
                    question: format!("{}{}", scene.scene, scene.question),
                    answers: Posed::answers(&options),
                },
                time: when.to_string(),
                cumulative_rate: view.score.to_string(),
                rationale,
            },
            stage,
            traits: scene
                .options
                .value
                .iter()
                .map(|o| o.traits.clone())
                .collect(),
            options,
            place: scene.place().to_string(),
        }
    }

    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: Side,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        let me = &view.avatars[who];
        let style = self.style(me);
        let scored: Vec<(f32, usize)> = (0..posed.options.len())
            .map(|i| {
                let noise = (self.rng.random::<f32>() * 2.0 - 1.0) * NOISE;
                let traits = &posed.traits[i];
                let leaning = traits.iter().map(|t| style[t.index()]).sum::<f32>()
                    / traits.len().max(1) as f32;
                (
                    fit(me, traits, &posed.options[i], first, i) + leaning + noise,
                    i,
                )
            })
            .collect();
        let (_, pick) = scored
            .into_iter()
            .fold((f32::MIN, 0), |best, c| if c.0 > best.0 { c } else { best });
        AvatarTurn {
            gender: me.gender.clone(),
            decision: Decision {
                option: Posed::letter(pick),
                content: posed.options[pick].clone(),
            },
            rationale: voice::rationale(
                &voice::Choice {
                    view,
                    who,
                    traits: &posed.traits[pick],
                    text: &posed.options[pick],
                    first: first.map(|f| (f, f.decision.option == Posed::letter(pick))),
                },
                &mut self.rng,
            ),
        }
    }

    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(Side, usize); 2],
    ) -> Judgement {
        let a = &posed.traits[choices[0].1];
        let b = &posed.traits[choices[1].1];
        let same = choices[0].1 == choices[1].1;
        let (delta, reasons) = score_pair(a, b, posed.stage, same, view.score);
        let round = view.rounds.len() as u32 + 1;
        let after = view.score + delta;
        let end = host_ends(view, round, after, delta);
        let mut reason = reasons.join("；");
        if end {
            reason.push_str(if after >= 31 {
                "。故事已经有了答案，主持人在这里收尾：他们约好下次再见"
            } else {
                "。一再错过，主持人决定让这次约会到此为止"
            });
        }
        Judgement { delta, reason, end }
    }
}

impl OfflineMinds {
    /// The next scene of `stage`: one that suits the pair (never naming
    /// either of them or their jobs, made for their tie), not yet played, in
    /// story order (a stage's steps never go back, and each round aims at the
    /// step its place in the stage calls for), preferring one that suits how
    /// the last round went; seeded among equals.
    fn pick(&mut self, view: &DateView<'_>, stage: Stage, last: Option<i32>) -> &Scene {
        let story = story_pool(&self.bank, view, stage);
        let mood = last.map(|d| if d >= 0 { After::Good } else { After::Bad });
        // A scene for the other turn of the story (「上次见面有点尴尬」
        // after a good round) only when nothing else is left; one written
        // for this turn counts twice, so it comes often but not always.
        let fits = |s: &&Scene| s.after.is_none() || s.after == mood;
        let from: Vec<&Scene> = match story.pool.iter().copied().filter(fits).collect::<Vec<_>>() {
            fitting if !fitting.is_empty() => fitting,
            _ => story.pool,
        };
        let weight = |s: &Scene| {
            let turn = if s.after.is_some() { 2 } else { 1 };
            let on_step = if s.step.value.abs_diff(story.target) == story.nearest {
                3
            } else {
                1
            };
            turn * on_step
        };
        draw(&mut self.rng, &from, weight)
    }
}

/// The scenes a round may draw from, and the step they are weighed by.
struct StoryPool<'b> {
    pool: Vec<&'b Scene>,
    /// The step this round of the stage aims at.
    target: u8,
    /// How far from it the closest scene left is.
    nearest: u8,
}

/// The scenes of `stage` that suit the pair (never naming either of them or
/// their jobs, made for their tie), not yet played, in story order: a
/// stage's steps never go back, and a round aims at the step its place in
/// the stage calls for, or one beside it.
fn story_pool<'b>(bank: &'b SceneBank, view: &DateView<'_>, stage: Stage) -> StoryPool<'b> {
    let tie = Tie::of_pair(view.avatars.each_ref().map(|a| a.tie.map(|t| t.0)));
    let played = |s: &Scene| {
        view.rounds
            .iter()
            .any(|r| r.posed.host.action.question.starts_with(&s.scene))
    };
    let theirs = |s: &Scene| {
        !view
            .avatars
            .iter()
            .any(|a| s.names(&a.name) || s.roles.iter().any(|r| a.occupation.contains(r.as_str())))
    };
    let in_stage = bank.scenes(stage);
    let reached = in_stage
        .iter()
        .filter(|s| played(s))
        .map(|s| s.step.value)
        .max()
        .unwrap_or(1);
    let nth = view
        .rounds
        .iter()
        .filter(|r| r.posed.stage == stage)
        .count();
    let target = target_step(nth, rounds_in(stage, view.max_rounds)).max(reached);
    // Relax the wishes in order until a scene is left: the tie, then
    // freshness; never the story order or the pair's own names.
    let levels: [&dyn Fn(&Scene) -> bool; 3] = [
        &|s| s.ties.contains(&tie) && !played(s),
        &|s| !played(s),
        &|_| true,
    ];
    let pool: Vec<&Scene> = levels
        .iter()
        .map(|ok| {
            in_stage
                .iter()
                .filter(|s| ok(s) && theirs(s) && s.step.value >= reached)
                .collect::<Vec<_>>()
        })
        .find(|p| !p.is_empty())
        .unwrap_or_else(|| in_stage.iter().collect());
    // The step the story is at, or one beside it now and then (a scene a
    // step ahead, never one behind what was played).
    let nearest = pool
        .iter()
        .map(|s| s.step.value.abs_diff(target))
        .min()
        .unwrap_or(0);
    let pool = pool
        .into_iter()
        .filter(|s| s.step.value.abs_diff(target) <= nearest + 1)
        .collect();
    StoryPool {
        pool,
        target,
        nearest,
    }
}

/// One of `from`, drawn with the given whole-number weights (seeded).
fn draw<'b>(rng: &mut ChaCha8Rng, from: &[&'b Scene], weight: impl Fn(&Scene) -> u32) -> &'b Scene {
    let total: u32 = from.iter().map(|s| weight(s)).sum();
    let mut left = rng.random_range(0..total);
    let i = from
        .iter()
        .position(|s| {
            let w = weight(s);
            if left < w {
                true
            } else {
                left -= w;
                false
            }
        })
        .unwrap_or(0);
    from[i]
}

/// A stable hash of a resident's id (FNV-1a): the same on every run.
fn id_hash(id: &crate::scenario::ResidentId) -> u64 {
    crate::base::hash::fnv1a(id.as_str())
}

/// How many of a date's rounds fall in `stage`.
fn rounds_in(stage: Stage, max: u32) -> usize {
    (1..=max.max(1))
        .filter(|&r| stage_of(r, max) == stage)
        .count()
}

/// The step the `nth` (0-based) of a stage's `n` rounds aims at: the
/// first round of a stage at step 1, then on through 2 and 3.
fn target_step(nth: usize, n: usize) -> u8 {
    (1 + nth * 3 / n.max(1)).min(3) as u8
}

/// Who is asked first: the date's first side (the one who asked for the
/// date) opens, then they take turns — so swapping the sides tells whether
/// going first changes the outcome.
fn first_side(view: &DateView<'_>) -> Side {
    view.rounds.last().map_or(Side::First, |r| {
        match r.choices[0].0 == view.avatars[0].id {
            true => Side::Second,
            false => Side::First,
        }
    })
}

/// How well an option suits `me`: its traits against the Big Five (each −1…1
/// around the middle), its words against my interests, my tie to the other,
/// and — answering second — whether it meets the other's choice.
fn fit(me: &Avatar, traits: &[Trait], text: &str, first: Option<&AvatarTurn>, index: usize) -> f32 {
    let agreeable = (me.personality.agreeableness - 50.0) / 50.0;
    let mut total: f32 =
        traits.iter().map(|&t| utility(me, t)).sum::<f32>() / traits.len().max(1) as f32;
    if me
        .interests
        .iter()
        .chain(&me.traits)
        .any(|w| !w.is_empty() && text.contains(w.as_str()))
    {
        total += 0.3;
    }
    if let Some(f) = first
        && f.decision.option == Posed::letter(index)
    {
        // Agreeable people lean towards the other's choice.
        total += LEAN * agreeable.max(0.0);
    }
    total
}

/// How much `t` is like me: Big Five (each −1…1 around the middle) and my
/// tie to the other.
fn utility(me: &Avatar, t: Trait) -> f32 {
    let p = &me.personality;
    let [o, c, e, a, n] = [
        p.openness,
        p.conscientiousness,
        p.extraversion,
        p.agreeableness,
        p.neuroticism,
    ]
    .map(|v| (v - 50.0) / 50.0);
    let warm_tie = match me.tie {
        Some((RelationKind::Friend | RelationKind::CloseFriend, s)) => s / 100.0,
        Some((RelationKind::Acquaintance, s)) => s / 200.0,
        _ => 0.0,
    };
    match t {
        Trait::Initiative => e,
        Trait::Warmth => (e + a) / 2.0 + warm_tie,
        Trait::Care => a + warm_tie / 2.0,
        Trait::Candour => (a + c) / 2.0 - n / 4.0,
        Trait::Humour => 0.6 * e + 0.4 * o,
        Trait::Adventure => o - 0.3 * c,
        Trait::Caution => c - 0.3 * o,
        Trait::Compromise => 0.8 * a - 0.2 * c,
        Trait::Firmness => 0.6 * c - 0.6 * a,
        Trait::Avoidance => n - e - warm_tie,
        Trait::Independence => 0.5 * o - 0.5 * a,
        Trait::Romance => (o + a) / 2.0 + warm_tie,
    }
}

/// Whether the host ends the date after this round: after the conflict has
/// been played (round ≥ 6 of 10) and the story has an answer — a clear
/// score that this round confirmed.
fn host_ends(view: &DateView<'_>, round: u32, after: i32, delta: i32) -> bool {
    let past_conflict = stage_of(round, view.max_rounds) == Stage::Commitment;
    let clear = (after >= 38 && delta > 0) || (after <= 18 && delta < 0);
    past_conflict && clear && round < view.max_rounds
}
