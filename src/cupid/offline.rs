//! The host and the avatars with no model: the host picks scenes from the
//! bank by stage and by how the last round went, and scores two choices by
//! how they meet (complement, conflict handling); an avatar picks the option
//! whose traits fit its Big Five, its interests and its tie to the other,
//! with seeded noise. Same seed, same date.

use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::scenes::{After, Scene, SceneBank, Stage, Trait};
use super::{
    Avatar, AvatarTurn, DateView, Decision, HostAction, HostTurn, Judgement, Minds, Posed,
};
use crate::scenario::RelationKind;

/// How much chance moves an avatar's choice (utilities are about −1…1).
const NOISE: f32 = 0.35;

/// The offline host and both avatars.
pub struct OfflineMinds {
    bank: Arc<SceneBank>,
    rng: ChaCha8Rng,
}

impl OfflineMinds {
    /// Minds drawing scenes from `bank`, seeded.
    pub fn new(bank: Arc<SceneBank>, seed: u64) -> Self {
        Self {
            bank,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
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
        let round = view.rounds.len() as u32 + 1;
        let stage = stage_of(round, view.max_rounds);
        let last = view.rounds.last().map(|r| r.after - r.before);
        let scene = self.pick(view, stage, last).clone();
        let object = first_side(view);
        let when = view.timeline.at_next(scene.time);
        let rationale = host_rationale(view, stage, &scene);
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
        }
    }

    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: usize,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn {
        let me = &view.avatars[who];
        let scored: Vec<(f32, usize)> = (0..posed.options.len())
            .map(|i| {
                let noise = (self.rng.random::<f32>() * 2.0 - 1.0) * NOISE;
                (
                    fit(me, &posed.traits[i], &posed.options[i], first, i) + noise,
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
            rationale: avatar_rationale(
                me,
                &posed.traits[pick],
                &posed.options[pick],
                first,
                &Posed::letter(pick),
            ),
        }
    }

    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(usize, usize); 2],
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
    /// A scene of the stage not yet played, preferring one that suits how the
    /// last round went; seeded among equals.
    fn pick(&mut self, view: &DateView<'_>, stage: Stage, last: Option<i32>) -> &Scene {
        let played = |s: &Scene| {
            view.rounds
                .iter()
                .any(|r| r.posed.host.action.question.starts_with(&s.scene))
        };
        let mood = last.map(|d| if d >= 0 { After::Good } else { After::Bad });
        // A scene that names one of the two (钟大川起哄 with 钟大川 on the
        // date) is not theirs.
        let names_them = |s: &Scene| {
            view.avatars.iter().any(|a| {
                s.scene.contains(&a.name)
                    || s.question.contains(&a.name)
                    || s.options.value.iter().any(|o| o.text.contains(&a.name))
            })
        };
        let scenes: Vec<&Scene> = self
            .bank
            .scenes(stage)
            .iter()
            .filter(|s| !names_them(s))
            .collect();
        let scenes = if scenes.is_empty() {
            self.bank.scenes(stage).iter().collect()
        } else {
            scenes
        };
        let fresh: Vec<&Scene> = scenes.iter().copied().filter(|s| !played(s)).collect();
        let pool: Vec<&Scene> = if fresh.is_empty() { scenes } else { fresh };
        let suited: Vec<&Scene> = pool
            .iter()
            .copied()
            .filter(|s| s.after.is_some() && s.after == mood)
            .collect();
        let plain: Vec<&Scene> = pool.iter().copied().filter(|s| s.after.is_none()).collect();
        let from = [suited, plain, pool]
            .into_iter()
            .find(|p| !p.is_empty())
            .unwrap_or_default();
        let i = self.rng.random_range(0..from.len());
        from[i]
    }
}

/// Who is asked first: the date's first side (the one who asked for the
/// date) opens, then they take turns — so swapping the sides tells whether
/// going first changes the outcome.
fn first_side(view: &DateView<'_>) -> usize {
    view.rounds
        .last()
        .map_or(0, |r| usize::from(r.choices[0].0 == view.avatars[0].id))
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
        total += 0.2 * agreeable.max(0.0);
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

/// Why I chose it, in my words: the option's trait most like me, what I
/// love that it touches, and — answering second — the other's choice.
fn avatar_rationale(
    me: &Avatar,
    traits: &[Trait],
    text: &str,
    first: Option<&AvatarTurn>,
    letter: &str,
) -> String {
    let mine = traits
        .iter()
        .copied()
        .max_by(|x, y| utility(me, *x).total_cmp(&utility(me, *y)));
    let why = mine.map_or("我也说不清，跟着感觉走", |t| trait_reason(me, t));
    let own = me
        .interests
        .iter()
        .chain(&me.traits)
        .find(|w| !w.is_empty() && text.contains(w.as_str()))
        .map(|w| format!("，而且我本来就喜欢{w}"))
        .unwrap_or_default();
    let answer = match first {
        Some(f) if f.decision.option == letter => "。对方也这么选，正合我意",
        Some(_) => "。对方选得不一样，不过我有自己的想法",
        None => "",
    };
    let tie = match me.tie {
        Some((RelationKind::Friend | RelationKind::CloseFriend, _)) => {
            "。我们本来就是朋友，不用拘束"
        }
        _ => "",
    };
    format!("{why}{own}{answer}{tie}。")
}

/// What a trait says of me, in my voice: an introvert's warmth is not a
/// love of crowds, nor an extravert's caution shyness.
fn trait_reason(me: &Avatar, t: Trait) -> &'static str {
    let introvert = me.personality.extraversion < 40.0;
    match t {
        Trait::Initiative if introvert => "平时我不爱出头，可这次我想自己迈一步",
        Trait::Initiative => "我不喜欢干等，想到了就去做",
        Trait::Warmth if introvert => "我不爱热闹，可和在乎的人待在一起，我很安心",
        Trait::Warmth => "我喜欢热热闹闹地和人相处",
        Trait::Humour if introvert => "我话不多，但也想让气氛轻松一点",
        Trait::Care => "我更在意对方的感受",
        Trait::Candour => "有话直说，心里才踏实",
        Trait::Humour => "笑一笑，什么都好说",
        Trait::Adventure => "难得的机会，不试试太可惜",
        Trait::Caution => "稳妥一点总没错",
        Trait::Compromise => "两个人在一起，总要有人让一步",
        Trait::Firmness => "我认定的事，不想轻易改",
        Trait::Avoidance => "我还没准备好，先退一步看看",
        Trait::Independence => "我习惯自己拿主意",
        Trait::Romance => "这样的时刻值得用心",
    }
}

/// The host's score of two choices and its reasons (✅ and ❌), given the
/// score before the round: closeness already won makes the next step smaller.
pub(crate) fn score_pair(
    a: &[Trait],
    b: &[Trait],
    stage: Stage,
    same: bool,
    before: i32,
) -> (i32, Vec<String>) {
    let pair = Pair { a, b };
    let mut t = Tally::default();
    warmth(&pair, stage, &mut t);
    conflict(&pair, stage, &mut t);
    pace(&pair, stage, &mut t);
    if same && t.delta > 0 {
        t.say(1, "想到一块去了");
    }
    if t.delta > 2 && before >= 38 {
        let cut = t.delta / 2;
        t.say(-cut, "感情已经很深，再往前一步需要时间");
    }
    if t.reasons.is_empty() {
        t.say(0, "平平淡淡的一轮");
    }
    (t.delta, t.reasons)
}

/// The two choices' traits.
struct Pair<'t> {
    a: &'t [Trait],
    b: &'t [Trait],
}

