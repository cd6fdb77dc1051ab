//! The one way a model is called. Every caller goes through a [`Bridge`]
//! started here: pool routing and failover, priorities, the timeout, the
//! answer cap, and the run's `--record`/`--replay` cassette. The town's
//! systems send and poll (the frame never waits); terminal commands use a
//! [`Calls`], which sends and waits for the answer.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::LlmSettings;
use super::bridge::{Bridge, BridgeSettings, Job};
use super::cassette::{Cassette, CassetteError, CassetteMode};
use super::client::{ChatReply, ChatRequest, LlmError, Pieces};
use super::parse::Unusable;
use super::pool::Pool;

/// Why calls cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// `--record DIR` cannot be written.
    #[error("cannot record into {dir}: {source}")]
    Record {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--replay DIR` cannot be read.
    #[error(transparent)]
    Replay(#[from] CassetteError),
    /// The tokio runtime did not start.
    #[error("cannot start the LLM runtime: {0}")]
    Runtime(std::io::Error),
}

/// Why a call brought nothing a caller can use; the caller answers with the
/// built-in brain and may say why.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The calls could not start.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The resident has no model (its `brain:` says built-in, or none is set).
    #[error("this resident has no model")]
    NoModel,
    /// The servers gave no answer.
    #[error("{at}: {error}")]
    Failed {
        /// The servers and model asked (`http://…/v1 (qwen)`).
        at: String,
        /// What went wrong.
        error: LlmError,
    },
    /// The answer came but cannot be used.
    #[error(transparent)]
    Unusable(#[from] Unusable),
}

impl CallError {
    /// `error` from the servers of `pool`.
    pub(crate) fn failed(pool: &Pool, error: LlmError) -> Self {
        Self::Failed {
            at: format!("{} ({})", pool.shown(), pool.model()),
            error,
        }
    }
}

/// How many calls a bridge runs at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// The town's residents: the settings' concurrency per pool member.
    Town,
    /// One caller waiting on one answer at a time (a terminal command, the
    /// window's chat or counselling talk).
    One,
}

/// The run's cassette, opened by the first bridge that needs it. Clones of
/// the settings share it, so every bridge of a run (the town's, the window's
/// chat and counselling) records into one file and replays from it.
#[derive(Clone, Default)]
pub(crate) struct Tape(Arc<Mutex<Option<Arc<Cassette>>>>);

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tape")
    }
}

impl Tape {
    /// The cassette `settings` name, opened once.
    fn open(settings: &LlmSettings) -> Result<Option<Arc<Cassette>>, StartError> {
        let mut opened = settings.tape.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(cassette) = &*opened {
            return Ok(Some(cassette.clone()));
        }
        let cassette = match &settings.cassette {
            Some(CassetteMode::Record(dir)) => Arc::new(
                Cassette::record(dir, settings.default.as_ref()).map_err(|source| {
                    StartError::Record {
                        dir: dir.clone(),
                        source,
                    }
                })?,
            ),
            Some(CassetteMode::Replay(dir)) => Arc::new(Cassette::replay(dir)?),
            None => return Ok(None),
        };
        *opened = Some(cassette.clone());
        Ok(Some(cassette))
    }
}

/// A bridge for `settings`, recording or replaying as they say.
pub(crate) fn start_bridge(settings: &LlmSettings, shape: Shape) -> Result<Bridge, StartError> {
    let cassette = Tape::open(settings)?;
    let base = BridgeSettings {
        concurrency: settings.concurrency,
        timeout: settings.timeout,
        max_body: settings.max_body,
        ..BridgeSettings::default()
    };
    let bridge_settings = match shape {
        Shape::Town => base,
        Shape::One => BridgeSettings {
            concurrency: 1,
            worker_threads: 1,
            ..base
        },
    };
    Bridge::start(bridge_settings, cassette).map_err(StartError::Runtime)
}

/// A call sent and not yet taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket(u64);

/// Calls one at a time, outside the town's systems: the terminal's commands
/// (`script run`, `chat`, `date`, `interview`) wait for each answer; the
/// window's chat and counselling talk send and look again next frame. They
/// are recorded and replayed with the run's other calls.
pub struct Calls {
    bridge: Bridge,
    next_id: AtomicU64,
    timeout: Duration,
    /// Answers back before their caller looked.
    arrived: Mutex<HashMap<u64, Result<ChatReply, LlmError>>>,
}

