//! The LLM mind inside the simulation: residents with an [`AsyncMind`] get their
//! plans, lines and nightly summaries from their endpoint through the [`Bridge`].
//! Replies are collected each frame with `try_recv` and used at fixed points of
//! the step, in request order, so a headless run (which waits for them at each
//! step) gives the same log whatever the server's speed. Every call is logged;
//! anything unusable is repaired once (plans) or replaced by the built-in brain.
//!
//! - `dispatch`: the gate (budget, breaker, queue), sending, collecting;
//! - `record`: every call as an `llm_call` event;
//! - `validate`: what makes a model's plan or line unusable;
//! - `plans`, `lines`, `memory`: the systems for each kind of call;
//! - `account`: `llm_usage` per game day.

mod account;
mod dispatch;
mod lines;
mod memory;
mod plans;
mod record;
mod rules;
mod validate;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;

use super::accounting::LlmStats;
use super::bridge::{Bridge, Done};
use super::client::Message;
use super::config::LlmSettings;
use super::pool::Pool;
use super::schema::plan_schema;
use crate::base::time::GameTime;
use crate::context::{Assembled, LayerTokens};
use crate::scenario::{LocIdx, ResidentId};
use crate::sim::clock::{DriveSteps, StepGate};
use crate::sim::dating::Cupid;
use crate::sim::event_log::{BrainLabel, CallKind};
use crate::sim::memory::{Consolidation, PendingSummary};
use crate::sim::planning::PlanningSet;
use crate::sim::residents::{AsyncMind, Roster, RosterIdx};
use crate::sim::social::SocialSet;
use crate::sim::{LoadedScenario, SimSet, SimStep};

/// Residents the player is watching (selected, followed, on screen): their calls
/// go first and are never shed by the level of detail. The window writes it.
#[derive(Resource, Debug, Clone, Default)]
pub struct LlmFocus {
    /// Their ids.
    pub watched: Vec<ResidentId>,
}

/// Queue priority of a watched resident's calls.
const PRIORITY_WATCHED: u8 = 200;
/// Queue priority of everyone else's plans and lines.
const PRIORITY_NORMAL: u8 = 100;
/// Queue priority of summaries and recaps: due a while after they are asked
/// for, they leave a pool its last free slot, as plans asked ahead do.
const PRIORITY_SUMMARY: u8 = 45;
/// Queue priority of plans asked for ahead: due later than anything else, so
/// they fill the server's idle slots and never hold up a call due sooner.
const PRIORITY_EARLY: u8 = 40;
const _: () = assert!(PRIORITY_SUMMARY <= crate::llm::bridge::BACKGROUND);
const _: () = assert!(PRIORITY_EARLY < PRIORITY_SUMMARY);

/// A plan asked for when an action began, for the moment it ends: the
/// resident's state it was asked from, to tell at that moment whether the
/// answer still fits.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Early {
    /// When the action ends (the prompt's "now").
    wake: GameTime,
    /// Where the resident will be.
    at: LocIdx,
    /// What it remembered when asked (see [`MemoryMark`]).
    mark: MemoryMark,
    /// The needs it will wake to, as foreseen.
    needs: crate::sim::residents::Needs,
    /// Whether the answer was taken up.
    claim: Claim,
    /// Whether the answer was checked against the rules (halfway to the
    /// wake), so a broken one is repaired while the action goes on.
    checked: bool,
}

impl Early {
    /// Asked from the same state: the same action's end, place and memories.
    fn same_state(&self, other: &Early) -> bool {
        (self.wake, self.at, self.mark) == (other.wake, other.at, other.mark)
    }
}

/// How many memories a resident holds and when the newest was made: a
/// conversation, a notice read or a night's summary changes it, and a plan
/// asked for before it no longer fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MemoryMark(usize, Option<GameTime>);

/// The reason logged for a plan asked ahead that no longer fits.
const STALE: &str = "stale";

/// What became of a plan asked for ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    /// The action has not ended yet.
    Open,
    /// The resident woke as foreseen: the answer is its plan.
    Taken,
    /// Something happened since it was asked: dropped when due.
    Stale,
}

