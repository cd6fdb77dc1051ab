//! Plans: finished calls are used (repaired once, or replaced by the built-in
//! brain's plan), then new requests go out.

mod early;

pub(super) use early::ask_early;

use std::sync::Arc;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::dispatch::next_step;
use super::dispatch::settle;
use super::record::{Finished, admit};
use super::validate::plan_problem;
use super::{Claim, Early, Gate, LlmBrain, LlmFocus, PRIORITY_EARLY, Pending, Purpose};
use crate::base::time::GameTime;
use crate::llm::bridge::Done;
use crate::llm::client::Message;
use crate::llm::embed::town::{QueryVector, TownEmbeddings};
use crate::llm::parse::plan_from_text;
use crate::llm::prompts::{self, OtherResident};
use crate::scenario::{LocIdx, ResidentId, Town};
use crate::sim::brain::Plan;
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, SimEvent};
use crate::sim::memory::{Memory, MemorySearch};
use crate::sim::outcome::FailSim;
use crate::sim::planning::{PlanInputs, PlanReady, PlanRequest};
use crate::sim::residents::{
    Activity, Census, Needs, Resident, Roster, RosterIdx, Thinking, Walking, Whereabouts,
};

/// What a plan call's answer is good for.
enum Verdict {
    /// A plan that passes validation.
    Usable(Plan),
    /// An answer, but no usable plan: what is wrong with it.
    Unusable(String),
    /// No answer: the error.
    Failed(String),
}

/// What residents are doing, for the "others" of a planning prompt.
type Doing<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static Activity>,
        Has<Walking>,
        &'static Whereabouts,
    ),
>;

/// What the plan system reads and writes.
#[derive(SystemParam)]
pub(super) struct PlanCalls<'w, 's> {
    brain: ResMut<'w, LlmBrain>,
    inputs: PlanInputs<'w, 's>,
    focus: Res<'w, LlmFocus>,
    ready: MessageWriter<'w, PlanReady>,
    events: MessageWriter<'w, SimEvent>,
    fail: MessageWriter<'w, FailSim>,
    thinking: Query<'w, 's, &'static Thinking>,
    doing: Doing<'w, 's>,
    search: Res<'w, MemorySearch>,
    embeddings: Option<ResMut<'w, TownEmbeddings>>,
}

/// Plans: take up plans asked ahead for residents who woke as foreseen, use
/// finished calls due now (repairing or falling back), then send new requests
/// (those parked for their query's vector first, if still wanted).
pub(super) fn plans(
    mut requests: MessageReader<PlanRequest>,
    mut calls: PlanCalls,
    mut parked: Local<Vec<PlanRequest>>,
) {
    let now = calls.inputs.clock.now;
    let fresh: Vec<PlanRequest> = requests
        .read()
        .copied()
        .filter(|req| !calls.take_up(req))
        .collect();
    for (done, pending) in calls.brain.take_arrived(due_plan, now) {
        match pending.purpose {
            Purpose::Plan {
                early: Some(early), ..
            } if early.claim == Claim::Open => calls.check(done, pending, early),
            _ => calls.answered(&done, &pending),
        }
    }
    for req in std::mem::take(&mut *parked) {
        let wanted = calls
            .thinking
            .get(req.entity)
            .is_ok_and(|t| t.request == req.request);
        if wanted {
            calls.ask(&req, &mut parked);
        }
    }
    for req in &fresh {
        calls.ask(req, &mut parked);
    }
}

/// A plan call whose answer a step may use (when due): one asked ahead is
/// used once taken up or dropped, and checked before that.
fn due_plan(p: &Purpose) -> bool {
    matches!(p, Purpose::Plan { early, .. }
        if early.is_none_or(|e| e.claim != Claim::Open || !e.checked))
}

