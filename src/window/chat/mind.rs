//! The resident's model answering the player in the window. The prompt is
//! built between frames from the very context the turn will use (the turn
//! previewed on a copy), sent through a bridge of its own, and the turn is
//! taken when the answer is back — the frame never waits. A failed or empty
//! answer: the built-in brain, in character.

use std::sync::Arc;

use bevy::prelude::*;

use crate::llm::LlmSettings;
use crate::llm::bridge::{Bridge, Job};
use crate::llm::companion::{reply_request, usable_reply};
use crate::scenario::ResidentId;
use crate::sim::companion::chat_preview;
use crate::sim::residents::{Persona, Roster};
use crate::sim::town::ActiveTuning;

/// The models the player's chats go to, when an LLM is configured.
#[derive(Resource)]
pub(crate) struct ChatMind {
    bridge: Bridge,
    llm: LlmSettings,
    next_job: u64,
}

impl ChatMind {
    pub(crate) fn new(llm: &LlmSettings) -> Option<Self> {
        let bridge = crate::llm::calls::start_side_bridge(llm).ok()?;
        Some(Self {
            bridge,
            llm: llm.clone(),
            next_job: 0,
        })
    }
}

/// A message waiting for the model's answer.
#[derive(Debug, Clone)]
pub(super) struct Waiting {
    job: u64,
    pub(super) resident: ResidentId,
    pub(super) message: String,
    name: String,
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
    let mut request = None;
    chat_preview(world, who, (message, None), &mut |cx| {
        request = Some(reply_request(
            cx,
            &profile.name,
            &budget,
            endpoint.model(),
            temperature,
        ));
    })?;
    let mut mind = world.resource_mut::<ChatMind>();
    mind.next_job += 1;
    let job = mind.next_job;
    mind.bridge.send(Job {
        id: job,
        priority: 255,
        pool: Arc::new(endpoint),
        affinity: None,
        request: request?,
        pieces: None,
    });
    Some(Waiting {
        job,
        resident: who.clone(),
        message: message.to_string(),
        name: profile.name.clone(),
    })
}

/// The model's reply to `waiting` once it is back (or why there is none);
/// `None` while the call is under way.
pub(super) fn answered(world: &mut World, waiting: &Waiting) -> Option<Result<String, String>> {
    let Some(mind) = world.get_resource::<ChatMind>() else {
        return Some(Err("no model".into()));
    };
    while let Some(done) = mind.bridge.try_recv() {
        if done.id == waiting.job {
            let reply = done.result.map_err(|e| e.to_string());
            return Some(reply.and_then(|r| usable_reply(&r.content, &waiting.name)));
        }
    }
    None
}
