//! Each encounter found opens a conversation: conversations it interrupts
//! are closed, a kept appointment is logged, and the new one gets its length,
//! its subject, an invitation or a proposal to meet again.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use rand::RngExt;

use super::{CrowdView, Talking};
use super::{Encounter, Encounters, PeopleQuery, QueryLookup, Scratch, plan_with};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, GatheringIdx, LocIdx, LocationKind, Service, SocialTuning, Town};
use crate::sim::brain::Topic;
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{Agenda, Persona, Relationships, Resident};
use crate::sim::social::invites::{self, InviteAnswer};
use crate::sim::social::meetings::{MeetingStatus, Meetings};
use crate::sim::social::message::{ConversationState, EndCause, Proposal, Trigger};
use crate::sim::social::{Conversation, ForcedEncounters, SocialRng, SocialState};
use crate::sim::town::{ActiveTuning, Gatherings};

/// What opening conversations reads and writes.
#[derive(SystemParam)]
pub(in crate::sim::social) struct Opening<'w, 's> {
    commands: Commands<'w, 's>,
    clock: Res<'w, Clock>,
    tuning: Res<'w, ActiveTuning>,
    town: Res<'w, Town>,
    census: Res<'w, Census>,
    roster: Res<'w, Roster>,
    gatherings: Res<'w, Gatherings>,
    state: ResMut<'w, SocialState>,
    meetings: ResMut<'w, Meetings>,
    rng: ResMut<'w, SocialRng>,
    people: PeopleQuery<'w, 's>,
    agendas: Query<'w, 's, &'static Agenda>,
    conversations: Query<'w, 's, &'static mut Conversation>,
    events: MessageWriter<'w, SimEvent>,
}

/// Finds this step's encounters and opens a conversation for each.
pub(in crate::sim::social) fn start_conversations(
    mut opening: Opening,
    mut forced: ResMut<ForcedEncounters>,
    mut scratch: Local<Scratch>,
) {
    let encounters = opening.find(&mut forced, &mut scratch);
    for enc in encounters.found {
        opening.open(enc);
    }
}

impl Opening<'_, '_> {
    /// This step's encounters, the pairs asked for first.
    fn find(&mut self, forced: &mut ForcedEncounters, scratch: &mut Scratch) -> Encounters {
        let cx = CrowdView {
            now: self.clock.now,
            step_minutes: self.tuning.step_minutes,
            tuning: &self.tuning.social,
            census: &self.census,
            roster: &self.roster,
            state: &self.state,
            meetings: &self.meetings,
            lookup: &QueryLookup {
                roster: &self.roster,
                people: &self.people,
            },
            gatherings: &self.gatherings,
        };
        let requested: Vec<(RosterIdx, RosterIdx)> = forced
            .0
            .drain(..)
            .filter_map(|(a, b)| Some((self.roster.idx(&a)?, self.roster.idx(&b)?)))
            .collect();
        plan_with(&cx, &requested, &mut self.rng, scratch)
    }

    /// Opens the encounter's conversation.
    fn open(&mut self, enc: Encounter) {
        let now = self.clock.now;
        self.interrupt(&enc.interrupts);
        if let Some(id) = enc.meeting
            && self.keep_meeting(id, &enc)
        {
            return;
        }
        let place = self.census.entries[enc.a.i()].at;
        let hosting = self.hosting(&enc, place);
        let entity = |i: RosterIdx| self.roster.entity_of(i);
        let (Ok(pa), Ok(pb)) = (
            self.people.get(entity(enc.a)),
            self.people.get(entity(enc.b)),
        ) else {
            return;
        };
        if enc.trigger == Trigger::Work {
            self.state.greeted.insert((enc.b, place), now);
        }
        let t = &self.tuning.social;
        let mut planned = planned_turns(&enc, (pa.1, pb.1), t, &mut self.rng);
        let invite = self
            .invitation(&enc, (pa.0, pb.0))
            .filter(|_| hosting.is_none());
        let invite_answer = invite
            .and_then(|g| self.gatherings.get(g.i()))
            .and_then(|g| answer_invitation(g, [pa, pb], &mut self.rng));
        if invite_answer.is_some() {
            // Room for the invitation, the answer and a goodbye.
            planned = planned.max(INVITE_TURNS);
        }
        let proposal = (!matches!(enc.trigger, Trigger::Appointment | Trigger::Gathering)
            && planned >= 3
            && invite.is_none()
            && close_enough(pa.2, enc.b, t)
            && close_enough(pb.2, enc.a, t)
            // Those who share a home see each other there anyway.
            && pa.1.home != pb.1.home
            && !self.meetings.pending_for(enc.a)
            && !self.meetings.pending_for(enc.b)
            && self.rng.random::<f32>() < t.appointments.probability)
            .then(|| self.meeting_hours(&enc, now))
            .and_then(|hours| {
                let turns = planned.max(PROPOSAL_TURNS);
                propose(&enc, turns, (place, &hours), &self.town, &mut self.rng)
            });
        if proposal.is_some() {
            planned = planned.max(PROPOSAL_TURNS);
        }
        self.state.next_id += 1;
        let id = self.state.next_id;
        let role = (enc.trigger == Trigger::Work)
            .then(|| pa.1.work.as_ref().and_then(|w| w.role))
            .flatten();
        let members: Vec<RosterIdx> = [enc.a, enc.b].into_iter().chain(enc.crowd).collect();
        let mut c = Conversation::new(id, members.clone(), place, enc.trigger, now);
        c.subject = Topic::choose(pa.1, pb.1, self.town.get(place));
        c.planned = planned;
        c.invite = invite;
        c.invite_answer = invite_answer;
        c.hosting = hosting;
        c.proposal = proposal;
        c.role = role;
        let participants = members
            .iter()
            .map(|&i| self.roster.id_of(i).clone())
            .collect();
        self.spawn(c, participants);
    }

