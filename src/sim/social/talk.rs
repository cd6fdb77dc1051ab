//! Open conversations take their turns: one message every `turn_seconds` of
//! game time, so several fit in one step. A built-in speaker answers at once;
//! an async mind gets a [`LineRequest`] and the conversation waits (up to the
//! timeout) for its line. Bystanders may join between turns.

use bevy::prelude::*;
use rand::RngExt;

use super::analysis::{self, Stage};
use super::{
    ChatMessage, Conversation, ConversationState, Delivered, EndCause, LineInputs, LineRequest,
    SocialRng, SocialState, TalkerView, Talking, Turn, builtin_line, scripted,
};
use crate::base::time::GameTime;
use crate::scenario::SocialTuning;
use crate::sim::event_log::{EventBody, SimEvent};
use crate::sim::residents::{AsyncMind, Census};
use crate::sim::town::ActiveTuning;

/// Splits a trailing `[END]` (anywhere in the text, as models write it) off a line.
pub fn split_end(line: &str) -> (String, bool) {
    if line.contains("[END]") {
        (line.replace("[END]", "").trim().to_string(), true)
    } else {
        (line.trim().to_string(), false)
    }
}

/// A skill's conversation may run longer than small talk (an `ai_ask` takes
/// up to ten rounds), but not without end.
const SCRIPTED_MAX_TURNS: u32 = 40;

#[allow(clippy::too_many_arguments)]
pub(super) fn talk(
    mut commands: Commands,
    inputs: LineInputs,
    tuning: Res<ActiveTuning>,
    census: Res<Census>,
    mut state: ResMut<SocialState>,
    mut rng: ResMut<SocialRng>,
    mut conversations: Query<&mut Conversation>,
    q: Query<TalkerView>,
    asynchronous: Query<(), With<AsyncMind>>,
    mut events: MessageWriter<SimEvent>,
    mut requests: MessageWriter<LineRequest>,
) {
    let t = &tuning.social;
    let now = inputs.clock.now;
    let step_end = now.plus_minutes(tuning.step_minutes as i64);
    let open: Vec<Entity> = state.open.values().copied().collect();
    for entity in open {
        let Ok(mut c) = conversations.get_mut(entity) else {
            continue;
        };
        let c = &mut *c;
        if c.end.is_some() {
            continue;
        }
        let urgent = c.participants.iter().any(|&p| {
            q.get(inputs.roster.entities[p as usize])
                .is_ok_and(|v| v.5.energy < t.conversation.urgent_energy)
        });
        if urgent {
            finish(c, EndCause::UrgentNeed);
            continue;
        }
        if !c.script_checked {
            c.script_checked = true;
            if let Some(began) = scripted::begin(c, &inputs, &state, &mut rng, &q) {
                let id = |i: u32| inputs.roster.ids[i as usize].clone();
                events.write(SimEvent {
                    time: c.next_turn.max(now),
                    body: EventBody::SkillStart {
                        conversation: c.id,
                        resident: id(began.ai),
                        partner: id(began.human),
                        skill: began.skill.clone(),
                        inputs: began.inputs,
                    },
                });
                match began.talk {
                    Ok(talk) => c.script = Some(Box::new(talk)),
                    Err(error) => {
                        // Not retried with this partner; the talk goes on unscripted.
                        state
                            .skills_done
                            .insert((began.ai, began.human, began.skill.clone()));
                        events.write(SimEvent {
                            time: c.next_turn.max(now),
                            body: EventBody::SkillEnd {
                                conversation: c.id,
                                resident: id(began.ai),
                                partner: id(began.human),
                                skill: began.skill,
                                finished: false,
                                results: Default::default(),
                                error: Some(error),
                                warnings: Vec::new(),
                            },
                        });
                    }
                }
            }
        }
        loop {
            if let Some(asked) = c.awaiting {
                match c.delivered.take() {
                    Some(d) => {
                        c.awaiting = None;
                        let at = c.next_turn.max(now);
                        say(c, &inputs, t, d, at, &mut events);
                        continue;
                    }
                    None => {
                        if now.0 - asked.0 >= t.conversation.timeout_seconds as i64 {
                            finish(c, EndCause::Timeout);
                        }
                        break;
                    }
                }
            }
            if c.end.is_some() || c.next_turn >= step_end {
                break;
            }
            let cap = match c.script {
                Some(_) => SCRIPTED_MAX_TURNS,
                None => t.conversation.max_turns,
            };
            if c.messages.len() as u32 >= cap {
                finish(c, EndCause::MaxTurns);
                break;
            }
            // A staff greeting (the conversation's role) comes before the skill.
            if let Some(s) = c.script.as_mut()
                && c.messages.len() >= usize::from(c.role.is_some())
            {
                let line = s.next_line(&c.next_turn.max(now).seconds_text());
                let Some((speaker, line)) = line else {
                    finish(c, EndCause::Said);
                    break;
                };
                let listener = if speaker == s.ai { s.human } else { s.ai };
                c.next = Some(Turn {
                    speaker,
                    listener,
                    mention: None,
                });
                let said = Delivered {
                    line,
                    ends: false,
                    emotion: None,
                };
                let at = c.next_turn;
                say(c, &inputs, t, said, at, &mut events);
                continue;
            }
            // A skill is a talk for two: nobody joins it.
            if c.script.is_none() && c.messages.len() >= 2 && c.join_checked != inputs.clock.steps {
                c.join_checked = inputs.clock.steps;
                try_join(
                    c,
                    &mut commands,
                    &inputs,
                    t,
                    &census,
                    &mut state,
                    &mut rng,
                    &q,
                    &mut events,
                );
            }
            if c.next.is_none() {
                c.next = Some(choose_turn(c, t, &q, &inputs, &mut rng));
            }
            let turn = c.next.expect("just chosen");
            let speaker = inputs.roster.entities[turn.speaker as usize];
            if asynchronous.contains(speaker) {
                let listener = inputs.roster.entities[turn.listener as usize];
                requests.write(LineRequest {
                    conversation: c.id,
                    turn: c.messages.len() as u32,
                    speaker,
                    listener,
                });
                c.awaiting = Some(c.next_turn.max(now));
                break;
            }
            let Some(said) = builtin_line(c, &inputs, &q) else {
                finish(c, EndCause::Left);
                break;
            };
            let at = c.next_turn;
            say(c, &inputs, t, said, at, &mut events);
        }
    }
}

