//! The one way a model is called. Every caller goes through a [`Bridge`]
//! started here: pool routing and failover, priorities, the timeout, the
//! answer cap, and the run's `--record`/`--replay` cassette. The town's
//! systems send and poll (the frame never waits); terminal commands use a
//! [`Calls`], which sends and waits for the answer.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::LlmSettings;
use super::bridge::{Bridge, BridgeSettings, Job};
use super::cassette::{Cassette, CassetteMode};
use super::client::{ChatReply, ChatRequest, LlmError};
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
    #[error("{0}")]
    Replay(String),
    /// The tokio runtime did not start.
    #[error("cannot start the LLM runtime: {0}")]
    Runtime(std::io::Error),
}

impl From<StartError> for String {
    fn from(e: StartError) -> Self {
        e.to_string()
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

/// A bridge for `settings`, recording or replaying as they say.
pub(crate) fn start_bridge(settings: &LlmSettings, shape: Shape) -> Result<Bridge, StartError> {
    let cassette = match &settings.cassette {
        Some(CassetteMode::Record(dir)) => Some(Arc::new(
            Cassette::record(dir, settings.default.as_ref()).map_err(|source| {
                StartError::Record {
                    dir: dir.clone(),
                    source,
                }
            })?,
        )),
        Some(CassetteMode::Replay(dir)) => {
            Some(Arc::new(Cassette::replay(dir).map_err(StartError::Replay)?))
        }
        None => None,
    };
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

/// A bridge for a caller beside the town's in the window (the chat, the
/// counselling talk): one call at a time, not recorded (the town's own
/// bridge holds the run's recording).
pub(crate) fn start_side_bridge(settings: &LlmSettings) -> Result<Bridge, StartError> {
    let mut own = settings.clone();
    own.cassette = None;
    start_bridge(&own, Shape::One)
}

/// Calls that wait for their answer: the terminal's commands (`script run`,
/// `chat`, `interview`), one call at a time, recorded and replayed like
/// the town's.
pub struct Calls {
    bridge: Bridge,
    next_id: AtomicU64,
    timeout: Duration,
}

impl Calls {
    /// Calls as `settings` say (their cassette included). Start one per
    /// command: a second would start the recording again.
    pub fn start(settings: &LlmSettings) -> Result<Self, StartError> {
        Ok(Self {
            bridge: start_bridge(settings, Shape::One)?,
            next_id: AtomicU64::new(0),
            timeout: settings.timeout,
        })
    }

    /// One call to `pool`, waited for. The bridge keeps the deadline; the
    /// wait here has its own bound only as a guard.
    pub fn call(&self, pool: &Arc<Pool>, request: ChatRequest) -> Result<ChatReply, LlmError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.bridge.send(Job {
            id,
            priority: 255,
            pool: pool.clone(),
            affinity: None,
            request,
            pieces: None,
        });
        let guard = Instant::now() + self.timeout + Duration::from_secs(5);
        while Instant::now() < guard {
            match self.bridge.try_recv() {
                Some(done) if done.id == id => return done.result,
                // An answer to a call given up on earlier: nobody wants it.
                Some(_) => {}
                None => self.bridge.wait(Duration::from_millis(50)),
            }
        }
        Err(LlmError::Timeout)
    }
}
