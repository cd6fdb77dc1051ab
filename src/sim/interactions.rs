//! Residents at the same place strike up short exchanges. Grouping is by place
//! and pairing is linear in the number of residents, so thousands stay cheap.
//! The social-life issue grows this into turn-by-turn conversations.

use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::clock::Clock;
use super::event_log::{EventBody, SimEvent};
use super::notices::learn_gathering;
use super::residents::{
    Activity, Agenda, AsyncMind, Census, Heard, Needs, Persona, Relationships, Resident,
    ResidentRng, Roster, Tally,
};
use super::town::{ActiveTuning, Gatherings};
use super::{ActiveBrain, RunSettings, SimSet, SimStep};
use crate::brain::{LineContext, Topic};
use crate::scenario::{LocIdx, RelationKind, Town};
use crate::time::GameTime;

/// When each pair (lower idx first) may talk again, and when each resident
/// (by roster idx) is ready for another exchange.
#[derive(Resource, Debug, Default)]
pub struct Cooldowns {
    pub pairs: HashMap<(u32, u32), GameTime>,
    pub residents: Vec<GameTime>,
}

/// The shared random stream for who meets whom.
#[derive(Resource, Debug, Deref, DerefMut)]
pub struct EncounterRng(pub ChaCha8Rng);

/// An exchange between two residents, line by line. Built-in speakers answer
/// at once; an async mind's line arrives in a later step.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub id: u64,
    /// Roster indices; `a` opens.
    pub a: u32,
    pub b: u32,
    pub place: LocIdx,
    pub topic: Topic,
    /// Lines planned (it may end earlier).
    pub planned: u32,
    /// (speaker roster idx, line)
    pub lines: Vec<(u32, String)>,
    /// A gathering (index) the organiser invites the other to.
    pub invite: Option<usize>,
    pub started: GameTime,
    /// An async mind is writing the next line.
    pub awaiting: bool,
    /// The next line and whether its speaker leaves after it, from an async mind.
    pub delivered: Option<(String, bool)>,
    pub ended: bool,
}

#[derive(Resource, Debug, Default)]
pub struct Exchanges {
    pub open: Vec<Exchange>,
    next_id: u64,
}

impl Exchanges {
    /// An async mind hands in the line an exchange waits for.
    pub fn deliver(&mut self, exchange: u64, line: String, ends: bool) {
        if let Some(ex) = self.open.iter_mut().find(|e| e.id == exchange) {
            ex.delivered = Some((line, ends));
        }
    }
}

/// A line is needed from an async mind.
#[derive(Message, Debug, Clone, Copy)]
pub struct LineRequest {
    pub exchange: u64,
    pub turn: u32,
    pub speaker: Entity,
    pub listener: Entity,
}

/// What a line is written from.
pub type TalkerView<'a> = (
    &'a Resident,
    &'a Persona,
    Option<&'a Activity>,
    &'a Relationships,
    &'a Agenda,
);

/// What a finished exchange changes.
type TalkerEffects<'a> = (
    &'a Resident,
    &'a Persona,
    &'a mut Needs,
    &'a mut Relationships,
    &'a mut Agenda,
    &'a mut ResidentRng,
    &'a mut Tally,
);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Cooldowns>()
        .init_resource::<Exchanges>()
        .add_message::<LineRequest>()
        .configure_sets(
            SimStep,
            (InteractionsSet::Meet, InteractionsSet::Talk)
                .chain()
                .in_set(SimSet::Interactions),
        )
        .add_systems(
            SimStep,
            (
                interact.in_set(InteractionsSet::Meet),
                talk.in_set(InteractionsSet::Talk),
            ),
        );
}

/// Pairs meet, then open exchanges advance; async minds deliver lines before
/// `Talk` and pick up line requests after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InteractionsSet {
    Meet,
    Talk,
}