impl PlanCalls<'_, '_> {
    /// One finished plan (or repair) call.
    fn answered(&mut self, done: &Done, pending: &Pending) {
        let Purpose::Plan {
            entity,
            request,
            ref messages,
            repair,
            early,
        } = pending.purpose
        else {
            return;
        };
        let now = self.inputs.clock.now;
        let id = self.inputs.roster.id_of(pending.resident).clone();
        // Superseded, or the resident is gone: the answer is dropped.
        let current = self
            .thinking
            .get(entity)
            .is_ok_and(|t| t.request == request);
        let at = self.doing.get(entity).map(|d| d.2.0).ok();
        let verdict = self.judge(done, pending, (at, (now, None)), &id);
        let call = Finished {
            resident: &id,
            kind: pending.purpose.kind(),
            done,
            pending,
            now,
        };
        let (brain, events) = (&mut *self.brain, &mut self.events);
        if !current {
            let why = match early {
                // Asked ahead, and the resident's day went otherwise.
                Some(e) if e.claim == Claim::Stale => super::STALE,
                _ => "superseded",
            };
            let why = Some(why.into());
            call.log(CallOutcome::Ok, AnswerUsed::Dropped, why, brain, events);
            return;
        }
        match verdict {
            Verdict::Usable(plan) => {
                call.log(CallOutcome::Ok, AnswerUsed::Llm, None, brain, events);
                brain.stats.residents[pending.resident.i()].llm_plans += 1;
                self.ready.write(PlanReady {
                    entity,
                    request,
                    plan,
                });
            }
            Verdict::Unusable(problem) if !repair => {
                self.repair(&call, messages, problem, (entity, request), None);
            }
            Verdict::Unusable(problem) => {
                call.log(
                    CallOutcome::Invalid,
                    AnswerUsed::Builtin,
                    Some(problem),
                    brain,
                    events,
                );
                self.fall_back(pending.resident, entity, request);
            }
            Verdict::Failed(text) => {
                call.log(
                    CallOutcome::Error,
                    AnswerUsed::Builtin,
                    Some(text),
                    brain,
                    events,
                );
                self.fall_back(pending.resident, entity, request);
            }
        }
    }

    /// Books the call with its breaker and reads the plan in the answer.
    fn judge(
        &mut self,
        done: &Done,
        pending: &Pending,
        (at, when): (Option<LocIdx>, (GameTime, Option<Needs>)),
        id: &ResidentId,
    ) -> Verdict {
        let now = self.inputs.clock.now;
        let reply = match settle(&mut self.brain, done, pending, now, &mut self.fail, id) {
            Err(e) => return Verdict::Failed(e.to_string()),
            Ok(reply) => reply,
        };
        let plan = match plan_from_text(&reply.content) {
            Err(problem) => return Verdict::Unusable(problem.0),
            Ok(plan) => plan,
        };
        let problem =
            at.and_then(|at| plan_problem(&plan, at, &self.inputs.town, &self.inputs.tuning));
        // The world's rules: a plan to the right place may still be wrong there.
        let entity = match pending.purpose {
            Purpose::Plan { entity, .. } => Some(entity),
            _ => None,
        };
        let problem = problem.or_else(|| {
            let entity = entity?;
            self.inputs
                .with_context_at(entity, when, |cx, _| super::rules::rule_problem(&plan, cx))
                .flatten()
        });
        match problem {
            Some(problem) => Verdict::Unusable(problem),
            None => Verdict::Usable(plan),
        }
    }

