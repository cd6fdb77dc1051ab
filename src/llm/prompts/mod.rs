//! Prompts, kept as plain files in `assets/prompts/` that designers can read and
//! edit (compiled in, so the binary runs anywhere). `{name}` fields are filled
//! from the same contexts the built-in brain sees.

mod line;

use std::fmt::Write;

use crate::base::time::{GameTime, clock_text};
use crate::scenario::{Service, Town};
use crate::sim::brain::{PlanContext, SummaryContext};
use crate::sim::residents::ActivityKind;

pub(crate) use line::{LineExtras, line_messages};

use super::client::Message;
pub(crate) use crate::context::Budgeting;
use crate::context::{Assembled, Layer, PromptLayers};

/// A prompt ready to send, with its layers as cut to the budget.
#[derive(Debug, Clone)]
pub(crate) struct Prompt {
    pub(crate) messages: Vec<Message>,
    pub(crate) layers: Assembled,
}

pub(crate) const PLAN_SYSTEM: &str = include_str!("../../../assets/prompts/plan_system.md");
pub(crate) const PLAN_USER: &str = include_str!("../../../assets/prompts/plan_user.md");
pub(crate) const LINE_OPEN: &str = include_str!("../../../assets/prompts/line_open.md");
pub(crate) const LINE_REPLY: &str = include_str!("../../../assets/prompts/line_reply.md");
pub(crate) const SUMMARY: &str = include_str!("../../../assets/prompts/summary.md");
pub(crate) const REPAIR: &str = include_str!("../../../assets/prompts/repair.md");
pub(crate) const RECAP: &str = include_str!("../../../assets/prompts/recap.md");

/// How many other residents a planning prompt lists (a big town would blow the budget).
pub(crate) const MAX_OTHERS: usize = 12;
/// How many recent memories a planning prompt carries.
pub(crate) const MAX_MEMORIES: usize = 12;

