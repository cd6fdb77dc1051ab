//! Conversation line prompts: an opening line or a reply, from the speaker,
//! the moment, the listener as the speaker sees TA, the conversation so far
//! and what the speaker recalls.

use super::{Budgeting, LINE_OPEN, LINE_REPLY, Prompt, fill, lines_or};
use crate::base::time::clock_text;
use crate::context::{Layer, PromptLayers};
use crate::llm::client::Message;
use crate::sim::brain::LineContext;

/// What else a line prompt needs beyond [`LineContext`].
pub(crate) struct LineExtras<'a> {
    pub(crate) my_action: &'a str,
    pub(crate) their_action: &'a str,
    /// Lines so far, as (speaker name, line).
    pub(crate) history: &'a [(String, String)],
    pub(crate) memories: &'a [String],
    pub(crate) mood: &'a str,
}

/// What this particular line must do: greet as staff, invite, propose or accept
/// a meeting, address a group, @-mention someone. One `- ` line each.
fn line_notes(cx: &LineContext<'_>) -> String {
    let mut notes = String::new();
    if let Some(role) = cx.role {
        let what = match role {
            crate::scenario::WorkRole::Waiter => "你正在当班，TA是来店里的客人，请热情招呼TA",
            crate::scenario::WorkRole::Teacher => "你正在当班，TA是你的学生，请像老师一样招呼TA",
            crate::scenario::WorkRole::Seller => "你正在当班，TA是上门的顾客，请招呼TA看看货",
        };
        notes.push_str(&format!("- {what}\n"));
    }
    if let (Some(g), Some(place)) = (cx.inviting, cx.inviting_place) {
        notes.push_str(&format!(
            "- 这句话里请邀请TA参加{}：{}，在{}\n",
            g.title,
            g.starts.stamp(),
            place
        ));
    }
    if let Some(last) = cx.relation.and_then(|r| r.last_talk.as_deref())
        && cx.turn == 0
    {
        use crate::sim::residents::TalkOutcome as T;
        let how = match last.outcome {
            T::Argued => "吵了几句",
            T::Down => "TA心情不太好",
            T::Warm => "聊得很投机",
            T::Plain => "随便聊了聊",
        };
        notes.push_str(&format!(
            "- 你们上回聊的是{}，{how}；合适的话可以提起\n",
            last.subject
        ));
    }
    if let Some(reason) = cx.answering_invite {
        use crate::sim::social::InviteReason as R;
        let why = match reason {
            R::Friend => "你会去：办聚会的是你的朋友",
            R::Lively => "你会去：你喜欢热闹",
            R::Keen => "你会去",
            R::Shift => "你去不了：那个时候你要当班干活，说出这个理由",
            R::Crowds => "你不去：人多的场合你不自在，婉转地说出来",
            R::Busy => "你去不了：那天你另有事，客气地推掉",
        };
        notes.push_str(&format!("- TA刚邀请你参加聚会，这句话请回答：{why}\n"));
    }
    if let Some(g) = cx.hosting {
        if cx.turn == 0 {
            notes.push_str(&format!(
                "- 你办的{}刚开始，请向到场的大家致欢迎词\n",
                g.title
            ));
        } else if g.organiser != cx.speaker.id {
            notes.push_str(&format!(
                "- 你们在参加{}，大家刚听完主办人的欢迎词\n",
                g.title
            ));
        }
    }
    if let Some((place, when)) = cx.proposing {
        notes.push_str(&format!("- 这句话里请约TA{when}在{place}再见面\n"));
    }
    if let Some((place, when)) = cx.accepting {
        notes.push_str(&format!(
            "- TA约你{when}在{place}见面，这句话里请答应下来\n"
        ));
    }
    if !cx.others.is_empty() {
        let names: Vec<&str> = cx.others.iter().map(|p| p.name.as_str()).collect();
        notes.push_str(&format!(
            "- 这是群聊，在场的还有：{}；可以用「@名字」点名请某人接话\n",
            names.join("、")
        ));
    }
    if let Some(who) = cx.mention {
        notes.push_str(&format!("- 这句话请@{who}，问问TA的看法\n"));
    }
    notes
}

/// An opening line (`turn == 0`) or a reply.
pub(crate) fn line_messages(cx: &LineContext<'_>, x: &LineExtras<'_>, b: &Budgeting) -> Prompt {
    let layers = b.assemble(line_layers(cx, x));
    let mut values = line_values(cx, x);
    values.push((
        "memories",
        lines_or(
            layers.items(Layer::Retrieved).map(|m| format!("- {m}")),
            "- （没有）",
        ),
    ));
    values.push(("history", layers.text(Layer::Dialogue, "（刚开始）")));
    let template = if cx.turn == 0 { LINE_OPEN } else { LINE_REPLY };
    Prompt {
        messages: vec![Message::user(fill(template, &values))],
        layers,
    }
}

