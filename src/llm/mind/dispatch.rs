//! Calls out and back: the gate (daily budget, circuit breaker, queue
//! length), sending with a priority, and taking finished calls in request
//! order.

use std::collections::HashSet;

use bevy::prelude::*;

use super::{Breaker, Gate, LlmBrain, LlmFocus, Pending, Purpose};
use super::{PRIORITY_NORMAL, PRIORITY_WATCHED};
use crate::base::time::GameTime;
use crate::context::LayerTokens;
use crate::llm::bridge::{Done, Job};
use crate::llm::client::{ChatReply, ChatRequest, Format, LlmError, Message, estimate_tokens};
use crate::llm::prompts::Prompt;
use crate::llm::schema::PLAN_SCHEMA_NAME;
use crate::scenario::ResidentId;
use crate::sim::clock::{Clock, StepGate, StepMode};
use crate::sim::event_log::CallKind;
use crate::sim::outcome::{FailSim, SimOutcome};
use crate::sim::residents::RosterIdx;

/// Each frame: take every finished call off the channel; a headless run waits
/// (skips its step this frame) until every call due at the next step is back.
/// Calls due later (plans asked ahead) stay in flight while the town goes on.
pub(super) fn collect_replies(
    mut brain: ResMut<LlmBrain>,
    mode: Res<StepMode>,
    outcome: Res<SimOutcome>,
    clock: Option<Res<Clock>>,
    mut gate: ResMut<StepGate>,
) {
    let brain = &mut *brain;
    while let Some(done) = brain.bridge.try_recv() {
        // A call nobody waits for any more (e.g. after a restart) is dropped.
        if brain.pending.contains_key(&done.id) {
            brain.arrived.push(done);
        }
    }
    let Some(clock) = clock else {
        gate.waiting = false;
        return;
    };
    let next = clock.now.plus_minutes(clock.step_minutes as i64);
    brain.bridge.due_by(next.0);
    gate.waiting = *mode == StepMode::Headless && !outcome.ended() && brain.awaits(next);
}

impl LlmBrain {
    /// Whether a call the step at `next` uses is still out.
    fn awaits(&self, next: GameTime) -> bool {
        let back: HashSet<u64> = self.arrived.iter().map(|d| d.id).collect();
        self.pending
            .iter()
            .any(|(id, p)| p.due <= next && !back.contains(id))
    }

    /// How prompts for `endpoint` are counted and cut.
    pub(super) fn budgeting(
        &self,
        endpoint: usize,
        budget: &crate::context::PromptBudget,
    ) -> crate::llm::prompts::Budgeting {
        crate::llm::prompts::Budgeting::for_model(budget, self.endpoints[endpoint].model())
    }

    /// Keeps a prompt as the resident's last, for the prompt view; returns
    /// its tokens per layer for the call's log line.
    pub(super) fn show(
        &mut self,
        idx: RosterIdx,
        endpoint: usize,
        (kind, time): (CallKind, GameTime),
        prompt: &Prompt,
    ) -> LayerTokens {
        let shown = super::ShownPrompt {
            kind,
            time,
            model: self.endpoints[endpoint].model().to_string(),
            layers: prompt.layers.clone(),
            messages: prompt.messages.clone(),
        };
        self.last_prompts.insert(idx, shown);
        prompt.layers.layer_tokens()
    }

    /// Whether a call for this resident may go out now.
    pub(super) fn gate(&mut self, endpoint: usize, now: GameTime, watched: bool) -> Gate {
        if let Some(max) = self.settings.max_calls_per_day
            && self.day_calls >= max
        {
            return Gate::Skip("budget");
        }
        let open = self.breakers[endpoint].open_until;
        if let Some(until) = open
            && (now < until || self.breakers[endpoint].probing)
        {
            return Gate::Skip("circuit_open");
        }
        if !watched && self.pending.len() >= self.settings.lod_queue {
            return Gate::Skip("queue");
        }
        if open.is_some() {
            // The cool-down is over: this call is the probe whose outcome closes
            // or re-opens the breaker; the others wait for it.
            self.breakers[endpoint].probing = true;
        }
        Gate::Send
    }

