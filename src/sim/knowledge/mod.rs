//! What each resident knows, as typed facts with their source: about people
//! (their trade, pastimes, family, what they like to eat), events (a
//! gathering, who came to it, a quarrel, a date, a meeting someone did not
//! come to), each with where it came from (lived it, saw it, read it on the
//! notice board, told by whom), when, and how much it matters.
//!
//! Facts come from the scenario (what neighbours know of each other), from
//! what happens (a quarrel, a date, a gathering, a meeting missed) and from
//! what is said: news told in a conversation reaches its listeners. Every
//! new fact is logged as a `learned` event with its source, so how word
//! spread can be traced; facts are kept in the save and read by the
//! inspector, `heartvale interview`, the built-in brain's lines and the
//! models' prompts.

mod attend;
pub use attend::Attendance;
pub(crate) mod facts;
pub use facts::{About, DateWent, Fact, Knowledge, Learn, Raise, Source};
pub mod news;
pub(crate) mod seed;
pub mod spread;
pub mod words;

use bevy::prelude::*;

use super::event_log::dates::DateOutcome;
use super::event_log::events::{EventBody, SimEvent};
use super::notices::learn_gathering;
use super::residents::roster::Roster;
use super::residents::{Agenda, Heard, Persona, Relationships, Resident, ResidentRng};
use super::town::Gatherings;
use super::{SimSet, SimStep};
use crate::scenario::Town;
use crate::sim::residents::roster::RosterIdx;
pub use seed::initial_knowledge;
pub use words::FactWords;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Learn>()
        .add_message::<Raise>()
        .init_resource::<attend::Attendance>()
        .add_systems(
            SimStep,
            (attend::attendance, dates_learnt, learn, raise)
                .chain()
                .in_set(SimSet::Memory)
                .before(super::memory::Remembering),
        );
}

/// The two who went on a date know it.
fn dates_learnt(
    mut events: MessageReader<SimEvent>,
    roster: Res<Roster>,
    mut learn: MessageWriter<Learn>,
) {
    for e in events.read() {
        let EventBody::DateEnd(d) = &e.body else {
            continue;
        };
        let pair: Vec<RosterIdx> = d.residents.iter().filter_map(|r| roster.idx(r)).collect();
        let [a, b] = pair[..] else {
            continue;
        };
        // A date nobody came to is told as one stood up, not as a date.
        if d.reason == DateOutcome::StoodUp {
            continue;
        }
        let went = DateWent::of(d.reason, d.band);
        for who in [a, b] {
            learn.write(Learn {
                who,
                about: About::date(a, b, e.time, went),
                source: Source::Lived,
                time: e.time,
            });
        }
    }
}

/// What was brought up is noted by whoever brought it up; a meeting one did
/// not come to, and a gathering asked about, by both (once sorry was said,
/// the grudge aired or 「你去不去？」 answered, neither brings it up again).
fn raise(mut raised: MessageReader<Raise>, roster: Res<Roster>, mut q: Query<&mut Knowledge>) {
    for r in raised.read() {
        if let Ok(mut k) = q.get_mut(roster.entity_of(r.who)) {
            k.mark_raised(r.about, r.with);
        }
        if matches!(r.about, About::StoodUp { .. } | About::Gathering { .. })
            && let Ok(mut k) = q.get_mut(roster.entity_of(r.with))
        {
            k.mark_raised(r.about, r.who);
        }
    }
}

/// What learning writes to.
type Learner<'a> = (
    &'a Resident,
    &'a Persona,
    &'a Relationships,
    &'a mut Knowledge,
    &'a mut Agenda,
    &'a mut ResidentRng,
);

/// New facts join their residents' knowledge and are logged; a gathering
/// heard of by word of mouth reaches the agenda too.
fn learn(
    (mut learning, mut events): (MessageReader<Learn>, MessageWriter<SimEvent>),
    (roster, town, gatherings, scenario): (
        Res<Roster>,
        Res<Town>,
        Res<Gatherings>,
        Res<super::LoadedScenario>,
    ),
    mut q: Query<Learner<'static>>,
) {
    let words = FactWords {
        roster: &roster,
        town: &town,
        gatherings: &gatherings,
        residents: &scenario.0.residents,
    };
    for l in learning.read() {
        let Ok((r, persona, rels, mut knowledge, mut agenda, mut rng)) =
            q.get_mut(roster.entity_of(l.who))
        else {
            continue;
        };
        let fact = Fact {
            about: l.about,
            source: l.source,
            learned: l.time,
            importance: l.about.importance(),
        };
        if !knowledge.add(fact) {
            continue;
        }
        events.write(SimEvent {
            time: l.time,
            body: EventBody::Learned {
                resident: r.id.clone(),
                fact: l.about.kind().to_string(),
                text: words.fact(&l.about),
                source: l.source.kind().to_string(),
                from: match l.source {
                    Source::Told { by } => Some(roster.id_of(by).clone()),
                    _ => None,
                },
            },
        });
        // Word of mouth about a gathering: the listener decides whether to go
        // (the organiser's own invitation is answered in its conversation).
        if let (About::Gathering { gathering }, Source::Told { by }) = (l.about, l.source)
            && let Some(g) = gatherings.get(gathering.i())
            && *roster.id_of(by) != g.organiser
            && !agenda.knows(g.id)
        {
            learn_gathering(
                g,
                (Heard::Told, None),
                l.time,
                (r, persona, rels),
                &mut agenda,
                &mut rng,
                &mut events,
            );
        }
    }
}