/// Who may be drawn into an exchange: standing at a place, awake, not just out of one.
fn available(census: &Census, cooldowns: &Cooldowns, now: GameTime, idx: u32) -> bool {
    let e = &census.entries[idx as usize];
    !e.walking
        && !census.asleep(idx)
        && cooldowns
            .residents
            .get(idx as usize)
            .is_none_or(|&t| t <= now)
}

#[allow(clippy::too_many_arguments)]
fn interact(
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    census: Res<Census>,
    roster: Res<Roster>,
    gatherings: Res<Gatherings>,
    mut cooldowns: ResMut<Cooldowns>,
    mut exchanges: ResMut<Exchanges>,
    mut rng: ResMut<EncounterRng>,
    q: Query<TalkerView>,
) {
    let t = &tuning.interactions;
    cooldowns.residents.resize(roster.len(), GameTime(i64::MIN));
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for here in &census.at_place {
        if here.len() < 2 {
            continue;
        }
        let free: Vec<u32> = here
            .iter()
            .copied()
            .filter(|&i| available(&census, &cooldowns, clock.now, i))
            .collect();
        if free.len() < 2 {
            continue;
        }
        // Each resident gets one chance per step with one partner drawn from the others.
        let mut taken = vec![false; free.len()];
        for a in 0..free.len() {
            if taken[a] {
                continue;
            }
            let b = rng.random_range(0..free.len());
            if b == a || taken[b] {
                continue;
            }
            let key = (free[a].min(free[b]), free[a].max(free[b]));
            if cooldowns
                .pairs
                .get(&key)
                .is_some_and(|&until| until > clock.now)
            {
                continue;
            }
            if rng.random::<f32>() >= t.probability {
                continue;
            }
            taken[a] = true;
            taken[b] = true;
            pairs.push(key);
        }
    }
    if pairs.is_empty() {
        return;
    }
    // Expired pairs are dropped now and then, not every step.
    if clock.steps.is_multiple_of(60) {
        cooldowns.pairs.retain(|_, until| *until > clock.now);
    }
    for (a, b) in pairs {
        cooldowns
            .pairs
            .insert((a, b), clock.now.plus_minutes(t.cooldown_minutes as i64));
        // Out of the pool until the exchange ends (see `talk`).
        cooldowns.residents[a as usize] = GameTime(i64::MAX);
        cooldowns.residents[b as usize] = GameTime(i64::MAX);
        let (ea, eb) = (roster.entities[a as usize], roster.entities[b as usize]);
        let (Ok(ra), Ok(rb)) = (q.get(ea), q.get(eb)) else {
            continue;
        };
        let place = census.entries[a as usize].at;
        let topic = Topic::choose(ra.1, rb.1, town.get(place));
        // The opener is whoever is more outgoing.
        let (ra, rb) = if rb.1.personality.extraversion > ra.1.personality.extraversion {
            (rb, ra)
        } else {
            (ra, rb)
        };
        let invite = gatherings
            .iter()
            .position(|g| g.organiser == ra.0.id && g.starts > clock.now && !rb.4.knows(g.id))
            .or_else(|| {
                gatherings.iter().position(|g| {
                    g.organiser == rb.0.id && g.starts > clock.now && !ra.4.knows(g.id)
                })
            });
        let planned = 2 + rng.random_range(0..=(t.max_lines.max(2) - 2));
        exchanges.next_id += 1;
        let id = exchanges.next_id;
        exchanges.open.push(Exchange {
            id,
            a: ra.0.idx,
            b: rb.0.idx,
            place,
            topic,
            planned,
            lines: Vec::new(),
            invite,
            started: clock.now,
            awaiting: false,
            delivered: None,
            ended: false,
        });
    }
}

