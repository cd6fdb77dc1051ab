//! Who came to each gathering: those standing at its place while it is under
//! way know they went; when it ends, each knows who else was there among the
//! people they know, and the log says who came.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::facts::{About, Learn, Source};
use crate::scenario::{GatheringIdx, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::Relationships;
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::town::Gatherings;

/// At most this many others one remembers seeing at a gathering…
const SEEN_AT_MOST: usize = 12;
/// …of those one is at least this close to.
const NOTICED: f32 = 40.0;

/// Who has been at each gathering, by its index, and which have ended.
#[derive(Resource, Debug, Clone, Default, Serialize, Deserialize)]
pub struct Attendance {
    /// Those seen there while it was under way, in arrival order.
    present: Vec<Vec<RosterIdx>>,
    /// Whether its end has been told.
    ended: Vec<bool>,
}

impl Attendance {
    /// Who came to gathering `g` so far.
    pub fn of(&self, g: GatheringIdx) -> &[RosterIdx] {
        self.present.get(g.i()).map_or(&[], Vec::as_slice)
    }
}

/// What watching the gatherings reads.
#[derive(SystemParam)]
pub(super) struct Watch<'w, 's> {
    clock: Res<'w, Clock>,
    census: Res<'w, Census>,
    roster: Res<'w, Roster>,
    town: Res<'w, Town>,
    gatherings: Res<'w, Gatherings>,
    ties: Query<'w, 's, &'static Relationships>,
}

/// Marks who stands at each gathering under way; closes those that ended.
pub(super) fn attendance(
    w: Watch,
    mut att: ResMut<Attendance>,
    mut learn: MessageWriter<Learn>,
    mut events: MessageWriter<SimEvent>,
) {
    let Watch {
        clock,
        census,
        roster,
        town,
        gatherings,
        ties,
    } = w;
    let now = clock.now;
    let n = gatherings.len();
    att.present.resize(n, Vec::new());
    att.ended.resize(n, false);
    for g in gatherings.iter() {
        let gathering = g.id;
        if g.starts <= now && now < g.ends {
            let here = census.standing_at(g.location);
            for &who in here {
                let e = &census.entries[who.i()];
                if e.walking || census.asleep(who) || att.present[g.id.i()].contains(&who) {
                    continue;
                }
                att.present[g.id.i()].push(who);
                let about = About::Attended { gathering, who };
                learn.write(Learn {
                    who,
                    about,
                    source: Source::Lived,
                    time: now,
                });
            }
        } else if now >= g.ends && !att.ended[g.id.i()] {
            att.ended[g.id.i()] = true;
            let came = att.present[g.id.i()].clone();
            for &who in &came {
                let Ok(rels) = ties.get(roster.entity_of(who)) else {
                    continue;
                };
                let seen = came
                    .iter()
                    .filter(|&&o| o != who && rels.by_idx(o).is_some_and(|r| r.strength >= NOTICED))
                    .take(SEEN_AT_MOST);
                for &other in seen {
                    learn.write(Learn {
                        who,
                        about: About::Attended {
                            gathering,
                            who: other,
                        },
                        source: Source::Saw,
                        time: now,
                    });
                }
            }
            events.write(SimEvent {
                time: now,
                body: EventBody::Gathered {
                    gathering: g.title.clone(),
                    location: town.id(g.location).clone(),
                    organiser: g.organiser.clone(),
                    residents: came.iter().map(|&i| roster.id_of(i).clone()).collect(),
                },
            });
        }
    }
}