/// What a call was for.
#[derive(Debug, Clone)]
enum Purpose {
    Plan {
        entity: Entity,
        /// The plan request answered (0 until a plan asked ahead is taken up).
        request: u64,
        messages: Vec<Message>,
        repair: bool,
        /// Asked for ahead, when the current action began.
        early: Option<Early>,
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
        time: GameTime,
        fallback: String,
    },
}

impl Purpose {
    /// A plan asked ahead.
    fn early(&self) -> bool {
        matches!(self, Purpose::Plan { early: Some(_), .. })
    }

    fn kind(&self) -> CallKind {
        match self {
            Purpose::Plan { repair: false, .. } => CallKind::Plan,
            Purpose::Plan { repair: true, .. } => CallKind::Repair,
            Purpose::Line { .. } => CallKind::Line,
            Purpose::Summary { .. } => CallKind::Summary,
            Purpose::Recap { .. } => CallKind::Recap,
        }
    }
}

/// A call sent and not yet used.
#[derive(Debug)]
struct Pending {
    purpose: Purpose,
    resident: RosterIdx,
    endpoint: usize,
    /// The first step whose game time is at least this uses the answer; a
    /// headless run waits for it before that step, and only for it.
    due: GameTime,
    prompt_estimate: u32,
    /// Tokens per layer, for the log.
    layers: Option<LayerTokens>,
}

/// A circuit breaker per endpoint, timed in game minutes so record and replay agree.
#[derive(Debug, Clone, Default)]
struct Breaker {
    failures: u32,
    open_until: Option<GameTime>,
    probing: bool,
}

/// Whether a call may go out now.
enum Gate {
    Send,
    /// Not sent, and why: `budget`, `circuit_open`, `queue`.
    Skip(&'static str),
}

/// The LLM brain's state: the bridge, each resident's endpoint, what is in flight.
#[derive(Resource)]
pub struct LlmBrain {
    bridge: Bridge,
    settings: LlmSettings,
    endpoints: Vec<Arc<Pool>>,
    /// Endpoint index per roster index (`None`: built-in brain).
    route: Vec<Option<usize>>,
    /// Resident ids by roster index.
    ids: Vec<ResidentId>,
    breakers: Vec<Breaker>,
    schema: serde_json::Value,
    pending: HashMap<u64, Pending>,
    arrived: Vec<Done>,
    /// The open plan asked ahead per resident (its job).
    early: HashMap<Entity, u64>,
    next_job: u64,
    day: u32,
    day_calls: u32,
    final_usage_logged: bool,
    /// Call failures not yet reported to the user (the CLI prints them once).
    failures: Vec<String>,
    stats: LlmStats,
    /// Each resident's last prompt, for the window's prompt view.
    last_prompts: HashMap<RosterIdx, ShownPrompt>,
}

/// A prompt as sent, kept for the inspector's prompt view.
#[derive(Debug, Clone)]
pub struct ShownPrompt {
    /// What it was for.
    pub kind: CallKind,
    /// When it was sent.
    pub time: GameTime,
    /// The model asked.
    pub model: String,
    /// Its layers, as cut to the budget.
    pub layers: Assembled,
    /// The messages sent.
    pub messages: Vec<Message>,
}

impl LlmBrain {
    /// The last prompt sent for this resident.
    pub fn last_prompt(&self, idx: RosterIdx) -> Option<&ShownPrompt> {
        self.last_prompts.get(&idx)
    }

    /// Calls sent and not yet used by the simulation.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }

