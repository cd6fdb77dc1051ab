//! Memories from the step's events: plans, arrivals, conversations, skills,
//! appointments, notices and gatherings, each with its importance.

use bevy::prelude::*;

use super::store::{Memories, Memory, MemoryKind};
use crate::base::time::GameTime;
use crate::scenario::{LocationId, ResidentId, Town};
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::notice_board::NoticeBoard;
use crate::sim::residents::ActivityKind;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::Roster;

/// How much each kind of memory matters (0–100): what a night's summary and
/// the waking thought pick first.
mod importance {
    /// Setting off for a gathering: one of the day's events.
    pub(super) const ATTENDING: u8 = 75;
    /// Posting a notice.
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
    /// A gathering one was at: the evening of the day.
    pub(super) const GATHERED: u8 = 85;
    /// What one heard from someone (news, a quarrel, a date).
    pub(super) const HEARD: u8 = 35;
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

/// From this many events a step's memories are written on all threads.
const PARALLEL_EVENTS: usize = 256;

/// Turns this step's events into memories of the residents involved: the
/// texts are written on the pool's threads, in chunks of events, and stored
/// in the events' order.
pub(super) fn record(
    mut reader: MessageReader<SimEvent>,
    roster: Res<Roster>,
    town: Res<Town>,
    census: Res<Census>,
    board: Res<NoticeBoard>,
    mut q: Query<&mut Memories>,
) {
    let events: Vec<&SimEvent> = reader.read().collect();
    let sources = Sources {
        roster: &roster,
        town: &town,
        census: &census,
        board: &board,
    };
    let parts = crate::sim::par_chunks(&events, PARALLEL_EVENTS, |part| {
        let mut out = Vec::new();
        let mut remember =
            |id: &ResidentId, time: GameTime, kind: MemoryKind, imp: u8, text: String| {
                if let Some(i) = roster.idx(id) {
                    let memory = Memory::new(time, kind, imp, text);
                    // A sighting is checked against what was kept before
                    // this step here, on all threads.
                    let seen = sighting(&memory)
                        .then(|| q.get(roster.entity_of(i)).ok())
                        .flatten()
                        .map(|m| (m.entries().len(), seen_again_today(m.entries(), &memory)));
                    out.push((i, memory, seen));
                }
            };
        for e in part {
            sources.recall(e, &mut remember);
        }
        out
    });
    for (i, memory, seen) in parts.into_iter().flatten() {
        let Ok(mut m) = q.get_mut(roster.entity_of(i)) else {
            continue;
        };
        // Against what this step has kept so far; past it, what was found above.
        let (before, seen) = seen.unwrap_or((0, false));
        let now = &m.entries()[before.min(m.entries().len())..];
        let seen = match seen_in(now, &memory) {
            Seen::Yes => true,
            Seen::No => false,
            Seen::Earlier => seen,
        };
        if !seen {
            m.keep(memory);
        }
    }
}

/// Whether `e` is a sighting: whom one saw on arriving.
fn sighting(e: &Memory) -> bool {
    e.kind == MemoryKind::Observation && e.importance == importance::SEEN
}

/// Whether a sighting was among some entries, the latest ones first.
enum Seen {
    Yes,
    /// Not today (an entry of another day came first).
    No,
    /// Not among them, and all were today: the entries before them decide.
    Earlier,
}

/// Whether `memory` is a sighting (「在沈家小屋看到了沈月」) already kept
/// today among `entries` (newest last): coming home to the same family
/// twice is one memory, not two.
fn seen_again_today(entries: &[Memory], memory: &Memory) -> bool {
    matches!(seen_in(entries, memory), Seen::Yes)
}

/// [`seen_again_today`] over `entries` alone, saying whether earlier
/// entries could still decide.
fn seen_in(entries: &[Memory], memory: &Memory) -> Seen {
    if !sighting(memory) {
        return Seen::No;
    }
    let day = memory.time.day_number();
    for e in entries.iter().rev() {
        if e.time.day_number() != day {
            return Seen::No;
        }
        if sighting(e) && e.text == memory.text {
            return Seen::Yes;
        }
    }
    Seen::Earlier
}

impl Sources<'_> {
    /// The memories one event leaves.
    fn recall(&self, e: &SimEvent, remember: &mut Remember) {
        match &e.body {
            EventBody::Plan { .. } | EventBody::Arrive { .. } => self.own_day(e, remember),
            EventBody::ConversationEnd { .. }
            | EventBody::DateEnd(_)
            | EventBody::SkillEnd { .. }
            | EventBody::AppointmentMade { .. }
            | EventBody::AppointmentMissed { .. } => self.with_others(e, remember),
            EventBody::Notice { .. }
            | EventBody::NoticeRead { .. }
            | EventBody::Appointment { .. } => self.heard(e, remember),
            EventBody::Gathered { .. } | EventBody::Learned { .. } => self.learnt(e, remember),
            _ => {}
        }
    }

