//! The bridge between Bevy and the network: a tokio runtime on its own threads
//! that keeps at most `concurrency` calls in flight (highest priority first), and
//! crossbeam channels both ways. Bevy systems only ever `send` and `try_recv`;
//! nothing here blocks a frame.

use std::collections::{BinaryHeap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};

use super::cassette::{Cassette, Recorded};
use super::client::{ChatReply, ChatRequest, Client, Endpoint, LlmError, RetryPolicy};

/// One call to make.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique per bridge; replies carry it back.
    pub id: u64,
    /// Higher goes first.
    pub priority: u8,
    /// Where to send it.
    pub endpoint: Arc<Endpoint>,
    /// What to send.
    pub request: ChatRequest,
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
}

/// How the bridge runs its calls.
#[derive(Debug, Clone)]
pub struct BridgeSettings {
    /// Calls in flight at once.
    pub(crate) concurrency: usize,
    /// Time a call may take, retries included.
    pub(crate) timeout: Duration,
    /// When and how often to retry.
    pub(crate) retry: RetryPolicy,
    /// Threads of the tokio runtime.
    pub(crate) worker_threads: usize,
}

impl Default for BridgeSettings {
    fn default() -> Self {
        Self {
            concurrency: 4,
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            worker_threads: 2,
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
    /// Highest priority first, then oldest (lowest id) first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .priority
            .cmp(&other.0.priority)
            .then(other.0.id.cmp(&self.0.id))
    }
}

/// What the runtime's tasks share.
struct Shared {
    /// Jobs as Bevy sent them, not yet sorted into `heap`.
    inbox: Receiver<Job>,
    heap: Mutex<BinaryHeap<Queued>>,
    permits: Arc<tokio::sync::Semaphore>,
    replies: Sender<Done>,
    client: Client,
    timeout: Duration,
    cassette: Option<Arc<Cassette>>,
}

/// The tokio runtime that runs LLM calls, with its channels to and from Bevy.
pub struct Bridge {
    jobs: Sender<Job>,
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
        let client = Client::new(settings.retry);
        let (jobs_tx, jobs_rx) = unbounded::<Job>();
        let (reply_tx, reply_rx) = unbounded::<Done>();
        let shared = Arc::new(Shared {
            inbox: jobs_rx,
            heap: Mutex::new(BinaryHeap::new()),
            permits: Arc::new(tokio::sync::Semaphore::new(settings.concurrency.max(1))),
            replies: reply_tx,
            client,
            timeout: settings.timeout,
            cassette,
        });
        Ok(Self {
            jobs: jobs_tx,
            replies: reply_rx,
            stash: Mutex::new(VecDeque::new()),
            shared,
            runtime: Some(runtime),
        })
    }

    /// Queues a call. Never blocks: the job goes into a crossbeam channel and a
    /// task on the runtime waits for a free slot, then runs the best queued job.
    pub fn send(&self, job: Job) {
        if self.jobs.send(job).is_err() {
            return;
        }
        let shared = self.shared.clone();
        if let Some(rt) = &self.runtime {
            rt.spawn(run_next(shared));
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

impl Drop for Bridge {
    fn drop(&mut self) {
        // Hanging calls are abandoned, not awaited: quitting must be instant.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// One ticket per job sent: once a slot is free, run the highest-priority job
/// waiting (not necessarily the one this ticket was spawned for).
async fn run_next(shared: Arc<Shared>) {
    let Ok(_permit) = shared.permits.clone().acquire_owned().await else {
        return;
    };
    let job = {
        let mut heap = shared.heap.lock().unwrap_or_else(|p| p.into_inner());
        heap.extend(shared.inbox.try_iter().map(Queued));
        heap.pop()
    };
    let Some(Queued(job)) = job else { return };
    let done = call(
        &shared.client,
        job,
        shared.timeout,
        shared.cassette.as_deref(),
    )
    .await;
    // The app may be gone; nothing to do then.
    let _ = shared.replies.send(done);
}

async fn call(client: &Client, job: Job, timeout: Duration, cassette: Option<&Cassette>) -> Done {
    if let Some(c) = cassette
        && let Some(answer) = c.answer(&job.endpoint.model, &job.request)
    {
        return match answer {
            Ok(rec) => Done {
                id: job.id,
                result: rec.result,
                latency_ms: rec.latency_ms,
            },
            Err(miss) => Done {
                id: job.id,
                result: Err(miss),
                latency_ms: 0,
            },
        };
    }
    let started = Instant::now();
    let result = client.chat(&job.endpoint, &job.request, timeout).await;
    let latency_ms = started.elapsed().as_millis() as u64;
    if let Some(c) = cassette {
        c.write(
            &job.endpoint.model,
            &job.request,
            &Recorded {
                result: result.clone(),
                latency_ms,
            },
        );
    }
    Done {
        id: job.id,
        result,
        latency_ms,
    }
}
