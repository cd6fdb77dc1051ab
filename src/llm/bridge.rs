//! The bridge between Bevy and the network: a tokio runtime on its own threads,
//! and crossbeam channels back. Calls queue per endpoint pool (highest priority
//! first); each starts when a member of its pool has a free slot, on the member
//! the pool's `Router` picks, and fails over to another member when that one
//! fails. Bevy systems only ever `send` and `try_recv`; nothing here waits on
//! the network.

use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};

use super::cassette::{Cassette, Recorded};
use super::client::{
    ChatReply, ChatRequest, Client, DEFAULT_MAX_BODY, LlmError, Pieces, RetryPolicy,
};
use super::pool::{Outcome, Pick, Pool, Router, Try};

/// Calls of this priority or lower are due later (plans asked ahead): they
/// never take a pool's last free slot.
pub const BACKGROUND: u8 = 45;

/// One call to make.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique per bridge; replies carry it back.
    pub id: u64,
    /// Higher goes first.
    pub priority: u8,
    /// Among calls of one priority, the one due soonest goes first (the
    /// game minute its answer is used at; 0 for calls nobody schedules).
    pub due: i64,
    /// The servers that may answer it.
    pub pool: Arc<Pool>,
    /// Whose call (a resident), to keep it on the member that served it last.
    pub affinity: Option<u64>,
    /// What to send.
    pub request: ChatRequest,
    /// Where a streamed answer's pieces go as they come (a view of it being
    /// written); the whole answer comes back as usual.
    pub pieces: Option<Pieces>,
}

/// A finished call.
#[derive(Debug, Clone)]
pub struct Done {
    /// The job's id.
    pub(crate) id: u64,
    /// The reply, or why there is none.
    pub result: Result<ChatReply, LlmError>,
    /// Wall time of the call (as recorded, when replayed).
    pub(crate) latency_ms: u64,
    /// The members asked, in order: the last one gave the result.
    pub tries: Vec<Try>,
}

/// How the bridge runs its calls.
#[derive(Debug, Clone)]
pub struct BridgeSettings {
    /// Calls in flight at once per pool member (times its weight).
    pub(crate) concurrency: usize,
    /// Time a call may take, retries and failovers included.
    pub(crate) timeout: Duration,
    /// When and how often to retry a pool of one server.
    pub(crate) retry: RetryPolicy,
    /// Threads of the tokio runtime.
    pub(crate) worker_threads: usize,
    /// The largest answer read, in bytes.
    pub(crate) max_body: usize,
    /// Failures in a row that take a member of a larger pool out of service.
    pub(crate) member_failures: u32,
    /// How long it stays out before a probe (doubling while probes fail).
    pub(crate) member_cooldown: Duration,
}

impl Default for BridgeSettings {
    fn default() -> Self {
        Self {
            concurrency: 4,
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            worker_threads: 2,
            max_body: DEFAULT_MAX_BODY,
            member_failures: 2,
            member_cooldown: Duration::from_secs(30),
        }
    }
}

struct Queued(Job);

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    /// Highest priority first, then the soonest due, then oldest (lowest id).
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .priority
            .cmp(&other.0.priority)
            .then(other.0.due.cmp(&self.0.due))
            .then(other.0.id.cmp(&self.0.id))
    }
}

/// One pool's waiting calls and its members' load and health.
struct PoolQueue {
    waiting: BinaryHeap<Queued>,
    router: Router,
}

/// What the runtime's tasks share.
struct Shared {
    queues: Mutex<HashMap<String, PoolQueue>>,
    replies: Sender<Done>,
    /// For a pool of one server: retries with backoff, as configured.
    client: Client,
    /// For larger pools: no retry on the same member, fail over instead.
    failover: Client,
    settings: BridgeSettings,
    cassette: Option<Arc<Cassette>>,
    handle: tokio::runtime::Handle,
    /// Background calls due by this (see [`Bridge::due_by`]) are urgent.
    due_by: AtomicI64,
}

/// The tokio runtime that runs LLM calls, with its channels to and from Bevy.
pub struct Bridge {
    replies: Receiver<Done>,
    /// Replies taken off the channel by [`Bridge::wait`], handed out first.
    stash: Mutex<VecDeque<Done>>,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Bridge {
    /// Starts the runtime; every call is recorded to (or replayed from) `cassette` when one is given.
    pub fn start(
        settings: BridgeSettings,
        cassette: Option<Arc<Cassette>>,
    ) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(settings.worker_threads.max(1))
            .thread_name("heartvale-llm")
            .enable_all()
            .build()?;
        let client = Client::new(settings.retry).with_max_body(settings.max_body);
        let failover = client.with_retry(RetryPolicy {
            max_retries: 0,
            ..settings.retry
        });
        let (reply_tx, reply_rx) = unbounded::<Done>();
        let shared = Arc::new(Shared {
            queues: Mutex::new(HashMap::new()),
            replies: reply_tx,
            client,
            failover,
            settings,
            cassette,
            handle: runtime.handle().clone(),
            due_by: AtomicI64::new(i64::MIN),
        });
        Ok(Self {
            replies: reply_rx,
            stash: Mutex::new(VecDeque::new()),
            shared,
            runtime: Some(runtime),
        })
    }