/// A line prompt's material: the speaker, the moment, the listener as the
/// speaker sees TA, the conversation so far, what the speaker recalls.
fn line_layers(cx: &LineContext<'_>, x: &LineExtras<'_>) -> PromptLayers {
    let s = cx.speaker;
    let mut l = PromptLayers::default();
    l.push(Layer::Persona, format!("{}，{}", s.name, s.occupation))
        .push(
            Layer::Stage,
            format!("{} {} {}", cx.place.name, x.my_action, x.their_action),
        )
        .push(Layer::Stage, line_notes(cx))
        .push(
            Layer::Profile,
            format!("{}：{}", cx.listener.name, impression(cx)),
        )
        .extend(
            Layer::Dialogue,
            x.history.iter().map(|(who, line)| format!("{who}：{line}")),
        )
        .extend(Layer::Retrieved, x.memories.iter().cloned());
    l
}

fn impression(cx: &LineContext<'_>) -> String {
    cx.relation
        .map(|r| r.impression.to_string())
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| "还不太了解".into())
}

/// What the speaker knows of the listener and of what they lived together,
/// and news it could tell, each with where it came from; one `- ` line each.
fn known_about(cx: &LineContext<'_>) -> String {
    use crate::sim::knowledge::About;
    use crate::sim::knowledge::news::{Side, news_for};
    let (me, you) = (cx.speaker_idx, cx.listener_idx);
    let mut lines: Vec<String> = cx
        .knows
        .facts()
        .iter()
        .filter(|f| {
            let people = f.about.people();
            match f.about {
                About::Job { .. }
                | About::Hobby { .. }
                | About::Food { .. }
                | About::Family { .. } => people.first() == Some(&you),
                _ => people.contains(&you) && (people.contains(&me) || f.about.day().is_some()),
            }
        })
        .map(|f| format!("- {}", cx.words.with_source(f)))
        .collect();
    let news = news_for(
        Side {
            idx: me,
            knows: cx.knows,
        },
        (
            Side {
                idx: you,
                knows: cx.listener_knows,
            },
            cx.listener_ties,
        ),
        cx.now,
        cx.words.gatherings,
        cx.earshot,
    );
    if let Some(f) = news {
        lines.push(format!("- TA可能还不知道：{}", cx.words.with_source(&f)));
    }
    if lines.is_empty() {
        "- （没有）".to_string()
    } else {
        lines.join("\n")
    }
}

/// The line templates' fields but the two cut to the budget.
fn line_values(cx: &LineContext<'_>, x: &LineExtras<'_>) -> Vec<(&'static str, String)> {
    let rel = cx.relation;
    // Ties the town began with are old; the rest date from their first talk.
    let old = cx
        .speaker
        .relationships
        .iter()
        .any(|r| r.with == cx.listener.id);
    let acquainted = match rel {
        None => "不认识".to_string(),
        Some(_) if old => "认识很久了".to_string(),
        Some(r) => match r.met.get() {
            Some(t) if t.day_number() == cx.now.day_number() => "今天才认识".to_string(),
            Some(t) => format!("认识{}天了", cx.now.day_number() - t.day_number()),
            None => "不太熟".to_string(),
        },
    };
    let last_meeting = match rel.and_then(|r| r.last_interaction.get()) {
        Some(t) => t.stamp(),
        None if old => "这几天没说过话".to_string(),
        None => "没见过".to_string(),
    };
    let p = &cx.speaker.personality;
    vec![
        ("speaker", cx.speaker.name.clone()),
        ("listener", cx.listener.name.clone()),
        ("occupation", cx.speaker.occupation.clone()),
        ("extraversion", format!("{:.0}", p.extraversion)),
        ("agreeableness", format!("{:.0}", p.agreeableness)),
        ("mood", x.mood.to_string()),
        (
            "relation",
            rel.map_or("陌生人", |r| r.kind.label()).to_string(),
        ),
        ("impression", impression(cx)),
        ("last_meeting", last_meeting),
        ("known", known_about(cx)),
        ("place", cx.place.name.clone()),
        ("time", clock_text(cx.now.minute_of_day())),
        ("period", cx.now.period().to_string()),
        ("weather", format!("{}，{}", cx.sky.1.zh(), cx.sky.0.zh())),
        ("my_action", x.my_action.to_string()),
        ("their_action", x.their_action.to_string()),
        ("topic", cx.topic.label().to_string()),
        ("notes", line_notes(cx)),
        ("acquainted", acquainted),
        ("last_line", cx.previous.to_string()),
    ]
}
