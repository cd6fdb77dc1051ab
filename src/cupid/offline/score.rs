//! How the offline host scores two choices: how they meet (complement,
//! conflict handling, pace), as the design's examples argue it.

use super::super::scenes::{Stage, Trait};

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
    let candid = p.both(Trait::Candour);
    if p.both(Trait::Firmness) && candid {
        // Both hold their ground but say so: a quarrel, not a silence.
        t.say(-2, "双方都坚持己见，好在话都说在明处");
    } else if p.both(Trait::Firmness) {
        t.say(if hard { -6 } else { -4 }, "双方都不愿妥协，缺乏沟通");
    } else if p.meets(Trait::Firmness, &[Trait::Compromise, Trait::Care]) {
        t.say(1, "一方让步，分歧暂时化解");
    } else if p.meets(Trait::Firmness, &[Trait::Avoidance]) {
        t.say(-2, "一方坚持、一方躲开，问题没有解决");
    }
    if hard && !p.both(Trait::Firmness) && (candid || p.both(Trait::Compromise)) {
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