impl Pair<'_> {
    fn both(&self, t: Trait) -> bool {
        self.a.contains(&t) && self.b.contains(&t)
    }

    fn either(&self, t: Trait) -> bool {
        self.a.contains(&t) || self.b.contains(&t)
    }

    /// One side shows `x` and the other one of `ys`.
    fn meets(&self, x: Trait, ys: &[Trait]) -> bool {
        let has_any = |side: &[Trait]| ys.iter().any(|y| side.contains(y));
        (self.a.contains(&x) && has_any(self.b)) || (self.b.contains(&x) && has_any(self.a))
    }
}

/// Openness to each other: both reach out, one is left hanging, or both hold back.
fn warmth(p: &Pair<'_>, stage: Stage, t: &mut Tally) {
    let reaches = |side: &[Trait]| side.iter().any(|t| t.connects());
    match (reaches(p.a), reaches(p.b)) {
        (true, true) => t.say(2, "双方都选择积极互动"),
        // Standing firm is engaging too; the conflict rules judge it.
        (false, false) if p.either(Trait::Firmness) => {}
        (false, false) => t.say(-1, "两个人都有所保留"),
        _ => t.say(-1, "一方伸出了手，另一方没有接住"),
    }
    if p.meets(
        Trait::Initiative,
        &[Trait::Warmth, Trait::Care, Trait::Humour],
    ) {
        t.say(2, "回应方式互补（主动＋热情）");
    }
    if stage == Stage::Meeting && p.both(Trait::Initiative) {
        t.say(1, "两个人都愿意迈出第一步");
    }
    if stage != Stage::Meeting && p.both(Trait::Romance) {
        t.say(2, "两个人都很用心");
    }
}

