//! Cupid's prompts: the host's carries both personas and every round so far;
//! an avatar's its own persona, its tie to the other and the date as it saw
//! it. Structured output: the design's JSON as a schema, the avatar's option
//! an enum of the letters offered.

use serde_json::{Value, json};

use crate::cupid::Side;
use crate::cupid::{Avatar, DateView, Posed, stage_of};
use crate::llm::client::Message;
use crate::llm::prompts::fill;
use crate::scenario::RelationKind;

const HOST: &str = include_str!("../../../assets/prompts/cupid_host.md");
const AVATAR: &str = include_str!("../../../assets/prompts/cupid_avatar.md");

/// The host's system message: its role, the rules, the format, both people.
fn host_system(view: &DateView<'_>) -> Message {
    let personas: Vec<String> = view.avatars.iter().map(persona).collect();
    Message::system(fill(
        HOST,
        &[
            ("max_rounds", view.max_rounds.to_string()),
            ("personas", personas.join("\n\n")),
        ],
    ))
}

/// The first call: the opening scene.
pub(super) fn opening(view: &DateView<'_>) -> Vec<Message> {
    let stage = stage_of(1, view.max_rounds);
    vec![
        host_system(view),
        Message::user(format!(
            "约会开始，现在是第 1 轮（阶段：{}），分数 {}。请写第一个场景和选择题。",
            stage.label(),
            view.score
        )),
    ]
}

/// The host's call after a round: judge it and write the next scene (or end).
pub(super) fn judge(
    view: &DateView<'_>,
    posed: &Posed,
    choices: &[(Side, usize); 2],
    last: bool,
) -> Vec<Message> {
    let round = view.rounds.len() as u32 + 1;
    let mut told = history(view);
    told.push_str(&format!(
        "第 {round} 轮（刚刚结束）：{}\n选项：{}\n",
        q(&posed.host.action.question),
        q(&posed.host.action.answers)
    ));
    for &(who, index) in choices {
        told.push_str(&format!(
            "{} 选了 {}. {}\n",
            view.avatars[who].name,
            Posed::letter(index),
            posed.options.get(index).map_or("", String::as_str)
        ));
    }
    let task = if last {
        "这是最后一轮。请评估这一轮双方的选择，给出新的 cumulative_rate（与当前分数相差不超过 10），action.type 写 \"end\"，rationale 写你的评估（用 ✅ 和 ❌ 列出理由）和对这段关系的结论。".to_string()
    } else {
        format!(
            "请评估这一轮双方的选择，给出新的 cumulative_rate（与当前分数 {} 相差不超过 10），并写第 {} 轮的场景（阶段：{}）。rationale 先写评估（用 ✅ 和 ❌ 列出理由），再写「下一幕：」和你安排下一个场景的思考。如果关系已经有了答案，action.type 写 \"end\"。",
            view.score,
            round + 1,
            stage_of(round + 1, view.max_rounds).label()
        )
    };
    told.push_str(&format!(
        "当前分数：{}，时间：{}\n\n{task}",
        view.score, view.timeline
    ));
    vec![host_system(view), Message::user(told)]
}

/// What a prompt quotes of one thing a model wrote (a scene, a choice, a
/// rationale): its answers may be up to the body cap, and a prompt that
/// re-sent each in full grew to 16 MB by round 10.
const QUOTED: usize = 160;
/// Rounds the host remembers in full; earlier ones are one line each.
const ROUNDS_IN_FULL: usize = 4;

/// `text` as a prompt quotes it.
fn q(text: &str) -> String {
    crate::base::shortened(text, QUOTED)
}

/// Every round so far, as the host remembers it: the last few in full
/// (each quote bounded), the earlier ones by their score.
fn history(view: &DateView<'_>) -> String {
    let mut out = String::new();
    let first_full = view.rounds.len().saturating_sub(ROUNDS_IN_FULL);
    for (i, r) in view.rounds.iter().enumerate() {
        if i < first_full {
            out.push_str(&format!(
                "第 {} 轮：分数 {} → {}\n",
                i + 1,
                r.before,
                r.after
            ));
            continue;
        }
        out.push_str(&format!(
            "第 {} 轮（{}）：{}\n",
            i + 1,
            q(&r.posed.host.time),
            q(&r.posed.host.action.question)
        ));
        for (id, turn, _) in &r.choices {
            let name = view
                .avatars
                .iter()
                .find(|a| a.id == *id)
                .map_or(id.as_str(), |a| a.name.as_str());
            out.push_str(&format!(
                "  {name} 选了 {}. {}（{}）\n",
                q(&turn.decision.option),
                q(&turn.decision.content),
                q(&turn.rationale)
            ));
        }
        out.push_str(&format!("  分数 {} → {}\n", r.before, r.after));
    }
    out
}