/// Runs `f` with the context for the next line of `ex` (speaker by turn parity).
pub fn with_line_context<R>(
    ex: &Exchange,
    inputs: &LineInputs,
    q: &Query<TalkerView>,
    f: impl FnOnce(&LineContext<'_>, Entity, Entity) -> R,
) -> Option<R> {
    let turn = ex.lines.len() as u32;
    let (s, l) = if turn.is_multiple_of(2) {
        (ex.a, ex.b)
    } else {
        (ex.b, ex.a)
    };
    let (es, el) = (
        *inputs.roster.entities.get(s as usize)?,
        *inputs.roster.entities.get(l as usize)?,
    );
    let (speaker, listener) = (q.get(es).ok()?, q.get(el).ok()?);
    let inviting = ex
        .invite
        .and_then(|g| inputs.gatherings.get(g))
        .filter(|g| g.organiser == speaker.0.id && turn == 1);
    let cx = LineContext {
        now: inputs.clock.now,
        speaker: speaker.1,
        listener: listener.1,
        relation: speaker.3.by_idx(l),
        place: inputs.town.get(ex.place),
        topic: ex.topic,
        turn,
        lines: ex.planned,
        previous: ex.lines.last().map_or("", |(_, line)| line.as_str()),
        inviting,
        inviting_place: inviting.map(|g| inputs.town.name(g.location)),
        seed: inputs.settings.seed,
    };
    Some(f(&cx, es, el))
}

/// What every line is written from.
#[derive(SystemParam)]
pub struct LineInputs<'w> {
    pub clock: Res<'w, Clock>,
    pub settings: Res<'w, RunSettings>,
    pub town: Res<'w, Town>,
    pub roster: Res<'w, Roster>,
    pub gatherings: Res<'w, Gatherings>,
    pub brain: Res<'w, ActiveBrain>,
}

/// Advances every open exchange: built-in speakers answer at once; for an async
/// mind a [`LineRequest`] goes out and the exchange waits for its delivery.
/// Finished exchanges are logged and change needs, ties and agendas.
#[allow(clippy::too_many_arguments)]
fn talk(
    inputs: LineInputs,
    tuning: Res<ActiveTuning>,
    mut exchanges: ResMut<Exchanges>,
    mut cooldowns: ResMut<Cooldowns>,
    mut events: MessageWriter<SimEvent>,
    mut requests: MessageWriter<LineRequest>,
    asynchronous: Query<(), With<AsyncMind>>,
    mut residents: ParamSet<(Query<TalkerView>, Query<TalkerEffects>)>,
) {
    let now = inputs.clock.now;
    let mut open = std::mem::take(&mut exchanges.open);
    open.retain_mut(|ex| {
        loop {
            if ex.ended || ex.lines.len() as u32 >= ex.planned {
                conclude(ex, &inputs, &tuning, &mut events, &mut residents.p1());
                let ready = now.plus_minutes(tuning.interactions.pause_minutes as i64);
                for i in [ex.a, ex.b] {
                    if let Some(c) = cooldowns.residents.get_mut(i as usize) {
                        *c = ready;
                    }
                }
                return false;
            }
            let turn = ex.lines.len();
            let speaker = if turn % 2 == 0 { ex.a } else { ex.b };
            let line = if let Some((line, ends)) = ex.delivered.take() {
                ex.awaiting = false;
                ex.ended = ends;
                line
            } else if ex.awaiting {
                return true;
            } else if asynchronous.contains(inputs.roster.entities[speaker as usize]) {
                let Some(req) =
                    with_line_context(ex, &inputs, &residents.p0(), |_, s, l| LineRequest {
                        exchange: ex.id,
                        turn: turn as u32,
                        speaker: s,
                        listener: l,
                    })
                else {
                    ex.ended = true;
                    continue;
                };
                requests.write(req);
                ex.awaiting = true;
                return true;
            } else {
                let brain = inputs.brain.0.clone();
                match with_line_context(ex, &inputs, &residents.p0(), |cx, _, _| brain.line(cx)) {
                    Some(line) => line,
                    None => {
                        ex.ended = true;
                        continue;
                    }
                }
            };
            if line.is_empty() {
                // Leaving without a word.
                ex.ended = true;
                continue;
            }
            events.write(SimEvent {
                time: now,
                body: EventBody::Dialogue {
                    participants: vec![
                        inputs.roster.ids[ex.a as usize].clone(),
                        inputs.roster.ids[ex.b as usize].clone(),
                    ],
                    speaker: inputs.roster.ids[speaker as usize].clone(),
                    location: inputs.town.id(ex.place).clone(),
                    line: line.clone(),
                },
            });
            ex.lines.push((speaker, line));
        }
    });
    // Exchanges opened by `interact` this step were pushed after the take.
    open.append(&mut exchanges.open);
    exchanges.open = open;
}

