//! A finished conversation is analysed (emotions, topic), changes every tie
//! between its participants, leaves each a one-line memory with an importance,
//! may set an appointment or pass on an invitation, and is logged.

use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::sync::Arc;

use super::analysis;
use super::analysis::topic_zh;
use super::emotion::Emotion;
use super::meetings::{Meetings, when_text};
use super::message::{ChatMessage, ConversationState, Talking};
use super::{Conversation, RecapRequest, SocialState};
use rand::RngExt;

use super::cue::Cue;
use crate::scenario::dialogue::ExchangeList;
use crate::scenario::{LocIdx, RelationKind, ResidentId, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::event_log::ties::{ConversationMemory, RelationshipDelta};
use crate::sim::knowledge::facts::{About, Learn, Source};
use crate::sim::notices::learn_gathering;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{
    Activity, Agenda, AsyncMind, Heard, Impression, LastTalk, MeetingNote, Needs, Persona,
    Relationships, Resident, ResidentRng, TalkOutcome, Tally,
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
    scenario: Res<'w, crate::sim::LoadedScenario>,
    state: ResMut<'w, SocialState>,
    meetings: ResMut<'w, Meetings>,
    people: Query<'w, 's, Effects<'static>>,
    plans: Query<'w, 's, &'static mut Activity>,
    asynchronous: Query<'w, 's, (), With<AsyncMind>>,
    events: MessageWriter<'w, SimEvent>,
    recaps: MessageWriter<'w, RecapRequest>,
    learn: MessageWriter<'w, Learn>,
    census: Res<'w, Census>,
    /// First impressions made so far, by place and occupation (looked up by
    /// the occupation's text, without copying it).
    impressions: Local<'s, HashMap<LocIdx, HashMap<String, Impression>>>,
}

/// At most this many bystanders remember a quarrel they heard.
const BYSTANDERS: usize = 4;

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
        closing.close(id, &c);
        closing.commands.entity(entity).despawn();
    }
}

/// Why a tie moved, as its event says: the talk, then the rules that applied
/// (made only for the ties that did move).
fn reason(c: &Conversation, rules: &analysis::Rules) -> String {
    format!(
        "{}（{}句，话题：{}）：{}",
        if c.is_group() { "群聊" } else { "对话" },
        c.messages.len(),
        topic_zh(&c.topic),
        rules.as_str()
    )
}

/// A staff greeting's gain in a tie counts this much (quarrels in full).
const STAFF_GREETING_WEIGHT: f32 = 0.3;

