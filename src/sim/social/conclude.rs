//! A finished conversation is analysed (emotions, topic), changes every tie
//! between its participants, leaves each a one-line memory with an importance,
//! may set an appointment or pass on an invitation, and is logged.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::analysis::{self, Emotion};
use super::meetings::{Meetings, when_text};
use super::{Conversation, ConversationState, RecapRequest, SocialState, Talking, topic_zh};
use rand::RngExt;

use crate::scenario::{ResidentId, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::{ConversationMemory, EventBody, RelationshipDelta, SimEvent};
use crate::sim::notices::learn_gathering;
use crate::sim::residents::{
    Agenda, AsyncMind, Heard, MeetingNote, Needs, Persona, Relationships, Resident, ResidentRng,
    Roster, Tally,
};
use crate::sim::town::{ActiveTuning, Gatherings};

/// What a finished conversation changes on a participant.
type Effects<'a> = (
    &'a Resident,
    &'a Persona,
    &'a mut Needs,
    &'a mut Relationships,
    &'a mut Agenda,
    &'a mut ResidentRng,
    &'a mut Tally,
);

/// What closing conversations reads and writes.
#[derive(SystemParam)]
pub(super) struct Closing<'w, 's> {
    commands: Commands<'w, 's>,
    clock: Res<'w, Clock>,
    tuning: Res<'w, ActiveTuning>,
    town: Res<'w, Town>,
    roster: Res<'w, Roster>,
    gatherings: Res<'w, Gatherings>,
    state: ResMut<'w, SocialState>,
    meetings: ResMut<'w, Meetings>,
    people: Query<'w, 's, Effects<'static>>,
    asynchronous: Query<'w, 's, (), With<AsyncMind>>,
    events: MessageWriter<'w, SimEvent>,
    recaps: MessageWriter<'w, RecapRequest>,
}

/// Closes every conversation that has ended.
pub(super) fn conclude(mut closing: Closing, mut conversations: Query<&mut Conversation>) {
    let done: Vec<(u64, Entity)> = closing
        .state
        .open
        .iter()
        .filter(|(_, e)| conversations.get(**e).is_ok_and(|c| c.end.is_some()))
        .map(|(id, e)| (*id, *e))
        .collect();
    for (id, entity) in done {
        closing.state.open.remove(&id);
        let Ok(mut c) = conversations.get_mut(entity) else {
            continue;
        };
        c.state = ConversationState::Ended;
        let c = c.clone();
        closing.commands.entity(entity).despawn();
        closing.close(id, &c);
    }
}

impl Closing<'_, '_> {
    /// Everything a conversation leaves behind, then its `conversation_end`.
    fn close(&mut self, id: u64, c: &Conversation) {
        self.release(id, c);
        let ids: Vec<_> = c
            .participants
            .iter()
            .map(|&i| self.roster.id_of(i).clone())
            .collect();
        let mut changes = Vec::new();
        let mut memories = Vec::new();
        // A greeting nobody answered changes nothing.
        if c.messages.len() >= 2 {
            let moved = self.change_ties(c, &ids, &mut changes);
            memories = self.remember(c, &ids, &moved);
            self.pass_invitation(c);
            self.make_appointment(c);
        }
        if let Some(s) = &c.script {
            // A skill cut short is tried again another time; a failed one is not.
            if s.finished || s.error.is_some() {
                self.state
                    .skills_done
                    .insert((s.ai, s.human, s.skill.clone()));
            }
            self.events.write(SimEvent {
                time: self.clock.now,
                body: EventBody::SkillEnd {
                    conversation: id,
                    resident: self.roster.id_of(s.ai).clone(),
                    partner: self.roster.id_of(s.human).clone(),
                    skill: s.skill.clone(),
                    finished: s.finished,
                    results: s.results().into_iter().collect(),
                    error: s.error.clone(),
                    warnings: s.warnings(),
                },
            });
        }
        let now = self.clock.now;
        self.events.write(SimEvent {
            time: now,
            body: EventBody::ConversationEnd {
                conversation: id,
                participants: ids,
                location: self.town.id(c.place).clone(),
                trigger: c.trigger,
                reason: c.end.unwrap_or(super::EndCause::Left),
                topic: c.topic.clone(),
                messages: c.messages.len() as u32,
                seconds: (now.0 - c.started.0)
                    .max(c.messages.last().map_or(0, |m| m.time.0 - c.started.0))
                    as u32,
                changes,
                memories,
            },
        });
    }

