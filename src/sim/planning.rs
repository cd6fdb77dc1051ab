//! Idle residents ask their brain for a plan; every plan is validated against
//! the town before it is carried out, and whatever had to be fixed is logged.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::actions::ActionBegan;
use super::brain::ActiveBrain;
use super::clock::Clock;
use super::event_log::events::{EventBody, SimEvent};
use super::memory::store::Memories;
use super::notice_board::NoticeBoard;
use super::residents::census::Census;
use super::residents::roster::Roster;
use super::residents::{
    Activity, ActivityKind, ActivityText, Agenda, AsyncMind, Needs, Persona, Relationships,
    Resident, ResidentRng, Tally, Thinking, Walking, Whereabouts,
};
use super::town::{ActiveTuning, Gatherings};
use super::{RunSettings, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, LocIdx, Profile, Service, Town, Tuning};
use crate::sim::brain::{Plan, PlanContext};
use crate::sim::residents::roster::RosterIdx;
use crate::sim::social::message::Talking;

/// A resident needs a plan.
#[derive(Message, Debug, Clone, Copy)]
pub struct PlanRequest {
    /// Who.
    pub(crate) entity: Entity,
    /// The request's number; only the answer to the latest is used.
    pub(crate) request: u64,
}

/// A brain's answer to a [`PlanRequest`].
#[derive(Message, Debug, Clone)]
pub struct PlanReady {
    /// Who.
    pub(crate) entity: Entity,
    /// The request answered.
    pub(crate) request: u64,
    /// The plan, as the brain wrote it.
    pub(crate) plan: Plan,
}

/// Ordered steps inside [`SimSet::Planning`]; an async brain answers between
/// `Request` and `Apply` (or in a later step).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanningSet {
    /// Idle residents ask for plans.
    Request,
    /// Brains answer (the built-in one at once).
    Answer,
    /// Answers are validated and begun.
    Apply,
}

#[derive(Resource, Debug, Default)]
pub(crate) struct RequestCounter(u64);

impl RequestCounter {
    /// A new request's number (a plan handed to a resident from outside its
    /// brain, such as a date, takes one too, so a late brain answer is dropped).
    pub(crate) fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

/// Requests to the built-in brain in this step, answered in it: such a
/// resident is thinking only from its request to its plan, so it is marked
/// here rather than given a [`Thinking`] (adding and taking away a component
/// costs an archetype move each, for hundreds a step in a big town). One
/// whose answer does not come is given its `Thinking` at the step's end, as
/// it would have had all along.
#[derive(Resource, Default)]
struct AskedNow {
    /// Each resident's request this step by roster idx; 0: none, or started.
    by_idx: Vec<u64>,
    /// Who was asked, in order.
    asked: Vec<(RosterIdx, Entity, u64)>,
}

impl AskedNow {
    /// Whether `request` is `idx`'s request this step, not yet started.
    fn wanted(&self, idx: RosterIdx, request: u64) -> bool {
        self.by_idx.get(idx.i()) == Some(&request)
    }
}

/// Plan requests made so far (a save keeps the count, so request numbers go on).
pub(crate) fn requests_made(world: &World) -> u64 {
    world.resource::<RequestCounter>().0
}

/// Sets the count of plan requests made (a loaded town).
pub(crate) fn set_requests_made(world: &mut World, n: u64) {
    world.resource_mut::<RequestCounter>().0 = n;
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<PlanRequest>()
        .add_message::<PlanReady>()
        .init_resource::<RequestCounter>()
        .init_resource::<AskedNow>()
        .configure_sets(
            SimStep,
            (
                PlanningSet::Request,
                PlanningSet::Answer,
                PlanningSet::Apply,
            )
                .chain()
                .in_set(SimSet::Planning),
        )
        .add_systems(
            SimStep,
            (
                request_plans.in_set(PlanningSet::Request),
                answer_with_brain.in_set(PlanningSet::Answer),
                apply_plans.in_set(PlanningSet::Apply),
            ),
        );
}

/// What carrying out a plan touches.
type PlanTarget<'a> = (
    &'a Resident,
    &'a Whereabouts,
    Option<&'a Thinking>,
    Option<&'a mut Activity>,
    &'a mut Tally,
);