fn finish(c: &mut Conversation, cause: EndCause) {
    c.end = Some(cause);
    c.state = ConversationState::Closing;
}

/// Adds one message and moves the state machine on.
fn say(
    c: &mut Conversation,
    inputs: &LineInputs,
    t: &SocialTuning,
    said: Delivered,
    at: GameTime,
    events: &mut MessageWriter<SimEvent>,
) {
    let Some(turn) = c.next.take() else {
        return;
    };
    let Delivered {
        line: text,
        ends,
        emotion,
    } = said;
    if text.is_empty() {
        finish(c, if ends { EndCause::Said } else { EndCause::Left });
        return;
    }
    let names: Vec<(u32, &str)> = c
        .participants
        .iter()
        .map(|&p| (p, inputs.roster.names[p as usize].as_str()))
        .collect();
    let mentions = analysis::mentions(&text, &names);
    let emotion = emotion.unwrap_or_else(|| analysis::detect_emotion(&t.emotions, &text));
    let ids = |v: &[u32]| {
        v.iter()
            .map(|&i| inputs.roster.ids[i as usize].clone())
            .collect::<Vec<_>>()
    };
    events.write(SimEvent {
        time: at,
        body: EventBody::Message {
            conversation: c.id,
            participants: ids(&c.participants),
            location: inputs.town.id(c.place).clone(),
            speaker: inputs.roster.ids[turn.speaker as usize].clone(),
            text: text.clone(),
            emotion,
            mentions: ids(&mentions),
        },
    });
    c.messages.push(ChatMessage {
        speaker: turn.speaker,
        text,
        emotion,
        mentions,
        time: at,
    });
    let texts: Vec<&str> = c.messages.iter().map(|m| m.text.as_str()).collect();
    c.topic = analysis::detect_topic(&t.topics, &texts).to_string();
    c.state = if c.messages.len() == 1 {
        ConversationState::Greeting
    } else {
        ConversationState::Active
    };
    c.next_turn = GameTime(at.0 + t.conversation.turn_seconds as i64);
    if ends && c.messages.len() as u32 >= t.conversation.min_turns {
        finish(c, EndCause::Said);
    }
}

