//! What residents know of each other when a run begins: in a town where
//! people know each other, everyone one has a tie with is known by trade and
//! family; close friends know each other's pastimes and tastes; a resident
//! who `knows: [food]` (the keeper who remembers what everyone eats) knows
//! the tastes of all its ties, and anyone the pastimes kept at its own home
//! or workplace; an organiser knows its own gatherings.

use bevy::platform::collections::HashMap;

use super::facts::{About, Fact, Knowledge, Source};
use crate::base::time::GameTime;
use crate::scenario::{KnownAspect, Profile, RelationKind, ResidentId};
use crate::sim::residents::roster::RosterIdx;

/// A tie this strong knows the other's pastimes and tastes.
const CLOSE: f32 = 60.0;

/// What `p` knows at `start`, given every resident's roster index.
pub fn initial_knowledge(
    p: &Profile,
    residents: &[std::sync::Arc<Profile>],
    index: &HashMap<&ResidentId, RosterIdx>,
    start: GameTime,
) -> Knowledge {
    let mut k = Knowledge::default();
    let mut learn = |about: About, source: Source| {
        k.add(Fact {
            about,
            source,
            learned: start,
            importance: about.importance(),
        });
    };
    // One's own gatherings: organised, not heard of.
    for g in p.goals.iter().filter_map(|g| g.gathering) {
        let gathering = g;
        learn(About::Gathering { gathering }, Source::Lived);
    }
    let mut know = |about: About| learn(about, Source::Known);
    for tie in &p.relationships {
        let Some(&who) = index.get(&tie.with) else {
            continue;
        };
        let Some(other) = residents.get(who.i()) else {
            continue;
        };
        know(About::Job { who });
        if tie.kind == RelationKind::Family
            && let Some(&me) = index.get(&p.id)
        {
            know(About::Family { who, of: me });
        }
        // Their family, as neighbours know it.
        for kin in other
            .relationships
            .iter()
            .filter(|r| r.kind == RelationKind::Family && r.with != p.id)
        {
            if let Some(&of_kin) = index.get(&kin.with) {
                know(About::Family {
                    who: of_kin,
                    of: who,
                });
            }
        }
        let close = tie.strength >= CLOSE;
        if (close || p.knows.contains(&KnownAspect::Food)) && !other.food.is_empty() {
            know(About::Food { who });
        }
        // Pastimes: a close one's all; anyone's kept at one's own home or
        // workplace, seen there (the smith knows who brings lamps to mend).
        let mine = |place| place == p.home || p.work.as_ref().is_some_and(|w| w.place == place);
        let all = close || p.knows.contains(&KnownAspect::Hobbies);
        for (h, hobby) in other.hobbies.iter().enumerate().take(u8::MAX as usize) {
            if all || mine(hobby.place) {
                know(About::Hobby {
                    who,
                    hobby: h as u8,
                });
            }
        }
    }
    k
}
