//! Each resident's memory stream, fed from the step's events, and the nightly
//! consolidation that replaces a day's entries with one summary.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::actions::FellAsleep;
use super::event_log::{EventBody, SimEvent};
use super::notices::NoticeBoard;
use super::residents::{ActivityKind, AsyncMind, Census, NightState, Persona, Resident, Roster};
use super::{ActiveBrain, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{LocationId, ResidentId, Town};
use crate::sim::StepCx;
use crate::sim::brain::SummaryContext;

/// Where a memory came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// From the scenario: background and goals. Never consolidated away.
    Initial,
    /// Something the resident set out to do.
    Plan,
    /// A conversation.
    Dialogue,
    /// A notice posted or read.
    Notice,
    /// Something seen or learnt (a gathering, an appointment).
    Observation,
    /// A night's consolidated summary.
    Summary,
}

/// One memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Memory {
    /// When it happened.
    pub(crate) time: GameTime,
    /// Where it came from.
    pub kind: MemoryKind,
    /// 0–100.
    pub importance: u8,
    /// What is remembered.
    pub text: String,
}

impl Memory {
    /// A memory read back from a save.
    pub(crate) fn restored(time: GameTime, kind: MemoryKind, importance: u8, text: String) -> Self {
        Self {
            time,
            kind,
            importance,
            text,
        }
    }

    /// `[YYYY-MM-DD HH:MM] text`
    pub fn line(&self) -> String {
        format!("{} {}", self.time.stamp(), self.text)
    }
}

/// A resident's memories, oldest first.
#[derive(Component, Debug, Clone, Default)]
pub struct Memories {
    /// The entries, oldest first.
    pub entries: Vec<Memory>,
}

impl Memories {
    /// Remembers `text` (importance capped at 100).
    pub fn push(&mut self, time: GameTime, kind: MemoryKind, importance: u8, text: String) {
        self.entries.push(Memory {
            time,
            kind,
            importance: importance.min(100),
            text,
        });
    }

    /// Remembers the scenario's background (never consolidated away).
    pub fn push_initial(&mut self, time: GameTime, text: String) {
        self.push(time, MemoryKind::Initial, 80, text);
    }

    /// The newest `n` entries, oldest first.
    pub fn recent(&self, n: usize) -> &[Memory] {
        &self.entries[self.entries.len().saturating_sub(n)..]
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<SummaryRequest>().add_systems(
        SimStep,
        (record, consolidate.in_set(Consolidation))
            .chain()
            .in_set(SimSet::Memory),
    );
}

/// How much each kind of memory matters (0–100): what a night's summary and
/// the waking thought pick first.
mod importance {
    /// Going to a gathering, posting a notice.
    pub(super) const PLAN_EVENTFUL: u8 = 45;
    /// Going to see people.
    pub(super) const PLAN_SOCIAL: u8 = 25;
    /// Sleeping, idling.
    pub(super) const PLAN_ROUTINE: u8 = 5;
    /// Any other plan.
    pub(super) const PLAN: u8 = 12;
    /// What a HEART RULE skill found out.
    pub(super) const SKILL_LEARNT: u8 = 80;
    /// An appointment made.
    pub(super) const APPOINTMENT: u8 = 60;
    /// Stood up at an appointment.
    pub(super) const STOOD_UP: u8 = 55;
    /// A notice one posted.
    pub(super) const NOTICE_POSTED: u8 = 60;
    /// A notice one read.
    pub(super) const NOTICE_READ: u8 = 65;
    /// A gathering one means to go to …
    pub(super) const GOING: u8 = 70;
    /// … or heard of and will miss.
    pub(super) const NOT_GOING: u8 = 40;
    /// Who one saw on arriving somewhere.
    pub(super) const SEEN: u8 = 15;
}

/// Stores one memory for a resident.
type Remember<'a> = dyn FnMut(&ResidentId, GameTime, MemoryKind, u8, String) + 'a;

/// What memories are written from.
struct Sources<'a> {
    roster: &'a Roster,
    town: &'a Town,
    census: &'a Census,
    board: &'a NoticeBoard,
}

/// Turns this step's events into memories of the residents involved.
fn record(
    mut reader: MessageReader<SimEvent>,
    roster: Res<Roster>,
    town: Res<Town>,
    census: Res<Census>,
    board: Res<NoticeBoard>,
    mut q: Query<&mut Memories>,
) {
    let mut remember =
        |id: &ResidentId, time: GameTime, kind: MemoryKind, imp: u8, text: String| {
            if let Some(mut m) = roster.entity(id).and_then(|e| q.get_mut(e).ok()) {
                m.push(time, kind, imp, text);
            }
        };
    let sources = Sources {
        roster: &roster,
        town: &town,
        census: &census,
        board: &board,
    };
    for e in reader.read() {
        sources.recall(e, &mut remember);
    }
}

