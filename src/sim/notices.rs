//! Notice boards: residents post at a board and read what is there when they come by.
//! A notice from a gathering's organiser tells the reader about the gathering.

use bevy::prelude::*;
use rand::RngExt;

use super::actions::PassedBy;
use super::event_log::events::{EventBody, SimEvent};
use super::notice_board::NoticeBoard;
use super::residents::census::Census;
use super::residents::roster::Roster;
use super::residents::{Agenda, Appointment, Heard, Persona, Relationships, Resident, ResidentRng};
use super::social::invites::attendance_chance;
use super::town::Gatherings;
use super::{SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, LocIdx, Profile};
use crate::sim::StepCx;
use crate::sim::residents::roster::RosterIdx;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<NoticeBoard>()
        .add_systems(SimStep, read_notices.in_set(SimSet::Notices));
}

/// Whether a resident who just heard of `g` means to go. Conscientious people keep
/// plans, extraverts like parties, friends of the organiser come for them; a notice
/// with time and place convinces more than word of mouth.
pub fn decide_attendance(
    me: &Profile,
    heard: Heard,
    bond_with_organiser: f32,
    rng: &mut impl rand::Rng,
) -> bool {
    rng.random::<f32>() < attendance_chance(me, heard, bond_with_organiser)
}

/// Learns of gathering `g`: adds it to the agenda and logs the decision
/// (`decided`: one already made, as a guest's answer to an invitation).
pub fn learn_gathering(
    g: &Gathering,
    (heard, decided): (Heard, Option<bool>),
    time: GameTime,
    who: (&Resident, &Persona, &Relationships),
    agenda: &mut Agenda,
    rng: &mut ResidentRng,
    events: &mut MessageWriter<SimEvent>,
) {
    if g.ends <= time {
        return;
    }
    let known = agenda.appointments.iter().position(|a| a.gathering == g.id);
    // Word of mouth first, then the notice with its time and place: a second,
    // firmer chance to decide to go; or the notice first, then the organiser
    // asking in person. Nothing else changes a made-up mind.
    let reconsider = known.filter(|&i| {
        let a = &agenda.appointments[i];
        !a.will_attend
            && matches!(
                (a.heard, heard),
                (Heard::Invitation | Heard::Told, Heard::Notice)
                    | (Heard::Notice | Heard::Told, Heard::Invitation)
            )
    });
    if known.is_some() && reconsider.is_none() {
        return;
    }
    let (r, persona, rels) = who;
    let will_attend = decided.unwrap_or_else(|| {
        rng.draw(|r| decide_attendance(persona, heard, rels.strength(&g.organiser), r))
    });
    let entry = Appointment {
        gathering: g.id,
        heard,
        will_attend,
    };
    match reconsider {
        Some(i) => agenda.appointments[i] = entry,
        None => agenda.appointments.push(entry),
    }
    events.write(SimEvent {
        time,
        body: EventBody::Appointment {
            resident: r.id.clone(),
            gathering: g.title.clone(),
            heard,
            will_attend,
        },
    });
}

fn read_notices(
    mut cx: StepCx,
    board: Res<NoticeBoard>,
    census: Res<Census>,
    gatherings: Res<Gatherings>,
    roster: Res<Roster>,
    (mut passers, mut learn): (
        MessageReader<PassedBy>,
        MessageWriter<crate::sim::knowledge::facts::Learn>,
    ),
    mut q: Query<(
        &Resident,
        &Persona,
        &Relationships,
        &mut Agenda,
        &mut ResidentRng,
    )>,
) {
    let passing: Vec<PassedBy> = passers.read().copied().collect();
    let mut readers: Vec<(RosterIdx, LocIdx)> = Vec::new();
    for place in board.locations() {
        for &idx in &census.at_place[place.i()] {
            if !census.asleep(idx) {
                readers.push((idx, place));
            }
        }
    }
    // Walkers passing through a board's place read it on the way.
    for p in &passing {
        if let Ok((r, ..)) = q.get(p.entity)
            && board.at(p.place).next().is_some()
        {
            readers.push((r.idx, p.place));
        }
    }
    if readers.is_empty() {
        return;
    }
    readers.sort();
    readers.dedup_by_key(|x| x.0);
    // Only the readers are touched, in roster order, not the whole town.
    for &(idx, place) in &readers {
        let Ok((r, persona, rels, mut agenda, mut rng)) = q.get_mut(roster.entity_of(idx)) else {
            continue;
        };
        for n in board.at(place) {
            if agenda.notices_read.contains(&n.id) || n.author == r.id {
                continue;
            }
            agenda.notices_read.push(n.id);
            cx.events.write(SimEvent {
                time: cx.clock.now,
                body: EventBody::NoticeRead {
                    resident: r.id.clone(),
                    notice: n.id,
                    author: n.author.clone(),
                },
            });
            for g in gatherings.iter().filter(|g| g.organiser == n.author) {
                learn.write(crate::sim::knowledge::facts::Learn {
                    who: idx,
                    about: crate::sim::knowledge::facts::About::Gathering { gathering: g.id },
                    source: crate::sim::knowledge::facts::Source::Notice { id: n.id },
                    time: cx.clock.now,
                });
                learn_gathering(
                    g,
                    (Heard::Notice, None),
                    cx.clock.now,
                    (r, persona, rels),
                    &mut agenda,
                    &mut rng,
                    &mut cx.events,
                );
            }
        }
    }
}
