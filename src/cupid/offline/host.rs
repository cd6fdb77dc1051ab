//! Why the offline host chose the next scene: the stage and the pair's tie,
//! the last round and the rounds that moved the score most, and an aim that
//! fits the score band (no 「趁热打铁」 for a couple at 11).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::super::scenes::{After, Scene, Stage};
use super::super::{Band, DateView, Round};
use crate::scenario::{RelationKind, ResidentId};

/// The host's reasoning for `scene` as round `view.rounds.len() + 1`.
pub(super) fn rationale(
    view: &DateView<'_>,
    stage: Stage,
    scene: &Scene,
    rng: &mut ChaCha8Rng,
) -> String {
    let round = view.rounds.len() + 1;
    let entering = view.rounds.last().is_none_or(|r| r.posed.stage != stage);
    let intro = if entering {
        entering_line(view, stage)
    } else {
        format!("仍在「{}」阶段", stage.label())
    };
    let mut told = format!("第 {round} 轮。{intro}。");
    if let Some(last) = view.rounds.last() {
        told.push_str(&recall(view, last));
    }
    // The story so far, told where a stage opens (not every round).
    if entering {
        told.push_str(&turning_points(view));
    }
    let fell = view.rounds.last().is_some_and(|r| r.after < r.before);
    let lines = match scene.after {
        // After a round that went badly the host does not talk of going further.
        None if fell => &[
            "看看两人能不能把刚才的别扭放下",
            "看两人还愿不愿意再靠近一点",
        ][..],
        after => aims(after, view.score),
    };
    let aim = lines[rng.random_range(0..lines.len())];
    let place = match scene.place() {
        "" => String::new(),
        p => format!("在{p}"),
    };
    told.push_str(&format!(
        "所以安排{}{place}的这一幕，{aim}。",
        scene.time.label()
    ));
    told
}

/// How the host opens a stage; old friends are not told it is their first
/// meeting.
fn entering_line(view: &DateView<'_>, stage: Stage) -> String {
    let closest = view
        .avatars
        .iter()
        .filter_map(|a| a.tie)
        .max_by(|x, y| x.1.total_cmp(&y.1));
    let friends = view.avatars.iter().any(|a| {
        matches!(
            a.tie,
            Some((RelationKind::Friend | RelationKind::CloseFriend, _))
        )
    });
    match stage {
        Stage::Meeting if friends => "两人本来就是朋友，这一次换个身份重新看看对方".into(),
        Stage::Meeting => match closest {
            Some((RelationKind::Colleague, _)) => "两人天天共事，这次离开活计，单独见一面".into(),
            Some((_, s)) if s >= 35.0 => "两人早就打过照面，这次好好认识一下".into(),
            _ => "两人还算陌生，先从轻松的相遇开始".into(),
        },
        Stage::Dating => "相识之后，该让他们单独相处了".into(),
        Stage::Conflict => "感情要经得起考验，接下来安排一点分歧".into(),
        Stage::Commitment => "走到这一步，要看两人愿不愿意许下承诺".into(),
    }
}

/// The aims a host may state for a scene, by what it suits and the band.
fn aims(after: Option<After>, score: i32) -> &'static [&'static str] {
    match (after, Band::of(score)) {
        (Some(After::Bad), Band::Discordant) => {
            &["给他们最后一个化解的机会", "看看这道坎还迈不迈得过去"]
        }
        (Some(After::Bad), _) => &["给他们一个化解的机会", "看看两人怎么收拾刚才的别扭"],
        (Some(After::Good), Band::Good | Band::Ideal) => &["趁热打铁", "让两人再靠近一步"],
        (Some(After::Good), _) => &["让这点好感慢慢长起来", "别急，让好感再攒一攒"],
        (None, Band::Discordant) => &["看看两人还能不能找到话说", "看看还有没有转机"],
        (None, Band::Fair) => &["看看两人会怎么选", "看两人能不能找到共同的节奏"],
        (None, Band::Good) => &["看看这份好感能走多远", "看两人会不会更进一步"],
        (None, Band::Ideal) => &["看看这份默契经不经得起考验", "看两人是不是真的想到了一起"],
    }
}

fn name_of(view: &DateView<'_>, id: &ResidentId) -> String {
    view.avatars
        .iter()
        .find(|a| a.id == *id)
        .map_or(id.to_string(), |a| a.name.clone())
}

/// The last round in a sentence: who chose what, how the score moved.
fn recall(view: &DateView<'_>, last: &Round) -> String {
    let chose: Vec<String> = last
        .choices
        .iter()
        .map(|(id, turn, _)| format!("{}选了「{}」", name_of(view, id), turn.decision.content))
        .collect();
    let d = last.after - last.before;
    let moved = match d {
        0 => "分数没有变化".to_string(),
        d if d > 0 => format!("分数上升了 {d} 分"),
        d => format!("分数下降了 {} 分", -d),
    };
    format!("上一轮{}，{moved}。", chose.join("，"))
}

/// The rounds before the last that moved the score most (at most two, by
/// at least 4 points), so the host's reasoning carries the whole story.
fn turning_points(view: &DateView<'_>) -> String {
    let Some((_, earlier)) = view.rounds.split_last() else {
        return String::new();
    };
    let mut big: Vec<(usize, &Round)> = earlier
        .iter()
        .enumerate()
        .filter(|(_, r)| (r.after - r.before).abs() >= 4)
        .collect();
    big.sort_by_key(|(i, r)| (-(r.after - r.before).abs(), *i));
    big.truncate(2);
    big.sort_by_key(|(i, _)| *i);
    if big.is_empty() {
        return String::new();
    }
    let told: Vec<String> = big
        .iter()
        .map(|(i, r)| {
            let d = r.after - r.before;
            let place = if r.posed.place.is_empty() {
                String::new()
            } else {
                format!("在{}", r.posed.place)
            };
            let what = match r.choices.as_slice() {
                [(_, a, i), (_, _, j)] if i == j => format!("两人都选了「{}」", a.decision.content),
                [(x, a, _), (y, b, _)] => format!(
                    "{}「{}」、{}「{}」",
                    name_of(view, x),
                    a.decision.content,
                    name_of(view, y),
                    b.decision.content
                ),
                _ => "两人各自做了选择".into(),
            };
            format!("第 {} 轮{place}{what}（{d:+}）", i + 1)
        })
        .collect();
    format!("一路看下来，要紧的是{}。", told.join("；"))
}