    /// The gathering under way here that `enc.a` organises and now addresses
    /// (marked addressed: once per gathering).
    fn hosting(&mut self, enc: &Encounter, place: LocIdx) -> Option<GatheringIdx> {
        if enc.trigger != Trigger::Gathering {
            return None;
        }
        let now = self.clock.now;
        let host = self.roster.id_of(enc.a);
        let g = self
            .gatherings
            .iter()
            .find(|g| &g.organiser == host && g.under_way_at(place, now))?;
        self.state.addressed.insert(g.id);
        Some(g.id)
    }

    /// Conversations an appointment cuts short close now.
    fn interrupt(&mut self, ids: &[u64]) {
        for id in ids {
            if let Some(&e) = self.state.open.get(id)
                && let Ok(mut c) = self.conversations.get_mut(e)
                && c.end.is_none()
            {
                c.end = Some(EndCause::Interrupted);
                c.state = ConversationState::Closing;
            }
        }
    }

    /// Marks the appointment kept; true when the two already talk together
    /// (the meeting is kept as it is, nothing new opens).
    fn keep_meeting(&mut self, id: u32, enc: &Encounter) -> bool {
        let Some(m) = self.meetings.get_mut(id) else {
            return false;
        };
        m.status = MeetingStatus::Kept;
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::AppointmentKept {
                appointment: m.id,
                residents: vec![
                    self.roster.id_of(m.a).clone(),
                    self.roster.id_of(m.b).clone(),
                ],
                location: self.town.id(m.place).clone(),
                made: m.made,
            },
        });
        let both = self.state.talking[enc.a.i()];
        both.is_some() && both == self.state.talking[enc.b.i()]
    }

    /// Tomorrow's hours for a meeting at which neither of the encounter's
    /// two has a gathering to go to (or host): nothing is arranged on top of one.
    fn meeting_hours(&self, enc: &Encounter, now: GameTime) -> Vec<GameTime> {
        let a = &self.tuning.social.appointments;
        let tomorrow = now.midnight().0 + 86_400;
        (a.from_hour..=a.to_hour)
            .map(|h| GameTime(tomorrow + h as i64 * 3600))
            .filter(|&at| self.free_for_meeting(enc, at))
            .collect()
    }

    /// Whether neither of the two has a gathering around `at`.
    fn free_for_meeting(&self, enc: &Encounter, at: GameTime) -> bool {
        // The meeting lasts the wait and an hour together.
        let span = self.tuning.social.appointments.wait_minutes as i64 + 60;
        let meeting_end = at.plus_minutes(span);
        [enc.a, enc.b].into_iter().all(|who| {
            let Ok(agenda) = self.agendas.get(self.roster.entity_of(who)) else {
                return true;
            };
            agenda
                .appointments
                .iter()
                .filter(|a| a.will_attend)
                .filter_map(|a| self.gatherings.get(a.gathering.i()))
                .all(|g| meeting_end <= g.starts.plus_minutes(-60) || at >= g.ends)
        })
    }

    /// A gathering one of them organises and the other has not heard of (or
    /// read of and means to miss: asked in person, one may think again).
    fn invitation(&self, enc: &Encounter, (a, b): (&Resident, &Resident)) -> Option<GatheringIdx> {
        let now = self.clock.now;
        let unaware = |organiser: &Resident, guest: RosterIdx| {
            let unaware = self.gatherings.iter().find(|g| {
                g.organiser == organiser.id
                    && g.starts > now
                    && self
                        .agendas
                        .get(self.roster.entity_of(guest))
                        .is_ok_and(|ag| ag.may_be_invited(g.id))
            });
            unaware.map(|g| g.id)
        };
        unaware(a, enc.b).or_else(|| unaware(b, enc.a))
    }

    /// The conversation's entity, both participants marked as talking, and its start logged.
    fn spawn(&mut self, c: Conversation, participants: Vec<crate::scenario::ResidentId>) {
        let (id, place, trigger) = (c.id, c.place, c.trigger);
        let members = c.participants.clone();
        let entity = self.commands.spawn(c).id();
        self.state.open.insert(id, entity);
        self.state.started_today += 1;
        for i in members {
            self.state.talking[i.i()] = Some(id);
            self.commands
                .entity(self.roster.entity_of(i))
                .insert(Talking);
        }
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::ConversationStart {
                conversation: id,
                participants,
                location: self.town.id(place).clone(),
                trigger,
            },
        });
    }
}

