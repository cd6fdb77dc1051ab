//! The LLM mind inside the simulation: residents with an [`AsyncMind`] get their
//! plans, lines and nightly summaries from their endpoint through the [`Bridge`].
//! Replies are collected each frame with `try_recv` and used at fixed points of
//! the step, in request order, so a headless run (which waits for them at each
//! step) gives the same log whatever the server's speed. Every call is logged;
//! anything unusable is repaired once (plans) or replaced by the built-in brain.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;

use super::accounting::LlmStats;
use super::bridge::{Bridge, BridgeSettings, Done, Job};
use super::cassette::{Cassette, CassetteMode};
use super::client::{ChatRequest, Endpoint, Format, LlmError, Message, estimate_tokens};
use super::config::LlmSettings;
use super::parse::{line_from_text, plan_from_text};
use super::prompts::{self, LineExtras, OtherResident};
use super::schema::{PLAN_SCHEMA_NAME, plan_schema};
use crate::scenario::{LocIdx, ResidentId, Town, Tuning};
use crate::sim::brain::Plan;
use crate::sim::clock::{Clock, DriveSteps, StepGate, StepMode};
use crate::sim::end::{FailSim, SimOutcome};
use crate::sim::event_log::{BrainLabel, EventBody, SimEvent};
use crate::sim::memory::{
    Consolidation, Memories, MemoryKind, PendingSummary, SummaryRequest, store_summary,
};
use crate::sim::planning::{PlanInputs, PlanReady, PlanRequest, PlanningSet};
use crate::sim::residents::{
    Activity, AsyncMind, Census, Needs, Persona, Resident, Roster, Thinking, Walking, Whereabouts,
};
use crate::sim::social::{
    self, Conversation, Delivered, LineInputs, LineRequest, SocialSet, SocialState, TalkerView,
    deliver, with_line_context,
};
use crate::sim::{LoadedScenario, RunSettings, SimSet, SimStep};

/// Residents the player is watching (selected, followed, on screen): their calls
/// go first and are never shed by the level of detail. The window writes it.
#[derive(Resource, Debug, Clone, Default)]
pub struct LlmFocus {
    pub watched: Vec<ResidentId>,
}

const PRIORITY_WATCHED: u8 = 200;
const PRIORITY_NORMAL: u8 = 100;
const PRIORITY_SUMMARY: u8 = 50;

/// What a call was for.
#[derive(Debug, Clone)]
enum Purpose {
    Plan {
        entity: Entity,
        request: u64,
        messages: Vec<Message>,
        repair: bool,
    },
    Line {
        conversation: u64,
        speaker: String,
        prompt: String,
    },
    Summary {
        entity: Entity,
        entries: PendingSummary,
    },
    Recap {
        entity: Entity,
        time: crate::base::time::GameTime,
        fallback: String,
    },
}

impl Purpose {
    fn kind(&self) -> &'static str {
        match self {
            Purpose::Plan { repair: false, .. } => "plan",
            Purpose::Plan { repair: true, .. } => "repair",
            Purpose::Line { .. } => "line",
            Purpose::Summary { .. } => "summary",
            Purpose::Recap { .. } => "recap",
        }
    }
}

#[derive(Debug)]
struct Pending {
    purpose: Purpose,
    resident: u32,
    endpoint: usize,
    prompt_estimate: u32,
}

/// A circuit breaker per endpoint, timed in game minutes so record and replay agree.
#[derive(Debug, Clone, Default)]
struct Breaker {
    failures: u32,
    open_until: Option<crate::base::time::GameTime>,
    probing: bool,
}

enum Gate {
    Send,
    Skip(&'static str),
}

/// The LLM brain's state: the bridge, each resident's endpoint, what is in flight.
#[derive(Resource)]
pub struct LlmBrain {
    bridge: Bridge,
    pub settings: LlmSettings,
    pub endpoints: Vec<Arc<Endpoint>>,
    /// Endpoint index per roster index (`None`: built-in brain).
    route: Vec<Option<usize>>,
    /// Resident ids by roster index.
    ids: Vec<ResidentId>,
    breakers: Vec<Breaker>,
    schema: serde_json::Value,
    pending: HashMap<u64, Pending>,
    arrived: Vec<Done>,
    next_job: u64,
    day: u32,
    day_calls: u32,
    final_usage_logged: bool,
    /// Call failures not yet reported to the user (the CLI prints them once).
    pub failures: Vec<String>,
    pub stats: LlmStats,
}

impl LlmBrain {
    /// Calls sent and not yet used by the simulation.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }

    /// How many residents an LLM drives.
    pub fn routed(&self) -> usize {
        self.route.iter().flatten().count()
    }
}

/// Adds the LLM systems; they do nothing until [`attach`] inserts an [`LlmBrain`].
pub fn plugin(app: &mut App) {
    let active = resource_exists::<LlmBrain>;
    app.init_resource::<LlmFocus>()
        .add_systems(Update, collect_replies.before(DriveSteps).run_if(active))
        .add_systems(
            SimStep,
            (
                plans.in_set(PlanningSet::Answer),
                deliver_lines
                    .after(SocialSet::Triggers)
                    .before(SocialSet::Talk),
                request_lines
                    .after(SocialSet::Talk)
                    .before(SocialSet::Conclude),
                summaries.in_set(SimSet::Memory).after(Consolidation),
                recaps.in_set(SimSet::Memory).after(Consolidation),
                account.after(SimSet::End).before(SimSet::Log),
            )
                .run_if(active),
        );
}

/// Starts the bridge and gives every routed resident an [`AsyncMind`]. Call
/// after `sim::setup_world`, before the first update.
pub fn attach(world: &mut World, settings: LlmSettings) -> Result<(), String> {
    let scenario = world.resource::<LoadedScenario>().0.clone();
    let cassette = match &settings.cassette {
        Some(CassetteMode::Record(dir)) => Some(Arc::new(
            Cassette::record(dir, settings.default.as_ref())
                .map_err(|e| format!("cannot record into {}: {e}", dir.display()))?,
        )),
        Some(CassetteMode::Replay(dir)) => Some(Arc::new(Cassette::replay(dir)?)),
        None => None,
    };
    let bridge = Bridge::start(
        BridgeSettings {
            concurrency: settings.concurrency,
            timeout: settings.timeout,
            ..BridgeSettings::default()
        },
        cassette,
    )
    .map_err(|e| format!("cannot start the LLM runtime: {e}"))?;
    let roster_entities = world.resource::<Roster>().entities.clone();
    let mut endpoints: Vec<Arc<Endpoint>> = Vec::new();
    let mut route = Vec::with_capacity(scenario.residents.len());
    for (i, profile) in scenario.residents.iter().enumerate() {
        let r = settings.endpoint_for(profile).map(|ep| {
            match endpoints.iter().position(|e| **e == ep) {
                Some(i) => i,
                None => {
                    endpoints.push(Arc::new(ep));
                    endpoints.len() - 1
                }
            }
        });
        if r.is_some()
            && let Some(&e) = roster_entities.get(i)
        {
            world.entity_mut(e).insert(AsyncMind);
        }
        route.push(r);
    }
    let routed = route.iter().flatten().count();
    let mut models: Vec<&str> = endpoints.iter().map(|e| e.model.as_str()).collect();
    models.dedup();
    let label = match (routed, route.len()) {
        (0, _) => "builtin".to_string(),
        (r, n) if r == n => format!("llm:{}", models.join("+")),
        _ => format!("llm:{}+builtin", models.join("+")),
    };
    world.insert_resource(BrainLabel(label));
    let schema = plan_schema(&scenario.town, &scenario.tuning);
    world.insert_resource(LlmBrain {
        bridge,
        breakers: vec![Breaker::default(); endpoints.len()],
        endpoints,
        route,
        ids: scenario.residents.iter().map(|p| p.id.clone()).collect(),
        schema,
        pending: HashMap::new(),
        arrived: Vec::new(),
        next_job: 0,
        day: 1,
        day_calls: 0,
        final_usage_logged: false,
        failures: Vec::new(),
        stats: LlmStats::new(scenario.residents.len()),
        settings,
    });
    Ok(())
}

/// Between frames of a headless run: sleeps until a reply comes if the step is
/// waiting for one (never called from a system).
pub fn wait_if_gated(world: &World, timeout: Duration) {
    if world.get_resource::<StepGate>().is_some_and(|g| g.waiting)
        && let Some(brain) = world.get_resource::<LlmBrain>()
    {
        brain.bridge.wait(timeout);
    }
}

/// Each frame: take every finished call off the channel; a headless run waits
/// (skips its step this frame) until all calls sent so far are back.
fn collect_replies(
    mut brain: ResMut<LlmBrain>,
    mode: Res<StepMode>,
    outcome: Res<SimOutcome>,
    mut gate: ResMut<StepGate>,
) {
    let brain = &mut *brain;
    while let Some(done) = brain.bridge.try_recv() {
        // A call nobody waits for any more (e.g. after a restart) is dropped.
        if brain.pending.contains_key(&done.id) {
            brain.arrived.push(done);
        }
    }
    gate.waiting = *mode == StepMode::Headless
        && !outcome.ended()
        && brain.arrived.len() < brain.pending.len();
}

impl LlmBrain {
    /// Whether a call for this resident may go out now.
    fn gate(&mut self, endpoint: usize, now: crate::base::time::GameTime, watched: bool) -> Gate {
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

    fn send(
        &mut self,
        purpose: Purpose,
        idx: u32,
        endpoint: usize,
        priority: u8,
        request: ChatRequest,
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
                prompt_estimate,
            },
        );
        self.bridge.send(Job {
            id: self.next_job,
            priority,
            endpoint: self.endpoints[endpoint].clone(),
            request,
        });
    }

