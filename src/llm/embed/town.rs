//! Embeddings in the town (`heartvale sim|window --embed URL --embed-model
//! NAME`): every resident's new memories are embedded in batches off the
//! frame (their vectors go into the save), and a model-driven resident's
//! plan or line waits, parked, for its query's vector, so what it recalls is
//! found by meaning as well as by words. Nothing here blocks a frame: calls
//! run on a runtime of their own and come back over a channel. Answers are
//! used at the start of a step in the order they were asked, and a headless
//! run waits for them before each step, so the log does not depend on the
//! server's speed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use crossbeam_channel::{Receiver, Sender, unbounded};

use super::{BATCH, EmbedError, EmbedSettings};
use crate::base::time::GameTime;
use crate::llm::client::{Client, RetryPolicy};
use crate::sim::clock::{Clock, DriveSteps, StepGate, StepMode};
use crate::sim::memory::{Embedding, Memories};
use crate::sim::outcome::SimOutcome;
use crate::sim::{SimSet, SimStep};

/// After a failed request, game minutes with no new ones (recall goes on by
/// words): a server that is down is not asked at every plan.
const PAUSE_MINUTES: i64 = 30;

/// Query vectors kept for prompts that have not come back for them yet;
/// beyond this, answered ones are forgotten (their prompts were dropped).
const KEPT_QUERIES: usize = 256;

/// What a query's vector is, for a prompt about to recall.
#[derive(Debug, Clone)]
pub(crate) enum QueryVector {
    /// Here it is.
    Ready(Arc<[f32]>),
    /// Asked for: park the prompt and ask again next step.
    Waiting,
    /// The endpoint failed: recall by words alone.
    Lexical,
}

/// One request in flight.
#[derive(Debug)]
enum Job {
    /// Memories: whose, their position, the text sent.
    Passages { items: Vec<(Entity, usize, String)> },
    /// A prompt's query.
    Query { text: String },
}

/// A finished request.
struct Embedded {
    id: u64,
    result: Result<Vec<Vec<f32>>, EmbedError>,
}

/// Calls, texts and failures so far, for the run's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EmbedUsage {
    /// Requests sent.
    pub(crate) calls: u32,
    /// Texts embedded (memories and queries).
    pub(crate) texts: u32,
    /// Requests that failed.
    pub(crate) failed: u32,
}

/// The town's embeddings endpoint, its requests in flight and the answers.
#[derive(Resource)]
pub(crate) struct TownEmbeddings {
    settings: EmbedSettings,
    client: Client,
    runtime: tokio::runtime::Runtime,
    tx: Sender<Embedded>,
    rx: Receiver<Embedded>,
    next_job: u64,
    /// Sent and not yet used, by job id (the order they are used in).
    jobs: BTreeMap<u64, Job>,
    /// Came back, not yet used.
    arrived: BTreeMap<u64, Result<Vec<Vec<f32>>, EmbedError>>,
    queries: HashMap<String, QueryVector>,
    /// Memories (resident, position) whose vectors are on their way.
    sending: HashSet<(Entity, usize)>,
    usage: EmbedUsage,
    /// No new requests before this game time (after a failure).
    paused_until: Option<GameTime>,
    /// The last request failed: the next sweep sends one batch, as a probe.
    probing: bool,
    /// Failures not yet reported to the user (the CLI prints the first).
    failures: Vec<String>,
}

