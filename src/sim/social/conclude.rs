//! A finished conversation is analysed (emotions, topic), changes every tie
//! between its participants, leaves each a one-line memory with an importance,
//! may set an appointment or pass on an invitation, and is logged.

use bevy::prelude::*;

use super::analysis::{self, Emotion};
use super::meetings::{Meetings, when_text};
use super::{Conversation, ConversationState, RecapRequest, SocialState, Talking, topic_zh};
use rand::RngExt;

use crate::scenario::Town;
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

#[allow(clippy::too_many_arguments)]
pub(super) fn conclude(
    mut commands: Commands,
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    roster: Res<Roster>,
    gatherings: Res<Gatherings>,
    mut state: ResMut<SocialState>,
    mut meetings: ResMut<Meetings>,
    mut conversations: Query<&mut Conversation>,
    mut people: Query<Effects>,
    asynchronous: Query<(), With<AsyncMind>>,
    mut events: MessageWriter<SimEvent>,
    mut recaps: MessageWriter<RecapRequest>,
) {
    let now = clock.now;
    let t = &tuning.social;
    let done: Vec<(u64, Entity)> = state
        .open
        .iter()
        .filter(|(_, e)| conversations.get(**e).is_ok_and(|c| c.end.is_some()))
        .map(|(id, e)| (*id, *e))
        .collect();
    for (id, entity) in done {
        state.open.remove(&id);
        let Ok(mut c) = conversations.get_mut(entity) else {
            continue;
        };
        c.state = ConversationState::Ended;
        let c = c.clone();
        commands.entity(entity).despawn();
        let ready = now.plus_minutes(t.cooldown_minutes as i64);
        for (k, &a) in c.participants.iter().enumerate() {
            if state.talking[a as usize] == Some(id) {
                state.talking[a as usize] = None;
                state.pause_until[a as usize] = now.plus_minutes(t.pause_minutes as i64);
                commands
                    .entity(roster.entities[a as usize])
                    .remove::<Talking>();
            }
            for &b in &c.participants[k + 1..] {
                state.pair_ready.insert((a.min(b), a.max(b)), ready);
            }
        }
        let ids: Vec<_> = c
            .participants
            .iter()
            .map(|&i| roster.ids[i as usize].clone())
            .collect();
        let emotions: Vec<Emotion> = c.messages.iter().map(|m| m.emotion).collect();
        let topic = c.topic.clone();
        let mut changes = Vec::new();
        let mut memories = Vec::new();
        // A greeting nobody answered changes nothing.
        if c.messages.len() >= 2 {
            let delta =
                analysis::conversation_delta(&t.relationship, c.messages.len(), &emotions, &topic);
            let mut moved = vec![0.0f32; c.participants.len()];
            for (k, &a) in c.participants.iter().enumerate() {
                for &b in &c.participants {
                    if a == b {
                        continue;
                    }
                    let Ok([mut me, other]) = people
                        .get_many_mut([roster.entities[a as usize], roster.entities[b as usize]])
                    else {
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
                    let (old, old_kind) = (rel.strength, rel.kind);
                    rel.strength = analysis::apply_delta(old, delta.points * factor);
                    rel.kind = analysis::reclassify(rel.kind, rel.strength, &t.relationship);
                    rel.interactions += 1;
                    rel.last_interaction = Some(now);
                    rel.met.get_or_insert(now);
                    if rel.impression.is_empty() {
                        rel.impression = format!("在{}聊过天的{occupation}", town.name(c.place));
                    }
                    let (new, kind) = (rel.strength, rel.kind);
                    moved[k] = if (new - old).abs() > moved[k].abs() {
                        new - old
                    } else {
                        moved[k]
                    };
                    if new != old || kind != old_kind {
                        let mut rules = delta.rules.clone();
                        rules.extend(why);
                        let reason = format!(
                            "{}（{}句，话题：{}）：{}",
                            if c.is_group() { "群聊" } else { "对话" },
                            c.messages.len(),
                            topic_zh(&topic),
                            rules.join("、")
                        );
                        changes.push(RelationshipDelta {
                            resident: ids[k].clone(),
                            other: other_id.clone(),
                            old,
                            new,
                        });
                        events.write(SimEvent {
                            time: now,
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
            }
            for (k, &a) in c.participants.iter().enumerate() {
                let Ok(mut me) = people.get_mut(roster.entities[a as usize]) else {
                    continue;
                };
                me.2.social = (me.2.social
                    + tuning.needs.talk_restore * c.messages.len() as f32 / 2.0)
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
                    .map(|&p| roster.names[p as usize].as_str())
                    .collect();
                let made = c
                    .proposal
                    .filter(|p| c.messages.len() as u32 > p.turn + 1)
                    .map(|p| format!("约好{}在{}见", when_text(now, p.at), town.name(p.place)));
                let text =
                    summary_line(&others, town.name(c.place), &topic, &heard, moved[k], made);
                let entity = roster.entities[a as usize];
                if asynchronous.contains(entity) {
                    recaps.write(RecapRequest {
                        entity,
                        time: now,
                        fallback: text.clone(),
                        name: roster.names[a as usize].clone(),
                        place: town.name(c.place).to_string(),
                        others: others.join("、"),
                        transcript: c
                            .messages
                            .iter()
                            .map(|m| (roster.names[m.speaker as usize].clone(), m.text.clone()))
                            .collect(),
                    });
                }
                memories.push(ConversationMemory {
                    resident: ids[k].clone(),
                    text,
                    importance: analysis::importance(
                        t,
                        c.messages.len(),
                        &emotions,
                        moved[k],
                        &topic,
                    ),
                });
            }
            // The organiser's invitation counts once it has been said (second line on).
            if let Some(gathering) = c.invite.and_then(|g| gatherings.get(g)) {
                for &p in &c.participants {
                    if roster.ids[p as usize] == gathering.organiser {
                        continue;
                    }
                    if let Ok(mut guest) = people.get_mut(roster.entities[p as usize]) {
                        learn_gathering(
                            gathering,
                            Heard::Invitation,
                            now,
                            (guest.0, guest.1, &*guest.3),
                            &mut guest.4,
                            &mut guest.5,
                            &mut events,
                        );
                    }
                }
            }
            if let Some(p) = c.proposal.filter(|p| c.messages.len() as u32 > p.turn + 1) {
                // Each decides now, by conscientiousness, whether they will really come.
                let a = &t.appointments;
                let mut keep = [true; 2];
                for (k, who) in [p.proposer, p.partner].into_iter().enumerate() {
                    if let Ok(mut me) = people.get_mut(roster.entities[who as usize]) {
                        let chance = a.keep_base
                            + a.keep_conscientiousness * me.1.personality.conscientiousness / 100.0;
                        keep[k] = me.5.random::<f32>() < chance;
                    }
                }
                let m = meetings.make(p, now, keep, &roster, &town, &mut events);
                for (k, (who, other)) in [(p.proposer, p.partner), (p.partner, p.proposer)]
                    .into_iter()
                    .enumerate()
                {
                    if let Ok(mut me) = people.get_mut(roster.entities[who as usize]) {
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
        if let Some(s) = &c.script {
            // A skill cut short is tried again another time; a failed one is not.
            if s.finished || s.error.is_some() {
                state.skills_done.insert((s.ai, s.human, s.skill.clone()));
            }
            events.write(SimEvent {
                time: now,
                body: EventBody::SkillEnd {
                    conversation: id,
                    resident: roster.ids[s.ai as usize].clone(),
                    partner: roster.ids[s.human as usize].clone(),
                    skill: s.skill.clone(),
                    finished: s.finished,
                    results: s.results().into_iter().collect(),
                    error: s.error.clone(),
                    warnings: s.warnings(),
                },
            });
        }
        events.write(SimEvent {
            time: now,
            body: EventBody::ConversationEnd {
                conversation: id,
                participants: ids,
                location: town.id(c.place).clone(),
                trigger: c.trigger,
                reason: c.end.unwrap_or(super::EndCause::Left),
                topic,
                messages: c.messages.len() as u32,
                seconds: (now.0 - c.started.0)
                    .max(c.messages.last().map_or(0, |m| m.time.0 - c.started.0))
                    as u32,
                changes,
                memories,
            },
        });
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