/// What the brain may read of a resident, plus its random stream.
pub type PlannerView<'a> = (
    &'a Resident,
    &'a Persona,
    &'a Needs,
    &'a Whereabouts,
    Option<&'a Activity>,
    &'a Memories,
    &'a Agenda,
    &'a Relationships,
    &'a mut ResidentRng,
    &'a Tally,
);

/// Residents who plan later: waiting on their brain, or in a conversation.
type Busy = Or<(With<Thinking>, With<Talking>)>;

fn request_plans(
    mut commands: Commands,
    clock: Res<Clock>,
    (mut counter, mut asked): (ResMut<RequestCounter>, ResMut<AskedNow>),
    mut requests: MessageWriter<PlanRequest>,
    census: Res<Census>,
    // Who plans later, and a flag for each resident (kept between steps).
    (thinking, mut busy): (Query<&Resident, Busy>, Local<Vec<bool>>),
    (q, asynchronous): (PlanCandidates, Query<(), With<AsyncMind>>),
) {
    // Walkers (from the census), thinkers and talkers are left out by roster
    // idx: a sparse filter in the main query would make it visit residents out
    // of order. Whoever is in a conversation plans when it is over.
    busy.clear();
    busy.resize(census.entries.len(), false);
    for r in &thinking {
        if let Some(b) = busy.get_mut(r.idx.i()) {
            *b = true;
        }
    }
    let mut idle: Vec<(RosterIdx, Entity)> = q
        .iter()
        .filter(|(_, r, a)| {
            a.is_none_or(|a| a.busy_until <= clock.now)
                && !census.entries.get(r.idx.i()).is_some_and(|e| e.walking)
                && !busy.get(r.idx.i()).is_some_and(|&b| b)
        })
        .map(|(e, r, _)| (r.idx, e))
        .collect();
    // Roster order, so request ids (and everything downstream) are the same every run.
    idle.sort_unstable();
    asked.by_idx.resize(census.entries.len(), 0);
    for (idx, entity) in idle {
        let request = counter.next();
        if asynchronous.contains(entity) {
            commands.entity(entity).insert(Thinking { request });
        } else if let Some(slot) = asked.by_idx.get_mut(idx.i()) {
            *slot = request;
            asked.asked.push((idx, entity, request));
        }
        requests.write(PlanRequest { entity, request });
    }
}

/// Who may be asked for a plan: when its action ends.
type PlanCandidates<'w, 's> = Query<'w, 's, (Entity, &'static Resident, Option<&'static Activity>)>;

/// Everything a brain reads to plan for one resident; shared by the built-in
/// answer and async minds (prompts, fallbacks).
#[derive(SystemParam)]
pub struct PlanInputs<'w, 's> {
    /// The game clock.
    pub(crate) clock: Res<'w, Clock>,
    /// The run's settings.
    pub(crate) settings: Res<'w, RunSettings>,
    /// The town map.
    pub(crate) town: Res<'w, Town>,
    /// The tuning in force.
    pub(crate) tuning: Res<'w, ActiveTuning>,
    /// The notice boards.
    pub(crate) board: Res<'w, NoticeBoard>,
    /// Where everyone is.
    pub(crate) census: Res<'w, Census>,
    /// Every resident.
    pub(crate) roster: Res<'w, Roster>,
    /// The gatherings.
    pub(crate) gatherings: Res<'w, Gatherings>,
    /// The brain in force.
    pub(crate) brain: Res<'w, ActiveBrain>,
    /// The scenario (its phrase bank's plan lines).
    pub(crate) scenario: Res<'w, super::LoadedScenario>,
    /// Who is in a talk or on a date (absent where no town talks).
    pub(crate) social: Option<Res<'w, super::social::SocialState>>,
    /// What is read of each resident.
    pub(crate) residents: Query<'w, 's, PlannerView<'static>>,
}

