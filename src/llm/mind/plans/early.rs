//! Plans asked ahead ("ask early, wait late"): when a resident's action
//! begins, its next plan is asked for at once, from the state it will wake
//! to, and is due when the action ends. A headless step waits only for the
//! answers due at it, so the calls of residents busy at different things
//! overlap up to the pool's concurrency instead of going one after another.
//!
//! Whether the answer is used is decided from the town alone, never from how
//! fast it came: it is taken up when the resident wakes as foreseen (the same
//! action's end, the same place, nothing new remembered); otherwise it is
//! dropped when due and the resident asks again.

use bevy::prelude::*;

use super::{Asked, PlanCalls, Verdict};
use crate::base::time::GameTime;
use crate::llm::bridge::Done;
use crate::llm::mind::record::Finished;
use crate::llm::mind::{Claim, Early, Gate, MemoryMark, PRIORITY_EARLY, Pending, Purpose};
use crate::scenario::Service;
use crate::sim::event_log::{AnswerUsed, CallOutcome};
use crate::sim::memory::Memories;
use crate::sim::needs::projected;
use crate::sim::planning::PlanRequest;
use crate::sim::residents::{
    Activity, AsyncMind, Needs, Resident, RosterIdx, Thinking, Whereabouts,
};
use crate::sim::social::message::Talking;

/// What a resident's plan asked ahead is checked against.
type Waking<'a> = (
    Entity,
    &'a Resident,
    &'a Activity,
    &'a Whereabouts,
    &'a Memories,
    &'a Needs,
);

/// Residents who may have a plan asked ahead: thinking with a model, not
/// waiting for a plan, not in a conversation (they plan when it is over).
type Candidates<'w, 's> =
    Query<'w, 's, Waking<'static>, (With<AsyncMind>, Without<Thinking>, Without<Talking>)>;

/// When a plan asked ahead is checked against the rules: halfway to the
/// wake (at least a minute on), so a repair has the other half to come back.
fn check_time(now: GameTime, wake: GameTime) -> GameTime {
    now.plus_minutes((now.minutes_until(wake) / 2).max(1))
}

/// What a resident remembers, in the terms a plan asked ahead is checked by.
fn mark(m: &Memories) -> MemoryMark {
    MemoryMark(m.entries().len(), m.entries().last().map(|e| e.time))
}

/// After the step's memories: every resident whose action is under way has
/// its next plan asked for, unless one asked from the same state is out.
pub(in crate::llm::mind) fn ask_early(mut calls: PlanCalls, candidates: Candidates) {
    let now = calls.inputs.clock.now;
    // Whose night is being summarised: what it wakes to is not known yet.
    let summarising: Vec<RosterIdx> = calls
        .brain
        .pending
        .values()
        .filter(|p| matches!(p.purpose, Purpose::Summary { .. }))
        .map(|p| p.resident)
        .collect();
    let mut due: Vec<(RosterIdx, Entity, Early)> = candidates
        .iter()
        .filter(|(_, r, a, ..)| a.underway && a.busy_until > now && !summarising.contains(&r.idx))
        .map(|(e, r, a, at, memories, needs)| {
            let early = Early {
                wake: a.busy_until,
                at: at.0,
                mark: mark(memories),
                needs: calls.waking_needs(needs, a, r.idx),
                claim: Claim::Open,
                checked: false,
            };
            (r.idx, e, early)
        })
        .collect();
    // Roster order: job numbers, and everything downstream, are the same every run.
    due.sort_unstable_by_key(|d| d.0);
    for (_, entity, early) in due {
        if calls.asked_already(entity, &early) {
            continue;
        }
        calls.ask_ahead(entity, early);
    }
}

impl PlanCalls<'_, '_> {
    /// A plan asked ahead for this resident, taken up when it woke as
    /// foreseen (true: this request needs no call of its own); otherwise it
    /// is marked stale, to be dropped when due.
    pub(super) fn take_up(&mut self, req: &PlanRequest) -> bool {
        let Some(job) = self.brain.early.remove(&req.entity) else {
            return false;
        };
        let woke = self.inputs.residents.get(req.entity).ok().and_then(
            |(_, _, _, at, activity, memories, ..)| {
                Some((activity?.busy_until, at.0, mark(memories)))
            },
        );
        let Some(Pending {
            purpose:
                Purpose::Plan {
                    request,
                    early: Some(early),
                    ..
                },
            ..
        }) = self.brain.pending.get_mut(&job)
        else {
            return false;
        };
        let fits = woke == Some((early.wake, early.at, early.mark));
        if fits {
            early.claim = Claim::Taken;
            *request = req.request;
        } else {
            early.claim = Claim::Stale;
        }
        fits
    }