    /// Finished calls of one kind, oldest request first, removed from the queue.
    fn take_arrived(&mut self, kind: fn(&Purpose) -> bool) -> Vec<(Done, Pending)> {
        let mut out = Vec::new();
        let mut rest = Vec::new();
        for done in std::mem::take(&mut self.arrived) {
            match self.pending.get(&done.id) {
                Some(p) if kind(&p.purpose) => {
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

    fn breaker_result(&mut self, endpoint: usize, ok: bool, now: crate::base::time::GameTime) {
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

    fn priority(&self, focus: &LlmFocus, id: &ResidentId) -> (u8, bool) {
        if focus.watched.contains(id) {
            (PRIORITY_WATCHED, true)
        } else {
            (PRIORITY_NORMAL, false)
        }
    }

    /// A plan (or repair) call: JSON against the town's plan schema.
    fn plan_request(&self, messages: Vec<Message>, temperature: f32, run_seed: u64) -> ChatRequest {
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

    fn seed(&self, run_seed: u64, job: u64) -> Option<u64> {
        Some(run_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ job)
    }
}

/// Books a finished call with its endpoint's breaker and returns the answer, or
/// the error as text. A replay miss also ends the run: replay must not guess.
fn settle<'a>(
    brain: &mut LlmBrain,
    done: &'a Done,
    pending: &Pending,
    now: crate::base::time::GameTime,
    fail: &mut MessageWriter<FailSim>,
    id: &ResidentId,
) -> Result<&'a super::client::ChatReply, String> {
    brain.breaker_result(pending.endpoint, done.result.is_ok(), now);
    match &done.result {
        Ok(reply) => Ok(reply),
        Err(e) => {
            if let LlmError::CassetteMiss { .. } = e {
                fail.write(FailSim(format!(
                    "replay: no recorded answer for {id}'s {} call ({e}); record the run again with --record",
                    pending.purpose.kind()
                )));
            }
            Err(e.to_string())
        }
    }
}

/// What one finished call is logged as.
struct CallRecord<'a> {
    resident: &'a ResidentId,
    kind: &'a str,
    outcome: &'static str,
    used: &'static str,
    reason: Option<String>,
    done: &'a Done,
    pending: &'a Pending,
    now: crate::base::time::GameTime,
}

impl<'a> CallRecord<'a> {
    /// Records of one finished call of one resident, by (outcome, used, reason).
    fn maker(
        resident: &'a ResidentId,
        kind: &'a str,
        now: crate::base::time::GameTime,
        done: &'a Done,
        pending: &'a Pending,
    ) -> impl Fn(&'static str, &'static str, Option<String>) -> CallRecord<'a> {
        move |outcome, used, reason| CallRecord {
            resident,
            kind,
            outcome,
            used,
            reason,
            done,
            pending,
            now,
        }
    }

    /// Books the call (stats, breaker, first failure) and writes its `llm_call` event.
    fn log(self, brain: &mut LlmBrain, events: &mut MessageWriter<SimEvent>) {
        log_call(brain, events, self);
    }
}

fn log_call(brain: &mut LlmBrain, events: &mut MessageWriter<SimEvent>, rec: CallRecord<'_>) {
    let (now, done, pending) = (rec.now, rec.done, rec.pending);
    if let Err(e) = &done.result {
        let ep = &brain.endpoints[pending.endpoint];
        brain
            .failures
            .push(format!("{} ({}): {e}", ep.base_url, ep.model));
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
        rec.resident,
        rec.kind,
        prompt,
        completion,
        done.latency_ms,
    );
    events.write(SimEvent {
        time: now,
        body: EventBody::LlmCall {
            resident: rec.resident.clone(),
            call: rec.kind.to_string(),
            model: brain.endpoints[pending.endpoint].model.clone(),
            outcome: rec.outcome.to_string(),
            used: rec.used.to_string(),
            reason: rec.reason,
            latency_ms: done.latency_ms,
            prompt_tokens: prompt,
            completion_tokens: completion,
            estimated,
            attempts,
            format: format.map(|f| {
                serde_json::to_value(f)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            }),
        },
    });
}

fn log_skip(
    brain: &mut LlmBrain,
    events: &mut MessageWriter<SimEvent>,
    now: crate::base::time::GameTime,
    (idx, id): (u32, &ResidentId),
    endpoint: usize,
    kind: &str,
    why: &str,
) {
    brain.stats.skip(idx);
    events.write(SimEvent {
        time: now,
        body: EventBody::LlmCall {
            resident: id.clone(),
            call: kind.to_string(),
            model: brain.endpoints[endpoint].model.clone(),
            outcome: "skipped".into(),
            used: "builtin".into(),
            reason: Some(why.to_string()),
            latency_ms: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            estimated: false,
            attempts: 0,
            format: None,
        },
    });
}

/// What is wrong with a model's plan for this resident, if anything.
pub fn plan_problem(plan: &Plan, at: LocIdx, town: &Town, tuning: &Tuning) -> Option<String> {
    let wanted = plan.target_location.trim();
    let target = town
        .find(wanted)
        .or_else(|| town.indices().find(|&l| town.name(l) == wanted));
    match target {
        None => return Some(format!("`{wanted}` is not a place id")),
        Some(t) if !town.reachable(at, t) => {
            return Some(format!(
                "`{wanted}` cannot be reached from `{}`",
                town.id(at)
            ));
        }
        _ => {}
    }
    let d = &tuning.durations;
    if plan.duration < d.min as i64 || plan.duration > d.max as i64 {
        return Some(format!(
            "duration {} is outside {}–{}",
            plan.duration, d.min, d.max
        ));
    }
    if !plan.action.chars().any(|c| c.is_ascii_alphabetic()) {
        return Some(format!(
            "action `{}` is not an English verb phrase",
            plan.action.trim()
        ));
    }
    // Small models copy the field descriptions instead of answering.
    for (field, text) in [
        ("action", &plan.action),
        ("dialogue", &plan.dialogue),
        ("emoji", &plan.emoji),
    ] {
        if ["英文", "中文的一句话", "一个表情", "动词短语"]
            .iter()
            .any(|p| text.contains(p))
        {
            return Some(format!(
                "`{field}` copies the instructions: `{}`",
                text.trim()
            ));
        }
    }
    None
}

/// What is wrong with a model's conversation line, if anything: not Chinese,
/// too short or long, copied from the prompt (a small model's favourite), or noise.
pub fn line_problem(line: &str, prompt: &str) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    if !has_cjk(line) {
        return Some(format!("not a Chinese line: {line:?}"));
    }
    if chars.len() < 4 {
        return Some(format!("too short: {line:?}"));
    }
    // Eight characters in a row straight from the prompt: an echo, not an answer.
    let copied = chars.windows(8).any(|w| {
        let s: String = w.iter().collect();
        prompt.contains(&s)
    });
    if copied {
        return Some(format!("copies the prompt: {line:?}"));
    }
    let repeats = chars.windows(4).any(|w| w.iter().all(|&c| c == w[0]));
    if repeats {
        return Some(format!("repeats itself: {line:?}"));
    }
    None
}

/// Others for a planning prompt: people here first, then people this resident
/// knows, then anyone, up to [`prompts::MAX_OTHERS`].
fn others_for(
    me: u32,
    at: LocIdx,
    knows: &[u32],
    census: &Census,
    roster: &Roster,
    town: &Town,
    doing: &Query<(Option<&Activity>, Has<Walking>, &Whereabouts)>,
) -> Vec<OtherResident> {
    let mut picked: Vec<u32> = Vec::with_capacity(prompts::MAX_OTHERS);
    let here = census
        .at_place
        .get(at.i())
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let everyone = 0..roster.len() as u32;
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
            let (activity, walking, where_) = doing.get(roster.entities[i as usize]).ok()?;
            Some(OtherResident {
                name: roster.names[i as usize].clone(),
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

/// Plans: use finished calls (repairing or falling back), then send new requests.
#[allow(clippy::too_many_arguments)]
fn plans(
    mut brain: ResMut<LlmBrain>,
    mut inputs: PlanInputs,
    focus: Res<LlmFocus>,
    mut requests: MessageReader<PlanRequest>,
    mut ready: MessageWriter<PlanReady>,
    mut events: MessageWriter<SimEvent>,
    mut fail: MessageWriter<FailSim>,
    thinking: Query<&Thinking>,
    doing: Query<(Option<&Activity>, Has<Walking>, &Whereabouts)>,
) {
    let brain = &mut *brain;
    let now = inputs.clock.now;
    let seed = inputs.settings.seed;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Plan { .. })) {
        let Purpose::Plan {
            entity,
            request,
            ref messages,
            repair,
        } = pending.purpose
        else {
            continue;
        };
        let id = inputs.roster.ids[pending.resident as usize].clone();
        let kind = pending.purpose.kind();
        // Superseded, or the resident is gone: the answer is dropped.
        let current = thinking.get(entity).is_ok_and(|t| t.request == request);
        let at = doing.get(entity).map(|d| d.2.0);
        let outcome = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err(("error", e)),
            Ok(reply) => match plan_from_text(&reply.content) {
                Err(problem) => Ok(Err(problem)),
                Ok(plan) => match at
                    .ok()
                    .and_then(|at| plan_problem(&plan, at, &inputs.town, &inputs.tuning))
                {
                    Some(problem) => Ok(Err(problem)),
                    None => Ok(Ok(plan)),
                },
            },
        };
        let record = CallRecord::maker(&id, kind, now, &done, &pending);
        if !current {
            record("ok", "dropped", Some("superseded".into())).log(brain, &mut events);
            continue;
        }
        match outcome {
            Ok(Ok(plan)) => {
                record("ok", "llm", None).log(brain, &mut events);
                brain.stats.residents[pending.resident as usize].llm_plans += 1;
                ready.write(PlanReady {
                    entity,
                    request,
                    plan,
                });
            }
            Ok(Err(problem)) if !repair => {
                // One repair attempt, if a call may go out now.
                let (priority, watched) = brain.priority(&focus, &id);
                let gate = brain.gate(pending.endpoint, now, watched);
                let answer = done
                    .result
                    .as_ref()
                    .map(|r| r.content.clone())
                    .unwrap_or_default();
                match gate {
                    Gate::Send => {
                        record("invalid", "repair", Some(problem.clone())).log(brain, &mut events);
                        let Some(repair_messages) = inputs.with_context(entity, |cx, _| {
                            prompts::repair_messages(messages, &answer, &problem, cx)
                        }) else {
                            continue;
                        };
                        let req = brain.plan_request(repair_messages.clone(), 0.2, seed);
                        brain.send(
                            Purpose::Plan {
                                entity,
                                request,
                                messages: repair_messages,
                                repair: true,
                            },
                            pending.resident,
                            pending.endpoint,
                            priority,
                            req,
                        );
                    }
                    Gate::Skip(why) => {
                        let why = format!("{problem}; no repair: {why}");
                        record("invalid", "builtin", Some(why)).log(brain, &mut events);
                        brain.stats.fallback(pending.resident);
                        fallback_plan(&mut inputs, &mut ready, entity, request);
                    }
                }
            }
            Ok(Err(problem)) => {
                record("invalid", "builtin", Some(problem)).log(brain, &mut events);
                brain.stats.fallback(pending.resident);
                fallback_plan(&mut inputs, &mut ready, entity, request);
            }
            Err((_, text)) => {
                record("error", "builtin", Some(text)).log(brain, &mut events);
                brain.stats.fallback(pending.resident);
                fallback_plan(&mut inputs, &mut ready, entity, request);
            }
        }
    }
    for req in requests.read() {
        let Ok(r) = inputs.residents.get(req.entity).map(|v| v.0.clone()) else {
            continue;
        };
        let Some(endpoint) = brain.route.get(r.idx as usize).copied().flatten() else {
            continue;
        };
        let (priority, watched) = brain.priority(&focus, &r.id);
        match brain.gate(endpoint, now, watched) {
            Gate::Skip(why) => {
                log_skip(
                    brain,
                    &mut events,
                    now,
                    (r.idx, &r.id),
                    endpoint,
                    "plan",
                    why,
                );
                fallback_plan(&mut inputs, &mut ready, req.entity, req.request);
            }
            Gate::Send => {
                let Some(messages) = inputs.with_context(req.entity, |cx, _| {
                    let knows: Vec<u32> = cx.relationships.0.iter().map(|r| r.with_idx).collect();
                    let others =
                        others_for(r.idx, cx.at, &knows, cx.census, cx.roster, cx.town, &doing);
                    prompts::plan_messages(cx, &others)
                }) else {
                    continue;
                };
                let temperature = brain.settings.temperature;
                let request = brain.plan_request(messages.clone(), temperature, seed);
                brain.send(
                    Purpose::Plan {
                        entity: req.entity,
                        request: req.request,
                        messages,
                        repair: false,
                    },
                    r.idx,
                    endpoint,
                    priority,
                    request,
                );
            }
        }
    }
}

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

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// Lines that came back go into their conversations before they talk.
#[allow(clippy::too_many_arguments)]
fn deliver_lines(
    mut brain: ResMut<LlmBrain>,
    inputs: LineInputs,
    social: Res<SocialState>,
    mut conversations: Query<&mut Conversation>,
    mut events: MessageWriter<SimEvent>,
    mut fail: MessageWriter<FailSim>,
    q: Query<TalkerView>,
) {
    let brain = &mut *brain;
    let now = inputs.clock.now;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Line { .. })) {
        let Purpose::Line {
            conversation,
            ref speaker,
            ref prompt,
        } = pending.purpose
        else {
            continue;
        };
        let id = inputs.roster.ids[pending.resident as usize].clone();
        let record = CallRecord::maker(&id, "line", now, &done, &pending);
        let parsed = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err(("error", e)),
            Ok(reply) => {
                let (line, ends, emotion) = line_from_text(&reply.content, speaker);
                let said = Delivered {
                    line,
                    ends,
                    emotion,
                };
                if said.line.is_empty() && ends {
                    Ok(said)
                } else {
                    match line_problem(&said.line, prompt) {
                        Some(problem) => Err(("invalid", problem)),
                        None => Ok(said),
                    }
                }
            }
        };
        match parsed {
            Ok(said) => {
                record("ok", "llm", None).log(brain, &mut events);
                brain.stats.residents[pending.resident as usize].llm_lines += 1;
                deliver(&social, &mut conversations, conversation, said);
            }
            Err((outcome, why)) => {
                record(outcome, "builtin", Some(why)).log(brain, &mut events);
                brain.stats.fallback(pending.resident);
                builtin_line(&inputs, &social, &mut conversations, &q, conversation);
            }
        }
    }
}