/// A first impression of someone of `occupation` met at `place` (its index
/// and name), from those `made` so far: shared, as many meet many at the
/// same place.
fn impression(
    made: &mut HashMap<LocIdx, HashMap<String, Impression>>,
    (place, name): (LocIdx, &str),
    occupation: &str,
) -> Impression {
    let here = made.entry(place).or_default();
    if let Some(known) = here.get(occupation) {
        return known.clone();
    }
    // Said as a clause after a name (「钟大川啊，星火酒馆老板，在心谷广场聊过几句」), not a record.
    let new = Impression::from(format!("{occupation}，在{name}聊过几句").as_str());
    here.insert(occupation.to_owned(), new.clone());
    new
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
            // The phrase bank's topic most lines came from, read once.
            let subject = self.subject(c);
            let label = subject.as_ref().map(|s| &*s.subject);
            memories = self.remember(c, &ids, &moved, label);
            self.note_last_talk(c, &moved, subject);
            self.witness_quarrel(c);
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
                reason: c.end.unwrap_or(super::message::EndCause::Left),
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
            // One who came to talk with someone here has done so.
            if let Ok(mut plan) = self.plans.get_mut(self.roster.entity_of(a))
                && plan.with.is_some_and(|w| c.participants.contains(&w))
            {
                plan.with = None;
            }
        }
    }

    /// Every participant's view of every other moves by what the two said
    /// to each other and their compatibility, less as the tie nears the
    /// top; returns how far each one's biggest tie moved.
    fn change_ties(
        &mut self,
        c: &Conversation,
        ids: &[ResidentId],
        changes: &mut Vec<RelationshipDelta>,
    ) -> Vec<f32> {
        let mut moved = vec![0.0f32; c.participants.len()];
        for (k, &a) in c.participants.iter().enumerate() {
            for &b in &c.participants {
                if a == b {
                    continue;
                }
                let Some((old, new, kind, old_kind, rules)) = self.change_tie(c, a, b) else {
                    continue;
                };
                if (new - old).abs() > moved[k].abs() {
                    moved[k] = new - old;
                }
                if new == old && kind == old_kind {
                    continue;
                }
                let other = self.roster.id_of(b).clone();
                changes.push(RelationshipDelta {
                    resident: ids[k].clone(),
                    other: other.clone(),
                    old,
                    new,
                });
                self.events.write(SimEvent {
                    time: self.clock.now,
                    body: EventBody::RelationshipChange {
                        resident: ids[k].clone(),
                        other,
                        old_strength: old,
                        new_strength: new,
                        previous_relation: (kind != old_kind).then_some(old_kind),
                        relation: kind,
                        reason: reason(c, &rules),
                    },
                });
            }
        }
        moved
    }

    /// `a`'s view of `b` after the conversation: the strength before and
    /// after, the kind after and before, and why.
    fn change_tie(
        &mut self,
        c: &Conversation,
        a: RosterIdx,
        b: RosterIdx,
    ) -> Option<(f32, f32, RelationKind, RelationKind, analysis::Rules)> {
        let t = &self.tuning.social;
        let mut delta = analysis::tie_delta(
            &t.relationship,
            &c.messages,
            (a, b),
            (c.participants.len(), &c.topic),
        );
        // Serving a customer is courtesy, not friendship: it counts a little.
        if c.trigger == super::message::Trigger::Work && delta.points > 0.0 {
            delta.points *= STAFF_GREETING_WEIGHT;
            delta
                .rules
                .push(format_args!("招呼客人×{STAFF_GREETING_WEIGHT}"));
        }
        let entities = [self.roster.entity_of(a), self.roster.entity_of(b)];
        let [mut me, other] = self.people.get_many_mut(entities).ok()?;
        let (factor, why) =
            analysis::compatibility(&t.relationship, &me.1.personality, &other.1.personality);
        let other_id = other.0.id.clone();
        let rel = me.3.entry(&other_id, b);
        let today = self.clock.now.social_day() as i32;
        if delta.points > 0.0 && rel.talk_days.last() == Some(today) {
            delta.points *= t.relationship.again_today;
            delta.rules.push(format_args!("今天已聊过，增幅减半"));
        }
        let points = analysis::diminished(&t.relationship, rel.strength, delta.points * factor);
        if points < delta.points * factor {
            delta.rules.push(format_args!("交情已深，增幅递减"));
        }
        let (old, old_kind) = analysis::meet(rel, points, self.clock.now, &t.relationship);
        if rel.impression.is_empty() {
            let place = (c.place, self.town.name(c.place));
            rel.impression = impression(&mut self.impressions, place, &other.1.occupation);
        }
        let mut rules = delta.rules;
        rules.append(&why);
        Some((old, rel.strength, rel.kind, old_kind, rules))
    }

    /// Each participant's company restored, the talk counted, and a memory
    /// of it (an async mind is asked to recap it in its own words).
    fn remember(
        &mut self,
        c: &Conversation,
        ids: &[ResidentId],
        moved: &[f32],
        subject: Option<&str>,
    ) -> Vec<ConversationMemory> {
        let (now, t) = (self.clock.now, &self.tuning.social);
        let emotions: Vec<Emotion> = c.messages.iter().map(|m| m.emotion).collect();
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
            let (text, others) = self.memory_text(c, a, moved[k], subject);
            if self.asynchronous.contains(entity) {
                self.recaps.write(RecapRequest {
                    entity,
                    time: now,
                    fallback: text.clone(),
                    name: self.roster.name_of(a).to_owned(),
                    place: self.town.name(c.place).to_string(),
                    others,
                    transcript: c
                        .messages
                        .iter()
                        .map(|m| (self.roster.name_of(m.speaker).to_owned(), m.text.clone()))
                        .collect(),
                });
            }
            let mut importance =
                analysis::importance(t, c.messages.len(), &emotions, moved[k], &c.topic);
            if c.trigger == super::message::Trigger::Work && !emotions.contains(&Emotion::Angry) {
                // Being served is everyday: it matters no more than the base.
                importance = importance.min(t.importance.base);
            }
            memories.push(ConversationMemory {
                resident: ids[k].clone(),
                text,
                importance,
            });
        }
        memories
    }

    /// What the talk was mostly about: the phrase bank's topic most of its
    /// exchanges came from, and what was said of it in a few words.
    fn subject(&self, c: &Conversation) -> Option<LastTalk> {
        let bank = &self.scenario.0.dialogue;
        let asked = c.messages.iter().filter_map(|m| match m.cue {
            Some(Cue::Asked { x } | Cue::Replied { x }) => Some(x),
            _ => None,
        });
        let topic = bank.subject_of(asked)?;
        let gist = c.messages.iter().find_map(|m| match m.cue {
            Some(Cue::Asked { x }) if x.list == ExchangeList::Topic(topic as u16) => {
                bank.exchange(x).and_then(|e| e.gist.clone())
            }
            _ => None,
        });
        Some(LastTalk {
            subject: bank.topics[topic].label.clone(),
            gist,
            outcome: TalkOutcome::Plain,
        })
    }

    /// A sharp word is a quarrel: the two know it, and so do those who
    /// stood by and heard it (the others in the talk among them).
    fn witness_quarrel(&mut self, c: &Conversation) {
        let Some(m) = c
            .messages
            .iter()
            .find(|m| m.emotion == Emotion::Angry && m.to.is_some())
        else {
            return;
        };
        let (now, place) = (self.clock.now, c.place);
        let about = About::quarrel(m.speaker, m.to.expect("checked"), place, now);
        let here = self
            .census
            .at_place
            .get(place.i())
            .cloned()
            .unwrap_or_default();
        let (a, b) = (m.speaker, m.to.expect("checked"));
        let bystanders = here
            .into_iter()
            .filter(|b| !c.participants.contains(b) && !self.census.asleep(*b))
            .take(BYSTANDERS);
        let in_talk = c.participants.iter().filter(|&&p| p != a && p != b);
        let lived = [a, b].into_iter().map(|p| (p, Source::Lived));
        let saw = in_talk.copied().chain(bystanders).map(|p| (p, Source::Saw));
        for (who, source) in lived.chain(saw) {
            self.learn.write(Learn {
                who,
                about,
                source,
                time: now,
            });
        }
    }

    /// Each side keeps what the talk was about and how it went, to bring up
    /// when they next meet (a talk off the phrase bank's topics, being served
    /// and a host's welcome leave nothing to bring up, unless it was a
    /// quarrel: that is made up next time). A quarrel is kept by the two who
    /// had it, not by those who stood by in the group.
    fn note_last_talk(&mut self, c: &Conversation, moved: &[f32], subject: Option<LastTalk>) {
        if matches!(
            c.trigger,
            super::message::Trigger::Work | super::message::Trigger::Gathering
        ) {
            return;
        }
        let sharp = c.messages.iter().any(|m| m.emotion == Emotion::Angry);
        let subject = match subject {
            Some(s) => s,
            None if sharp => LastTalk {
                subject: Arc::from(topic_zh(&c.topic)),
                gist: None,
                outcome: TalkOutcome::Plain,
            },
            None => return,
        };
        for (k, &a) in c.participants.iter().enumerate() {
            let calm = outcome(&heard_calm(c, a), moved[k]);
            let Ok(mut me) = self.people.get_mut(self.roster.entity_of(a)) else {
                continue;
            };
            // By key: a resident with many ties talks with few at a time.
            for &b in &c.participants {
                let outcome = match quarrelled(c, a, b) {
                    true => TalkOutcome::Argued,
                    false => calm,
                };
                if let Some(r) = me.3.by_idx_mut(b) {
                    r.last_talk = Some(Box::new(LastTalk {
                        outcome,
                        ..subject.clone()
                    }));
                }
            }
        }
    }

    /// Participant `a`'s memory line of the conversation, and the others' names.
    fn memory_text(
        &self,
        c: &Conversation,
        a: RosterIdx,
        moved: f32,
        subject: Option<&str>,
    ) -> (String, String) {
        let heard = heard_by(c, a);
        let name = |&p: &RosterIdx| self.roster.name_of(p);
        let all: Vec<&str> = c
            .participants
            .iter()
            .filter(|&&p| p != a)
            .map(name)
            .collect();
        // One who quarrelled remembers whom with, not the first in the group.
        let rows = c
            .participants
            .iter()
            .filter(|&&p| p != a && quarrelled(c, a, p));
        let foes: Vec<&str> = rows.map(name).collect();
        let others = if foes.is_empty() { &all } else { &foes };
        let made = c
            .proposal
            .filter(|p| c.messages.len() as u32 > p.turn + 1)
            .map(|p| {
                let when = when_text(self.clock.now, p.at);
                format!("约好{when}在{}见", self.town.name(p.place))
            });
        let subject = subject.unwrap_or_else(|| topic_zh(&c.topic));
        let talk = Talk {
            place: self.town.name(c.place),
            subject,
            heard: &heard,
            moved,
        };
        (summary_line(others, &talk, made), all.join("、"))
    }

    /// The organiser's invitation counts once it has been said; the guest who
    /// answered it keeps to the answer, the others decide for themselves.
    fn pass_invitation(&mut self, c: &Conversation) {
        let Some(gathering) = c.invite.and_then(|g| self.gatherings.get(g.i())) else {
            return;
        };
        let said = self
            .roster
            .idx(&gathering.organiser)
            .and_then(|o| c.invitation_at(o))
            .is_some();
        if !said {
            return;
        }
        for &p in &c.participants {
            if *self.roster.id_of(p) == gathering.organiser {
                continue;
            }
            let decided = c
                .invite_answer
                .filter(|a| a.guest == p)
                .map(|a| a.reason.will_attend());
            if let Ok(mut guest) = self.people.get_mut(self.roster.entity_of(p)) {
                learn_gathering(
                    gathering,
                    (Heard::Invitation, decided),
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
                keep[k] = me.5.draw(|r| r.random::<f32>()) < chance;
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

/// What one participant makes of a finished conversation.
struct Talk<'a> {
    place: &'a str,
    /// What it was about, in Chinese (the phrase bank's topic, else the keywords').
    subject: &'a str,
    /// The emotions of the others' lines.
    heard: &'a [Emotion],
    /// How far the participant's tie moved.
    moved: f32,
}

/// The emotions of the lines `a` heard from the others, a sharp word only
/// when it was said to `a` (or to nobody in particular); and a sharp word of
/// `a`'s own: one who snapped had the quarrel, one who stood by did not.
fn heard_by(c: &Conversation, a: RosterIdx) -> Vec<Emotion> {
    let to_me = |m: &&ChatMessage| m.emotion != Emotion::Angry || m.to.is_none_or(|t| t == a);
    let others = c.messages.iter().filter(|m| m.speaker != a).filter(to_me);
    let mut heard: Vec<Emotion> = others.map(|m| m.emotion).collect();
    let snapped = (c.messages.iter()).any(|m| m.speaker == a && m.emotion == Emotion::Angry);
    if snapped {
        heard.push(Emotion::Angry);
    }
    heard
}

/// [`heard_by`] without sharp words: how the talk went for `a` with one it
/// did not quarrel with.
fn heard_calm(c: &Conversation, a: RosterIdx) -> Vec<Emotion> {
    let mut heard = heard_by(c, a);
    heard.retain(|&e| e != Emotion::Angry);
    heard
}

/// Whether `a` and `b` had sharp words with each other in `c`.
fn quarrelled(c: &Conversation, a: RosterIdx, b: RosterIdx) -> bool {
    c.messages.iter().any(|m| {
        m.emotion == Emotion::Angry
            && ((m.speaker == a && m.to == Some(b)) || (m.speaker == b && m.to == Some(a)))
    })
}

/// How a talk went for one who heard `heard` and whose tie moved by `moved`:
/// an angry word makes it a quarrel, a sad one a low moment, happy words or
/// a marked rise a good talk.
fn outcome(heard: &[Emotion], moved: f32) -> TalkOutcome {
    let count = |e: Emotion| heard.iter().filter(|&&x| x == e).count();
    if count(Emotion::Angry) > 0 {
        TalkOutcome::Argued
    } else if count(Emotion::Sad) > 0 {
        TalkOutcome::Down
    } else if count(Emotion::Happy) >= 2 || moved >= 5.0 {
        TalkOutcome::Warm
    } else {
        TalkOutcome::Plain
    }
}

/// Memory lines keep to this many characters (the design's 30).
const MEMORY_CHARS: usize = 30;

/// A participant's one-line memory of the conversation: what happened, about
/// what, with whom, where — the place left out, then the details, rather than
/// a phrase cut in half.
fn summary_line(others: &[&str], talk: &Talk, made: Option<String>) -> String {
    let who = match others {
        [one] => one.to_string(),
        [first, ..] => format!("{first}等{}人", others.len()),
        [] => "大家".to_string(),
    };
    // The one the talk's mood is told of, by name (「TA」 names nobody).
    let one = match others {
        [one] => one.to_string(),
        _ => "有人".to_string(),
    };
    let (place, subject) = (talk.place, talk.subject);
    // 「问了不少」 takes more than one curious line from the others.
    let curious = talk
        .heard
        .iter()
        .filter(|e| **e == Emotion::Curious)
        .count()
        >= 2;
    let (what, plain) = match (outcome(talk.heard, talk.moved), made) {
        (TalkOutcome::Argued, _) => (
            format!("为{subject}吵了一架，不欢而散"),
            "吵了一架".to_string(),
        ),
        (_, Some(made)) => (format!("聊{subject}，{made}"), made),
        (TalkOutcome::Down, None) => (
            format!("聊{subject}，{one}心情不太好"),
            format!("{one}心情不太好"),
        ),
        (TalkOutcome::Warm, None) => (format!("聊{subject}，聊得很投机"), "聊得很投机".into()),
        (TalkOutcome::Plain, None) if curious => (
            format!("聊{subject}，{one}问了不少"),
            format!("聊{subject}"),
        ),
        (TalkOutcome::Plain, None) => (format!("随便聊了聊{subject}"), "随便聊了聊".into()),
    };
    // The first of 「和{who}在{place}{what}」, 「和{who}{what}」, 「和{who}在
    // {place}{plain}」, 「和{who}{plain}」 that fits, measured before it is
    // written (every talk's end writes one for each participant).
    let chars = |s: &str| s.chars().count();
    let (w, p) = (chars(&who), chars(place));
    let fits = |at_place: bool, tail: &str| {
        1 + w + if at_place { 1 + p } else { 0 } + chars(tail) <= MEMORY_CHARS
    };
    let tries = [
        (true, &what),
        (false, &what),
        (true, &plain),
        (false, &plain),
    ];
    match tries
        .into_iter()
        .find(|&(at_place, tail)| fits(at_place, tail))
    {
        Some((true, tail)) => format!("和{who}在{place}{tail}"),
        Some((false, tail)) => format!("和{who}{tail}"),
        None => format!("和{who}{plain}")
            .chars()
            .take(MEMORY_CHARS)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_are_short_and_from_one_side() {
        let talk = |subject, heard, moved| Talk {
            place: "星火酒馆",
            subject,
            heard,
            moved,
        };
        let happy = [Emotion::Happy, Emotion::Happy];
        let line = summary_line(&["阿朵"], &talk("工作", &happy, 3.0), None);
        assert_eq!(line, "和阿朵在星火酒馆聊工作，聊得很投机");
        let angry = [Emotion::Angry];
        let line = summary_line(&["马铁"], &talk("手艺", &angry, -8.0), None);
        assert_eq!(line, "和马铁在星火酒馆为手艺吵了一架，不欢而散");
        let long = summary_line(
            &["一个名字特别特别长的人", "乙", "丙"],
            &Talk {
                place: "一个名字也特别特别长的地方",
                subject: "帮忙的事",
                heard: &angry,
                moved: -8.0,
            },
            None,
        );
        assert_eq!(
            long,
            "和一个名字特别特别长的人等3人为帮忙的事吵了一架，不欢而散"
        );
    }
}
