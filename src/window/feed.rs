//! What the panels show over time, read from the simulation's events: the
//! event stream (newest last, capped) and hourly
//! samples of every relationship's strength for the plot.

use std::collections::VecDeque;

use bevy::prelude::*;

use super::ViewSet;
use crate::base::time::GameTime;
use crate::scenario::{ResidentId, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::{EventBody, SimEvent};
use crate::sim::residents::{Relationships, Resident, Roster};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<EventFeed>()
        .init_resource::<RelationHistory>()
        .add_systems(
            Update,
            (read_events, sample_relations).in_set(ViewSet::Sync),
        );
}

/// Entries kept in the stream.
const KEEP: usize = 5000;

/// One line of the event stream.
#[derive(Debug, Clone)]
pub(crate) struct FeedEntry {
    pub time: GameTime,
    /// The log's `kind` (`plan`, `message` …).
    pub kind: &'static str,
    /// Who it is about; the first is where a click takes the camera.
    pub residents: Vec<ResidentId>,
    /// The conversation a `message` belongs to.
    pub conversation: Option<u64>,
    pub text: String,
}

#[derive(Resource, Debug, Default)]
pub(crate) struct EventFeed {
    pub entries: VecDeque<FeedEntry>,
    /// Every entry ever added (the stream scrolls when this grows).
    pub total: u64,
}

/// Every resident's ties at one moment: `[roster idx] = [(other idx, strength)]`.
pub(crate) type Ties = Vec<Vec<(u32, f32)>>;

/// Hourly samples of every tie.
#[derive(Resource, Debug, Default)]
pub(crate) struct RelationHistory {
    pub samples: Vec<(GameTime, Ties)>,
    last_hour: Option<i64>,
}

impl RelationHistory {
    /// `a`'s view of `b` over time.
    pub fn series(&self, a: u32, b: u32) -> Vec<(GameTime, f32)> {
        self.samples
            .iter()
            .filter_map(|(t, ties)| {
                let s = ties.get(a as usize)?.iter().find(|(o, _)| *o == b)?.1;
                Some((*t, s))
            })
            .collect()
    }
}

/// The kinds the stream can filter on, in menu order.
pub(crate) const KINDS: [&str; 12] = [
    "plan",
    "move",
    "arrive",
    "conversation",
    "message",
    "relationship",
    "appointment",
    "notice",
    "sleep",
    "wake",
    "consolidate",
    "llm",
];

/// An event as a line for the stream (`None`: not shown, e.g. `start`).
pub(crate) fn describe(event: &SimEvent, roster: &Roster, town: &Town) -> Option<FeedEntry> {
    let name = |id: &ResidentId| roster.name(id).to_string();
    let place = |id: &crate::scenario::LocationId| {
        town.find(id.as_str())
            .map_or(id.to_string(), |i| town.name(i).to_string())
    };
    let names = |ids: &[ResidentId]| ids.iter().map(name).collect::<Vec<_>>().join("、");
    let (kind, residents, text) = match &event.body {
        EventBody::Plan {
            resident,
            action,
            target_location,
            dialogue,
            duration,
            ..
        } => (
            "plan",
            vec![resident.clone()],
            // No emoji: egui's fonts lack many (the map shows them as icons).
            format!(
                "{} {action}，去 {}（{duration} 分钟）{}",
                name(resident),
                place(target_location),
                if dialogue.is_empty() {
                    String::new()
                } else {
                    format!("「{dialogue}」")
                }
            ),
        ),
        EventBody::PlanFixed { resident, problems } => (
            "plan",
            vec![resident.clone()],
            format!("{} 的计划被修正：{}", name(resident), problems.join("；")),
        ),
        EventBody::Move {
            resident,
            to,
            minutes,
            ..
        } => (
            "move",
            vec![resident.clone()],
            format!(
                "{} 出发去 {}（约 {minutes} 分钟）",
                name(resident),
                place(to)
            ),
        ),
        EventBody::Arrive { resident, location } => (
            "arrive",
            vec![resident.clone()],
            format!("{} 到了 {}", name(resident), place(location)),
        ),
        EventBody::ConversationStart {
            participants,
            location,
            ..
        } => (
            "conversation",
            participants.clone(),
            format!("{} 在 {} 聊了起来", names(participants), place(location)),
        ),
        EventBody::SkillStart {
            resident,
            partner,
            skill,
            ..
        } => (
            "conversation",
            vec![resident.clone(), partner.clone()],
            format!("{} 和 {} 谈起「{skill}」", name(resident), name(partner)),
        ),
        EventBody::SkillEnd {
            resident,
            partner,
            skill,
            finished,
            results,
            error,
            ..
        } => (
            "conversation",
            vec![resident.clone(), partner.clone()],
            match (finished, error) {
                (true, _) => format!(
                    "{} 谈完「{skill}」：{}",
                    name(resident),
                    results
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join("；")
                ),
                (false, Some(e)) => format!("{} 的「{skill}」出错：{e}", name(resident)),
                (false, None) => format!("{} 的「{skill}」没谈完", name(resident)),
            },
        ),
        EventBody::ConversationJoin { resident, .. } => (
            "conversation",
            vec![resident.clone()],
            format!("{} 加入了聊天", name(resident)),
        ),
        EventBody::ConversationEnd {
            participants,
            topic,
            messages,
            ..
        } => (
            "conversation",
            participants.clone(),
            format!("{} 聊完了（{topic}，{messages} 句）", names(participants)),
        ),
        EventBody::Message {
            speaker,
            text,
            conversation,
            ..
        } => {
            return Some(FeedEntry {
                time: event.time,
                kind: "message",
                residents: vec![speaker.clone()],
                conversation: Some(*conversation),
                text: format!("{}：{text}", name(speaker)),
            });
        }
        EventBody::RelationshipChange {
            resident,
            other,
            old_strength,
            new_strength,
            relation,
            ..
        } => (
            "relationship",
            vec![resident.clone(), other.clone()],
            format!(
                "{} 对 {} 的好感：{old_strength:.0} 变为 {new_strength:.0}（{relation:?}）",
                name(resident),
                name(other)
            ),
        ),
        EventBody::AppointmentMade {
            residents,
            location,
            at,
            ..
        } => (
            "appointment",
            residents.clone(),
            format!(
                "{} 约好 {} 在 {} 见面",
                names(residents),
                at.stamp(),
                place(location)
            ),
        ),
        EventBody::AppointmentKept {
            residents,
            location,
            ..
        } => (
            "appointment",
            residents.clone(),
            format!("{} 在 {} 如约见面", names(residents), place(location)),
        ),
        EventBody::AppointmentMissed {
            residents,
            location,
            ..
        } => (
            "appointment",
            residents.clone(),
            format!("{} 在 {} 的约定落空了", names(residents), place(location)),
        ),
        EventBody::Appointment {
            resident,
            gathering,
            will_attend,
            ..
        } => (
            "appointment",
            vec![resident.clone()],
            format!(
                "{} 得知「{gathering}」，{}",
                name(resident),
                if *will_attend {
                    "打算去"
                } else {
                    "不打算去"
                }
            ),
        ),
        EventBody::Notice { resident, text, .. } => (
            "notice",
            vec![resident.clone()],
            format!("{} 贴出公告：{text}", name(resident)),
        ),
        EventBody::NoticeRead {
            resident, author, ..
        } => (
            "notice",
            vec![resident.clone()],
            format!("{} 读了 {} 的公告", name(resident), name(author)),
        ),
        EventBody::Sleep {
            resident, location, ..
        } => (
            "sleep",
            vec![resident.clone()],
            format!("{} 在 {} 睡下了", name(resident), place(location)),
        ),
        EventBody::Wake { resident, .. } => (
            "wake",
            vec![resident.clone()],
            format!("{} 醒了", name(resident)),
        ),
        EventBody::Consolidate {
            resident, entries, ..
        } => (
            "consolidate",
            vec![resident.clone()],
            format!("{} 把今天的 {entries} 条记忆整理成摘要", name(resident)),
        ),
        EventBody::LlmCall {
            resident,
            call,
            outcome,
            used,
            latency_ms,
            ..
        } => (
            "llm",
            vec![resident.clone()],
            format!(
                "{} 的 {} 调用：{outcome:?}，用了 {used:?}（{latency_ms} ms）",
                name(resident),
                call.as_str()
            ),
        ),
        EventBody::Start { .. } | EventBody::LlmUsage { .. } | EventBody::End { .. } => {
            return None;
        }
    };
    Some(FeedEntry {
        time: event.time,
        kind,
        residents,
        conversation: None,
        text,
    })
}

