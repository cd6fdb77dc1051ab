//! Bystanders joining talks. Between turns a free bystander standing close to
//! everyone in a talk may join it, by the design's odds (its extraversion and
//! its ties to the talkers). In a crowd, finding who stands close and looking
//! up their ties is the costly part; it only reads, so it is done for every
//! talk at once, on all threads, before the turns. The rolls are then drawn
//! one talk after another from the social stream, in the same order as
//! ever, so the log does not depend on the threads.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use rand::RngExt;

use super::super::analysis::{self, Stage};
use super::super::emotion::Emotion;
use super::super::{Conversation, LineInputs, SocialState, TalkerView};
use super::Turns;
use crate::scenario::{LocIdx, SocialTuning};
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::RosterIdx;
use crate::sim::social::message::Talking;
use crate::sim::social::triggers::grid::Grid;
use crate::sim::town::ActiveTuning;

/// Who could join a talk this step, by place: a crowded square is looked
/// through once a step, not once per talk in it.
#[derive(Default)]
pub(in crate::sim::social) struct Bystanders {
    by_place: HashMap<LocIdx, Here>,
}

/// Who could join a talk at one place. A crowd is sorted into a grid of
/// cells as wide as the joining distance: each of its talks then looks
/// through the cells around it, not through everyone there (a square of
/// thousands with hundreds of talks).
enum Here {
    Few(Vec<RosterIdx>),
    Crowd(Grid),
}

/// From this many bystanders at a place on, they are put in a grid.
const CROWD: usize = 64;

/// A bystander close to everyone in a talk, and its odds of joining it.
#[derive(Debug, Clone, Copy)]
pub(in crate::sim::social) struct Candidate {
    who: RosterIdx,
    /// In [0, 1]: a roll under this joins.
    odds: f32,
}

/// Lines a talk must still have planned for a bystander to join it: the
/// joiner's, and an answer.
const LEFT_FOR_A_JOINER: usize = 2;

/// Places with fewer talks open to joiners than this are looked through on one thread.
const PARALLEL_PLACES: usize = 8;

/// Talks open to joiners below this many find their candidates on one thread.
const PARALLEL_TALKS: usize = 16;

/// Whether a bystander may join `c` at this step (its turns not yet taken).
/// A skill is a talk for two: nobody joins it; nor a talk waiting for a
/// line, nor one about to close (a joiner gets the next line, and the talk
/// at least one more after it), nor a quarrel, nor staff serving a customer
/// (nobody joins an order with 「聊什么呢，这么热闹？」), nor two who agreed
/// to meet (the one keeping the date is not talked over); and only once a step.
pub(in crate::sim::social) fn open_to_joiners(
    c: &Conversation,
    tuning: &ActiveTuning,
    clock: &Clock,
) -> bool {
    let step_end = clock.now.plus_minutes(tuning.step_minutes as i64);
    let cap = c.messages.len() as u32 >= tuning.social.conversation.max_turns;
    c.end.is_none()
        && c.script.is_none()
        && !matches!(
            c.trigger,
            crate::sim::social::message::Trigger::Work
                | crate::sim::social::message::Trigger::Appointment
        )
        && c.awaiting.is_none()
        && c.messages.len() >= 2
        && c.messages.len() + LEFT_FOR_A_JOINER <= c.planned as usize
        && c.messages
            .last()
            .is_none_or(|m| m.emotion != Emotion::Angry)
        && !cap
        && c.next_turn < step_end
        && c.join_checked != clock.steps
}

/// What finding candidates reads: shared by the talks side by side.
#[derive(Clone, Copy)]
struct Crowd<'a, 'w, 's> {
    inputs: &'a LineInputs<'w>,
    tuning: &'a ActiveTuning,
    census: &'a Census,
    state: &'a SocialState,
    q: &'a Query<'w, 's, TalkerView<'static>>,
}