impl Sources<'_> {
    /// The memories one event leaves.
    fn recall(&self, e: &SimEvent, remember: &mut Remember) {
        match &e.body {
            EventBody::Plan { .. } | EventBody::Arrive { .. } => self.own_day(e, remember),
            EventBody::ConversationEnd { .. }
            | EventBody::SkillEnd { .. }
            | EventBody::AppointmentMade { .. }
            | EventBody::AppointmentMissed { .. } => self.with_others(e, remember),
            EventBody::Notice { .. }
            | EventBody::NoticeRead { .. }
            | EventBody::Appointment { .. } => self.heard(e, remember),
            _ => {}
        }
    }

    fn place_name(&self, id: &LocationId) -> &str {
        self.town
            .find(id.as_str())
            .map_or("", |l| self.town.name(l))
    }

    /// Plans, and whom one saw on arriving.
    fn own_day(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            EventBody::Plan {
                resident,
                action,
                activity,
                target_location,
                dialogue,
                ..
            } => {
                let place = self.place_name(target_location);
                let importance = match activity {
                    ActivityKind::Attend | ActivityKind::PostNotice => importance::PLAN_EVENTFUL,
                    ActivityKind::Socialise => importance::PLAN_SOCIAL,
                    ActivityKind::Sleep | ActivityKind::Idle => importance::PLAN_ROUTINE,
                    _ => importance::PLAN,
                };
                let text = format!("{action} @{place}：{dialogue}");
                remember(resident, t, MemoryKind::Plan, importance, text);
            }
            EventBody::Arrive { resident, location } => {
                let (Some(place), Some(me)) =
                    (self.town.find(location.as_str()), self.roster.idx(resident))
                else {
                    return;
                };
                let seen: Vec<&str> = self.census.at_place[place.i()]
                    .iter()
                    .filter(|&&i| i != me)
                    .take(3)
                    .map(|&i| self.roster.name_of(i))
                    .collect();
                if !seen.is_empty() {
                    let text = format!("在{}看到了{}", self.town.name(place), seen.join("、"));
                    remember(resident, t, MemoryKind::Observation, importance::SEEN, text);
                }
            }
            _ => {}
        }
    }

    /// Conversations, skills and appointments.
    fn with_others(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            // Each participant keeps its own one-line view, importance from the social rules.
            EventBody::ConversationEnd { memories, .. } => {
                for m in memories {
                    let importance = m.importance.min(100) as u8;
                    let text = m.text.clone();
                    remember(&m.resident, t, MemoryKind::Dialogue, importance, text);
                }
            }
            // What a skill found out stays with the one who ran it.
            EventBody::SkillEnd {
                resident,
                partner,
                skill,
                finished: true,
                results,
                ..
            } if !results.is_empty() => {
                let who = self
                    .roster
                    .idx(partner)
                    .map_or("", |i| self.roster.name_of(i));
                let found: Vec<String> = results.iter().map(|(k, v)| format!("{k}：{v}")).collect();
                let text: String = format!("和{who}谈了「{skill}」，了解到{}", found.join("；"))
                    .chars()
                    .take(120)
                    .collect();
                remember(
                    resident,
                    t,
                    MemoryKind::Dialogue,
                    importance::SKILL_LEARNT,
                    text,
                );
            }
            EventBody::AppointmentMade {
                residents,
                location,
                at,
                ..
            } => {
                let place = self.place_name(location);
                for (k, r) in residents.iter().enumerate() {
                    let other = self.roster.name(&residents[1 - k.min(1)]);
                    let when = crate::sim::social::meetings::when_text(t, *at);
                    let text = format!("和{other}约好{when}在{place}见面");
                    remember(r, t, MemoryKind::Plan, importance::APPOINTMENT, text);
                }
            }
            EventBody::AppointmentMissed {
                residents, showed, ..
            } => {
                for k in 0..residents.len().min(2) {
                    if showed[k] && !showed[1 - k] {
                        let other = self.roster.name(&residents[1 - k]);
                        let text = format!("{other}说好要来，却让我白等了一场");
                        let kind = MemoryKind::Observation;
                        remember(&residents[k], t, kind, importance::STOOD_UP, text);
                    }
                }
            }
            _ => {}
        }
    }

    /// Notices posted and read, and gatherings heard of.
    fn heard(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            EventBody::Notice { resident, text, .. } => {
                let text = format!("我在公告板上贴了公告：「{text}」");
                remember(
                    resident,
                    t,
                    MemoryKind::Notice,
                    importance::NOTICE_POSTED,
                    text,
                );
            }
            EventBody::NoticeRead {
                resident,
                notice,
                author,
            } => {
                if let Some(n) = self.board.notices.iter().find(|n| n.id == *notice) {
                    let text = format!(
                        "在公告板上看到{}的公告：「{}」",
                        self.roster.name(author),
                        n.text
                    );
                    remember(
                        resident,
                        t,
                        MemoryKind::Notice,
                        importance::NOTICE_READ,
                        text,
                    );
                }
            }
            EventBody::Appointment {
                resident,
                gathering,
                will_attend,
                ..
            } => {
                let (text, importance) = if *will_attend {
                    (format!("打算去参加{gathering}"), importance::GOING)
                } else {
                    (
                        format!("听说了{gathering}，不过可能去不了"),
                        importance::NOT_GOING,
                    )
                };
                remember(resident, t, MemoryKind::Plan, importance, text);
            }
            _ => {}
        }
    }
}