    /// How many residents an LLM drives.
    pub fn routed(&self) -> usize {
        self.route.iter().flatten().count()
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// The endpoints in use, first come first.
    pub fn endpoints(&self) -> &[Arc<Pool>] {
        &self.endpoints
    }

    /// What was counted so far.
    pub fn stats(&self) -> &LlmStats {
        &self.stats
    }

    /// Failures since the last call, oldest first (`endpoint (model): error`).
    pub fn take_failures(&mut self) -> Vec<String> {
        std::mem::take(&mut self.failures)
    }
}

/// Adds the LLM systems; they do nothing until [`attach`] inserts an [`LlmBrain`].
pub fn plugin(app: &mut App) {
    let active = resource_exists::<LlmBrain>;
    app.add_plugins(crate::llm::embed::town::plugin);
    app.init_resource::<LlmFocus>()
        .add_systems(
            Update,
            dispatch::collect_replies.before(DriveSteps).run_if(active),
        )
        .add_systems(
            SimStep,
            (
                plans::plans.in_set(PlanningSet::Answer),
                plans::ask_early.after(SimSet::Memory).before(SimSet::End),
                lines::deliver_lines
                    .after(SocialSet::Triggers)
                    .before(SocialSet::Talk),
                lines::request_lines
                    .after(SocialSet::Talk)
                    .before(SocialSet::Conclude),
                memory::summaries
                    .in_set(SimSet::Memory)
                    .after(Consolidation),
                memory::recaps.in_set(SimSet::Memory).after(Consolidation),
                account::account.after(SimSet::End).before(SimSet::Log),
            )
                .run_if(active),
        );
}

/// Starts the bridge and gives every routed resident an [`AsyncMind`]. Call
/// after `sim::setup_world`, before the first update.
pub fn attach(
    world: &mut World,
    settings: LlmSettings,
) -> Result<(), crate::llm::calls::StartError> {
    let scenario = world.resource::<LoadedScenario>().0.clone();
    let bridge = crate::llm::calls::start_bridge(&settings, crate::llm::calls::Shape::Town)?;
    let roster_entities = world.resource::<Roster>().entities().to_vec();
    let mut endpoints: Vec<Arc<Pool>> = Vec::new();
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
    world.insert_resource(BrainLabel(brain_label(&endpoints, &route)));
    // The host thinks with a model: so do the dates it hosts — unless calls
    // are capped per day: a date's thirty-odd calls go out on a thread of
    // their own, past the gate that counts them, so a capped town's dates
    // are played by the built-in host.
    let cupid = world.get_resource::<Cupid>().cloned();
    if let Some((cupid, (host, _))) = cupid.and_then(|c| Some((c.clone(), c.host?)))
        && settings.max_calls_per_day.is_none()
        && let Some(&Some(e)) = route.get(host.i())
    {
        let dates = crate::llm::cupid::town_dates(&settings, &endpoints[e], cupid.bank.clone());
        world.insert_resource(dates);
    }
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
        early: HashMap::new(),
        next_job: 0,
        day: 1,
        day_calls: 0,
        final_usage_logged: false,
        failures: Vec::new(),
        stats: LlmStats::new(scenario.residents.len()),
        last_prompts: HashMap::new(),
        settings,
    });
    Ok(())
}

/// What the `start` line names as the brain: `builtin`, `llm:MODEL`, or
/// `llm:MODEL+builtin` when only some residents think with a model.
fn brain_label(endpoints: &[Arc<Pool>], route: &[Option<usize>]) -> String {
    let routed = route.iter().flatten().count();
    let mut models: Vec<&str> = endpoints.iter().map(|e| e.model()).collect();
    models.dedup();
    match (routed, route.len()) {
        (0, _) => "builtin".to_string(),
        (r, n) if r == n => format!("llm:{}", models.join("+")),
        _ => format!("llm:{}+builtin", models.join("+")),
    }
}

/// Between frames of a headless run: sleeps until a reply comes if the step is
/// waiting for one (never called from a system).
pub fn wait_if_gated(world: &World, timeout: Duration) {
    crate::llm::embed::town::wait_if_gated(world, timeout);
    if world.get_resource::<StepGate>().is_some_and(|g| g.dates) {
        // A date's step is on its own thread: look again shortly.
        std::thread::sleep(Duration::from_millis(2));
    }
    if world.get_resource::<StepGate>().is_some_and(|g| g.waiting)
        && let Some(brain) = world.get_resource::<LlmBrain>()
    {
        brain.bridge.wait(timeout);
    }
}