/// How many messages a built-in speaker aims for: outgoing pairs talk
/// longer; a greeting at work is brief.
fn planned_turns(
    enc: &Encounter,
    (a, b): (&Persona, &Persona),
    t: &SocialTuning,
    rng: &mut SocialRng,
) -> u32 {
    let mean_e = (a.personality.extraversion + b.personality.extraversion) / 2.0;
    let c = &t.conversation;
    let aim = if enc.trigger == Trigger::Work {
        // A greeting, the order or the errand, a word back.
        3 + rng.random_range(0..=2)
    } else if enc.trigger == Trigger::Gathering {
        // The address, a word from each guest, and a little more.
        2 + enc.crowd.len() as i64 + rng.random_range(1..=3)
    } else {
        let aim = (3.0 + mean_e / 25.0).round() as i64 + rng.random_range(-1..=3);
        // Two who agreed to meet came to talk: more than a hello and goodbye.
        match enc.trigger {
            Trigger::Appointment => aim + APPOINTMENT_EXTRA_TURNS,
            _ => aim,
        }
    };
    aim.clamp(c.min_turns as i64, c.max_turns as i64) as u32
}

/// The guest's answer to `g`'s invitation (a roll of the talks' random
/// stream, so the line said and the agenda agree).
fn answer_invitation(
    g: &Gathering,
    pair: [(&Resident, &Persona, &Relationships); 2],
    rng: &mut SocialRng,
) -> Option<InviteAnswer> {
    let (guest, persona, ties) = pair.into_iter().find(|p| p.0.id != g.organiser)?;
    let roll = rng.random::<f32>();
    Some(InviteAnswer {
        guest: guest.idx,
        reason: invites::answer(&persona.0, ties.strength(&g.organiser), g, roll),
    })
}

/// Turns a kept appointment's talk takes beyond a chance meeting's.
const APPOINTMENT_EXTRA_TURNS: i64 = 3;

/// Turns a talk with an invitation lasts at least: an opening, the
/// invitation (the organiser's first line after it, one turn later when the
/// organiser opened), the answer and a goodbye.
const INVITE_TURNS: u32 = 5;

/// Turns a talk with a proposal to meet takes at least: the opening line is
/// answered before the proposal ("还是粥？" wants an answer, not a date),
/// which the last turn accepts.
const PROPOSAL_TURNS: u32 = 4;

/// `x` knows `other` at least as an acquaintance.
fn close_enough(x: &Relationships, other: RosterIdx, t: &SocialTuning) -> bool {
    x.by_idx(other)
        .is_some_and(|r| r.strength >= t.relationship.acquaintance)
}

/// A proposal to meet again at one of `hours` (tomorrow's, when both are
/// free), made two messages before the end; none when no hour is free.
fn propose(
    enc: &Encounter,
    planned: u32,
    (here, hours): (LocIdx, &[GameTime]),
    town: &Town,
    rng: &mut SocialRng,
) -> Option<Proposal> {
    let turn = planned - 2;
    let (proposer, partner) = if turn.is_multiple_of(2) {
        (enc.a, enc.b)
    } else {
        (enc.b, enc.a)
    };
    if hours.is_empty() {
        return None;
    }
    let at = hours[rng.random_range(0..hours.len())];
    Some(Proposal {
        proposer,
        partner,
        turn,
        place: meeting_place(town, here),
        at,
    })
}

/// Where to meet again: here if it is a place to sit together, else the
/// nearest eatery open to all (a camp that serves its one dweller food is
/// someone's home, not a place to meet at), else a square.
fn meeting_place(town: &Town, here: LocIdx) -> LocIdx {
    let kind = |l: LocIdx| town.get(l).kind;
    let sits = |l: LocIdx| matches!(kind(l), LocationKind::Food | LocationKind::Public);
    if sits(here) {
        return here;
    }
    let near = town.nearby(here);
    (near.iter().copied())
        .find(|&l| kind(l) == LocationKind::Food)
        .or_else(|| near.iter().copied().find(|&l| sits(l)))
        .or_else(|| town.nearest_with(here, Service::Food))
        .unwrap_or(here)
}