/// Logs a finished exchange and applies what it did to both residents.
fn conclude(
    ex: &Exchange,
    inputs: &LineInputs,
    tuning: &ActiveTuning,
    events: &mut MessageWriter<SimEvent>,
    effects: &mut Query<TalkerEffects>,
) {
    let now = inputs.clock.now;
    let roster = &inputs.roster;
    let (ea, eb) = (
        roster.entities[ex.a as usize],
        roster.entities[ex.b as usize],
    );
    let participants = vec![
        roster.ids[ex.a as usize].clone(),
        roster.ids[ex.b as usize].clone(),
    ];
    let lines = ex.lines.len() as u32;
    if lines == 0 {
        return;
    }
    events.write(SimEvent {
        time: now,
        body: EventBody::Conversation {
            participants,
            location: inputs.town.id(ex.place).clone(),
            topic: ex.topic.label().to_string(),
            lines,
        },
    });
    let Ok([mut ra, mut rb]) = effects.get_many_mut([ea, eb]) else {
        return;
    };
    // The invitation was made if the organiser got to speak its second line.
    if let Some(g) = ex
        .invite
        .and_then(|g| inputs.gatherings.get(g).map(|x| (g, x)))
        && lines >= 2
    {
        let guest = if g.1.organiser == ra.0.id {
            &mut rb
        } else {
            &mut ra
        };
        learn_gathering(
            g.1,
            Heard::Invitation,
            now,
            (guest.0, guest.1, &guest.3),
            &mut guest.4,
            &mut guest.5,
            events,
        );
    }
    let talk = tuning.needs.talk_restore * lines as f32 / 2.0;
    let (ida, idb) = ((ra.0.id.clone(), ra.0.idx), (rb.0.id.clone(), rb.0.idx));
    for (me, other) in [(&mut ra, &idb), (&mut rb, &ida)] {
        me.2.social = (me.2.social + talk).min(100.0);
        me.6.conversations += 1;
        let rel = me.3.entry(&other.0, other.1);
        rel.strength = (rel.strength + 1.0).min(100.0);
        rel.interactions += 1;
        rel.last_interaction = Some(now);
        rel.kind = promote(rel.kind, rel.strength);
    }
}

/// Strangers become acquaintances, friends, close friends as strength grows;
/// family and colleagues keep their tie.
fn promote(kind: RelationKind, strength: f32) -> RelationKind {
    match kind {
        RelationKind::Family | RelationKind::Colleague => kind,
        _ if strength >= 80.0 => RelationKind::CloseFriend,
        _ if strength >= 50.0 => RelationKind::Friend,
        _ if strength >= 20.0 => RelationKind::Acquaintance,
        _ => RelationKind::Stranger,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_grow_with_strength() {
        assert_eq!(
            promote(RelationKind::Stranger, 25.0),
            RelationKind::Acquaintance
        );
        assert_eq!(
            promote(RelationKind::Acquaintance, 55.0),
            RelationKind::Friend
        );
        assert_eq!(
            promote(RelationKind::Friend, 90.0),
            RelationKind::CloseFriend
        );
        assert_eq!(promote(RelationKind::Family, 10.0), RelationKind::Family);
    }
}
