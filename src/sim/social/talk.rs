//! Open conversations take their turns: each line takes as long to say as it
//! is long, and a pause follows before the reply, so a talk runs for minutes
//! of game time across steps (participants make no new plans meanwhile). A built-in speaker answers at once;
//! an async mind gets a [`LineRequest`] and the conversation waits (up to the
//! timeout) for its line. Bystanders may join between turns.

mod join;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use join::Bystanders;
pub(super) use join::Candidate;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::analysis;
use super::cue::Cue;
use super::emotion::Emotion;
use super::keywords::KeywordIndex;
use super::lines::builtin_line;
use super::message::{ChatMessage, ConversationState, Delivered, EndCause, Turn};
use super::{Conversation, LineInputs, LineRequest, SocialRng, SocialState, TalkerView, scripted};
use crate::base::time::GameTime;
use crate::scenario::{ConversationTuning, SocialTuning};
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::knowledge::facts::{About, Learn, Raise, Source};
use crate::sim::residents::AsyncMind;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::RosterIdx;
use crate::sim::town::ActiveTuning;

/// A skill's conversation may run longer than small talk (an `ai_ask` takes
/// up to ten rounds), but not without end.
const SCRIPTED_MAX_TURNS: u32 = 40;

/// What taking turns reads and writes.
#[derive(SystemParam)]
pub(super) struct Turns<'w, 's> {
    commands: Commands<'w, 's>,
    inputs: LineInputs<'w>,
    tuning: Res<'w, ActiveTuning>,
    census: Res<'w, Census>,
    state: ResMut<'w, SocialState>,
    rng: ResMut<'w, SocialRng>,
    q: Query<'w, 's, TalkerView<'static>>,
    asynchronous: Query<'w, 's, (), With<AsyncMind>>,
    events: MessageWriter<'w, SimEvent>,
    requests: MessageWriter<'w, LineRequest>,
    learn: MessageWriter<'w, Learn>,
    raise: MessageWriter<'w, Raise>,
}

/// What a conversation's turns in one step send out: kept on the
/// conversation while the conversations take their turns side by side,
/// then sent in the conversations' order.
#[derive(Debug, Clone, Default)]
pub(super) struct Said {
    events: Vec<SimEvent>,
    /// Facts its listeners learn.
    learn: Vec<Learn>,
    /// Things its speakers have now brought up.
    raise: Vec<Raise>,
    requests: Vec<LineRequest>,
}

/// Whether a conversation takes another turn this step.
enum Go {
    On,
    Stop,
}

/// Open conversations below this many take their turns on one thread:
/// handing them to threads costs more than it saves.
const PARALLEL_TALKS: usize = 16;

/// Every open conversation takes the turns due in this step. What touches
/// the town's shared state (leaving, a skill begun, a bystander joining) is
/// done first, one conversation after another; then each conversation's
/// lines are worked out on their own (in parallel, each with its own random
/// stream) and sent in the conversations' order, so the log does not depend
/// on the threads.
pub(super) fn talk(
    mut turns: Turns,
    mut conversations: Query<&mut Conversation>,
    mut bystanders: Local<Bystanders>,
    mut keywords: Local<Keywords>,
) {
    let open: Vec<Entity> = turns.state.open.values().copied().collect();
    bystanders.find(&turns, &mut conversations);
    for &entity in &open {
        if let Ok(mut c) = conversations.get_mut(entity) {
            turns.prepare(&mut c);
        }
    }
    let social = &turns.tuning.social;
    // New topic tables: every talk's topic is read again from all its lines.
    let retopic = !keywords.topics.is_of(&social.topics);
    if retopic || !keywords.emotions.is_of(&social.emotions) {
        *keywords = Keywords {
            emotions: KeywordIndex::new(&social.emotions),
            topics: KeywordIndex::new(&social.topics),
        };
    }
    let lines = Lines {
        keywords: &keywords,
        inputs: &turns.inputs,
        tuning: &turns.tuning,
        q: &turns.q,
        asynchronous: &turns.asynchronous,
        retopic,
    };
    let threads = crate::sim::pool_threads();
    if threads > 1 && open.len() >= PARALLEL_TALKS {
        let listed = &turns.state.open;
        conversations
            .par_iter_mut()
            .batching_strategy(crate::sim::batching())
            .for_each(|mut c| {
                // Only the open ones, as on one thread.
                if listed.contains_key(&c.id) {
                    lines.step(&mut c);
                }
            });
    } else {
        for &entity in &open {
            if let Ok(mut c) = conversations.get_mut(entity) {
                lines.step(&mut c);
            }
        }
    }
    for &entity in &open {
        if let Ok(mut c) = conversations.get_mut(entity) {
            turns.send(std::mem::take(&mut c.said));
        }
    }
}