fn builtin_line(
    inputs: &LineInputs,
    social: &SocialState,
    conversations: &mut Query<&mut Conversation>,
    q: &Query<TalkerView>,
    conversation: u64,
) {
    let Some(c) = social
        .open
        .get(&conversation)
        .and_then(|&e| conversations.get(e).ok())
    else {
        return;
    };
    // A speaker who is gone says nothing, which ends the conversation.
    let said = social::builtin_line(c, inputs, q).unwrap_or(Delivered {
        line: String::new(),
        ends: false,
        emotion: None,
    });
    deliver(social, conversations, conversation, said);
}

/// A short mood from needs, for line prompts.
fn mood(n: &Needs) -> &'static str {
    if n.energy < 25.0 {
        "疲惫"
    } else if n.hunger < 25.0 {
        "饿了，有点烦躁"
    } else if n.social < 30.0 {
        "想找人说说话"
    } else if n.fun > 70.0 {
        "愉快"
    } else {
        "平静"
    }
}

/// Line requests from conversations waiting on an async speaker.
#[allow(clippy::too_many_arguments)]
fn request_lines(
    mut brain: ResMut<LlmBrain>,
    inputs: LineInputs,
    focus: Res<LlmFocus>,
    social: Res<SocialState>,
    mut conversations: Query<&mut Conversation>,
    mut requests: MessageReader<LineRequest>,
    mut events: MessageWriter<SimEvent>,
    q: Query<TalkerView>,
    extra: Query<(&Needs, &Memories)>,
) {
    let brain = &mut *brain;
    let now = inputs.clock.now;
    let seed = inputs.settings.seed;
    for req in requests.read() {
        let Ok(speaker) = q.get(req.speaker) else {
            continue;
        };
        let idx = speaker.0.idx;
        let id = speaker.0.id.clone();
        let Some(endpoint) = brain.route.get(idx as usize).copied().flatten() else {
            builtin_line(&inputs, &social, &mut conversations, &q, req.conversation);
            continue;
        };
        let (priority, watched) = brain.priority(&focus, &id);
        if let Gate::Skip(why) = brain.gate(endpoint, now, watched) {
            log_skip(brain, &mut events, now, (idx, &id), endpoint, "line", why);
            builtin_line(&inputs, &social, &mut conversations, &q, req.conversation);
            continue;
        }
        let Some(c) = social
            .open
            .get(&req.conversation)
            .and_then(|&e| conversations.get(e).ok())
        else {
            continue;
        };
        let history: Vec<(String, String)> = c
            .messages
            .iter()
            .map(|m| {
                (
                    inputs.roster.names[m.speaker as usize].clone(),
                    m.text.clone(),
                )
            })
            .collect();
        let listener = q.get(req.listener).ok();
        let their_action = listener
            .and_then(|l| l.2)
            .map_or("闲着".to_string(), |a| a.text.action.clone());
        let my_action = speaker
            .2
            .map_or("闲着".to_string(), |a| a.text.action.clone());
        let (needs, memories) = match extra.get(req.speaker) {
            Ok((n, m)) => (Some(n), Some(m)),
            Err(_) => (None, None),
        };
        let listener_name = listener.map(|l| l.1.name.as_str()).unwrap_or("");
        // Memories that mention the listener first, then the newest.
        let recalled: Vec<String> = memories
            .map(|m| {
                let mut v: Vec<String> = m
                    .entries
                    .iter()
                    .rev()
                    .filter(|e| !listener_name.is_empty() && e.text.contains(listener_name))
                    .take(3)
                    .map(|e| e.line())
                    .collect();
                v.extend(m.recent(2).iter().map(|e| e.line()));
                v
            })
            .unwrap_or_default();
        let extras = LineExtras {
            my_action: &my_action,
            their_action: &their_action,
            history: &history,
            memories: &recalled,
            mood: needs.map_or("平静", mood),
        };
        let Some(messages) = with_line_context(c, &inputs, &q, |cx, _, _| {
            prompts::line_messages(cx, &extras)
        }) else {
            continue;
        };
        let prompt = messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let request = ChatRequest {
            messages,
            temperature: brain.settings.temperature,
            max_tokens: 96,
            seed: brain.seed(seed, brain.next_job + 1),
            format: Format::Text,
            stream: brain.settings.stream_lines,
        };
        brain.send(
            Purpose::Line {
                conversation: req.conversation,
                speaker: speaker.1.name.clone(),
                prompt,
            },
            idx,
            endpoint,
            priority,
            request,
        );
    }
}