    /// Queues a call. Never waits on the network: the job joins its pool's
    /// queue and starts on the runtime as soon as a member has a free slot.
    pub fn send(&self, job: Job) {
        if let Some(c) = &self.shared.cassette
            && let Some(answer) = c.answer(job.pool.model(), &job.request)
        {
            let _ = self.shared.replies.send(replayed(job.id, answer));
            return;
        }
        let key = job.pool.key();
        self.shared
            .lock()
            .entry(key.clone())
            .or_insert_with(|| PoolQueue {
                waiting: BinaryHeap::new(),
                router: self.shared.router(&job.pool),
            })
            .waiting
            .push(Queued(job));
        dispatch(&self.shared, &key);
    }

    /// Background calls whose `due` is at most `t` (the game time of the next
    /// step) may now take a pool's last free slot: a step waits for them.
    pub fn due_by(&self, t: i64) {
        if self.shared.due_by.swap(t, Ordering::Relaxed) == t {
            return;
        }
        let keys: Vec<String> = self.shared.lock().keys().cloned().collect();
        for key in keys {
            dispatch(&self.shared, &key);
        }
    }

    /// A finished call, if any. Never blocks.
    pub fn try_recv(&self) -> Option<Done> {
        if let Some(d) = self
            .stash
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
        {
            return Some(d);
        }
        self.replies.try_recv().ok()
    }