    /// A gathering one was at; news one was told.
    fn learnt(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            EventBody::Gathered {
                gathering,
                location,
                organiser,
                residents,
            } => {
                let place = self.place_name(location);
                let host = self.roster.name(organiser);
                let n = residents.len();
                for who in residents {
                    let text = if who == organiser {
                        format!("我张罗的{gathering}在{place}办成了，来了{n}个人")
                    } else {
                        format!("在{place}参加了{host}张罗的{gathering}，来了{n}个人")
                    };
                    let kind = MemoryKind::Observation;
                    remember(who, t, kind, importance::GATHERED, text);
                }
            }
            // Word of mouth, kept in whose words it came.
            EventBody::Learned {
                resident,
                text,
                from: Some(by),
                fact,
                ..
            } if fact != "job" && fact != "food" => {
                let text = format!("听{}说，{text}", self.roster.name(by));
                let kind = MemoryKind::Observation;
                remember(resident, t, kind, importance::HEARD, text);
            }
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
                activity,
                target_location,
                dialogue,
                ..
            } => {
                let place = self.place_name(target_location);
                let importance = match activity {
                    ActivityKind::Attend => importance::ATTENDING,
                    ActivityKind::PostNotice => importance::PLAN_EVENTFUL,
                    ActivityKind::Socialise => importance::PLAN_SOCIAL,
                    ActivityKind::Sleep | ActivityKind::Idle => importance::PLAN_ROUTINE,
                    _ => importance::PLAN,
                };
                // In Chinese: the English action stays in the log's `action`.
                let text = format!("{}：{dialogue}", activity.doing_zh(place));
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
            EventBody::ConversationEnd { memories, .. }
            | EventBody::DateEnd(crate::sim::event_log::dates::DateEnded { memories, .. }) => {
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
                // The partner's answers are in its own words: 「我是…」 is the
                // partner's, told in the third person.
                let found: Vec<String> = results
                    .iter()
                    .map(|(k, v)| format!("{k}：{}", told_of(v, who)))
                    .collect();
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

/// Someone's own words (「我在整理旧书」) told of them (「苏文在整理旧书」).
fn told_of(words: &str, who: &str) -> String {
    if who.is_empty() {
        return words.to_string();
    }
    words
        .replace("我们", "\u{0}")
        .replace('我', who)
        .replace('\u{0}', "他们")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sighting or another memory, on `day` at `hour`.
    fn memory(day: i64, hour: i64, seen: bool, text: &str) -> Memory {
        let (kind, imp) = match seen {
            true => (MemoryKind::Observation, importance::SEEN),
            false => (MemoryKind::Observation, importance::HEARD),
        };
        Memory::new(GameTime(day * 86_400 + hour * 3600), kind, imp, text.into())
    }

    /// Checking a sighting in two parts, the entries before a step (on all
    /// threads) and those the step kept (in order), finds what checking
    /// them all at once finds, wherever the step began.
    #[test]
    fn a_sighting_checked_in_two_parts_is_checked_as_in_one() {
        let entries = vec![
            memory(1, 20, true, "在家看到了沈月"),
            memory(2, 8, true, "在家看到了沈月"),
            memory(2, 9, false, "在家看到了沈月"),
            memory(3, 7, false, "听说了集市"),
            memory(3, 8, true, "在酒馆看到了何青"),
            memory(3, 9, false, "在家看到了沈月"),
        ];
        let asked = [
            memory(3, 10, true, "在酒馆看到了何青"),
            memory(3, 10, true, "在家看到了沈月"),
            memory(2, 10, true, "在家看到了沈月"),
            memory(3, 10, false, "在酒馆看到了何青"),
        ];
        for m in &asked {
            let whole = seen_again_today(&entries, m);
            for before in 0..=entries.len() {
                let earlier = seen_again_today(&entries[..before], m);
                let split = match seen_in(&entries[before..], m) {
                    Seen::Yes => true,
                    Seen::No => false,
                    Seen::Earlier => earlier,
                };
                assert_eq!(split, whole, "{} split at {before}", m.text);
            }
        }
        assert!(seen_again_today(&entries, &asked[0]));
        assert!(
            !seen_again_today(&entries, &asked[1]),
            "yesterday's does not count"
        );
    }

    #[test]
    fn a_skills_answers_are_told_of_the_one_who_gave_them() {
        assert_eq!(
            told_of("我是星火酒馆老板", "钟大川"),
            "钟大川是星火酒馆老板"
        );
        assert_eq!(told_of("我们都挺好", "苏文"), "他们都挺好");
        assert_eq!(told_of("不错", "苏文"), "不错");
    }
}