impl PlanInputs<'_, '_> {
    /// Runs `f` with the resident's plan context and random stream.
    pub fn with_context<R>(
        &mut self,
        entity: Entity,
        f: impl FnOnce(&PlanContext<'_>, &mut rand_chacha::ChaCha8Rng) -> R,
    ) -> Option<R> {
        self.with_context_at(entity, (self.clock.now, None), f)
    }

    /// Runs `f` with the resident's plan context as it will be at `now`,
    /// with `needs` for its needs if given (a plan asked for ahead).
    pub fn with_context_at<R>(
        &mut self,
        entity: Entity,
        (now, needs): (GameTime, Option<Needs>),
        f: impl FnOnce(&PlanContext<'_>, &mut rand_chacha::ChaCha8Rng) -> R,
    ) -> Option<R> {
        let (shared, residents) = self.split();
        let (_, mut own, mut rng) = own(residents.get_mut(entity).ok()?);
        if let Some(needs) = &needs {
            own.1 = needs;
        }
        let cx = shared.context(now, own);
        Some(rng.draw(|r| f(&cx, r)))
    }

    /// The built-in brain's plan (the default, and every async mind's fallback).
    pub fn builtin_plan(&mut self, entity: Entity) -> Option<Plan> {
        let brain = self.brain.0.clone();
        self.with_context(entity, |cx, rng| brain.plan(cx, rng))
    }

    /// The built-in brain's plans for these requests, in their order, worked
    /// out on the compute pool's threads when there are many. Each resident
    /// draws from its own random stream and reads only the step's shared
    /// inputs, so the plans are the same whatever the threads.
    fn builtin_plans(&mut self, asked: &[PlanRequest]) -> Vec<Option<Plan>> {
        const NONE: u32 = u32::MAX;
        let mut slot = vec![NONE; self.roster.len()];
        let mut unique = true;
        for (k, req) in asked.iter().enumerate() {
            if let Ok(view) = self.residents.get(req.entity) {
                let s = &mut slot[view.0.idx.i()];
                unique &= *s == NONE;
                *s = k as u32;
            }
        }
        if asked.len() < PARALLEL_FROM || !unique {
            return asked.iter().map(|r| self.builtin_plan(r.entity)).collect();
        }
        let (brain, now) = (self.brain.0.clone(), self.clock.now);
        let (shared, residents) = self.split();
        let found = std::sync::Mutex::new(Vec::with_capacity(asked.len()));
        residents
            .par_iter_mut()
            .batching_strategy(crate::sim::batching())
            .for_each(|view| {
                let (r, own, mut rng) = own(view);
                let Some(&k) = slot.get(r.idx.i()).filter(|&&k| k != NONE) else {
                    return;
                };
                let cx = shared.context(now, own);
                let plan = rng.draw(|r| brain.plan(&cx, r));
                found
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((k, plan));
            });
        let mut out = vec![None; asked.len()];
        for (k, plan) in found.into_inner().unwrap_or_else(|p| p.into_inner()) {
            out[k as usize] = Some(plan);
        }
        out
    }
}

/// What a plan context reads of one resident: persona, needs, place, the
/// action before, memories, agenda, ties and tally.
type Own<'a> = (
    &'a Profile,
    &'a Needs,
    LocIdx,
    Option<&'a Activity>,
    &'a Memories,
    &'a Agenda,
    &'a Relationships,
    &'a Tally,
);

/// A resident's planner view as a plan context reads it: who it is, what
/// the context reads of it, and its random stream apart.
fn own<'a>(
    view: bevy::ecs::query::QueryItem<'a, '_, PlannerView<'static>>,
) -> (&'a Resident, Own<'a>, Mut<'a, ResidentRng>) {
    let (r, persona, needs, at, previous, memories, agenda, rels, rng, tally) = view;
    let own = (
        &*persona.0,
        needs,
        at.0,
        previous,
        memories,
        agenda,
        rels,
        tally,
    );
    (r, own, rng)
}

/// What every plan context of a step shares.
#[derive(Clone, Copy)]
struct Shared<'a> {
    seed: u64,
    town: &'a Town,
    tuning: &'a Tuning,
    notices: &'a NoticeBoard,
    census: &'a Census,
    roster: &'a Roster,
    gatherings: &'a [Gathering],
    phrases: &'a crate::scenario::PhraseBank,
    social: Option<&'a super::social::SocialState>,
}