/// Replaces the text of the memory of `kind` stored at `time` as `old` (an
/// async mind's own words arriving after the built-in ones); false if it is
/// gone (consolidated into the night's summary).
pub fn revise(
    memories: &mut Memories,
    time: GameTime,
    kind: MemoryKind,
    old: &str,
    new: String,
) -> bool {
    match memories
        .entries
        .iter_mut()
        .rev()
        .find(|m| m.time == time && m.kind == kind && m.text == old)
    {
        Some(m) => {
            m.text = new;
            true
        }
        None => false,
    }
}

/// A night's entries to be summarised.
#[derive(Debug, Clone)]
pub struct PendingSummary {
    /// The date of the night.
    pub(crate) night: chrono::NaiveDate,
    /// The day's entries, oldest first.
    pub(crate) entries: Vec<Memory>,
}

/// An async mind should summarise these entries (taken out of the stream).
#[derive(Message, Debug, Clone)]
pub struct SummaryRequest {
    /// Whose memories.
    pub(crate) entity: Entity,
    /// What to summarise.
    pub(crate) pending: PendingSummary,
}

/// Memories are recorded, then consolidated; async minds pick up summary requests after.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Consolidation;

/// When a resident falls asleep for long enough and has not consolidated tonight,
/// the day's entries become one summary (the brain writes it), dated that day.
fn consolidate(
    mut reader: MessageReader<FellAsleep>,
    mut cx: StepCx,
    brain: Res<ActiveBrain>,
    mut requests: MessageWriter<SummaryRequest>,
    mut q: Query<(
        &Resident,
        &Persona,
        &mut Memories,
        &mut NightState,
        Has<AsyncMind>,
    )>,
) {
    for &FellAsleep { entity, until } in reader.read() {
        let Ok((r, persona, mut memories, mut night, asynchronous)) = q.get_mut(entity) else {
            continue;
        };
        let tonight = cx.clock.now.night_of();
        let long_enough =
            cx.clock.now.minutes_until(until) > cx.tuning.durations.consolidate_after as i64;
        if !long_enough || night.consolidated == Some(tonight) {
            continue;
        }
        night.consolidated = Some(tonight);
        // Split the day's entries from the scenario's memories and older summaries.
        let (entries, kept): (Vec<Memory>, Vec<Memory>) = std::mem::take(&mut memories.entries)
            .into_iter()
            .partition(|m| !matches!(m.kind, MemoryKind::Initial | MemoryKind::Summary));
        memories.entries = kept;
        let pending = PendingSummary {
            night: tonight,
            entries,
        };
        if asynchronous {
            requests.write(SummaryRequest { entity, pending });
            continue;
        }
        let summary = brain.0.summarise(&SummaryContext {
            me: &persona.0,
            night: tonight,
            entries: &pending.entries,
        });
        store_summary(
            &mut memories,
            r,
            &pending,
            summary,
            cx.clock.now,
            &mut cx.events,
        );
    }
}

/// Adds a night's summary to the stream and logs it.
pub fn store_summary(
    memories: &mut Memories,
    r: &Resident,
    pending: &PendingSummary,
    summary: String,
    now: GameTime,
    events: &mut MessageWriter<SimEvent>,
) {
    let importance = pending
        .entries
        .iter()
        .map(|m| m.importance)
        .max()
        .unwrap_or(30);
    let stamp = pending
        .night
        .and_hms_opt(23, 59, 0)
        .map(GameTime::from_datetime)
        .unwrap_or(now);
    // Keep the stream in time order: the summary goes before anything newer.
    let at = memories.entries.partition_point(|m| m.time <= stamp);
    memories.entries.insert(
        at,
        Memory {
            time: stamp,
            kind: MemoryKind::Summary,
            importance: importance.min(100),
            text: summary.clone(),
        },
    );
    events.write(SimEvent {
        time: now,
        body: EventBody::Consolidate {
            resident: r.id.clone(),
            night: pending.night.to_string(),
            entries: pending.entries.len() as u32,
            summary,
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_stamped_lines() {
        let mut m = Memories::default();
        let t = GameTime::parse("2026-04-06 10:30").unwrap();
        m.push(t, MemoryKind::Dialogue, 150, "和阿朵聊了美食".into());
        assert_eq!(m.entries[0].line(), "[2026-04-06 10:30] 和阿朵聊了美食");
        assert_eq!(m.entries[0].importance, 100, "importance is capped at 100");
        assert_eq!(m.recent(5).len(), 1);
    }
}