/// Conversation memories in a resident's own words: finished calls revise the
/// built-in line already stored; new requests go out (at summary priority).
#[allow(clippy::too_many_arguments)]
fn recaps(
    mut brain: ResMut<LlmBrain>,
    clock: Res<Clock>,
    settings: Res<RunSettings>,
    mut requests: MessageReader<crate::sim::social::RecapRequest>,
    mut events: MessageWriter<SimEvent>,
    mut fail: MessageWriter<FailSim>,
    mut q: Query<(&Resident, &mut Memories)>,
) {
    let brain = &mut *brain;
    let now = clock.now;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Recap { .. })) {
        let Purpose::Recap {
            entity,
            time,
            ref fallback,
        } = pending.purpose
        else {
            continue;
        };
        let id = brain.ids[pending.resident as usize].clone();
        let record = CallRecord::maker(&id, "recap", now, &done, &pending);
        let text = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err(("error", e)),
            Ok(reply) => {
                let t = reply
                    .content
                    .trim()
                    .trim_matches(['"', '「', '」', '“', '”'])
                    .trim();
                if has_cjk(t) {
                    Ok(t.chars().take(30).collect::<String>())
                } else {
                    Err(("invalid", "not a Chinese sentence".to_string()))
                }
            }
        };
        let rec = match text {
            Ok(t) => match q.get_mut(entity) {
                Ok((_, mut memories)) => {
                    if crate::sim::memory::revise(
                        &mut memories,
                        time,
                        MemoryKind::Dialogue,
                        fallback,
                        t,
                    ) {
                        record("ok", "llm", None)
                    } else {
                        record("ok", "dropped", Some("the memory was consolidated".into()))
                    }
                }
                Err(_) => record("ok", "dropped", Some("the resident is gone".into())),
            },
            Err((outcome, why)) => {
                brain.stats.fallback(pending.resident);
                record(outcome, "builtin", Some(why))
            }
        };
        rec.log(brain, &mut events);
    }
    for req in requests.read() {
        let Ok((r, _)) = q.get(req.entity) else {
            continue;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let Some(endpoint) = brain.route.get(idx as usize).copied().flatten() else {
            continue;
        };
        if let Gate::Skip(why) = brain.gate(endpoint, now, false) {
            log_skip(brain, &mut events, now, (idx, &id), endpoint, "recap", why);
            continue;
        }
        let request = ChatRequest {
            messages: prompts::recap_messages(req),
            temperature: brain.settings.temperature,
            max_tokens: 60,
            seed: brain.seed(settings.seed, brain.next_job + 1),
            format: Format::Text,
            stream: false,
        };
        brain.send(
            Purpose::Recap {
                entity: req.entity,
                time: req.time,
                fallback: req.fallback.clone(),
            },
            idx,
            endpoint,
            PRIORITY_SUMMARY,
            request,
        );
    }
}