impl<'a> Shared<'a> {
    /// One resident's plan context as of `now`.
    fn context(self, now: GameTime, own: Own<'a>) -> PlanContext<'a> {
        let (me, needs, at, previous, memories, agenda, relationships, tally) = own;
        PlanContext {
            now,
            seed: self.seed,
            town: self.town,
            tuning: self.tuning,
            me,
            needs,
            at,
            previous,
            memories: memories.recent(20),
            agenda,
            relationships,
            notices: self.notices,
            census: self.census,
            roster: self.roster,
            gatherings: self.gatherings,
            phrases: self.phrases,
            social: self.social,
            meals_today: tally.meals_on(now),
        }
    }
}

impl<'w, 's> PlanInputs<'w, 's> {
    /// The step's shared inputs, beside the residents' query.
    fn split(&mut self) -> (Shared<'_>, &mut Query<'w, 's, PlannerView<'static>>) {
        let shared = Shared {
            seed: self.settings.seed,
            town: &self.town,
            tuning: &self.tuning.0,
            notices: &self.board,
            census: &self.census,
            roster: &self.roster,
            gatherings: &self.gatherings,
            phrases: &self.scenario.0.dialogue,
            social: self.social.as_deref(),
        };
        (shared, &mut self.residents)
    }
}

/// Requests in one step from which the built-in brain's plans are worked out
/// in parallel: below, handing them to threads costs more than it saves.
const PARALLEL_FROM: usize = 16;

/// The built-in brain answers at once; residents with an async mind are answered
/// by it (see `crate::llm`).
fn answer_with_brain(
    mut inputs: PlanInputs,
    asynchronous: Query<(), With<AsyncMind>>,
    mut requests: MessageReader<PlanRequest>,
    mut ready: MessageWriter<PlanReady>,
) {
    let asked: Vec<PlanRequest> = requests
        .read()
        .filter(|req| !asynchronous.contains(req.entity))
        .copied()
        .collect();
    let plans = inputs.builtin_plans(&asked);
    for (req, plan) in asked.iter().zip(plans) {
        if let Some(plan) = plan {
            ready.write(PlanReady {
                entity: req.entity,
                request: req.request,
                plan,
            });
        }
    }
}

/// A plan that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidPlan {
    /// The action, as an English verb phrase.
    pub(crate) action: String,
    /// What kind of action it is.
    pub(crate) kind: ActivityKind,
    /// Where.
    pub(crate) target: LocIdx,
    /// What the resident says.
    pub(crate) dialogue: String,
    /// The emoji shown.
    pub(crate) emoji: String,
    /// Game minutes, once there (within the tuning's bounds).
    pub(crate) duration: u32,
}

/// Checks a brain's plan against the town; returns the plan to carry out and
/// what had to be fixed. Never fails: anything unusable is replaced.
pub fn validate(plan: &Plan, at: LocIdx, town: &Town, tuning: &Tuning) -> (ValidPlan, Vec<String>) {
    let mut problems = Vec::new();
    let mut action = plan.action.trim().chars().take(80).collect::<String>();
    if action.is_empty() {
        problems.push("empty action; replaced with `Look around`".to_string());
        action = "Look around".into();
    }
    let wanted = plan.target_location.trim();
    let quoted = crate::base::quoted;
    // Accept the id or the display name (a model may write either).
    let found = town
        .find(wanted)
        .or_else(|| town.indices().find(|&l| town.name(l) == wanted));
    let target = match found {
        Some(t) if town.reachable(at, t) => t,
        Some(_) => {
            problems.push(format!(
                "`{}` cannot be reached from `{}`; staying",
                quoted(wanted),
                town.id(at)
            ));
            at
        }
        None => {
            problems.push(format!(
                "unknown target_location `{}`; staying at `{}`",
                quoted(wanted),
                town.id(at)
            ));
            at
        }
    };
    let mut kind = plan
        .activity
        .unwrap_or_else(|| ActivityKind::from_action(&action));
    if kind == ActivityKind::PostNotice && !town.get(target).has(Service::NoticeBoard) {
        problems.push(format!(
            "no notice board at `{}`; not posting",
            town.id(target)
        ));
        kind = ActivityKind::Idle;
    }
    let d = &tuning.durations;
    let duration = plan.duration.clamp(d.min as i64, d.max as i64) as u32;
    if duration as i64 != plan.duration {
        problems.push(format!("duration {} clamped to {duration}", plan.duration));
    }
    let dialogue: String = plan.dialogue.trim().chars().take(200).collect();
    let mut emoji: String = plan.emoji.trim().chars().take(4).collect();
    if emoji.is_empty() || emoji.chars().all(|c| c.is_ascii_alphanumeric()) {
        if !plan.emoji.trim().is_empty() {
            problems.push(format!("`{}` is not an emoji", quoted(&plan.emoji)));
        }
        emoji = "🙂".into();
    }
    (
        ValidPlan {
            action,
            kind,
            target,
            dialogue,
            emoji,
            duration,
        },
        problems,
    )
}