    /// One repair attempt, if a call may go out now; else the built-in plan
    /// (or, for a plan asked `ahead`, a new ask at the wake). A repair of one
    /// asked ahead is due at the wake, against the state foreseen for it.
    fn repair(
        &mut self,
        call: &Finished,
        messages: &[Message],
        problem: String,
        (entity, request): (Entity, u64),
        ahead: Option<Early>,
    ) {
        let (brain, events) = (&mut *self.brain, &mut self.events);
        let pending = call.pending;
        let (priority, watched) = brain.priority(&self.focus, call.resident);
        let answer = call
            .done
            .result
            .as_ref()
            .map(|r| r.content.clone())
            .unwrap_or_default();
        if let Gate::Skip(why) = brain.gate(pending.endpoint, call.now, watched) {
            let why = Some(format!("{problem}; no repair: {why}"));
            if ahead.is_some() {
                brain.early.remove(&entity);
                return call.log(
                    CallOutcome::Invalid,
                    AnswerUsed::Dropped,
                    why,
                    brain,
                    events,
                );
            }
            call.log(
                CallOutcome::Invalid,
                AnswerUsed::Builtin,
                why,
                brain,
                events,
            );
            return self.fall_back(pending.resident, entity, request);
        }
        let reason = Some(problem.clone());
        call.log(
            CallOutcome::Invalid,
            AnswerUsed::Repair,
            reason,
            brain,
            events,
        );
        let when = ahead.map_or((call.now, None), |e| (e.wake, Some(e.needs)));
        let Some(repair_messages) = self.inputs.with_context_at(entity, when, |cx, _| {
            prompts::repair_messages(messages, &answer, &problem, cx)
        }) else {
            return;
        };
        let seed = self.inputs.settings.seed;
        let brain = &mut *self.brain;
        let req = brain.plan_request(repair_messages.clone(), 0.2, seed);
        let purpose = Purpose::Plan {
            entity,
            request,
            messages: repair_messages,
            repair: true,
            early: ahead.map(|e| Early { checked: true, ..e }),
        };
        let due = ahead.map_or(next_step(call.now), |e| e.wake);
        let priority = if ahead.is_some() {
            PRIORITY_EARLY
        } else {
            priority
        };
        brain.send(
            purpose,
            (pending.resident, pending.endpoint),
            (priority, due),
            req,
            // The repair carries the first prompt whole: same layers.
            pending.layers,
        );
        if ahead.is_some() {
            let job = brain.next_job;
            brain.early.insert(entity, job);
        }
    }

    /// The built-in brain's plan, counted as a fallback.
    fn fall_back(&mut self, resident: RosterIdx, entity: Entity, request: u64) {
        self.brain.stats.fallback(resident);
        fallback_plan(&mut self.inputs, &mut self.ready, entity, request);
    }

    /// A plan request: sent to the resident's endpoint, or answered by the
    /// built-in brain when the gate says no; parked while its query's vector
    /// is on its way.
    fn ask(&mut self, req: &PlanRequest, parked: &mut Vec<PlanRequest>) {
        let Ok(r) = self.inputs.residents.get(req.entity).map(|v| v.0.clone()) else {
            return;
        };
        let Some(endpoint) = self.brain.route.get(r.idx.i()).copied().flatten() else {
            return;
        };
        let now = self.inputs.clock.now;
        let Some(vector) = self.vector(req.entity, now) else {
            return parked.push(*req);
        };
        let (priority, watched) = self.brain.priority(&self.focus, &r.id);
        let call = ((r.idx, &r.id), endpoint, CallKind::Plan);
        if !admit(&mut self.brain, &mut self.events, now, call, watched) {
            fallback_plan(&mut self.inputs, &mut self.ready, req.entity, req.request);
            return;
        }
        let asked = Asked {
            entity: req.entity,
            request: req.request,
            when: (now, None),
            vector,
            early: None,
        };
        self.send(&r, endpoint, (priority, next_step(now)), asked);
    }

    /// The vector a plan's query recalls by: `Some(None)` without
    /// embeddings, `None` while it is on its way.
    fn vector(&mut self, entity: Entity, now: GameTime) -> Option<Option<Arc<[f32]>>> {
        let query = self.query(entity);
        match self.embeddings.as_mut().map(|e| e.query(&query, now)) {
            Some(QueryVector::Waiting) => None,
            Some(QueryVector::Ready(v)) => Some(Some(v)),
            Some(QueryVector::Lexical) | None => Some(None),
        }
    }

    /// Writes the plan prompt (as of `asked.when`) and sends it.
    fn send(
        &mut self,
        r: &Resident,
        endpoint: usize,
        (priority, due): (u8, GameTime),
        asked: Asked,
    ) {
        let query = self.query(asked.entity);
        let recalled = self.recalled(asked.entity, &query, asked.vector.as_deref(), asked.when.0);
        let doing = &self.doing;
        // The counter now: the context below borrows the inputs (tuning included).
        let counter = self
            .brain
            .budgeting(endpoint, &self.inputs.tuning.0.prompt)
            .counter;
        let now = self.inputs.clock.now;
        let Some(prompt) = self
            .inputs
            .with_context_at(asked.entity, asked.when, |cx, _| {
                let knows: Vec<RosterIdx> = cx.relationships.iter().map(|r| r.with_idx).collect();
                let others = others_for(r.idx, cx.at, &knows, cx.census, cx.roster, cx.town, doing);
                let budget = prompts::Budgeting::new(&cx.tuning.prompt, counter);
                prompts::plan_messages(cx, (&others, now), &recalled, &budget)
            })
        else {
            return;
        };
        let layers = self
            .brain
            .show(r.idx, endpoint, (CallKind::Plan, now), &prompt);
        let messages = prompt.messages;
        let (seed, temperature) = (self.inputs.settings.seed, self.brain.settings.temperature);
        let request = self.brain.plan_request(messages.clone(), temperature, seed);
        let purpose = Purpose::Plan {
            entity: asked.entity,
            request: asked.request,
            messages,
            repair: false,
            early: asked.early,
        };
        self.brain.send(
            purpose,
            (r.idx, endpoint),
            (priority, due),
            request,
            Some(layers),
        );
    }
}

