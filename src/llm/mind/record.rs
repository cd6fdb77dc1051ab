//! Every call becomes an `llm_call` event, counted in the stats; failures are
//! kept for the user.

use bevy::prelude::*;

use super::{Gate, LlmBrain, Pending};
use crate::base::time::GameTime;
use crate::llm::bridge::Done;
use crate::llm::client::estimate_tokens;
use crate::scenario::ResidentId;
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, EventBody, SimEvent};
use crate::sim::residents::RosterIdx;

/// One finished call of one resident, ready to be logged with what came of it.
pub(super) struct Finished<'a> {
    pub(super) resident: &'a ResidentId,
    pub(super) kind: CallKind,
    pub(super) done: &'a Done,
    pub(super) pending: &'a Pending,
    pub(super) now: GameTime,
}

impl Finished<'_> {
    /// Books the call (stats, first failure) and writes its `llm_call` event.
    pub(super) fn log(
        &self,
        outcome: CallOutcome,
        used: AnswerUsed,
        reason: Option<String>,
        brain: &mut LlmBrain,
        events: &mut MessageWriter<SimEvent>,
    ) {
        let (done, pending) = (self.done, self.pending);
        let (failed_over, endpoint) = match done.tries.split_last() {
            Some((last, before)) => (
                before.iter().map(|t| t.member.clone()).collect(),
                Some(last.member.clone()),
            ),
            None => (Vec::new(), None),
        };
        if let Err(e) = &done.result {
            let pool = &brain.endpoints[pending.endpoint];
            let shown = endpoint.clone().unwrap_or_else(|| pool.shown());
            brain
                .failures
                .push(format!("{shown} ({}): {e}", pool.model()));
        }
        brain.stats.tries(&done.tries);
        if pending.purpose.early() {
            brain.stats.ahead(reason.as_deref() == Some(super::STALE));
        }
        let (prompt, completion, estimated, attempts, format) = match &done.result {
            Ok(r) => match r.usage {
                Some(u) => (
                    u.prompt_tokens,
                    u.completion_tokens,
                    false,
                    r.attempts,
                    r.format,
                ),
                None => (
                    pending.prompt_estimate,
                    estimate_tokens(&r.content),
                    true,
                    r.attempts,
                    r.format,
                ),
            },
            Err(_) => (pending.prompt_estimate, 0, true, 1, None),
        };
        brain.stats.call(
            pending.resident,
            self.resident,
            self.kind,
            prompt,
            completion,
            done.latency_ms,
        );
        events.write(SimEvent {
            time: self.now,
            body: EventBody::LlmCall {
                resident: self.resident.clone(),
                call: self.kind,
                model: brain.endpoints[pending.endpoint].model().to_string(),
                outcome,
                used,
                endpoint,
                failed_over,
                reason,
                early: pending.purpose.early(),
                latency_ms: done.latency_ms,
                prompt_tokens: prompt,
                completion_tokens: completion,
                estimated,
                attempts,
                format,
                layers: pending.layers,
            },
        });
    }
}

/// A call that was not sent: the built-in brain answers.
/// Whether a call may go out now (the day's budget, the breaker, the queue);
/// one that may not is counted and logged as skipped, and the built-in brain
/// answers instead.
pub(super) fn admit(
    brain: &mut LlmBrain,
    events: &mut MessageWriter<SimEvent>,
    now: GameTime,
    (who, endpoint, kind): ((RosterIdx, &ResidentId), usize, CallKind),
    watched: bool,
) -> bool {
    match brain.gate(endpoint, now, watched) {
        Gate::Send => true,
        Gate::Skip(why) => {
            log_skip(brain, events, now, who, endpoint, kind, why);
            false
        }
    }
}

fn log_skip(
    brain: &mut LlmBrain,
    events: &mut MessageWriter<SimEvent>,
    now: GameTime,
    (idx, id): (RosterIdx, &ResidentId),
    endpoint: usize,
    kind: CallKind,
    why: &str,
) {
    brain.stats.skip(idx);
    events.write(SimEvent {
        time: now,
        body: EventBody::LlmCall {
            resident: id.clone(),
            call: kind,
            model: brain.endpoints[endpoint].model().to_string(),
            outcome: CallOutcome::Skipped,
            used: AnswerUsed::Builtin,
            endpoint: None,
            failed_over: Vec::new(),
            reason: Some(why.to_string()),
            early: false,
            latency_ms: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            estimated: false,
            attempts: 0,
            format: None,
            layers: None,
        },
    });
}