/// The resident a plan is with (`with`: an id or a name), not oneself; an
/// unknown name is a problem and dropped.
fn partner(
    with: Option<&str>,
    me: RosterIdx,
    roster: &Roster,
    problems: &mut Vec<String>,
) -> Option<RosterIdx> {
    let wanted = with.map(str::trim).filter(|w| !w.is_empty())?;
    // An id through the roster's index; a name (a model may write either) by a scan.
    let found = roster
        .idx(&crate::scenario::ResidentId::new(wanted))
        .or_else(|| roster.indices().find(|&i| roster.name_of(i) == wanted));
    match found {
        Some(i) if i != me => Some(i),
        Some(_) => None,
        None => {
            let wanted = crate::base::quoted(wanted);
            problems.push(format!("unknown `with` `{wanted}`; dropped"));
            None
        }
    }
}

/// What starting plans reads and writes.
#[derive(SystemParam)]
struct Starting<'w, 's> {
    commands: Commands<'w, 's>,
    clock: Res<'w, Clock>,
    town: Res<'w, Town>,
    tuning: Res<'w, ActiveTuning>,
    events: MessageWriter<'w, SimEvent>,
    began: MessageWriter<'w, ActionBegan>,
    roster: Res<'w, Roster>,
}

/// A plan checked and placed: what starting it takes.
struct Checked {
    plan: ValidPlan,
    problems: Vec<String>,
    with: Option<RosterIdx>,
    /// Game minutes of walking, and the way (empty when already there).
    walk: i64,
    route: Vec<LocIdx>,
}

/// From this many answers in a step, plans are checked on all threads.
const PARALLEL_PLANS: usize = 256;

/// Validated plans start: logged, the activity set, the walk begun (or the
/// action, when it is here). The answers still wanted are checked and their
/// ways found side by side (reading only); then they start in order.
fn apply_plans(
    mut ready: MessageReader<PlanReady>,
    mut s: Starting,
    mut q: Query<PlanTarget>,
    mut asked: ResMut<AskedNow>,
) {
    // A superseded request's answer is dropped.
    let due: Vec<(&PlanReady, LocIdx, RosterIdx)> = ready
        .read()
        .filter_map(|msg| {
            let (r, at, thinking, ..) = q.get(msg.entity).ok()?;
            let wanted = match thinking {
                Some(t) => t.request == msg.request,
                None => asked.wanted(r.idx, msg.request),
            };
            wanted.then_some((msg, at.0, r.idx))
        })
        .collect();
    let (town, tuning, roster) = (&*s.town, &*s.tuning, &*s.roster);
    let checked = crate::sim::par_chunks(&due, PARALLEL_PLANS, |part| {
        part.iter()
            .map(|&(msg, at, me)| check(&msg.plan, (at, me), town, tuning, roster))
            .collect::<Vec<_>>()
    });
    for (&(msg, at, _), c) in due.iter().zip(checked.into_iter().flatten()) {
        if let Ok((r, _, thinking, activity, tally)) = q.get_mut(msg.entity) {
            if thinking.is_some() {
                s.commands.entity(msg.entity).remove::<Thinking>();
            } else {
                asked.by_idx[r.idx.i()] = 0;
            }
            s.start(msg.entity, (r, at), (activity, tally), c);
        }
    }
    still_thinking(&mut asked, &mut s.commands);
}

