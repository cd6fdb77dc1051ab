//! The resident's model answering the player in the window. The turn is
//! taken in between frames and its context computed once (nothing in the
//! world changes yet); the prompt is built from it and sent through the
//! run's calls (recorded with them), and the turn ends with the answer
//! when it is back — the frame never waits. A failed or empty
//! answer: the built-in brain, in character.

use std::sync::Arc;

use bevy::prelude::*;

use crate::companion::session::ReplyContext;
use crate::llm::LlmSettings;
use crate::llm::calls::{CallError, Calls, Ticket};
use crate::llm::companion::{reply_request, usable_reply};
use crate::llm::pool::Pool;
use crate::scenario::ResidentId;
use crate::sim::companion::{ChatContext, chat_context};
use crate::sim::residents::{Persona, Roster};
use crate::sim::town::ActiveTuning;

/// The models the player's chats go to, when an LLM is configured.
#[derive(Resource)]
pub(crate) struct ChatMind {
    calls: Calls,
    llm: LlmSettings,
}

impl ChatMind {
    pub(crate) fn new(llm: &LlmSettings) -> Option<Self> {
        Some(Self {
            calls: Calls::start(llm).ok()?,
            llm: llm.clone(),
        })
    }
}

/// A message waiting for the model's answer: the turn taken in, its
/// context computed once for both the prompt and the turn.
pub(super) struct Waiting {
    ticket: Ticket,
    pool: Arc<Pool>,
    pub(super) turn: ChatContext,
}

/// Sends `message` to the model of `who`; `None` when it has none (the
/// built-in brain answers at once).
pub(super) fn ask(world: &mut World, who: &ResidentId, message: &str) -> Option<Waiting> {
    let entity = world.resource::<Roster>().entity(who)?;
    let profile = world.get::<Persona>(entity)?.0.clone();
    let mind = world.get_resource::<ChatMind>()?;
    let endpoint = mind.llm.endpoint_for(&profile)?;
    let temperature = mind.llm.temperature;
    let budget = world.resource::<ActiveTuning>().0.prompt;
    // The window reads facts and writes the profile the built-in way.
    let builtin = &mut |_: &ReplyContext<'_>| String::new();
    let turn = chat_context(world, who, (message, None), builtin)?;
    let candidates = turn.candidates();
    let request = reply_request(
        &turn.reply_context(&candidates),
        &profile.name,
        &budget,
        endpoint.model(),
        temperature,
    );
    let pool = Arc::new(endpoint);
    let ticket = world
        .resource::<ChatMind>()
        .calls
        .send(&pool, request, None);
    Some(Waiting { ticket, pool, turn })
}

/// The model's reply to `waiting` once it is back (or why there is none);
/// `None` while the call is under way.
pub(super) fn answered(world: &mut World, waiting: &Waiting) -> Option<Result<String, CallError>> {
    let Some(mind) = world.get_resource::<ChatMind>() else {
        return Some(Err(CallError::NoModel));
    };
    let result = mind.calls.take(waiting.ticket)?;
    Some(match result {
        Ok(reply) => usable_reply(&reply.content, waiting.turn.speaker()).map_err(CallError::from),
        Err(e) => Err(CallError::failed(&waiting.pool, e)),
    })
}