impl Turns<'_, '_> {
    /// Before a conversation's turns: it ends if someone must leave; a skill
    /// may begin before its first line; a bystander may join between turns.
    fn prepare(&mut self, c: &mut Conversation) {
        if c.end.is_some() {
            return;
        }
        if c.tired {
            return finish(c, EndCause::UrgentNeed);
        }
        if !c.script_checked {
            c.script_checked = true;
            self.begin_skill(c);
        }
        if join::open_to_joiners(c, &self.tuning, &self.inputs.clock) {
            c.join_checked = self.inputs.clock.steps;
            self.try_join(c);
        }
    }

    /// Sends what a conversation's turns said.
    fn send(&mut self, said: Said) {
        self.events.write_batch(said.events);
        self.learn.write_batch(said.learn);
        self.raise.write_batch(said.raise);
        self.requests.write_batch(said.requests);
    }

    /// Before the first line: a resident may start one of its skills.
    fn begin_skill(&mut self, c: &mut Conversation) {
        let now = self.inputs.clock.now;
        let Some(began) = scripted::begin(c, &self.inputs, &self.state, &mut self.rng, &self.q)
        else {
            return;
        };
        let id = |i: RosterIdx| self.inputs.roster.id_of(i).clone();
        c.said.events.push(SimEvent {
            time: c.next_turn.max(now),
            body: EventBody::SkillStart {
                conversation: c.id,
                resident: id(began.ai),
                partner: id(began.human),
                skill: began.skill.clone(),
                inputs: began.inputs,
            },
        });
        let error = match began.talk {
            Ok(talk) => return c.script = Some(Box::new(talk)),
            Err(error) => error,
        };
        // Not retried with this partner; the talk goes on unscripted.
        self.state
            .skills_done
            .insert((began.ai, began.human, began.skill.clone()));
        c.said.events.push(SimEvent {
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

/// The tuning's emotion and topic tables, made ready to search lines
/// (rebuilt when the tables change).
#[derive(Default)]
pub(super) struct Keywords {
    emotions: KeywordIndex,
    topics: KeywordIndex,
}

/// What a conversation's lines are written from: read only, shared by the
/// conversations taking their turns side by side.
#[derive(Clone, Copy)]
struct Lines<'a, 'w, 's> {
    keywords: &'a Keywords,
    inputs: &'a LineInputs<'w>,
    tuning: &'a ActiveTuning,
    q: &'a Query<'w, 's, TalkerView<'static>>,
    asynchronous: &'a Query<'w, 's, (), With<AsyncMind>>,
    /// The topic tables changed since the last step (a reload).
    retopic: bool,
}

impl Lines<'_, '_, '_> {
    /// One conversation's turns in this step, drawing from its own stream
    /// (the run's seed, the conversation and the step).
    fn step(&self, c: &mut Conversation) {
        if c.end.is_some() {
            return;
        }
        if self.retopic {
            c.topic_words = Default::default();
        }
        let mut rng = turn_rng(self.inputs.settings.seed, c.id, self.inputs.clock.steps);
        while let Go::On = self.turn(c, &mut rng) {}
    }

    /// One turn: a line handed in, a skill's line, or the next speaker's.
    fn turn(&self, c: &mut Conversation, rng: &mut ChaCha8Rng) -> Go {
        let now = self.inputs.clock.now;
        let t = &self.tuning.social;
        if let Some(asked) = c.awaiting {
            let Some(d) = c.delivered.take() else {
                if now.0 - asked.0 >= t.conversation.timeout_seconds as i64 {
                    finish(c, EndCause::Timeout);
                }
                return Go::Stop;
            };
            c.awaiting = None;
            let at = c.next_turn.max(now);
            say(c, (self.inputs, t, self.keywords), d, at, rng);
            return Go::On;
        }
        let step_end = now.plus_minutes(self.tuning.step_minutes as i64);
        if c.end.is_some() || c.next_turn >= step_end {
            return Go::Stop;
        }
        let cap = match c.script {
            Some(_) => SCRIPTED_MAX_TURNS,
            None => t.conversation.max_turns,
        };
        if c.messages.len() as u32 >= cap {
            finish(c, EndCause::MaxTurns);
            return Go::Stop;
        }
        // A staff greeting (the conversation's role) comes before the skill.
        if c.script.is_some() && c.messages.len() >= usize::from(c.role.is_some()) {
            return self.skill_line(c, rng);
        }
        if c.next.is_none() {
            c.next = Some(choose_turn(c, t, self.q, self.inputs, rng));
        }
        self.speak(c, rng)
    }

    /// The skill's next line, from whichever side of it speaks.
    fn skill_line(&self, c: &mut Conversation, rng: &mut ChaCha8Rng) -> Go {
        let now = self.inputs.clock.now;
        let Some(s) = c.script.as_mut() else {
            return Go::Stop;
        };
        let Some((speaker, mut line)) = s.next_line(&c.next_turn.max(now).seconds_text()) else {
            finish(c, EndCause::Said);
            return Go::Stop;
        };
        let listener = if speaker == s.ai { s.human } else { s.ai };
        c.next = Some(Turn {
            speaker,
            listener,
            mention: None,
        });
        // A customer greeted by staff ("今天吃点什么？") orders before it asks
        // its own question.
        if c.role.is_some()
            && c.messages.len() == 1
            && let Some(order) = builtin_line(c, self.inputs, self.q).filter(|d| !d.ends)
        {
            line = format!("{}对了，{line}", order.line);
        }
        // A skill's talk is care, never a quarrel: 「烦心事」 is no anger.
        let emotion = match self.keywords.emotions.emotion(&line) {
            Emotion::Angry => Emotion::Neutral,
            e => e,
        };
        let said = Delivered::from_model(line, false, Some(emotion));
        self.say_now(c, said, rng)
    }

    /// The chosen speaker's line: asked of its async mind (the talk waits),
    /// or said at once by the built-in brain.
    fn speak(&self, c: &mut Conversation, rng: &mut ChaCha8Rng) -> Go {
        let turn = c.next.expect("just chosen");
        let speaker = self.inputs.roster.entity_of(turn.speaker);
        if self.asynchronous.contains(speaker) {
            let listener = self.inputs.roster.entity_of(turn.listener);
            c.said.requests.push(LineRequest {
                conversation: c.id,
                speaker,
                listener,
            });
            c.awaiting = Some(c.next_turn.max(self.inputs.clock.now));
            return Go::Stop;
        }
        let Some(said) = builtin_line(c, self.inputs, self.q) else {
            finish(c, EndCause::Left);
            return Go::Stop;
        };
        self.say_now(c, said, rng)
    }

    /// Says `said` at the conversation's next turn; the talk goes on.
    fn say_now(&self, c: &mut Conversation, said: Delivered, rng: &mut ChaCha8Rng) -> Go {
        let at = c.next_turn;
        say(
            c,
            (self.inputs, &self.tuning.social, self.keywords),
            said,
            at,
            rng,
        );
        Go::On
    }
}

/// A conversation's random stream for one step: from the run's seed, the
/// conversation's id and the step, so no conversation's draws depend on
/// another's (or on which thread took its turns).
fn turn_rng(seed: u64, conversation: u64, step: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7A1C);
    rng.set_stream(conversation);
    // A step draws far fewer than 2^32 words.
    rng.set_word_pos(u128::from(step) << 32);
    rng
}

/// Anyone kept out of conversations (gone on a date) leaves the one it is
/// in: the talk ends before its next line.
pub(super) fn step_out(
    clock: Res<crate::sim::clock::Clock>,
    state: Res<SocialState>,
    mut conversations: Query<&mut Conversation>,
) {
    let now = clock.now;
    for mut c in &mut conversations {
        if c.end.is_none() && c.participants.iter().any(|&i| state.engaged(i, now)) {
            finish(&mut c, EndCause::Interrupted);
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
    (inputs, t, keywords): (&LineInputs, &SocialTuning, &Keywords),
    said: Delivered,
    at: GameTime,
    rng: &mut ChaCha8Rng,
) {
    let Some(turn) = c.next.take() else {
        return;
    };
    let Delivered {
        line: text,
        ends,
        emotion,
        cue,
        teaches,
    } = said;
    if text.is_empty() {
        finish(c, if ends { EndCause::Said } else { EndCause::Left });
        return;
    }
    let gap = line_gap(&t.conversation, &text, rng.random::<f32>());
    let names: Vec<(RosterIdx, &str)> = c
        .participants
        .iter()
        .map(|&p| (p, inputs.roster.name_of(p)))
        .collect();
    let mentions = analysis::mentions(&text, &names);
    let emotion = match cue {
        // The built-in brain's line: what it does settles its emotion; by
        // its words it may be glad or curious, never angry.
        Some(cue) => cue
            .emotion()
            .unwrap_or_else(|| match keywords.emotions.emotion(&text) {
                Emotion::Angry => Emotion::Neutral,
                e => e,
            }),
        None => emotion.unwrap_or_else(|| keywords.emotions.emotion(&text)),
    };
    let mut out = std::mem::take(&mut c.said);
    pass_on(c, (turn, at), (cue, teaches), &mut out);
    c.said = out;
    let ids = |v: &[RosterIdx]| {
        v.iter()
            .map(|&i| inputs.roster.id_of(i).clone())
            .collect::<Vec<_>>()
    };
    c.said.events.push(SimEvent {
        time: at,
        body: EventBody::Message {
            conversation: c.id,
            participants: ids(&c.participants),
            location: inputs.town.id(c.place).clone(),
            speaker: inputs.roster.id_of(turn.speaker).clone(),
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
        cue,
        to: Some(turn.listener),
    });
    let topic = c.topic_words.topic(&keywords.topics, &c.messages);
    if c.topic != topic {
        c.topic = topic.to_string();
    }
    c.state = if c.messages.len() == 1 {
        ConversationState::Greeting
    } else {
        ConversationState::Active
    };
    c.next_turn = GameTime(at.0 + gap);
    if ends && c.messages.len() as u32 >= t.conversation.min_turns {
        finish(c, EndCause::Said);
    }
}

/// What a line tells its listeners (news, a gathering, the speaker's own
/// trade or taste), and what its speaker has now brought up with whom.
fn pass_on(
    c: &Conversation,
    (turn, at): (Turn, GameTime),
    (cue, teaches): (Option<Cue>, Option<About>),
    out: &mut Said,
) {
    let heard = match cue {
        Some(Cue::News { about, .. }) => Some(about),
        Some(Cue::Going { gathering }) => Some(About::Gathering { gathering }),
        Some(Cue::Invite) => c.invite.map(|g| About::Gathering { gathering: g }),
        _ => None,
    };
    for about in heard.into_iter().chain(teaches) {
        for &who in c.participants.iter().filter(|&&p| p != turn.speaker) {
            out.learn.push(Learn {
                who,
                about,
                source: Source::Told { by: turn.speaker },
                time: at,
            });
        }
    }
    if let Some(Cue::Shared { about, .. }) = cue {
        out.raise.push(Raise {
            who: turn.speaker,
            about,
            with: turn.listener,
        });
    }
    // A gathering asked about is talked over with all who heard (not asked again).
    if let Some(Cue::Going { gathering }) = cue {
        let heard = c.participants.iter().filter(|&&p| p != turn.speaker);
        out.raise.extend(heard.map(|&with| Raise {
            who: turn.speaker,
            about: About::Gathering { gathering },
            with,
        }));
    }
}

/// Game seconds from a line to the next: the time to say it, then a pause
/// (`draw` in 0..1 picks where in the tuning's range; a question is answered
/// in half the pause), never under `turn_seconds`.
pub(crate) fn line_gap(t: &ConversationTuning, text: &str, draw: f32) -> i64 {
    let chars = text.chars().filter(|c| !c.is_whitespace()).count() as f32;
    let saying = chars / t.chars_per_second;
    let [least, most] = t.pause_seconds.map(|s| s as f32);
    let mut pause = least + (most - least) * draw.clamp(0.0, 1.0);
    if text.trim_end().ends_with(['？', '?']) {
        pause /= 2.0;
    }
    ((saying + pause).round() as i64).max(i64::from(t.turn_seconds))
}

/// Who speaks next, to whom, and whether a group line @-mentions someone.
fn choose_turn(
    c: &Conversation,
    t: &SocialTuning,
    q: &Query<TalkerView>,
    inputs: &LineInputs,
    rng: &mut ChaCha8Rng,
) -> Turn {
    let extraversion = |i: RosterIdx| {
        q.get(inputs.roster.entity_of(i))
            .map_or(50.0, |v| v.1.personality.extraversion)
    };
    let last = c.messages.last();
    // An invitation just said is answered by the one invited.
    let invited = c.invite_answer.map(|a| a.guest).filter(|guest| {
        if !c.participants.contains(guest) {
            return false;
        }
        let organiser = c.invite.and_then(|g| inputs.gatherings.get(g.i()));
        let organiser = organiser.and_then(|g| inputs.roster.idx(&g.organiser));
        organiser.and_then(|o| c.invitation_at(o)) == Some(c.messages.len().wrapping_sub(1))
    });
    // A line that waits for an answer is answered by the one it was said to.
    let addressed = last
        .filter(|m| m.cue.is_some_and(Cue::awaits_answer))
        .and_then(|m| m.to)
        .filter(|to| c.participants.contains(to) && Some(*to) != last.map(|m| m.speaker));
    // One who has just joined says something (the two who began have).
    let joiner = c
        .participants
        .iter()
        .skip(2)
        .find(|&&p| !c.messages.iter().any(|m| m.speaker == p))
        .copied();
    let speaker = match (invited, last) {
        (Some(guest), _) => guest,
        (None, None) => c.participants[0],
        (None, Some(_)) if addressed.is_some() => addressed.expect("checked"),
        (None, Some(_)) if joiner.is_some() => joiner.expect("checked"),
        (None, Some(m)) => {
            let people: Vec<(RosterIdx, f32)> = c
                .participants
                .iter()
                .map(|&p| (p, extraversion(p)))
                .collect();
            analysis::next_speaker(&people, Some(m.speaker), &m.mentions, rng)
        }
    };
    let others: Vec<RosterIdx> = c
        .participants
        .iter()
        .copied()
        .filter(|&p| p != speaker)
        .collect();
    // The first answer to an organiser's welcome goes to the organiser; an
    // answer goes to whom it answers, @ in a group.
    let answering_host = c.hosting.is_some() && c.messages.len() == 1;
    let answering = addressed.is_some() && addressed == Some(speaker);
    let mention = if answering {
        last.map(|m| m.speaker).filter(|_| c.is_group())
    } else {
        (c.is_group() && !answering_host && rng.random::<f32>() < t.group.mention_probability)
            .then(|| others[rng.random_range(0..others.len())])
    };
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