/// How a disagreement is handled: the design's "neither gives way" example.
fn conflict(p: &Pair<'_>, stage: Stage, t: &mut Tally) {
    let hard = stage == Stage::Conflict;
    if p.both(Trait::Firmness) {
        t.say(if hard { -6 } else { -4 }, "双方都不愿妥协，缺乏沟通");
    } else if p.meets(Trait::Firmness, &[Trait::Compromise, Trait::Care]) {
        t.say(1, "一方让步，分歧暂时化解");
    } else if p.meets(Trait::Firmness, &[Trait::Avoidance]) {
        t.say(-2, "一方坚持、一方躲开，问题没有解决");
    }
    if hard && (p.both(Trait::Candour) || p.both(Trait::Compromise)) {
        t.say(3, "冲突面前都愿意坦诚沟通");
    }
    if p.both(Trait::Avoidance) {
        t.say(-4, "两个人都在回避");
    } else if p.either(Trait::Avoidance) {
        t.say(if hard { -4 } else { -2 }, "一方退缩，对方的心意落了空");
    }
}

/// Whether their rhythms match: adventure and caution, closeness and space.
fn pace(p: &Pair<'_>, stage: Stage, t: &mut Tally) {
    if p.meets(Trait::Adventure, &[Trait::Caution]) {
        t.say(-2, "一个想冒险一个求稳，节奏不同");
    } else if p.both(Trait::Adventure) {
        t.say(2, "说走就走，一拍即合");
    } else if p.both(Trait::Caution) && stage != Stage::Meeting {
        t.say(1, "步调一致，稳稳当当");
    }
    if p.meets(
        Trait::Independence,
        &[Trait::Romance, Trait::Warmth, Trait::Care],
    ) {
        t.say(-2, "一个想要空间，一个想要亲近");
    } else if p.both(Trait::Independence) {
        t.say(1, "彼此都给对方留了空间");
    }
}

/// A round's score as it is argued: the change so far and each reason.
#[derive(Default)]
struct Tally {
    delta: i32,
    reasons: Vec<String>,
}

impl Tally {
    fn say(&mut self, d: i32, text: &str) {
        self.delta += d;
        let mark = if d >= 0 { "✅" } else { "❌" };
        self.reasons.push(format!("{mark} {text}（{d:+}）"));
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

/// Why the host chose this scene: the stage, what happened last round (the
/// host remembers every round), what this scene is for.
fn host_rationale(view: &DateView<'_>, stage: Stage, scene: &Scene) -> String {
    let round = view.rounds.len() + 1;
    let entering = view.rounds.last().is_none_or(|r| r.posed.stage != stage);
    let intro = match (entering, stage) {
        (false, _) => format!("仍在「{}」阶段", stage.label()),
        (true, Stage::Meeting) => match view.avatars[0].tie {
            // Old friends are not told it is their first meeting.
            Some((RelationKind::Friend | RelationKind::CloseFriend, _)) => {
                "两人本来就是朋友，这一次换个身份重新相遇".into()
            }
            Some((_, strength)) if strength >= 40.0 => "两人早就打过照面，这次好好认识一下".into(),
            _ => "两人第一次见面，先从轻松的相遇开始".into(),
        },
        (true, Stage::Dating) => "相识之后，该让他们单独相处了".into(),
        (true, Stage::Conflict) => "感情要经得起考验，接下来安排一点分歧".into(),
        (true, Stage::Commitment) => "走到这一步，要看两人愿不愿意许下承诺".into(),
    };
    let mut told = format!("第 {round} 轮。{intro}。");
    if let Some(last) = view.rounds.last() {
        told.push_str(&recall(view, last));
    }
    let same = view
        .rounds
        .iter()
        .filter(|r| r.choices.len() == 2 && r.choices[0].2 == r.choices[1].2)
        .count();
    if view.rounds.len() >= 3 {
        told.push_str(&format!(
            "到目前为止 {} 轮里有 {same} 轮两人想到了一块。",
            view.rounds.len()
        ));
    }
    // The host's words fit the score: no 「趁热打铁」 for a couple at 11.
    let aim = match (scene.after, view.score) {
        (Some(After::Bad), _) => "给他们一个化解的机会",
        (Some(After::Good), s) if s >= 30 => "趁热打铁",
        (Some(After::Good), _) => "让这点好感慢慢长起来",
        (None, s) if s < 15 => "看看两人还能不能找到话说",
        (None, _) => "看看两人会怎么选",
    };
    told.push_str(&format!("所以安排{}的这一幕，{aim}。", scene.time.label()));
    told
}

/// The last round in a sentence: who chose what, how the score moved.
fn recall(view: &DateView<'_>, last: &super::Round) -> String {
    let name = |id: &crate::scenario::ResidentId| {
        view.avatars
            .iter()
            .find(|a| a.id == *id)
            .map_or(id.to_string(), |a| a.name.clone())
    };
    let chose: Vec<String> = last
        .choices
        .iter()
        .map(|(id, turn, _)| format!("{}选了「{}」", name(id), turn.decision.content))
        .collect();
    let d = last.after - last.before;
    let moved = match d {
        0 => "分数没有变化".to_string(),
        d if d > 0 => format!("分数上升了 {d} 分"),
        d => format!("分数下降了 {} 分", -d),
    };
    format!("上一轮{}，{moved}。", chose.join("，"))
}
