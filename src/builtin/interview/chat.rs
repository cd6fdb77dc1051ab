//! A resident without `companion:` in the player's chat: what the player
//! asks about the town, its people or the resident's own days is answered
//! from the resident's facts and memories, as `interview` answers it; what
//! the player says of themselves goes to the companion system as for anyone.

use bevy::prelude::World;

use crate::companion::said::{self, Question, Topic};
use crate::scenario::ResidentId;
use crate::sim::interview::Interview;
use crate::sim::residents::{Persona, Roster};

/// The answer of a plain resident to a question about the town, from its
/// own facts (none: the chat's own answer stands — for a companion, a
/// question about the player, or one it knows nothing of).
pub fn town_answer(world: &World, who: &ResidentId, message: &str) -> Option<String> {
    let roster = world.resource::<Roster>();
    let idx = roster.idx(who)?;
    if world
        .get::<Persona>(roster.entity_of(idx))?
        .0
        .companion
        .is_some()
    {
        return None;
    }
    let town_question = matches!(
        said::read(message).question,
        Some(
            Question::Other
                | Question::Why
                | Question::AboutYou(Topic::Other | Topic::Doing | Topic::How)
        )
    );
    if !town_question {
        return None;
    }
    let iv = Interview::of(world, idx)?;
    let answer = super::answer(&iv, message);
    let knew = answer.asked != "other" || !answer.facts.is_empty() || !answer.memories.is_empty();
    knew.then_some(answer.text)
}