fn builtin_summary(
    active: &crate::sim::ActiveBrain,
    persona: &Persona,
    p: &PendingSummary,
) -> String {
    active.0.summarise(&crate::sim::brain::SummaryContext {
        me: &persona.0,
        night: p.night,
        entries: &p.entries,
    })
}

/// Nightly summaries: finished calls are stored; new requests go out.
#[allow(clippy::too_many_arguments)]
fn summaries(
    mut brain: ResMut<LlmBrain>,
    clock: Res<Clock>,
    settings: Res<RunSettings>,
    active: Res<crate::sim::ActiveBrain>,
    mut requests: MessageReader<SummaryRequest>,
    mut events: MessageWriter<SimEvent>,
    mut fail: MessageWriter<FailSim>,
    mut q: Query<(&Resident, &Persona, &mut Memories)>,
) {
    let brain = &mut *brain;
    let now = clock.now;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Summary { .. })) {
        let Purpose::Summary {
            entity,
            ref entries,
        } = pending.purpose
        else {
            continue;
        };
        let Ok((r, persona, mut memories)) = q.get_mut(entity) else {
            let id = brain.ids[pending.resident as usize].clone();
            let record = CallRecord::maker(&id, "summary", now, &done, &pending);
            record("ok", "dropped", Some("the resident is gone".into())).log(brain, &mut events);
            continue;
        };
        let id = r.id.clone();
        let record = CallRecord::maker(&id, "summary", now, &done, &pending);
        let text = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err(("error", e)),
            Ok(reply) => {
                let t = reply.content.trim();
                if has_cjk(t) {
                    Ok(t.chars().take(300).collect::<String>())
                } else {
                    Err(("invalid", "not a Chinese summary".to_string()))
                }
            }
        };
        let summary = match text {
            Ok(t) => {
                record("ok", "llm", None).log(brain, &mut events);
                t
            }
            Err((outcome, why)) => {
                record(outcome, "builtin", Some(why)).log(brain, &mut events);
                brain.stats.fallback(pending.resident);
                builtin_summary(&active, persona, entries)
            }
        };
        store_summary(&mut memories, r, entries, summary, now, &mut events);
    }
    for req in requests.read() {
        let Ok((r, persona, mut memories)) = q.get_mut(req.entity) else {
            continue;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let route = brain.route.get(idx as usize).copied().flatten();
        let gate = route.map(|e| (e, brain.gate(e, now, false)));
        match gate {
            Some((endpoint, Gate::Send)) => {
                let messages = prompts::summary_messages(&crate::sim::brain::SummaryContext {
                    me: &persona.0,
                    night: req.pending.night,
                    entries: &req.pending.entries,
                });
                let request = ChatRequest {
                    messages,
                    temperature: brain.settings.temperature,
                    max_tokens: 320,
                    seed: brain.seed(settings.seed, brain.next_job + 1),
                    format: Format::Text,
                    stream: false,
                };
                brain.send(
                    Purpose::Summary {
                        entity: req.entity,
                        entries: req.pending.clone(),
                    },
                    idx,
                    endpoint,
                    PRIORITY_SUMMARY,
                    request,
                );
            }
            other => {
                if let Some((endpoint, Gate::Skip(why))) = other {
                    log_skip(
                        brain,
                        &mut events,
                        now,
                        (idx, &id),
                        endpoint,
                        "summary",
                        why,
                    );
                }
                let summary = builtin_summary(&active, persona, &req.pending);
                store_summary(&mut memories, r, &req.pending, summary, now, &mut events);
            }
        }
    }
}