    /// Sends a call whose answer the first step after `due` uses (see
    /// [`next_step`] for one the next step uses).
    pub(super) fn send(
        &mut self,
        purpose: Purpose,
        (idx, endpoint): (RosterIdx, usize),
        (priority, due): (u8, GameTime),
        request: ChatRequest,
        layers: Option<LayerTokens>,
    ) {
        self.next_job += 1;
        self.day_calls += 1;
        let prompt_estimate = request
            .messages
            .iter()
            .map(|m| estimate_tokens(&m.content) + 4)
            .sum();
        self.pending.insert(
            self.next_job,
            Pending {
                purpose,
                resident: idx,
                endpoint,
                due,
                prompt_estimate,
                layers,
            },
        );
        self.bridge.send(Job {
            due: due.0,
            id: self.next_job,
            priority,
            pool: self.endpoints[endpoint].clone(),
            affinity: Some(u64::from(idx.0)),
            request,
            pieces: None,
        });
    }

    /// Finished calls of one kind due by `now`, oldest request first, removed
    /// from the queue. One not due yet waits, even if back: when an answer is
    /// used must not depend on how fast it came.
    pub(super) fn take_arrived(
        &mut self,
        kind: fn(&Purpose) -> bool,
        now: GameTime,
    ) -> Vec<(Done, Pending)> {
        let mut out = Vec::new();
        let mut rest = Vec::new();
        for done in std::mem::take(&mut self.arrived) {
            match self.pending.get(&done.id) {
                Some(p) if kind(&p.purpose) && p.due <= now => {
                    let p = self.pending.remove(&done.id).expect("present");
                    out.push((done, p));
                }
                _ => rest.push(done),
            }
        }
        self.arrived = rest;
        out.sort_by_key(|(d, _)| d.id);
        out
    }

    pub(super) fn breaker_result(&mut self, endpoint: usize, ok: bool, now: GameTime) {
        let cooldown = self.settings.breaker_cooldown_minutes as i64;
        let threshold = self.settings.breaker_failures.max(1);
        let b = &mut self.breakers[endpoint];
        if ok {
            *b = Breaker::default();
            return;
        }
        b.failures += 1;
        if b.probing || b.failures >= threshold {
            b.open_until = Some(now.plus_minutes(cooldown));
            b.probing = false;
        }
    }

    pub(super) fn priority(&self, focus: &LlmFocus, id: &ResidentId) -> (u8, bool) {
        if focus.watched.contains(id) {
            (PRIORITY_WATCHED, true)
        } else {
            (PRIORITY_NORMAL, false)
        }
    }

    /// A plan (or repair) call: JSON against the town's plan schema.
    pub(super) fn plan_request(
        &self,
        messages: Vec<Message>,
        temperature: f32,
        run_seed: u64,
    ) -> ChatRequest {
        ChatRequest {
            messages,
            temperature,
            max_tokens: 200,
            seed: self.seed(run_seed, self.next_job + 1),
            format: Format::Json {
                name: PLAN_SCHEMA_NAME.into(),
                schema: self.schema.clone(),
            },
            stream: false,
        }
    }

    pub(super) fn seed(&self, run_seed: u64, job: u64) -> Option<u64> {
        Some(run_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ job)
    }
}

/// The due time of a call the next step uses: any step after `now`.
pub(super) fn next_step(now: GameTime) -> GameTime {
    now.plus_minutes(1)
}

/// Books a finished call with its endpoint's breaker and returns the answer, or
/// the error. A replay miss also ends the run: replay must not guess.
pub(super) fn settle<'a>(
    brain: &mut LlmBrain,
    done: &'a Done,
    pending: &Pending,
    now: GameTime,
    fail: &mut MessageWriter<FailSim>,
    id: &ResidentId,
) -> Result<&'a ChatReply, &'a LlmError> {
    brain.breaker_result(pending.endpoint, done.result.is_ok(), now);
    match &done.result {
        Ok(reply) => Ok(reply),
        Err(e) => {
            if let LlmError::CassetteMiss { .. } = e {
                fail.write(FailSim(format!(
                    "replay: no recorded answer for {id}'s {} call ({e}); record the run again with --record",
                    pending.purpose.kind().as_str()
                )));
            }
            Err(e)
        }
    }
}