impl TownEmbeddings {
    /// A runtime and a client for `settings`.
    pub(crate) fn start(settings: EmbedSettings) -> Result<Self, EmbedError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("heartvale-embed")
            .enable_all()
            .build()
            .map_err(EmbedError::Runtime)?;
        let (tx, rx) = unbounded();
        Ok(Self {
            settings,
            client: Client::new(RetryPolicy::default()),
            runtime,
            tx,
            rx,
            next_job: 0,
            jobs: BTreeMap::new(),
            arrived: BTreeMap::new(),
            queries: HashMap::new(),
            sending: HashSet::new(),
            usage: EmbedUsage::default(),
            paused_until: None,
            probing: false,
            failures: Vec::new(),
        })
    }

    /// The model memories are embedded with.
    pub(crate) fn passage_model(&self) -> &str {
        self.settings.passage_model()
    }

    /// What was sent so far.
    pub(crate) fn usage(&self) -> EmbedUsage {
        self.usage
    }

    /// Failures since the last call, oldest first.
    pub(crate) fn take_failures(&mut self) -> Vec<String> {
        std::mem::take(&mut self.failures)
    }

    /// Whether requests wait out a failure at `now`.
    fn paused(&self, now: GameTime) -> bool {
        self.paused_until.is_some_and(|t| now < t)
    }

    /// The vector for a prompt's query at `now`: asked for the first time it
    /// is wanted, handed over (and forgotten) once it is back.
    pub(crate) fn query(&mut self, text: &str, now: GameTime) -> QueryVector {
        match self.queries.get(text) {
            Some(QueryVector::Waiting) => QueryVector::Waiting,
            Some(_) => self.queries.remove(text).unwrap_or(QueryVector::Lexical),
            None if self.paused(now) => QueryVector::Lexical,
            None => {
                self.queries.insert(text.to_string(), QueryVector::Waiting);
                let texts = vec![text.to_string()];
                self.send(
                    Job::Query {
                        text: text.to_string(),
                    },
                    texts,
                );
                QueryVector::Waiting
            }
        }
    }

    /// Sends one request on the runtime; its answer comes back on the channel.
    fn send(&mut self, job: Job, texts: Vec<String>) {
        self.next_job += 1;
        let id = self.next_job;
        let query = matches!(job, Job::Query { .. });
        let ep = if query {
            self.settings.queries.clone()
        } else {
            self.settings.passages.clone()
        };
        self.usage.calls += 1;
        self.usage.texts += texts.len() as u32;
        self.jobs.insert(id, job);
        let (client, tx, timeout) = (self.client.clone(), self.tx.clone(), self.settings.timeout);
        self.runtime.spawn(async move {
            let result = client
                .embeddings(&ep, &texts, timeout)
                .await
                .map_err(|error| EmbedError::Failed {
                    at: ep.shown_url(),
                    error,
                });
            // The town may be gone; then nobody wants the answer.
            let _ = tx.send(Embedded { id, result });
        });
    }

    /// Takes the answers off the channel.
    fn drain(&mut self) {
        while let Ok(done) = self.rx.try_recv() {
            if self.jobs.contains_key(&done.id) {
                self.arrived.insert(done.id, done.result);
            }
        }
    }

    /// Blocks until an answer is on the channel, or `timeout` (between
    /// frames of a headless run; never from a system).
    fn wait(&self, timeout: Duration) {
        let until = Instant::now() + timeout;
        while self.rx.is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Between frames of a headless run: sleeps until an embedding comes back if
/// the step waits for one.
pub(crate) fn wait_if_gated(world: &World, timeout: Duration) {
    if world
        .get_resource::<StepGate>()
        .is_some_and(|g| g.embeddings)
        && let Some(e) = world.get_resource::<TownEmbeddings>()
    {
        e.wait(timeout);
    }
}

/// Before a run's last save: sends what has no vector yet and waits (up to
/// `timeout`) for every answer, so the save holds a vector for every memory.
/// The run is over: nothing it logs depends on these.
pub(crate) fn flush(world: &mut World, timeout: Duration) {
    if !world.contains_resource::<TownEmbeddings>() {
        return;
    }
    let _ = world.run_system_cached(sweep_now);
    let until = Instant::now() + timeout;
    loop {
        let mut e = world.resource_mut::<TownEmbeddings>();
        e.drain();
        if e.arrived.len() >= e.jobs.len() || Instant::now() >= until {
            break;
        }
        e.wait(Duration::from_millis(50));
    }
    let _ = world.run_system_cached(apply);
}

fn sweep_now(
    mut embeddings: ResMut<TownEmbeddings>,
    residents: Query<(Entity, &Memories)>,
    clock: Res<Clock>,
) {
    sweep(&mut embeddings, &residents, clock.now);
}

/// Adds the embedding systems; they do nothing until a [`TownEmbeddings`]
/// is inserted.
pub(crate) fn plugin(app: &mut App) {
    let active = resource_exists::<TownEmbeddings>;
    app.add_systems(Update, collect.before(DriveSteps).run_if(active))
        .add_systems(
            SimStep,
            (
                apply.in_set(SimSet::Clock),
                embed_new_memories.after(SimSet::Memory).before(SimSet::End),
            )
                .run_if(active),
        );
}

/// Each frame: take the answers off the channel; a headless run skips its
/// step until every request sent so far is back.
fn collect(
    mut embeddings: ResMut<TownEmbeddings>,
    mode: Res<StepMode>,
    outcome: Res<SimOutcome>,
    mut gate: ResMut<StepGate>,
) {
    let e = &mut *embeddings;
    e.drain();
    gate.embeddings =
        *mode == StepMode::Headless && !outcome.ended() && e.arrived.len() < e.jobs.len();
}

/// At the start of a step: answers, in the order they were asked, become
/// memories' vectors and prompts' query vectors.
fn apply(
    mut embeddings: ResMut<TownEmbeddings>,
    mut memories: Query<&mut Memories>,
    clock: Res<Clock>,
) {
    if embeddings.arrived.is_empty() {
        return;
    }
    let e = &mut *embeddings;
    let model = e.settings.passage_model().to_string();
    for (id, result) in std::mem::take(&mut e.arrived) {
        let Some(job) = e.jobs.remove(&id) else {
            continue;
        };
        e.probing = result.is_err();
        let vectors = match result {
            Ok(v) => Some(v),
            Err(why) => {
                e.usage.failed += 1;
                e.failures.push(why.to_string());
                e.paused_until = Some(clock.now.plus_minutes(PAUSE_MINUTES));
                None
            }
        };
        match job {
            Job::Query { text } => {
                let v = vectors.and_then(|mut v| v.pop());
                let found = v.map_or(QueryVector::Lexical, |v| QueryVector::Ready(v.into()));
                e.queries.insert(text, found);
            }
            Job::Passages { items } => {
                for (resident, i, _) in &items {
                    e.sending.remove(&(*resident, *i));
                }
                if let Some(vectors) = vectors {
                    give_vectors(&mut memories, &model, items, vectors);
                }
            }
        }
    }
    if e.queries.len() > KEPT_QUERIES {
        e.queries.retain(|_, q| matches!(q, QueryVector::Waiting));
    }
}

/// Gives each memory its vector, unless its text changed meanwhile.
fn give_vectors(
    memories: &mut Query<&mut Memories>,
    model: &str,
    items: Vec<(Entity, usize, String)>,
    vectors: Vec<Vec<f32>>,
) {
    for ((resident, i, text), values) in items.into_iter().zip(vectors) {
        let Ok(mut m) = memories.get_mut(resident) else {
            continue;
        };
        if m.entries().get(i).is_some_and(|m| *m.text == *text) {
            let model = model.to_string();
            m.set_vector(i, Arc::new(Embedding { model, values }));
        }
    }
}

/// At the first step of a run and of every game hour, after the step's
/// memories are made: memories without a vector of this model are embedded,
/// [`BATCH`] to a request. Hourly, so a request carries a batch and a
/// headless run waits once an hour, not at every memory; newer memories
/// are found by their words (and are among the newest a prompt shows).
fn embed_new_memories(
    mut embeddings: ResMut<TownEmbeddings>,
    residents: Query<(Entity, &Memories)>,
    clock: Res<Clock>,
    mut swept: Local<bool>,
) {
    let step = i64::from(clock.step_minutes) * 60;
    let new_hour = clock.now.0.div_euclid(3600) != (clock.now.0 - step).div_euclid(3600);
    if *swept && !new_hour {
        return;
    }
    *swept = true;
    sweep(&mut embeddings, &residents, clock.now);
}

/// Sends every memory that lacks a vector of this model and is not on its
/// way (unless requests are paused after a failure; after one, a single
/// batch goes first, as a probe).
fn sweep(e: &mut TownEmbeddings, residents: &Query<(Entity, &Memories)>, now: GameTime) {
    if e.paused(now) {
        return;
    }
    let model = e.settings.passage_model().to_string();
    // Entity order is stable within a run, and a replay builds the same world.
    let mut residents: Vec<(Entity, &Memories)> = residents.iter().collect();
    residents.sort_by_key(|(entity, _)| *entity);
    let missing: Vec<(Entity, usize, String)> = residents
        .into_iter()
        .flat_map(|(resident, memories)| {
            memories
                .entries()
                .iter()
                .enumerate()
                .filter(|(_, m)| m.vector.as_ref().is_none_or(|v| v.model != model))
                .map(move |(i, m)| (resident, i, m.text.to_string()))
        })
        .filter(|(resident, i, _)| !e.sending.contains(&(*resident, *i)))
        .collect();
    let batches = if e.probing { 1 } else { usize::MAX };
    for chunk in missing.chunks(BATCH).take(batches) {
        e.sending.extend(chunk.iter().map(|(r, i, _)| (*r, *i)));
        let texts = chunk.iter().map(|(.., t)| t.clone()).collect();
        let items = chunk.to_vec();
        e.send(Job::Passages { items }, texts);
    }
}