impl Crowd<'_, '_, '_> {
    /// Whether someone in `c` is too tired to go on (it ends before its turns).
    fn tired(&self, c: &Conversation) -> bool {
        let urgent = self.tuning.social.conversation.urgent_energy;
        c.participants
            .iter()
            .any(|&p| self.census.entries[p.i()].energy < urgent)
    }

    /// Whether this step's candidates for `c` are wanted.
    fn wanted(&self, c: &Conversation) -> bool {
        self.state.open.contains_key(&c.id)
            && open_to_joiners(c, self.tuning, &self.inputs.clock)
            && (c.participants.len() as u32) < self.tuning.social.group.max_size
    }

    /// Who could join a talk at `place` this step: free, awake, settled in.
    /// Freedom is looked at again before each roll: someone may join another
    /// talk first.
    fn at(&self, place: LocIdx) -> Here {
        let now = self.inputs.clock.now;
        let settle = self.tuning.social.proximity.seconds as i64;
        let settled = |b: RosterIdx| {
            self.state.stood[b.i()].is_some_and(|(_, since)| since.0 + settle <= now.0)
        };
        let free: Vec<RosterIdx> = self
            .census
            .standing_at(place)
            .iter()
            .copied()
            .filter(|&b| self.state.free(b, now) && !self.census.asleep(b) && settled(b))
            .collect();
        if free.len() < CROWD {
            return Here::Few(free);
        }
        let placed: Vec<(RosterIdx, bevy::math::Vec2)> = free
            .into_iter()
            .map(|b| (b, self.census.entries[b.i()].pos))
            .collect();
        let mut grid = Grid::default();
        grid.fill(self.tuning.social.group.distance, &placed);
        Here::Crowd(grid)
    }

    /// `c`'s candidates at its place, in roster order, into `out`.
    fn candidates_at(&self, c: &Conversation, here: Option<&Here>, out: &mut Vec<Candidate>) {
        match here {
            None => {}
            Some(Here::Few(list)) => self.candidates(c, list, out),
            Some(Here::Crowd(grid)) => {
                // Everyone close to all the talkers is close to the first,
                // so in the cells around it.
                let first = self.census.entries[c.participants[0].i()].pos;
                let mut near: Vec<RosterIdx> =
                    grid.around(first).flatten().map(|&(b, _)| b).collect();
                near.sort_unstable();
                self.candidates(c, &near, out);
            }
        }
    }

    /// `c`'s candidates among `here`, in their order, into `out`.
    fn candidates(&self, c: &Conversation, here: &[RosterIdx], out: &mut Vec<Candidate>) {
        let t = &self.tuning.social;
        let now = self.inputs.clock.now;
        let d2 = t.group.distance * t.group.distance;
        let party = self
            .inputs
            .gatherings
            .iter()
            .any(|g| g.under_way_at(c.place, now));
        let boost = if party { t.gathering_talk } else { 1.0 };
        let pos = |i: RosterIdx| self.census.entries[i.i()].pos;
        let mut stages = Vec::with_capacity(c.participants.len());
        for &b in here {
            if c.participants.contains(&b) {
                continue;
            }
            let pb = pos(b);
            if !c
                .participants
                .iter()
                .all(|&p| pos(p).distance_squared(pb) <= d2)
            {
                continue;
            }
            let Ok(view) = self.q.get(self.inputs.roster.entity_of(b)) else {
                continue;
            };
            // The census's copy: one persona fewer to fetch per bystander.
            let extraversion = self.census.traits[b.i()]
                .map_or_else(|| view.1.personality.extraversion, |x| x.extraversion);
            stages.clear();
            stages.extend(c.participants.iter().map(|&p| {
                let s = view.3.by_idx(p).map_or(0.0, |r| r.strength);
                Stage::of(s, &t.relationship)
            }));
            out.push(Candidate {
                who: b,
                odds: odds(t, extraversion, &stages, boost),
            });
        }
    }
}

/// A bystander's odds of joining a talk: the design's chance, by its
/// extraversion and its `stages` with everyone in it, × `boost`
/// (`gathering_talk` at a gathering under way).
fn odds(t: &SocialTuning, extraversion: f32, stages: &[Stage], boost: f32) -> f32 {
    (boost * analysis::join_chance(t, extraversion, stages)).min(1.0)
}

impl Bystanders {
    /// Before the turns: every open talk that may take a joiner this step
    /// gets its candidates (see the module's note); and, while its
    /// participants are looked up anyway, every open talk learns whether
    /// someone in it is too tired to go on.
    pub(in crate::sim::social) fn find(
        &mut self,
        turns: &Turns,
        conversations: &mut Query<&mut Conversation>,
    ) {
        let crowd = Crowd {
            inputs: &turns.inputs,
            tuning: &turns.tuning,
            census: &turns.census,
            state: &turns.state,
            q: &turns.q,
        };
        let mut places: Vec<LocIdx> = conversations
            .iter()
            .filter(|c| crowd.wanted(c))
            .map(|c| c.place)
            .collect();
        places.sort_unstable();
        places.dedup();
        let lists = crate::sim::par_chunks(&places, PARALLEL_PLACES, |part| {
            part.iter()
                .map(|&place| (place, crowd.at(place)))
                .collect::<Vec<_>>()
        });
        self.by_place.clear();
        self.by_place.extend(lists.into_iter().flatten());
        let by_place = &self.by_place;
        let fill = |c: &mut Conversation| {
            c.tired = crowd.state.open.contains_key(&c.id) && c.end.is_none() && crowd.tired(c);
            let mut out = std::mem::take(&mut c.could_join);
            out.clear();
            if crowd.wanted(c) {
                crowd.candidates_at(c, by_place.get(&c.place), &mut out);
            }
            c.could_join = out;
        };
        if crate::sim::pool_threads() > 1 && turns.state.open.len() >= PARALLEL_TALKS {
            conversations
                .par_iter_mut()
                .batching_strategy(crate::sim::batching())
                .for_each(|mut c| fill(&mut c));
        } else {
            conversations.iter_mut().for_each(|mut c| fill(&mut c));
        }
    }
}

impl Turns<'_, '_> {
    /// The first of `c`'s candidates still free whose roll beats its odds
    /// joins it (one a step).
    pub(super) fn try_join(&mut self, c: &mut Conversation) {
        let Turns {
            commands,
            inputs,
            tuning,
            state,
            rng,
            ..
        } = self;
        if c.participants.len() as u32 >= tuning.social.group.max_size {
            return;
        }
        let now = inputs.clock.now;
        let candidates = std::mem::take(&mut c.could_join);
        let joiner = candidates
            .iter()
            .filter(|x| state.free(x.who, now))
            .find(|x| rng.random::<f32>() < x.odds)
            .map(|x| x.who);
        c.could_join = candidates;
        let Some(b) = joiner else {
            return;
        };
        c.participants.push(b);
        // A meeting for two is not proposed in front of a third, unless already made.
        if c.proposal
            .is_some_and(|p| p.turn as usize >= c.messages.len())
        {
            c.proposal = None;
        }
        state.talking[b.i()] = Some(c.id);
        commands.entity(inputs.roster.entity_of(b)).insert(Talking);
        c.said.events.push(SimEvent {
            time: c.next_turn.max(now),
            body: EventBody::ConversationJoin {
                conversation: c.id,
                resident: inputs.roster.id_of(b).clone(),
                participants: c
                    .participants
                    .iter()
                    .map(|&i| inputs.roster.id_of(i).clone())
                    .collect(),
            },
        });
    }
}