/// Who speaks next, to whom, and whether a group line @-mentions someone.
fn choose_turn(
    c: &Conversation,
    t: &SocialTuning,
    q: &Query<TalkerView>,
    inputs: &LineInputs,
    rng: &mut SocialRng,
) -> Turn {
    let extraversion = |i: u32| {
        q.get(inputs.roster.entities[i as usize])
            .map_or(50.0, |v| v.1.personality.extraversion)
    };
    let last = c.messages.last();
    let speaker = match last {
        None => c.participants[0],
        Some(m) => {
            let people: Vec<(u32, f32)> = c
                .participants
                .iter()
                .map(|&p| (p, extraversion(p)))
                .collect();
            analysis::next_speaker(&people, Some(m.speaker), &m.mentions, rng)
        }
    };
    let others: Vec<u32> = c
        .participants
        .iter()
        .copied()
        .filter(|&p| p != speaker)
        .collect();
    let mention = (c.is_group() && rng.random::<f32>() < t.group.mention_probability)
        .then(|| others[rng.random_range(0..others.len())]);
    // Address the one mentioned, else answer the last speaker, else the opener's partner.
    let listener = mention
        .or(last.map(|m| m.speaker).filter(|&s| s != speaker))
        .unwrap_or(others[0]);
    Turn {
        speaker,
        listener,
        mention,
    }
}

/// A free bystander close to everyone in the conversation may join it.
#[allow(clippy::too_many_arguments)]
fn try_join(
    c: &mut Conversation,
    commands: &mut Commands,
    inputs: &LineInputs,
    t: &SocialTuning,
    census: &Census,
    state: &mut SocialState,
    rng: &mut SocialRng,
    q: &Query<TalkerView>,
    events: &mut MessageWriter<SimEvent>,
) {
    if c.participants.len() as u32 >= t.group.max_size {
        return;
    }
    let now = inputs.clock.now;
    let d2 = t.group.distance * t.group.distance;
    let Some(here) = census.at_place.get(c.place.i()) else {
        return;
    };
    for &b in here {
        if c.participants.contains(&b) || !state.free(b, now) || census.asleep(b) {
            continue;
        }
        let settled = state.stood[b as usize]
            .is_some_and(|(_, since)| since.0 + t.proximity.seconds as i64 <= now.0);
        let pb = census.entries[b as usize].pos;
        let near = c
            .participants
            .iter()
            .all(|&p| census.entries[p as usize].pos.distance_squared(pb) <= d2);
        if !settled || !near {
            continue;
        }
        let Ok(view) = q.get(inputs.roster.entities[b as usize]) else {
            continue;
        };
        let stages: Vec<Stage> = c
            .participants
            .iter()
            .map(|&p| {
                let s = view.3.by_idx(p).map_or(0.0, |r| r.strength);
                Stage::of(s, &t.relationship)
            })
            .collect();
        let chance = analysis::join_chance(t, view.1.personality.extraversion, &stages);
        if rng.random::<f32>() >= chance {
            continue;
        }
        c.participants.push(b);
        // A meeting for two is not proposed in front of a third, unless already made.
        if c.proposal
            .is_some_and(|p| p.turn as usize >= c.messages.len())
        {
            c.proposal = None;
        }
        state.talking[b as usize] = Some(c.id);
        commands
            .entity(inputs.roster.entities[b as usize])
            .insert(Talking { conversation: c.id });
        events.write(SimEvent {
            time: c.next_turn.max(now),
            body: EventBody::ConversationJoin {
                conversation: c.id,
                resident: view.0.id.clone(),
                participants: c
                    .participants
                    .iter()
                    .map(|&i| inputs.roster.ids[i as usize].clone())
                    .collect(),
            },
        });
        return;
    }
}