/// A plan prompt to write: for whom, which request, as of when (and with
/// which needs), recalling by which vector.
struct Asked {
    entity: Entity,
    request: u64,
    when: (GameTime, Option<Needs>),
    vector: Option<Arc<[f32]>>,
    early: Option<Early>,
}

impl PlanCalls<'_, '_> {
    /// What a plan recalls by: where the resident is, what it just did, the
    /// gatherings it goes to.
    fn query(&self, entity: Entity) -> String {
        let Ok((_, _, _, at, previous, _, agenda, ..)) = self.inputs.residents.get(entity) else {
            return String::new();
        };
        let mut query = self.inputs.town.name(at.0).to_string();
        if let Some(a) = previous {
            query.push(' ');
            query.push_str(&a.text.dialogue);
        }
        for g in agenda
            .appointments
            .iter()
            .filter_map(|a| self.inputs.gatherings.get(a.gathering.i()))
        {
            query.push(' ');
            query.push_str(&g.title);
        }
        query
    }

    /// The memories most worth recalling for the plan's query (by meaning
    /// too, given its vector), best first.
    fn recalled(
        &self,
        entity: Entity,
        query: &str,
        vector: Option<&[f32]>,
        now: GameTime,
    ) -> Vec<String> {
        let Ok((_, _, _, _, _, memories, ..)) = self.inputs.residents.get(entity) else {
            return Vec::new();
        };
        let q = crate::recall::Query {
            text: query,
            now,
            as_of: None,
            vector,
            k: RECALLED,
        };
        let tuning = &self.inputs.tuning.0.memory;
        memories
            .relevant_indexed(self.search.segmenter(), &q, tuning)
            .into_iter()
            .map(Memory::line)
            .collect()
    }
}

/// Memories a planning prompt recalls by relevance (the newest follow).
const RECALLED: usize = 8;

/// The built-in brain's plan for a resident whose call failed or was not sent.
fn fallback_plan(
    inputs: &mut PlanInputs,
    ready: &mut MessageWriter<PlanReady>,
    entity: Entity,
    request: u64,
) {
    if let Some(plan) = inputs.builtin_plan(entity) {
        ready.write(PlanReady {
            entity,
            request,
            plan,
        });
    }
}

/// Others for a planning prompt: people here first, then people this resident
/// knows, then anyone, up to [`prompts::MAX_OTHERS`].
fn others_for(
    me: RosterIdx,
    at: LocIdx,
    knows: &[RosterIdx],
    census: &Census,
    roster: &Roster,
    town: &Town,
    doing: &Doing,
) -> Vec<OtherResident> {
    let mut picked: Vec<RosterIdx> = Vec::with_capacity(prompts::MAX_OTHERS);
    let here = census.standing_at(at);
    let everyone = roster.indices();
    for i in here
        .iter()
        .copied()
        .chain(knows.iter().copied())
        .chain(everyone)
    {
        if picked.len() >= prompts::MAX_OTHERS {
            break;
        }
        if i != me && !picked.contains(&i) {
            picked.push(i);
        }
    }
    picked
        .into_iter()
        .filter_map(|i| {
            let (activity, walking, where_) = doing.get(roster.entity_of(i)).ok()?;
            Some(OtherResident {
                name: roster.name_of(i).to_owned(),
                place: town.name(where_.0).to_string(),
                doing: prompts::doing(
                    activity.map(|a| a.kind),
                    activity.map(|a| a.text.action.as_str()),
                    walking,
                ),
            })
        })
        .collect()
}