/// Fills `{field}`s (lowercase identifiers) from `values`. Unknown fields are left
/// as they are and reported, so a typo in a template shows up in tests.
pub(crate) fn render(template: &str, values: &[(&str, String)]) -> (String, Vec<String>) {
    let mut out = String::with_capacity(template.len() + 256);
    let mut missing = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let ident_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(after.len());
        if ident_len > 0 && after[ident_len..].starts_with('}') {
            let key = &after[..ident_len];
            match values.iter().find(|(k, _)| *k == key) {
                Some((_, v)) => out.push_str(v),
                None => {
                    missing.push(key.to_string());
                    out.push('{');
                    out.push_str(key);
                    out.push('}');
                }
            }
            rest = &after[ident_len + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    (out, missing)
}

pub(crate) fn fill(template: &str, values: &[(&str, String)]) -> String {
    render(template, values).0
}

/// One line per other resident for the planning prompt: `name（id）在 place：action`.
#[derive(Debug, Clone)]
pub(crate) struct OtherResident {
    pub(crate) name: String,
    pub(crate) place: String,
    pub(crate) doing: String,
}

/// The planning prompt. The system message starts with what every resident
/// shares (rules, places), so servers that cache prompt prefixes (llama.cpp,
/// vLLM) reuse it across residents; then the persona. The user message holds what
/// changes: the moment, needs, other residents, memories, agenda and board.
///
/// `others` were seen at `seen`: `cx.now`, or earlier for a plan asked ahead
/// (its "now" is when the action ends), and the prompt says so.
pub(crate) fn plan_messages(
    cx: &PlanContext<'_>,
    (others, seen): (&[OtherResident], GameTime),
    recalled: &[String],
    b: &Budgeting,
) -> Prompt {
    let layers = b.assemble(plan_layers(cx, others, recalled));
    Prompt {
        messages: vec![
            Message::system(plan_system(cx, &layers)),
            Message::user(plan_user(cx, (others, seen), &layers)),
        ],
        layers,
    }
}

/// A planning prompt's material: persona, ties (the others it knows), the
/// moment, and its memories — those recalled for the moment, then the newest.
fn plan_layers(
    cx: &PlanContext<'_>,
    others: &[OtherResident],
    recalled: &[String],
) -> PromptLayers {
    let recent: Vec<String> = cx
        .memories
        .iter()
        .rev()
        .map(|m| m.line())
        .filter(|line| !recalled.contains(line))
        .take(MAX_MEMORIES.saturating_sub(recalled.len().min(MAX_MEMORIES / 2)))
        .collect();
    let me = cx.me;
    let mut l = PromptLayers::default();
    l.push(
        Layer::Persona,
        format!(
            "{}，{}岁，{}，{}",
            me.name, me.age, me.gender, me.occupation
        ),
    )
    .push(Layer::Persona, me.traits.join("、"))
    .push(Layer::Persona, me.quote.clone())
    .extend(
        Layer::Persona,
        me.goals.iter().map(|g| format!("  - {}", g.text)),
    )
    .extend(Layer::Profile, relationship_lines(cx))
    .extend(
        Layer::Stage,
        others
            .iter()
            .map(|o| format!("- {}在{}：{}", o.name, o.place, o.doing)),
    )
    .push(Layer::Stage, agenda_text(cx))
    .push(Layer::Stage, board_text(cx))
    .extend(Layer::Retrieved, recalled.iter().map(|m| format!("- {m}")))
    .extend(
        Layer::Retrieved,
        recent.into_iter().map(|m| format!("- {m}")),
    );
    l
}

/// Who the resident is, and the town's places.
fn plan_system(cx: &PlanContext<'_>, layers: &Assembled) -> String {
    let (me, town) = (cx.me, cx.town);
    let p = &me.personality;
    let work = me.work.as_ref().map_or(String::new(), |w| {
        format!(
            "，在{}[{}]工作，{}–{}",
            town.name(w.place),
            town.id(w.place),
            clock_text(w.start),
            clock_text(w.end)
        )
    });
    let goals = lines_or(
        me.goals.iter().map(|g| format!("  - {}", g.text)),
        "  - （暂无）",
    );
    let d = &cx.tuning.durations;
    fill(
        PLAN_SYSTEM,
        &[
            ("name", me.name.clone()),
            ("town", town.name.clone()),
            ("age", me.age.to_string()),
            ("gender", me.gender.clone()),
            ("occupation", me.occupation.clone()),
            ("work", work),
            (
                "home",
                format!("{}[{}]", town.name(me.home), town.id(me.home)),
            ),
            ("openness", format!("{:.0}", p.openness)),
            ("conscientiousness", format!("{:.0}", p.conscientiousness)),
            ("extraversion", format!("{:.0}", p.extraversion)),
            ("agreeableness", format!("{:.0}", p.agreeableness)),
            ("neuroticism", format!("{:.0}", p.neuroticism)),
            ("traits", me.traits.join("、")),
            ("quote", me.quote.clone()),
            ("goals", goals),
            (
                "relationships",
                layers.text(Layer::Profile, "  - （还没有熟人）"),
            ),
            ("min_duration", d.min.to_string()),
            ("max_duration", d.max.to_string()),
            ("places", places_text(town)),
        ],
    )
}

/// The resident's ten first ties: whom, what, how close, the impression.
fn relationship_lines<'a>(cx: &'a PlanContext<'a>) -> impl Iterator<Item = String> + 'a {
    cx.relationships.iter().take(10).map(|r| {
        format!(
            "  - {}：{}，亲密度{:.0}，印象：{}",
            cx.roster.name(&r.with),
            r.kind.label(),
            r.strength,
            if r.impression.is_empty() {
                "—"
            } else {
                &r.impression
            }
        )
    })
}

/// Every place: id, name, services, description, neighbours.
fn places_text(town: &Town) -> String {
    let mut places = String::new();
    for l in town.indices() {
        let loc = town.get(l);
        let services: Vec<&str> = loc
            .services
            .iter()
            .map(|s| match s {
                Service::Food => "有食物",
                Service::Sleep => "可过夜",
                Service::NoticeBoard => "有公告板",
                Service::Books => "有书",
            })
            .collect();
        let links: Vec<&str> = loc
            .neighbours
            .iter()
            .map(|&n| town.id(n).as_str())
            .collect();
        let _ = writeln!(
            places,
            "- [{}] {}{} — {}；相连：{}",
            loc.id.as_str(),
            loc.name,
            if services.is_empty() {
                String::new()
            } else {
                format!("（{}）", services.join("、"))
            },
            loc.description.trim_end_matches('。'),
            links.join(", ")
        );
    }
    places.trim_end().to_string()
}

/// The moment: time, place, needs, what the resident just did, who is
/// around, memories, agenda and the notice board where there is one.
fn plan_user(
    cx: &PlanContext<'_>,
    (others, seen): (&[OtherResident], GameTime),
    layers: &Assembled,
) -> String {
    let town = cx.town;
    let previous = cx.previous.map_or("（刚醒来）".to_string(), |a| {
        // A night's sleep from the start of the run has nothing said.
        match a.text.dialogue.trim() {
            "" => a.text.action.clone(),
            said => format!("{}「{said}」", a.text.action),
        }
    });
    let others_text = lines_or(
        others
            .iter()
            .map(|o| format!("- {}在{}：{}", o.name, o.place, o.doing)),
        "- （附近没有人）",
    );
    let memories = layers.text(Layer::Retrieved, "- （没有）");
    let n = cx.needs;
    fill(
        PLAN_USER,
        &[
            ("date", cx.now.date().to_string()),
            ("weekday", cx.now.weekday_zh().to_string()),
            ("time", clock_text(cx.now.minute_of_day())),
            ("period", cx.now.period().to_string()),
            ("place", format!("{}[{}]", town.name(cx.at), town.id(cx.at))),
            ("energy", format!("{:.0}", n.energy)),
            ("hunger", format!("{:.0}", n.hunger)),
            ("social", format!("{:.0}", n.social)),
            ("fun", format!("{:.0}", n.fun)),
            ("previous", previous),
            ("seen", seen_text(cx.now, seen)),
            ("others", others_text),
            ("memories", memories),
            ("agenda", agenda_text(cx)),
            ("notices", board_text(cx)),
        ],
    )
}

/// When the others were seen: 现在, or the time a plan asked ahead was
/// written (「07:40时」).
fn seen_text(now: GameTime, seen: GameTime) -> String {
    if seen == now {
        "现在".to_string()
    } else {
        format!("{}时", clock_text(seen.minute_of_day()))
    }
}

/// Gatherings the resident knows of, and whether it means to go.
fn agenda_text(cx: &PlanContext<'_>) -> String {
    let town = cx.town;
    lines_or(
        cx.agenda.appointments.iter().filter_map(|a| {
            let g = cx.gatherings.get(a.gathering.i())?;
            Some(format!(
                "- {}：{} 在{}[{}]{}",
                g.title,
                g.starts.stamp(),
                town.name(g.location),
                town.id(g.location),
                if a.will_attend {
                    "（打算去）"
                } else {
                    "（可能不去）"
                }
            ))
        }),
        "- （没有约定）",
    )
}

/// The newest notices, where the resident stands at a board.
fn board_text(cx: &PlanContext<'_>) -> String {
    if !cx.town.get(cx.at).has(Service::NoticeBoard) {
        return String::new();
    }
    let board = lines_or(
        cx.notices.notices.iter().rev().take(5).map(|n| {
            format!(
                "- {}（{}）：{}",
                cx.roster.name(&n.author),
                n.posted.stamp(),
                n.text
            )
        }),
        "- （空的）",
    );
    format!("\n## 公告板\n{board}\n")
}

/// A participant's one-line memory of a conversation (the design's 30-character summary).
pub(crate) fn recap_messages(r: &crate::sim::social::RecapRequest, b: &Budgeting) -> Prompt {
    let mut l = PromptLayers::default();
    l.push(Layer::Persona, r.name.clone())
        .push(Layer::Stage, format!("{} {}", r.place, r.others))
        .extend(
            Layer::Dialogue,
            r.transcript
                .iter()
                .map(|(who, line)| format!("{who}：{line}")),
        );
    let layers = b.assemble(l);
    let messages = vec![Message::user(fill(
        RECAP,
        &[
            ("name", r.name.clone()),
            ("place", r.place.clone()),
            ("others", r.others.clone()),
            ("transcript", layers.text(Layer::Dialogue, "")),
        ],
    ))];
    Prompt { messages, layers }
}

/// The night's summary: the day's memories are its dialogue with itself
/// (the oldest cut first when the day was too full).
pub(crate) fn summary_messages(cx: &SummaryContext<'_>, b: &Budgeting) -> Prompt {
    let mut l = PromptLayers::default();
    l.push(
        Layer::Persona,
        format!("{}（{}）", cx.me.name, cx.me.occupation),
    )
    .push(Layer::Stage, cx.night.to_string())
    .extend(
        Layer::Dialogue,
        cx.entries.iter().map(|m| format!("- {}", m.line())),
    );
    let layers = b.assemble(l);
    let messages = vec![Message::user(fill(
        SUMMARY,
        &[
            ("name", cx.me.name.clone()),
            ("occupation", cx.me.occupation.clone()),
            ("night", cx.night.to_string()),
            ("entries", layers.text(Layer::Dialogue, "- （平淡的一天）")),
        ],
    ))];
    Prompt { messages, layers }
}

/// The one repair attempt: the original conversation, the bad answer, what was wrong.
pub(crate) fn repair_messages(
    original: &[Message],
    answer: &str,
    problem: &str,
    cx: &PlanContext<'_>,
) -> Vec<Message> {
    // Every reachable place in a small town; in a big one the nearby shared
    // places plus home and work (the full list would not fit a prompt).
    let town = cx.town;
    let candidates: Vec<crate::scenario::LocIdx> = if town.len() <= 40 {
        town.indices().collect()
    } else {
        let mut v = town.nearby(cx.at).to_vec();
        v.push(cx.at);
        v.push(cx.me.home);
        v.extend(cx.me.work.as_ref().map(|w| w.place));
        v
    };
    let ids: Vec<&str> = candidates
        .into_iter()
        .filter(|&l| town.reachable(cx.at, l))
        .map(|l| town.id(l).as_str())
        .collect();
    let d = &cx.tuning.durations;
    let mut messages = original.to_vec();
    messages.push(Message::assistant(
        answer.chars().take(600).collect::<String>(),
    ));
    messages.push(Message::user(fill(
        REPAIR,
        &[
            ("problem", problem.to_string()),
            ("answer", answer.chars().take(600).collect()),
            ("place_ids", ids.join(", ")),
            ("min_duration", d.min.to_string()),
            ("max_duration", d.max.to_string()),
        ],
    )));
    messages
}

/// A short Chinese description of what someone is doing, for prompts.
pub(crate) fn doing(kind: Option<ActivityKind>, action: Option<&str>, walking: bool) -> String {
    if walking {
        return "在路上".into();
    }
    match (kind, action) {
        (Some(ActivityKind::Sleep), _) => "在睡觉".into(),
        (_, Some(a)) if !a.is_empty() => a.to_string(),
        _ => "闲着".into(),
    }
}

fn lines_or(items: impl Iterator<Item = String>, empty: &str) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        empty.to_string()
    } else {
        v.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_fill_and_json_braces_stay() {
        let (s, missing) = render(
            "你好{name}！{\"a\": 1} {unknown} {}",
            &[("name", "阿朵".into())],
        );
        assert_eq!(s, "你好阿朵！{\"a\": 1} {unknown} {}");
        assert_eq!(missing, vec!["unknown".to_string()]);
    }
}
