//! The bridge between Bevy and the network: a tokio runtime on its own threads,
//! a dispatcher thread that keeps at most `concurrency` calls in flight (highest
//! priority first), and crossbeam channels both ways. Bevy systems only ever
//! `send` and `try_recv`; nothing here blocks a frame.

use std::collections::BinaryHeap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    pub endpoint: Arc<Endpoint>,
    pub request: ChatRequest,
}

/// A finished call.
#[derive(Debug, Clone)]
pub struct Done {
    pub id: u64,
    pub result: Result<ChatReply, LlmError>,
    /// Wall time of the call (as recorded, when replayed).
    pub latency_ms: u64,
}

#[derive(Debug, Clone)]
pub struct BridgeSettings {
    pub concurrency: usize,
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub worker_threads: usize,
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

enum Inbox {
    Job(Box<Job>),
    Finished,
    Shutdown,
}

struct Queued(Box<Job>);

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

pub struct Bridge {
    inbox: Sender<Inbox>,
    replies: Receiver<Done>,
    /// Replies taken off the channel by [`Bridge::wait`], handed out first.
    stash: std::sync::Mutex<Vec<Done>>,
    queued: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    runtime: Option<tokio::runtime::Runtime>,
    dispatcher: Option<std::thread::JoinHandle<()>>,
    pub client: Client,
    pub timeout: Duration,
}

impl Bridge {
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
        let (inbox_tx, inbox_rx) = unbounded::<Inbox>();
        let (reply_tx, reply_rx) = unbounded::<Done>();
        let queued = Arc::new(AtomicUsize::new(0));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let dispatcher = {
            let handle = runtime.handle().clone();
            let client = client.clone();
            let finished = inbox_tx.clone();
            let (queued, in_flight) = (queued.clone(), in_flight.clone());
            let cap = settings.concurrency.max(1);
            let timeout = settings.timeout;
            std::thread::Builder::new()
                .name("heartvale-llm-dispatch".into())
                .spawn(move || {
                    let mut heap: BinaryHeap<Queued> = BinaryHeap::new();
                    let mut running = 0usize;
                    while let Ok(msg) = inbox_rx.recv() {
                        let mut shutdown = false;
                        for msg in std::iter::once(msg).chain(inbox_rx.try_iter()) {
                            match msg {
                                Inbox::Job(job) => heap.push(Queued(job)),
                                Inbox::Finished => running -= 1,
                                Inbox::Shutdown => shutdown = true,
                            }
                        }
                        if shutdown {
                            break;
                        }
                        while running < cap
                            && let Some(Queued(job)) = heap.pop()
                        {
                            running += 1;
                            queued.fetch_sub(1, Ordering::SeqCst);
                            in_flight.fetch_add(1, Ordering::SeqCst);
                            let (client, reply_tx, finished, cassette, in_flight) = (
                                client.clone(),
                                reply_tx.clone(),
                                finished.clone(),
                                cassette.clone(),
                                in_flight.clone(),
                            );
                            handle.spawn(async move {
                                let done = call(&client, *job, timeout, cassette.as_deref()).await;
                                in_flight.fetch_sub(1, Ordering::SeqCst);
                                // The app may be gone; nothing to do then.
                                let _ = reply_tx.send(done);
                                let _ = finished.send(Inbox::Finished);
                            });
                        }
                    }
                })?
        };
        Ok(Self {
            inbox: inbox_tx,
            replies: reply_rx,
            stash: std::sync::Mutex::new(Vec::new()),
            queued,
            in_flight,
            runtime: Some(runtime),
            dispatcher: Some(dispatcher),
            client,
            timeout: settings.timeout,
        })
    }

    /// Queues a call. Never blocks.
    pub fn send(&self, job: Job) {
        self.queued.fetch_add(1, Ordering::SeqCst);
        let _ = self.inbox.send(Inbox::Job(Box::new(job)));
    }

    /// A finished call, if any. Never blocks.
    pub fn try_recv(&self) -> Option<Done> {
        {
            let mut stash = self.stash.lock().unwrap_or_else(|p| p.into_inner());
            if !stash.is_empty() {
                return Some(stash.remove(0));
            }
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
                .push(done);
        }
    }

    /// Calls waiting for a slot.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// The runtime, for callers that want to run their own async work beside the bridge.
    pub fn handle(&self) -> tokio::runtime::Handle {
        self.runtime
            .as_ref()
            .expect("runtime lives as long as the bridge")
            .handle()
            .clone()
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.inbox.send(Inbox::Shutdown);
        if let Some(d) = self.dispatcher.take() {
            let _ = d.join();
        }
        // Hanging calls are abandoned, not awaited: quitting must be instant.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
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