/// Whoever was asked this step and has not started a plan is thinking until
/// its answer comes (see [`AskedNow`]).
fn still_thinking(asked: &mut AskedNow, commands: &mut Commands) {
    let AskedNow { by_idx, asked } = asked;
    for (idx, entity, request) in asked.drain(..) {
        if std::mem::take(&mut by_idx[idx.i()]) == request {
            commands.entity(entity).insert(Thinking { request });
        }
    }
}

/// `a` becomes `plan`'s activity, not yet under way, until `busy_until`,
/// keeping company `with`. The old texts' room is reused (the plan's own go
/// to the log): a big town starts hundreds of plans a step, and allocating
/// and freeing their texts was a good part of starting them.
fn renew(a: &mut Activity, plan: &ValidPlan, (busy_until, with, walks): Renewal) {
    // Every field, so that a new one cannot be left stale.
    let Activity {
        text,
        kind,
        target,
        duration,
        busy_until: until,
        underway,
        walked,
        with: company,
    } = a;
    text.action.clone_from(&plan.action);
    text.dialogue.clone_from(&plan.dialogue);
    text.emoji.clone_from(&plan.emoji);
    (*kind, *target, *duration) = (plan.kind, plan.target, plan.duration);
    (*until, *underway, *walked, *company) = (busy_until, false, walks, with);
}

/// A new action's end, company, and whether it walks there.
type Renewal = (GameTime, Option<RosterIdx>, bool);

/// `plan` validated for the resident `me` at `at`, and its way found.
fn check(
    plan: &Plan,
    (at, me): (LocIdx, RosterIdx),
    town: &Town,
    tuning: &Tuning,
    roster: &Roster,
) -> Checked {
    let (valid, mut problems) = validate(plan, at, town, tuning);
    let with = partner(plan.with.as_deref(), me, roster, &mut problems);
    let walk = town
        .walk_minutes(at, valid.target, tuning.walk_speed)
        .ceil() as i64;
    let route = town.route(at, valid.target).unwrap_or_default();
    Checked {
        plan: valid,
        problems,
        with,
        walk,
        route,
    }
}

impl Starting<'_, '_> {
    /// A checked plan starts: counted, logged, the activity set, the walk
    /// begun (or the action, when it is here).
    fn start(
        &mut self,
        entity: Entity,
        (r, at): (&Resident, LocIdx),
        (activity, mut tally): (Option<Mut<Activity>>, Mut<Tally>),
        checked: Checked,
    ) {
        let Checked {
            plan,
            problems,
            with,
            walk,
            route,
        } = checked;
        let now = self.clock.now;
        tally.plans += 1;
        if plan.kind == ActivityKind::Eat {
            tally.ate(now);
        }
        if !problems.is_empty() {
            tally.fixed_plans += 1;
            self.events.write(SimEvent {
                time: now,
                body: EventBody::PlanFixed {
                    resident: r.id.clone(),
                    problems,
                },
            });
        }
        let target = plan.target;
        let busy_until = now.plus_minutes(walk + plan.duration as i64);
        let walks = !route.is_empty();
        match activity {
            Some(mut a) => renew(&mut a, &plan, (busy_until, with, walks)),
            None => {
                let text = Box::new(ActivityText {
                    action: plan.action.clone(),
                    dialogue: plan.dialogue.clone(),
                    emoji: plan.emoji.clone(),
                });
                self.commands.entity(entity).insert(Activity {
                    text,
                    kind: plan.kind,
                    target,
                    duration: plan.duration,
                    busy_until,
                    underway: false,
                    walked: walks,
                    with,
                });
            }
        }
        self.log_plan(r, at, plan);
        self.set_off(r, (at, target), (walk, route), entity);
    }