    /// Whether a plan asked from this state is out; one asked from another
    /// is marked stale (dropped when due).
    fn asked_already(&mut self, entity: Entity, early: &Early) -> bool {
        let Some(&job) = self.brain.early.get(&entity) else {
            return false;
        };
        if let Some(Pending {
            purpose: Purpose::Plan { early: Some(e), .. },
            ..
        }) = self.brain.pending.get_mut(&job)
        {
            if e.same_state(early) {
                return true;
            }
            e.claim = Claim::Stale;
        }
        self.brain.early.remove(&entity);
        false
    }

    /// The needs this resident will wake to: its action goes on until then.
    fn waking_needs(&self, needs: &Needs, a: &Activity, who: RosterIdx) -> Needs {
        let eats = self.inputs.census.eats(who);
        let clock = &self.inputs.clock;
        let company = self.inputs.census.count_at(a.target).saturating_sub(1) as f32;
        let food = self.inputs.town.get(a.target).has(Service::Food);
        let tuning = &self.inputs.tuning.0.needs;
        projected(
            needs,
            a,
            (clock.now, clock.step_minutes),
            (company, food, eats),
            tuning,
        )
    }

    /// Sends the plan for when the action ends, if the gate lets it go now
    /// and leaves a quarter of the queue to calls due sooner; nothing is logged for
    /// one not sent: the resident asks again when it wakes.
    fn ask_ahead(&mut self, entity: Entity, early: Early) {
        let Ok(r) = self.inputs.residents.get(entity).map(|v| v.0.clone()) else {
            return;
        };
        let Some(endpoint) = self.brain.route.get(r.idx.i()).copied().flatten() else {
            return;
        };
        let now = self.inputs.clock.now;
        if self.brain.pending.len() * 4 >= self.brain.settings.lod_queue * 3 {
            return;
        }
        let Some(vector) = self.vector(entity, early.wake) else {
            return;
        };
        if let Gate::Skip(_) = self.brain.gate(endpoint, now, false) {
            return;
        }
        let asked = Asked {
            entity,
            request: 0,
            when: (early.wake, Some(early.needs)),
            vector,
            early: Some(early),
        };
        let before = self.brain.next_job;
        self.send(
            &r,
            endpoint,
            (PRIORITY_EARLY, check_time(now, early.wake)),
            asked,
        );
        if self.brain.next_job != before {
            let job = self.brain.next_job;
            self.brain.early.insert(entity, job);
        }
    }

    /// Halfway to the wake: an answer that breaks the rules for the state
    /// the resident will wake to is repaired now (the repair due at the
    /// wake); a good one waits for the wake; one that failed is dropped and
    /// the resident asks again when it wakes.
    pub(super) fn check(&mut self, done: Done, mut pending: Pending, mut early: Early) {
        let Purpose::Plan {
            entity,
            ref messages,
            repair,
            ..
        } = pending.purpose
        else {
            return;
        };
        let id = self.inputs.roster.id_of(pending.resident).clone();
        let when = (early.wake, Some(early.needs));
        let verdict = self.judge(&done, &pending, (Some(early.at), when), &id);
        let call = Finished {
            resident: &id,
            kind: pending.purpose.kind(),
            done: &done,
            pending: &pending,
            now: self.inputs.clock.now,
        };
        match verdict {
            Verdict::Unusable(problem) if !repair => {
                let messages = messages.clone();
                return self.repair(&call, &messages, problem, (entity, 0), Some(early));
            }
            Verdict::Failed(text) => {
                let (brain, events) = (&mut *self.brain, &mut self.events);
                call.log(
                    CallOutcome::Error,
                    AnswerUsed::Dropped,
                    Some(text),
                    brain,
                    events,
                );
                brain.early.remove(&entity);
                return;
            }
            // Good, or a repair still broken: judged again at the wake (and
            // then used, or replaced by the built-in plan).
            Verdict::Usable(_) | Verdict::Unusable(_) => {}
        }
        early.checked = true;
        if let Purpose::Plan { early: e, .. } = &mut pending.purpose {
            *e = Some(early);
        }
        pending.due = early.wake;
        self.brain.pending.insert(done.id, pending);
        self.brain.arrived.push(done);
    }
}