/// An avatar's call: its persona, the date so far, the scene, the options.
pub(super) fn avatar(
    view: &DateView<'_>,
    posed: &Posed,
    who: Side,
    first: Option<&crate::cupid::AvatarTurn>,
) -> Vec<Message> {
    let me = &view.avatars[who];
    let other = &view.avatars[who.other()];
    let system = fill(
        AVATAR,
        &[
            ("name", me.name.clone()),
            ("other", other.name.clone()),
            ("persona", persona(me)),
            ("tie", tie(me)),
            ("gender", me.gender.clone()),
        ],
    );
    let mut told = String::new();
    for r in view.rounds {
        let mine = r.choices.iter().find(|c| c.0 == me.id);
        let theirs = r.choices.iter().find(|c| c.0 == other.id);
        if let (Some(m), Some(t)) = (mine, theirs) {
            told.push_str(&format!(
                "之前：{} 你选了「{}」，{}选了「{}」。\n",
                q(&r.posed.host.action.question),
                q(&m.1.decision.content),
                other.name,
                q(&t.1.decision.content)
            ));
        }
    }
    told.push_str(&format!(
        "\n现在（{}）：{}\n选项：{}\n",
        q(&posed.host.time),
        q(&posed.host.action.question),
        q(&posed.host.action.answers)
    ));
    if let Some(f) = first {
        told.push_str(&format!(
            "{}已经选了 {}. {}\n",
            other.name, f.decision.option, f.decision.content
        ));
    }
    told.push_str("你会选哪一个？");
    vec![Message::system(system), Message::user(told)]
}

/// What a resident is, for a prompt.
fn persona(a: &Avatar) -> String {
    let p = &a.personality;
    let mut out = format!(
        "{}（id: {}），{}，{} 岁，{}。性格：开放性 {:.0}、尽责性 {:.0}、外向性 {:.0}、宜人性 {:.0}、神经质 {:.0}（0–100）。",
        a.name,
        a.id,
        a.gender,
        a.age,
        a.occupation,
        p.openness,
        p.conscientiousness,
        p.extraversion,
        p.agreeableness,
        p.neuroticism
    );
    if !a.traits.is_empty() {
        out.push_str(&format!("特点：{}。", a.traits.join("、")));
    }
    if !a.interests.is_empty() {
        out.push_str(&format!("兴趣：{}。", a.interests.join("、")));
    }
    if !a.quote.is_empty() {
        out.push_str(&format!("口头禅：「{}」。", a.quote));
    }
    if !a.goals.is_empty() {
        out.push_str(&format!("心愿：{}。", a.goals.join("；")));
    }
    let memories: Vec<&str> = a.memories.iter().take(5).map(String::as_str).collect();
    if !memories.is_empty() {
        out.push_str(&format!("记得：{}。", memories.join("；")));
    }
    out
}

/// The avatar's tie to the other, in words.
fn tie(a: &Avatar) -> String {
    match a.tie {
        None => "还不认识".into(),
        Some((kind, strength)) => {
            let word = match kind {
                RelationKind::Stranger => "陌生人",
                RelationKind::Acquaintance => "点头之交",
                RelationKind::Friend => "朋友",
                RelationKind::CloseFriend => "好朋友",
                RelationKind::Family => "家人",
                RelationKind::Colleague => "同事",
            };
            format!("{word}（亲密度 {strength:.0}/100）")
        }
    }
}

/// The design's host JSON as a schema; `object` one of the two ids.
pub(super) fn host_schema(ids: [&str; 2]) -> (&'static str, Value) {
    let text = json!({ "type": "string" });
    (
        "cupid_host",
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "object",
                    "properties": {
                        "type": { "type": "string", "enum": ["predict", "end"] },
                        "object": { "type": "string", "enum": ids },
                        "question": text,
                        "answers": text,
                    },
                    "required": ["type", "object", "question", "answers"],
                },
                "time": text,
                "cumulative_rate": text,
                "rationale": text,
            },
            "required": ["action", "time", "cumulative_rate", "rationale"],
        }),
    )
}

/// The design's avatar JSON as a schema; the option one of `letters`.
pub(super) fn avatar_schema(letters: &[String]) -> (&'static str, Value) {
    (
        "cupid_avatar",
        json!({
            "type": "object",
            "properties": {
                "gender": { "type": "string" },
                "decision": {
                    "type": "object",
                    "properties": {
                        "option": { "type": "string", "enum": letters },
                        "content": { "type": "string" },
                    },
                    "required": ["option", "content"],
                },
                "rationale": { "type": "string" },
            },
            "required": ["gender", "decision", "rationale"],
        }),
    )
}

/// The one repair message: what was wrong, the format again.
pub(super) fn repair(problem: &str) -> String {
    format!(
        "你上一次的回答不能用：{problem}。请改正后重新回答，只输出一个符合格式的 JSON 对象，不要任何解释。"
    )
}