impl Calls {
    /// Calls as `settings` say (the run's cassette included).
    pub fn start(settings: &LlmSettings) -> Result<Self, StartError> {
        Ok(Self {
            bridge: start_bridge(settings, Shape::One)?,
            next_id: AtomicU64::new(0),
            timeout: settings.timeout,
            arrived: Mutex::default(),
        })
    }

    /// Sends one call to `pool`; its pieces go to `pieces` as they are
    /// streamed, when given. Take the answer back with [`Calls::take`].
    pub fn send(&self, pool: &Arc<Pool>, request: ChatRequest, pieces: Option<Pieces>) -> Ticket {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.bridge.send(Job {
            due: 0,
            id,
            priority: 255,
            pool: pool.clone(),
            affinity: None,
            request,
            pieces,
        });
        Ticket(id)
    }

    /// The answer to `ticket` once it is back; `None` while under way.
    pub fn take(&self, ticket: Ticket) -> Option<Result<ChatReply, LlmError>> {
        let mut arrived = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(done) = self.bridge.try_recv() {
            arrived.insert(done.id, done.result);
        }
        arrived.remove(&ticket.0)
    }

    /// One call to `pool`, waited for. The bridge keeps the deadline; the
    /// wait here has its own bound only as a guard.
    pub fn call(&self, pool: &Arc<Pool>, request: ChatRequest) -> Result<ChatReply, LlmError> {
        self.call_streamed(pool, request, None)
    }

    /// [`Calls::call`], its pieces sent to `pieces` as they come.
    pub fn call_streamed(
        &self,
        pool: &Arc<Pool>,
        request: ChatRequest,
        pieces: Option<Pieces>,
    ) -> Result<ChatReply, LlmError> {
        let ticket = self.send(pool, request, pieces);
        let guard = Instant::now() + self.timeout + Duration::from_secs(5);
        while Instant::now() < guard {
            if let Some(result) = self.take(ticket) {
                return result;
            }
            self.bridge.wait(Duration::from_millis(50));
        }
        Err(LlmError::Timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::client::{Format, Message};
    use crate::llm::fake::{self, FakeRequest, FakeServer};

    fn asking(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user(text.to_string())],
            temperature: 0.0,
            max_tokens: 20,
            seed: None,
            format: Format::Text,
            stream: false,
        }
    }

    /// The window's chat and counselling talk start calls of their own beside
    /// the town's: all of them go into the run's one recording (a second
    /// start used to empty it), and all are answered from it.
    #[test]
    fn every_caller_of_a_run_records_into_one_cassette_and_replays_from_it() {
        let server = FakeServer::start(Arc::new(|req: &FakeRequest| {
            fake::chat(&format!("答：{}", req.prompt()))
        }));
        let dir = tempfile::tempdir().unwrap();
        let mut settings = LlmSettings::for_endpoint(&server.url, "m");
        settings.cassette = Some(CassetteMode::Record(dir.path().to_path_buf()));
        let pool = Arc::new(settings.default.clone().unwrap());
        let (town, chat) = (settings.clone(), settings.clone());
        let first = Calls::start(&town).unwrap();
        let second = Calls::start(&chat).unwrap();
        let a = first.call(&pool, asking("早")).unwrap().content;
        let ticket = second.send(&pool, asking("晚"), None);
        let b = loop {
            if let Some(answer) = second.take(ticket) {
                break answer.unwrap().content;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        drop((first, second));
        let lines = std::fs::read_to_string(dir.path().join("calls.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 2, "{lines}");
        drop(server);

        let mut replay = LlmSettings::for_endpoint("http://127.0.0.1:9/v1", "m");
        replay.cassette = Some(CassetteMode::Replay(dir.path().to_path_buf()));
        let pool = Arc::new(replay.default.clone().unwrap());
        let (town, chat) = (replay.clone(), replay);
        let first = Calls::start(&town).unwrap();
        let second = Calls::start(&chat).unwrap();
        assert_eq!(second.call(&pool, asking("晚")).unwrap().content, b);
        assert_eq!(first.call(&pool, asking("早")).unwrap().content, a);
    }
}