fn read_events(
    mut events: MessageReader<SimEvent>,
    roster: Res<Roster>,
    town: Res<Town>,
    mut feed: ResMut<EventFeed>,
) {
    for event in events.read() {
        if let Some(entry) = describe(event, &roster, &town) {
            feed.entries.push_back(entry);
            feed.total += 1;
            if feed.entries.len() > KEEP {
                feed.entries.pop_front();
            }
        }
    }
}

/// Once per game hour, every tie's strength.
fn sample_relations(
    clock: Res<Clock>,
    roster: Res<Roster>,
    residents: Query<(&Resident, &Relationships)>,
    mut history: ResMut<RelationHistory>,
) {
    let hour = clock.now.0.div_euclid(3600);
    if history.last_hour == Some(hour) {
        return;
    }
    history.last_hour = Some(hour);
    let mut ties = vec![Vec::new(); roster.len()];
    for (r, rel) in &residents {
        if let Some(slot) = ties.get_mut(r.idx as usize) {
            *slot = rel.0.iter().map(|t| (t.with_idx, t.strength)).collect();
        }
    }
    history.samples.push((clock.now, ties));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::testing::view_app;

    /// A day of the default town: the stream fills with described events of
    /// known kinds, conversations are counted, relationships sampled hourly.
    #[test]
    fn the_stream_counts_and_samples_follow_the_town() {
        let mut app = view_app();
        app.add_plugins(plugin);
        for _ in 0..(14 * 60) {
            app.update();
        }
        let feed = app.world().resource::<EventFeed>();
        assert!(feed.entries.len() > 50, "{} entries", feed.entries.len());
        for e in &feed.entries {
            assert!(KINDS.contains(&e.kind), "{}", e.kind);
            assert!(!e.residents.is_empty());
            assert!(!e.text.is_empty());
        }
        let roster = app.world().resource::<Roster>();
        let first_plan = feed.entries.iter().find(|e| e.kind == "plan").unwrap();
        assert!(
            first_plan
                .text
                .starts_with(roster.name(&first_plan.residents[0])),
            "{}",
            first_plan.text
        );
        let talks = feed
            .entries
            .iter()
            .filter(|e| e.kind == "conversation" && e.text.contains("聊了起来"))
            .count() as u32;
        assert!(talks > 0, "no conversation by 20:00");
        let state = app.world().resource::<crate::sim::social::SocialState>();
        assert_eq!(state.started_today, talks);
        let history = app.world().resource::<RelationHistory>();
        // 06:00 … 20:00: one sample an hour.
        assert_eq!(history.samples.len(), 15);
        let (a, b) = (0..roster.len() as u32)
            .flat_map(|a| (0..roster.len() as u32).map(move |b| (a, b)))
            .find(|&(a, b)| !history.series(a, b).is_empty())
            .expect("some tie");
        assert!(history.series(a, b).len() > 1);
    }
}