    /// The participants are free again after a breather; each pair waits out
    /// a cooldown before talking again.
    fn release(&mut self, id: u64, c: &Conversation) {
        let now = self.clock.now;
        let t = &self.tuning.social;
        let ready = now.plus_minutes(t.cooldown_minutes as i64);
        for (k, &a) in c.participants.iter().enumerate() {
            if self.state.talking[a.i()] == Some(id) {
                self.state.talking[a.i()] = None;
                self.state.pause_until[a.i()] = now.plus_minutes(t.pause_minutes as i64);
                self.commands
                    .entity(self.roster.entity_of(a))
                    .remove::<Talking>();
            }
            for &b in &c.participants[k + 1..] {
                self.state.pair_ready.insert((a.min(b), a.max(b)), ready);
            }
        }
    }

    /// Every participant's view of every other moves by the conversation's
    /// delta and their compatibility; returns how far each one's biggest tie moved.
    fn change_ties(
        &mut self,
        c: &Conversation,
        ids: &[ResidentId],
        changes: &mut Vec<RelationshipDelta>,
    ) -> Vec<f32> {
        let t = &self.tuning.social;
        let emotions: Vec<Emotion> = c.messages.iter().map(|m| m.emotion).collect();
        let delta =
            analysis::conversation_delta(&t.relationship, c.messages.len(), &emotions, &c.topic);
        let mut moved = vec![0.0f32; c.participants.len()];
        for (k, &a) in c.participants.iter().enumerate() {
            for &b in &c.participants {
                if a == b {
                    continue;
                }
                let entities = [self.roster.entity_of(a), self.roster.entity_of(b)];
                let Ok([mut me, other]) = self.people.get_many_mut(entities) else {
                    continue;
                };
                let (factor, why) = analysis::compatibility(
                    &t.relationship,
                    &me.1.personality,
                    &other.1.personality,
                );
                let other_id = other.0.id.clone();
                let occupation = other.1.occupation.clone();
                let rel = me.3.entry(&other_id, b);
                let (old, old_kind) =
                    analysis::meet(rel, delta.points * factor, self.clock.now, &t.relationship);
                if rel.impression.is_empty() {
                    rel.impression = format!("在{}聊过天的{occupation}", self.town.name(c.place));
                }
                let (new, kind) = (rel.strength, rel.kind);
                if (new - old).abs() > moved[k].abs() {
                    moved[k] = new - old;
                }
                if new == old && kind == old_kind {
                    continue;
                }
                let mut rules = delta.rules.clone();
                rules.extend(why);
                let reason = format!(
                    "{}（{}句，话题：{}）：{}",
                    if c.is_group() { "群聊" } else { "对话" },
                    c.messages.len(),
                    topic_zh(&c.topic),
                    rules.join("、")
                );
                changes.push(RelationshipDelta {
                    resident: ids[k].clone(),
                    other: other_id.clone(),
                    old,
                    new,
                });
                self.events.write(SimEvent {
                    time: self.clock.now,
                    body: EventBody::RelationshipChange {
                        resident: ids[k].clone(),
                        other: other_id,
                        old_strength: old,
                        new_strength: new,
                        previous_relation: (kind != old_kind).then_some(old_kind),
                        relation: kind,
                        reason,
                    },
                });
            }
        }
        moved
    }

    /// Each participant's company restored, the talk counted, and a memory
    /// of it (an async mind is asked to recap it in its own words).
    fn remember(
        &mut self,
        c: &Conversation,
        ids: &[ResidentId],
        moved: &[f32],
    ) -> Vec<ConversationMemory> {
        let (now, t) = (self.clock.now, &self.tuning.social);
        let emotions: Vec<Emotion> = c.messages.iter().map(|m| m.emotion).collect();
        let place = self.town.name(c.place);
        let mut memories = Vec::new();
        for (k, &a) in c.participants.iter().enumerate() {
            let entity = self.roster.entity_of(a);
            let Ok(mut me) = self.people.get_mut(entity) else {
                continue;
            };
            me.2.social = (me.2.social
                + self.tuning.needs.talk_restore * c.messages.len() as f32 / 2.0)
                .min(100.0);
            me.6.conversations += 1;
            let heard: Vec<Emotion> = c
                .messages
                .iter()
                .filter(|m| m.speaker != a)
                .map(|m| m.emotion)
                .collect();
            let others: Vec<&str> = c
                .participants
                .iter()
                .filter(|&&p| p != a)
                .map(|&p| self.roster.name_of(p))
                .collect();
            let made = c
                .proposal
                .filter(|p| c.messages.len() as u32 > p.turn + 1)
                .map(|p| {
                    format!(
                        "约好{}在{}见",
                        when_text(now, p.at),
                        self.town.name(p.place)
                    )
                });
            let text = summary_line(&others, place, &c.topic, &heard, moved[k], made);
            if self.asynchronous.contains(entity) {
                self.recaps.write(RecapRequest {
                    entity,
                    time: now,
                    fallback: text.clone(),
                    name: self.roster.name_of(a).to_owned(),
                    place: place.to_string(),
                    others: others.join("、"),
                    transcript: c
                        .messages
                        .iter()
                        .map(|m| (self.roster.name_of(m.speaker).to_owned(), m.text.clone()))
                        .collect(),
                });
            }
            let importance =
                analysis::importance(t, c.messages.len(), &emotions, moved[k], &c.topic);
            memories.push(ConversationMemory {
                resident: ids[k].clone(),
                text,
                importance,
            });
        }
        memories
    }

