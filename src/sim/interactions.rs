//! Residents at the same place strike up short exchanges. Grouping is by place
//! and pairing is linear in the number of residents, so thousands stay cheap.
//! The social-life issue grows this into turn-by-turn conversations.

use bevy::platform::collections::HashMap;

use bevy::prelude::*;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::clock::Clock;
use super::event_log::{EventBody, SimEvent};
use super::notices::learn_gathering;
use super::residents::{
    Agenda, Census, Heard, Needs, Persona, Relationships, Resident, ResidentRng, Roster, Tally,
};
use super::town::{ActiveTuning, Gatherings};
use super::{ActiveBrain, RunSettings, SimSet, SimStep};
use crate::brain::{LineContext, Topic};
use crate::scenario::{RelationKind, Town};
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

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Cooldowns>()
        .add_systems(SimStep, interact.in_set(SimSet::Interactions));
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
    settings: Res<RunSettings>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    census: Res<Census>,
    roster: Res<Roster>,
    brain: Res<ActiveBrain>,
    gatherings: Res<Gatherings>,
    mut cooldowns: ResMut<Cooldowns>,
    mut rng: ResMut<EncounterRng>,
    mut events: MessageWriter<SimEvent>,
    mut q: Query<(
        &Resident,
        &Persona,
        &mut Needs,
        &mut Relationships,
        &mut Agenda,
        &mut ResidentRng,
        &mut Tally,
    )>,
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
        let ready = clock.now.plus_minutes(t.pause_minutes as i64);
        cooldowns.residents[a as usize] = ready;
        cooldowns.residents[b as usize] = ready;
        let (ea, eb) = (roster.entities[a as usize], roster.entities[b as usize]);
        let Ok([mut ra, mut rb]) = q.get_many_mut([ea, eb]) else {
            continue;
        };
        let place = census.entries[a as usize].at;
        let topic = Topic::choose(ra.1, rb.1, town.get(place));
        // The opener is whoever is more outgoing.
        if rb.1.personality.extraversion > ra.1.personality.extraversion {
            std::mem::swap(&mut ra, &mut rb);
        }
        let invite = gatherings
            .iter()
            .find(|g| g.organiser == ra.0.id && g.starts > clock.now && !rb.4.knows(g.id))
            .or_else(|| {
                gatherings
                    .iter()
                    .find(|g| g.organiser == rb.0.id && g.starts > clock.now && !ra.4.knows(g.id))
            });
        let lines = 2 + rng.random_range(0..=(t.max_lines.max(2) - 2));
        let participants = vec![ra.0.id.clone(), rb.0.id.clone()];
        let mut previous = String::new();
        for turn in 0..lines {
            let (speaker, listener) = if turn % 2 == 0 {
                (&ra, &rb)
            } else {
                (&rb, &ra)
            };
            let inviting = invite.filter(|g| g.organiser == speaker.0.id && turn == 1);
            let line = brain.0.line(&LineContext {
                now: clock.now,
                speaker: speaker.1,
                listener: listener.1,
                relation: speaker.3.by_idx(listener.0.idx),
                place: town.get(place),
                topic,
                turn,
                lines,
                previous: &previous,
                inviting,
                inviting_place: inviting.map(|g| town.name(g.location)),
                seed: settings.seed,
            });
            events.write(SimEvent {
                time: clock.now,
                body: EventBody::Dialogue {
                    participants: participants.clone(),
                    speaker: speaker.0.id.clone(),
                    location: town.id(place).clone(),
                    line: line.clone(),
                },
            });
            previous = line;
        }
        events.write(SimEvent {
            time: clock.now,
            body: EventBody::Conversation {
                participants: participants.clone(),
                location: town.id(place).clone(),
                topic: topic.label().to_string(),
                lines,
            },
        });
        if let Some(g) = invite {
            let guest = if g.organiser == ra.0.id {
                &mut rb
            } else {
                &mut ra
            };
            learn_gathering(
                g,
                Heard::Invitation,
                clock.now,
                (guest.0, guest.1, &guest.3),
                &mut guest.4,
                &mut guest.5,
                &mut events,
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
            rel.last_interaction = Some(clock.now);
            rel.kind = promote(rel.kind, rel.strength);
        }
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
