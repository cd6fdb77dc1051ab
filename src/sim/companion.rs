//! The player's chats with residents: each resident's [`CompanionState`]
//! (affection, key moments, the player's profile, the chat so far), kept for
//! the save, and a turn of chat run against the world — what the resident
//! recalls comes from its memories, and what the player said becomes one.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy::prelude::*;

use super::clock::Clock;
use super::memory::{Memories, MemoryKind, MemorySearch};
use super::residents::{Persona, Roster};
use super::town::ActiveTuning;
use crate::companion::session::ReplyContext;
use crate::companion::{CompanionSpec, CompanionState, Stage, StageSpec, Turn};
use crate::recall;
use crate::scenario::{Profile, ResidentId};

/// Every resident's relationship with the player (only those talked with).
#[derive(Resource, Debug, Clone, Default)]
pub struct Companions(pub BTreeMap<ResidentId, CompanionState>);

/// The player's counselling courses: with each counsellor resident (a
/// `counsel:` script set), the sessions played so far, for the next one.
#[derive(Resource, Debug, Clone, Default)]
pub struct CounselCourses(pub BTreeMap<ResidentId, crate::script::engine::Course>);

/// How many memories a reply may draw on.
const RECALLED: usize = 3;
/// Importance of what the player said, as the resident remembers it.
const SAID_IMPORTANCE: u8 = 40;
/// … when it was a key moment.
const MOMENT_IMPORTANCE: u8 = 90;

/// The companion system of a resident: its own `companion:`, or for anyone
/// else a plain one from its persona (its quote and traits, no key moments).
pub fn spec_of(profile: &Profile) -> Arc<CompanionSpec> {
    if let Some(spec) = &profile.companion {
        return spec.clone();
    }
    let quote = profile.quote.trim();
    let lines = vec![
        format!("（想了想）{{称呼}}，{quote}"),
        "嗯，{称呼}，我在听。{记忆}".to_string(),
        format!("说起来，我最近在忙{}的事。{{记忆}}", profile.occupation),
    ];
    let stage = StageSpec {
        prompt: String::new(),
        lines,
    };
    Arc::new(CompanionSpec {
        core: profile.persona_text(),
        stages: Stage::ALL.into_iter().map(|s| (s, stage.clone())).collect(),
        key_moments: Vec::new(),
    })
}

/// One turn of the player's chat with `who` at the clock's time; `reply`
/// writes the answer (the built-in brain unless a model is asked). With the
/// message's embedding (`vector`), recall is semantic too.
pub fn chat_turn(
    world: &mut World,
    who: &ResidentId,
    (message, vector): (&str, Option<&[f32]>),
    reply: &mut dyn FnMut(&ReplyContext<'_>) -> String,
) -> Option<Turn> {
    let entity = world.resource::<Roster>().entity(who)?;
    let spec = spec_of(&world.get::<Persona>(entity)?.0);
    let now = world.resource::<Clock>().now;
    let recalled = recall_for(world, entity, message, vector);
    world.init_resource::<Companions>();
    let mut companions = world.resource_mut::<Companions>();
    let state = companions.0.entry(who.clone()).or_default();
    let turn = state.turn(&spec, (message, now), &recalled, reply);
    let name = state.profile.address().to_string();
    let importance = if turn.moments.is_empty() {
        SAID_IMPORTANCE
    } else {
        MOMENT_IMPORTANCE
    };
    let mut memories = world.get_mut::<Memories>(entity)?;
    let text = format!("{name}对我说：「{message}」");
    memories.push(now, MemoryKind::Chat, importance, text);
    Some(turn)
}

/// The context a reply to `message` would be written in, shown to `look`
/// while nothing changes (the turn runs on a copy): for a model asked before
/// the turn is taken, whose answer then goes to [`chat_turn`].
pub fn chat_preview(
    world: &mut World,
    who: &ResidentId,
    (message, vector): (&str, Option<&[f32]>),
    look: &mut dyn FnMut(&ReplyContext<'_>),
) -> Option<()> {
    let entity = world.resource::<Roster>().entity(who)?;
    let spec = spec_of(&world.get::<Persona>(entity)?.0);
    let now = world.resource::<Clock>().now;
    let recalled = recall_for(world, entity, message, vector);
    let mut copy = world
        .get_resource::<Companions>()
        .and_then(|c| c.0.get(who).cloned())
        .unwrap_or_default();
    copy.turn(&spec, (message, now), &recalled, &mut |cx| {
        look(cx);
        String::new()
    });
    Some(())
}

/// The resident's memories most worth recalling for the message.
fn recall_for(
    world: &mut World,
    entity: Entity,
    message: &str,
    vector: Option<&[f32]>,
) -> Vec<String> {
    let search = world.resource::<MemorySearch>().clone();
    let tuning = world.resource::<ActiveTuning>().0.memory.clone();
    let now = world.resource::<Clock>().now;
    let Some(mut memories) = world.get_mut::<Memories>(entity) else {
        return Vec::new();
    };
    let q = recall::Query {
        text: message,
        now,
        as_of: None,
        vector,
        k: RECALLED,
    };
    memories
        .recall_relevant(search.segmenter(), &q, &tuning)
        .into_iter()
        .map(|m| m.line())
        .collect()
}