/// Closes game days for accounting (`llm_usage` events), and the last one at the end.
fn account(
    mut brain: ResMut<LlmBrain>,
    clock: Res<Clock>,
    roster: Res<Roster>,
    outcome: Res<SimOutcome>,
    mut events: MessageWriter<SimEvent>,
) {
    let day = clock.day();
    if day != brain.day {
        let closing = brain.day;
        let usage = brain.stats.close_day(closing);
        events.write(SimEvent {
            time: clock.now,
            body: usage,
        });
        brain.day = day;
        brain.day_calls = 0;
    }
    if outcome.ended() && !brain.final_usage_logged {
        brain.final_usage_logged = true;
        // Calls still out when the run ends are accounted too.
        let mut left: Vec<(u64, u32, usize, &'static str, u32)> = brain
            .pending
            .iter()
            .map(|(id, p)| {
                (
                    *id,
                    p.resident,
                    p.endpoint,
                    p.purpose.kind(),
                    p.prompt_estimate,
                )
            })
            .collect();
        left.sort_unstable();
        for (_, idx, endpoint, kind, prompt) in left {
            let id = roster.ids[idx as usize].clone();
            brain.stats.call(idx, &id, kind, prompt, 0, 0);
            events.write(SimEvent {
                time: clock.now,
                body: EventBody::LlmCall {
                    resident: id,
                    call: kind.to_string(),
                    model: brain.endpoints[endpoint].model.clone(),
                    outcome: "abandoned".into(),
                    used: "none".into(),
                    reason: Some("the run ended first".into()),
                    latency_ms: 0,
                    prompt_tokens: prompt,
                    completion_tokens: 0,
                    estimated: true,
                    attempts: 0,
                    format: None,
                },
            });
        }
        brain.pending.clear();
        brain.arrived.clear();
        let usage = brain.stats.close_day(day);
        events.write(SimEvent {
            time: clock.now,
            body: usage,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;

    #[test]
    fn copied_or_noisy_lines_are_rejected() {
        let prompt = "你是钟大川，准备和石松打招呼。\n## 你的背景";
        assert!(line_problem("你是钟大川，准备和石松打招呼。", prompt).is_some());
        assert!(line_problem("Hello there, friend!", prompt).is_some());
        assert!(line_problem("好", prompt).is_some());
        assert!(line_problem("石松！；；；；；；；", prompt).is_some());
        assert_eq!(
            line_problem("石松，今天怎么有空进镇啦？来碗炖菜！", prompt),
            None
        );
    }

    #[test]
    fn plans_that_copy_the_instructions_are_rejected() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let mut p = Plan {
            action: "Serve breakfast".into(),
            target_location: "tavern".into(),
            dialogue: "早！".into(),
            emoji: "🍲".into(),
            duration: 60,
        };
        assert_eq!(plan_problem(&p, home, &s.town, &s.tuning), None);
        p.dialogue = "中文的一句话".into();
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("copies")
        );
        p.dialogue = "早！".into();
        p.action = "英文行为".into();
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("English")
        );
        p.action = "Serve".into();
        p.duration = 5;
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("duration")
        );
    }
}