    /// The organiser's invitation counts once it has been said (second line on).
    fn pass_invitation(&mut self, c: &Conversation) {
        let Some(gathering) = c.invite.and_then(|g| self.gatherings.get(g)) else {
            return;
        };
        for &p in &c.participants {
            if *self.roster.id_of(p) == gathering.organiser {
                continue;
            }
            if let Ok(mut guest) = self.people.get_mut(self.roster.entity_of(p)) {
                learn_gathering(
                    gathering,
                    Heard::Invitation,
                    self.clock.now,
                    (guest.0, guest.1, &*guest.3),
                    &mut guest.4,
                    &mut guest.5,
                    &mut self.events,
                );
            }
        }
    }

    /// A proposal to meet that was said and answered becomes an appointment;
    /// each decides now, by conscientiousness, whether they will really come.
    fn make_appointment(&mut self, c: &Conversation) {
        let Some(p) = c.proposal.filter(|p| c.messages.len() as u32 > p.turn + 1) else {
            return;
        };
        let a = &self.tuning.social.appointments;
        let mut keep = [true; 2];
        for (k, who) in [p.proposer, p.partner].into_iter().enumerate() {
            if let Ok(mut me) = self.people.get_mut(self.roster.entity_of(who)) {
                let chance = a.keep_base
                    + a.keep_conscientiousness * me.1.personality.conscientiousness / 100.0;
                keep[k] = me.5.random::<f32>() < chance;
            }
        }
        let now = self.clock.now;
        let m = self
            .meetings
            .make(p, now, keep, &self.roster, &self.town, &mut self.events);
        for (k, (who, other)) in [(p.proposer, p.partner), (p.partner, p.proposer)]
            .into_iter()
            .enumerate()
        {
            if let Ok(mut me) = self.people.get_mut(self.roster.entity_of(who)) {
                me.4.meetings.push(MeetingNote {
                    appointment: m,
                    with: other,
                    place: p.place,
                    at: p.at,
                    keep: keep[k],
                });
            }
        }
    }
}

/// A participant's one-line memory of the conversation (≤ 30 characters).
fn summary_line(
    others: &[&str],
    place: &str,
    topic: &str,
    heard: &[Emotion],
    moved: f32,
    made: Option<String>,
) -> String {
    let who = match others {
        [one] => one.to_string(),
        [first, ..] => format!("{first}等{}人", others.len()),
        [] => "大家".to_string(),
    };
    let count = |e: Emotion| heard.iter().filter(|&&x| x == e).count();
    let feeling = if let Some(made) = made {
        made
    } else if count(Emotion::Angry) > 0 {
        "吵了几句，不太愉快".to_string()
    } else if count(Emotion::Sad) > 0 {
        "TA心情不好".to_string()
    } else if count(Emotion::Happy) >= 2 || moved >= 5.0 {
        "聊得很投机".to_string()
    } else if count(Emotion::Curious) > 0 {
        "TA问了不少".to_string()
    } else {
        "随便聊了聊".to_string()
    };
    let line = format!("和{who}在{place}聊{}，{feeling}", topic_zh(topic));
    line.chars().take(30).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_are_short_and_from_one_side() {
        let line = summary_line(
            &["阿朵"],
            "星火酒馆",
            "work",
            &[Emotion::Happy, Emotion::Happy],
            3.0,
            None,
        );
        assert_eq!(line, "和阿朵在星火酒馆聊工作，聊得很投机");
        let long = summary_line(
            &["一个名字特别特别长的人", "乙", "丙"],
            "一个名字也特别特别长的地方",
            "help_offered",
            &[Emotion::Angry],
            -8.0,
            None,
        );
        assert!(long.chars().count() <= 30, "{long}");
        assert!(long.starts_with("和一个名字特别特别长的人等3人"));
    }
}