    /// Logs the plan (its texts go to the log).
    fn log_plan(&mut self, r: &Resident, at: LocIdx, plan: ValidPlan) {
        let town = &self.town;
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::Plan {
                resident: r.id.clone(),
                action: plan.action,
                activity: plan.kind,
                target_location: town.id(plan.target).clone(),
                dialogue: plan.dialogue,
                emoji: plan.emoji,
                duration: plan.duration,
                from: town.id(at).clone(),
            },
        });
    }

    /// Walks off along `route` (`walk` minutes), or begins at once when already there.
    fn set_off(
        &mut self,
        r: &Resident,
        (at, target): (LocIdx, LocIdx),
        (walk, route): (i64, Vec<LocIdx>),
        entity: Entity,
    ) {
        let town = &self.town;
        if route.is_empty() {
            self.began.write(ActionBegan(entity));
            return;
        }
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::Move {
                resident: r.id.clone(),
                from: town.id(at).clone(),
                to: town.id(target).clone(),
                route: route.iter().map(|&l| town.id(l).clone()).collect(),
                minutes: walk as u32,
            },
        });
        self.commands.entity(entity).insert(Walking {
            route,
            progress: 0.0,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;

    fn plan(target: &str, duration: i64, action: &str) -> Plan {
        Plan {
            action: action.into(),
            target_location: target.into(),
            dialogue: " 你好 ".into(),
            emoji: "🍺".into(),
            duration,
            activity: None,
            with: None,
        }
    }

    #[test]
    fn a_good_plan_passes_unchanged() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let (p, problems) = validate(
            &plan("tavern", 90, "Serve drinks"),
            home,
            &s.town,
            &s.tuning,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(p.target, s.town.find("tavern").unwrap());
        assert_eq!(
            (p.duration, p.kind, p.dialogue.as_str()),
            (90, ActivityKind::Work, "你好")
        );
    }

    #[test]
    fn unknown_or_unreachable_targets_stay_put() {
        let mut s = (*default_scenario()).clone();
        let home = s.town.find("home_zhong").unwrap();
        let (p, problems) = validate(&plan("moon", 60, "Fly"), home, &s.town, &s.tuning);
        assert_eq!(p.target, home);
        assert!(problems[0].contains("unknown target_location `moon`"));
        // Cut the mine off: it can no longer be reached.
        let mine = s.town.find("mine").unwrap();
        let mut locations = s.town.locations.clone();
        for l in &mut locations {
            l.neighbours.retain(|&n| n != mine);
        }
        locations[mine.i()].neighbours.clear();
        s.town = Town::new(s.town.name.clone(), s.town.map, locations);
        let (p, problems) = validate(&plan("mine", 60, "Explore"), home, &s.town, &s.tuning);
        assert_eq!(p.target, home);
        assert!(problems[0].contains("cannot be reached"), "{problems:?}");
    }

    #[test]
    fn a_huge_answer_is_quoted_briefly() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let mut bad = plan(&"x".repeat(20_000_000), 60, &"Go".repeat(1_000_000));
        bad.emoji = "y".repeat(1_000_000);
        bad.dialogue = "好".repeat(1_000_000);
        let (p, problems) = validate(&bad, home, &s.town, &s.tuning);
        assert!(p.action.len() <= 80 && p.dialogue.chars().count() <= 200);
        let quoted: usize = problems.iter().map(String::len).sum();
        assert!(quoted < 1000, "{quoted} bytes of problems");
    }

    #[test]
    fn durations_are_clamped_and_names_accepted() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let (p, problems) = validate(&plan("星火酒馆", 5, "Eat lunch"), home, &s.town, &s.tuning);
        assert_eq!(
            p.target,
            s.town.find("tavern").unwrap(),
            "display names work too"
        );
        assert_eq!(p.duration, 50);
        assert_eq!(problems.len(), 1);
        let (p, _) = validate(&plan("home_zhong", 900, "Sleep"), home, &s.town, &s.tuning);
        assert_eq!((p.duration, p.kind), (480, ActivityKind::Sleep));
    }

    #[test]
    fn garbage_is_replaced_not_fatal() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let mut bad = plan("", -3, "  ");
        bad.emoji = "smile".into();
        let (p, problems) = validate(&bad, home, &s.town, &s.tuning);
        assert_eq!(
            (p.action.as_str(), p.target, p.duration),
            ("Look around", home, 50)
        );
        assert_eq!(p.emoji, "🙂");
        assert_eq!(problems.len(), 4, "{problems:?}");
        let (p, problems) = validate(
            &plan("home_zhong", 60, "Post Notice"),
            home,
            &s.town,
            &s.tuning,
        );
        assert_eq!(p.kind, ActivityKind::Idle, "no board at home");
        assert!(problems[0].contains("no notice board"));
    }
}
