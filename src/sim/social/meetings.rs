//! Appointments made in conversation ("明天傍晚在酒馆见"): each side decides
//! by conscientiousness whether it will really come, plans for it the next day
//! (see the built-in planner), and the meeting is kept when both are there
//! around the hour; otherwise it is missed, and whoever waited in vain thinks
//! a little less of the other.

use bevy::prelude::*;

use super::analysis;
use super::message::Proposal;
use crate::base::time::{GameTime, clock_text, spoken_clock};
use crate::scenario::{LocIdx, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{Agenda, Relationships};
use crate::sim::town::ActiveTuning;

/// Whether an appointment has been settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeetingStatus {
    /// Its time has not come and gone.
    Pending,
    /// Both came.
    Kept,
    /// Someone did not.
    Missed,
}

/// An appointment two residents made in a conversation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Meeting {
    /// Its number, unique in the run.
    pub id: u32,
    /// Roster indices: who proposed, who accepted.
    pub a: RosterIdx,
    /// See `a`.
    pub b: RosterIdx,
    /// Where.
    pub place: LocIdx,
    /// When.
    pub at: GameTime,
    /// When it was made.
    pub made: GameTime,
    /// Whether each means to come (decided when it was made).
    pub keep: [bool; 2],
    /// Whether each was at the place during the window.
    pub showed: [bool; 2],
    /// Whether it has been settled.
    pub status: MeetingStatus,
}

/// Every appointment not yet settled.
#[derive(Resource, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Meetings {
    /// The appointments, in the order made.
    pub list: Vec<Meeting>,
    next_id: u32,
}

impl Meetings {
    /// The number the next appointment gets.
    pub(crate) fn next_id(&self) -> u32 {
        self.next_id
    }

    /// Appointments read back from a save.
    pub(crate) fn restored(list: Vec<Meeting>, next_id: u32) -> Self {
        Self { list, next_id }
    }

    /// Whether the resident has an appointment still to come.
    pub fn pending_for(&self, idx: RosterIdx) -> bool {
        self.list
            .iter()
            .any(|m| m.status == MeetingStatus::Pending && (m.a == idx || m.b == idx))
    }

    /// The appointment with this number.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Meeting> {
        self.list.iter_mut().find(|m| m.id == id)
    }

    /// Registers an accepted proposal and logs it; returns its id.
    pub fn make(
        &mut self,
        p: Proposal,
        now: GameTime,
        keep: [bool; 2],
        roster: &Roster,
        town: &Town,
        events: &mut MessageWriter<SimEvent>,
    ) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.list.push(Meeting {
            id,
            a: p.proposer,
            b: p.partner,
            place: p.place,
            at: p.at,
            made: now,
            keep,
            showed: [false; 2],
            status: MeetingStatus::Pending,
        });
        events.write(SimEvent {
            time: now,
            body: EventBody::AppointmentMade {
                appointment: id,
                residents: vec![
                    roster.id_of(p.proposer).clone(),
                    roster.id_of(p.partner).clone(),
                ],
                location: town.id(p.place).clone(),
                at: p.at,
                will_keep: keep.to_vec(),
            },
        });
        id
    }
}

/// "明天傍晚6点" (or the date when further off), as residents say it.
pub fn when_text(now: GameTime, at: GameTime) -> String {
    let day = match at.day_number() - now.day_number() {
        0 => "今天".to_string(),
        1 => "明天".to_string(),
        2 => "后天".to_string(),
        _ => format!(
            "{}月{}日",
            chrono::Datelike::month(&at.date()),
            chrono::Datelike::day(&at.date())
        ),
    };
    format!("{day}{}{}", at.period(), spoken_clock(at.minute_of_day()))
}

/// Who has turned up at each appointment due now.
pub(super) fn attendance(
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    census: Res<Census>,
    mut meetings: ResMut<Meetings>,
) {
    let now = clock.now;
    let wait = tuning.social.appointments.wait_minutes as i64 * 60;
    for m in meetings.list.iter_mut() {
        if m.status != MeetingStatus::Pending || now.0 < m.at.0 - 30 * 60 || now.0 > m.at.0 + wait {
            continue;
        }
        for (k, who) in [m.a, m.b].into_iter().enumerate() {
            let e = &census.entries[who.i()];
            if !e.walking && e.at == m.place {
                m.showed[k] = true;
            }
        }
    }
}

/// Appointments past their window are missed; settled ones leave the agendas.
pub(super) fn resolve(
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    roster: Res<Roster>,
    mut meetings: ResMut<Meetings>,
    mut people: Query<(&mut Relationships, &mut Agenda)>,
    (mut events, mut learn): (
        MessageWriter<SimEvent>,
        MessageWriter<crate::sim::knowledge::facts::Learn>,
    ),
) {
    let now = clock.now;
    let t = &tuning.social;
    let wait = t.appointments.wait_minutes as i64 * 60;
    for m in meetings.list.iter_mut() {
        if m.status != MeetingStatus::Pending || now.0 <= m.at.0 + wait {
            continue;
        }
        m.status = MeetingStatus::Missed;
        let pair = [m.a, m.b];
        events.write(SimEvent {
            time: now,
            body: EventBody::AppointmentMissed {
                appointment: m.id,
                residents: pair.iter().map(|&i| roster.id_of(i).clone()).collect(),
                location: town.id(m.place).clone(),
                showed: m.showed.to_vec(),
            },
        });
        // Whoever came alone thinks less of the one who stayed away.
        for k in 0..2 {
            if !m.showed[k] || m.showed[1 - k] {
                continue;
            }
            let (me, other) = (pair[k], pair[1 - k]);
            // Both know it: the one who waited, and the one who stayed away.
            let about = crate::sim::knowledge::facts::About::StoodUp {
                absent: other,
                waiting: me,
                place: m.place,
                day: m.at.day_number() as i32,
            };
            for who in [me, other] {
                learn.write(crate::sim::knowledge::facts::Learn {
                    who,
                    about,
                    source: crate::sim::knowledge::facts::Source::Lived,
                    time: now,
                });
            }
            let Ok((mut rels, _)) = people.get_mut(roster.entity_of(me)) else {
                continue;
            };
            let rel = rels.entry(roster.id_of(other), other);
            let old = rel.strength;
            rel.strength = analysis::apply_delta(old, t.relationship.missed_appointment);
            let old_kind = rel.kind;
            rel.kind = analysis::reclassify(rel.kind, rel.strength, &t.relationship);
            events.write(SimEvent {
                time: now,
                body: EventBody::RelationshipChange {
                    resident: roster.id_of(me).clone(),
                    other: roster.id_of(other).clone(),
                    old_strength: old,
                    new_strength: rel.strength,
                    previous_relation: (rel.kind != old_kind).then_some(old_kind),
                    relation: rel.kind,
                    reason: format!(
                        "约好{}在{}见面，{}却没来（{:+}）",
                        clock_text(m.at.minute_of_day()),
                        town.name(m.place),
                        roster.name_of(other),
                        t.relationship.missed_appointment
                    ),
                },
            });
        }
    }
    // Settled appointments leave both agendas and the list.
    for m in meetings
        .list
        .iter()
        .filter(|m| m.status != MeetingStatus::Pending)
    {
        for who in [m.a, m.b] {
            if let Ok((_, mut agenda)) = people.get_mut(roster.entity_of(who)) {
                agenda.meetings.retain(|n| n.appointment != m.id);
            }
        }
    }
    meetings.list.retain(|m| m.status == MeetingStatus::Pending);
}