    /// For drivers between frames (the headless runner), never for systems:
    /// sleeps until a reply is ready or `timeout` passes.
    pub fn wait(&self, timeout: Duration) {
        if let Ok(done) = self.replies.recv_timeout(timeout) {
            self.stash
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_back(done);
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PoolQueue>> {
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn router(&self, pool: &Pool) -> Router {
        let weights: Vec<u32> = pool.members().iter().map(|m| m.weight).collect();
        let s = &self.settings;
        Router::new(
            &weights,
            s.concurrency,
            s.member_failures,
            s.member_cooldown,
        )
    }

    /// Gives back `member`'s slot; after a failure, the member to try next
    /// (one not tried yet, in service, with a free slot) while time is left.
    fn finish(
        &self,
        key: &str,
        (member, outcome): (usize, Outcome),
        (affinity, tried): (Option<u64>, &[usize]),
        deadline: Instant,
    ) -> Option<usize> {
        let now = Instant::now();
        let mut queues = self.lock();
        let router = &mut queues.get_mut(key)?.router;
        router.finish(member, outcome, now);
        if outcome == Outcome::Answered || now >= deadline {
            return None;
        }
        match router.pick(affinity, tried, now) {
            Pick::Member(next) => Some(next),
            Pick::Busy | Pick::AllOut => None,
        }
    }

    fn deliver(&self, job: &Job, done: Done) {
        if let Some(c) = &self.cassette {
            let recorded = Recorded {
                result: done.result.clone(),
                latency_ms: done.latency_ms,
                tries: done.tries.clone(),
            };
            c.write(job.pool.model(), &job.request, &recorded);
        }
        // The app may be gone; nothing to do then.
        let _ = self.replies.send(done);
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Hanging calls are abandoned, not awaited: quitting must be instant.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// Starts the best waiting calls of a pool while its members have free slots;
/// fails them at once when no member is in service.
fn dispatch(shared: &Arc<Shared>, key: &str) {
    loop {
        let mut queues = shared.lock();
        let Some(queue) = queues.get_mut(key) else {
            return;
        };
        let Some(top) = queue.waiting.peek() else {
            return;
        };
        // A background call not due yet leaves a pool of two slots or more
        // its last free one, so a call a step waits for never queues behind it.
        let router = &queue.router;
        let later = top.0.due > shared.due_by.load(Ordering::Relaxed);
        if top.0.priority <= BACKGROUND && later && router.capacity() > 1 && router.free() <= 1 {
            return;
        }
        let pick = queue.router.pick(top.0.affinity, &[], Instant::now());
        if pick == Pick::Busy {
            return;
        }
        let Some(Queued(job)) = queue.waiting.pop() else {
            return;
        };
        drop(queues);
        match pick {
            Pick::Member(m) => {
                shared
                    .handle
                    .spawn(run(shared.clone(), key.to_string(), job, m));
            }
            _ => {
                let done = Done {
                    id: job.id,
                    result: Err(LlmError::PoolOut),
                    latency_ms: 0,
                    tries: Vec::new(),
                };
                shared.deliver(&job, done);
            }
        }
    }
}

/// One call on `member`, failing over to the pool's other members while they
/// have room and time is left.
async fn run(shared: Arc<Shared>, key: String, job: Job, member: usize) {
    let started = Instant::now();
    let deadline = started + shared.settings.timeout;
    let client = match job.pool.members().len() {
        1 => &shared.client,
        _ => &shared.failover,
    };
    let (mut member, mut tried, mut tries) = (member, Vec::new(), Vec::new());
    let result = loop {
        let endpoint = &job.pool.members()[member].endpoint;
        let asked = Instant::now();
        let result = match try_budget(deadline, asked, untried(&job.pool, &tried)) {
            left if left.is_zero() => Err(LlmError::Timeout),
            left => {
                let pieces = job.pieces.as_ref();
                let call = client.chat_streamed(endpoint, &job.request, left, pieces);
                call.await
            }
        };
        tries.push(Try {
            member: endpoint.shown_url(),
            ok: result.is_ok(),
            latency_ms: asked.elapsed().as_millis() as u64,
        });
        tried.push(member);
        let next = shared.finish(
            &key,
            (member, Outcome::of(&result)),
            (job.affinity, &tried),
            deadline,
        );
        dispatch(&shared, &key);
        match (result, next) {
            (Err(_), Some(next)) => member = next,
            (result, _) => break result,
        }
    };
    let done = Done {
        id: job.id,
        result,
        latency_ms: started.elapsed().as_millis() as u64,
        tries,
    };
    shared.deliver(&job, done);
}

/// Members of `pool` not asked yet, this one included.
fn untried(pool: &Pool, tried: &[usize]) -> u32 {
    (pool.members().len().saturating_sub(tried.len())).max(1) as u32
}

/// The time one try may take: an equal share of what is left among the
/// members still to ask, so a member that hangs leaves the others time to
/// answer (a pool of one gets it all).
fn try_budget(deadline: Instant, now: Instant, untried: u32) -> Duration {
    deadline.saturating_duration_since(now) / untried
}

/// A replayed call: the recorded answer, or the miss.
fn replayed(id: u64, answer: Result<Recorded, LlmError>) -> Done {
    match answer {
        Ok(rec) => Done {
            id,
            result: rec.result,
            latency_ms: rec.latency_ms,
            tries: rec.tries,
        },
        Err(miss) => Done {
            id,
            result: Err(miss),
            latency_ms: 0,
            tries: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::llm::client::{Format, Message};
    use crate::llm::config::LlmSettings;
    use crate::llm::fake::{self, FakeReply, FakeServer};

    fn hi() -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user("你好")],
            temperature: 0.0,
            max_tokens: 8,
            seed: None,
            format: Format::Text,
            stream: false,
        }
    }

    /// A member that hangs costs one call part of the timeout, once: the
    /// call fails over in time and later calls go to the member that answers.
    #[test]
    fn a_hanging_member_costs_one_share_of_the_timeout_once() {
        let hanging = FakeServer::start(Arc::new(|_| FakeReply::Hang));
        let good = FakeServer::start(Arc::new(|_| fake::chat("好。")));
        let urls = format!("{},{}", hanging.url, good.url);
        let settings = LlmSettings::for_endpoint(&urls, "fake-model");
        let pool = Arc::new(settings.default_pool().unwrap().clone());
        let timeout = Duration::from_secs(4);
        let bridge = Bridge::start(
            BridgeSettings {
                timeout,
                ..BridgeSettings::default()
            },
            None,
        )
        .unwrap();
        let started = Instant::now();
        for id in 0..4 {
            bridge.send(Job {
                due: 0,
                id,
                priority: 100,
                pool: pool.clone(),
                affinity: None,
                request: hi(),
                pieces: None,
            });
            let done = loop {
                match bridge.try_recv() {
                    Some(done) => break done,
                    None => bridge.wait(Duration::from_millis(20)),
                }
            };
            assert!(done.result.is_ok(), "call {id}: {:?}", done.result);
        }
        assert_eq!(hanging.count(), 1, "asked once, then out of service");
        assert!(
            started.elapsed() < timeout * 3 / 4,
            "four calls took {:?}",
            started.elapsed()
        );
    }
}
