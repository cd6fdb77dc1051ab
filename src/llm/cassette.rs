//! Record and replay: `--record DIR` writes every call (request and answer, never
//! a key or auth header) to `DIR/calls.jsonl`; `--replay DIR` answers from it
//! with no network, so a run can be reproduced byte for byte and demoed offline.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::client::{ChatReply, ChatRequest, LlmError};
use super::pool::{Pool, Try};

const CALLS: &str = "calls.jsonl";
const META: &str = "meta.json";

/// The key of a call: a hash of the model, the messages and every parameter.
pub fn key(model: &str, req: &ChatRequest) -> String {
    let canonical = serde_json::json!({ "model": model, "request": req });
    let digest = Sha256::digest(canonical.to_string().as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Why a cassette cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    /// `calls.jsonl` cannot be opened or read.
    #[error("cannot read cassette {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line before the last is not a recorded call.
    #[error("{path}:{line}:{column}: {message}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where (1-based).
        line: usize,
        /// Where in the line (1-based).
        column: usize,
        /// What the JSON reader said.
        message: String,
    },
}

/// What a call came to, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recorded {
    /// The reply, or the error.
    pub(crate) result: Result<ChatReply, LlmError>,
    /// Wall-clock milliseconds it took.
    pub(crate) latency_ms: u64,
    /// The pool members asked, in order (older cassettes have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tries: Vec<Try>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    model: String,
    request: ChatRequest,
    #[serde(flatten)]
    recorded: Recorded,
}

/// The default endpoint of the recorded run, so `--replay` needs no other flags.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    /// The endpoint's base URL, or its pool's members (`a,b#weight=2`).
    pub(crate) base_url: String,
    /// The model asked.
    pub(crate) model: String,
}

/// Every LLM call of a run, written as it happens or read back to answer a replay with no network.
pub enum Cassette {
    /// Writing calls to `calls.jsonl`.
    Recording(Mutex<std::io::BufWriter<std::fs::File>>),
    /// Answering from a recorded run, by call key, in recorded order.
    Replaying(Mutex<HashMap<String, VecDeque<Recorded>>>),
}

impl Cassette {
    /// Starts a new cassette in `dir` (created if needed; an old one is replaced).
    pub fn record(dir: &Path, default: Option<&Pool>) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        if let Some(pool) = default {
            let meta = Meta {
                base_url: pool.shown(),
                model: pool.model().to_string(),
            };
            std::fs::write(dir.join(META), serde_json::to_vec_pretty(&meta)?)?;
        }
        let file = std::fs::File::create(dir.join(CALLS))?;
        Ok(Self::Recording(Mutex::new(std::io::BufWriter::new(file))))
    }

    /// Loads a cassette for replay. A damaged last line (a run killed while
    /// writing it) is left out; damage anywhere else is an error.
    pub fn replay(dir: &Path) -> Result<Self, CassetteError> {
        let mut entries: HashMap<String, VecDeque<Recorded>> = HashMap::new();
        for e in read_entries(dir)?.0 {
            entries.entry(e.key).or_default().push_back(e.recorded);
        }
        Ok(Self::Replaying(Mutex::new(entries)))
    }

    /// What to tell the user when the cassette's last line is damaged (and
    /// left out by [`Cassette::replay`]).
    pub fn damaged_tail(dir: &Path) -> Option<String> {
        let (good, damaged) = read_entries(dir).ok()?;
        damaged.map(|line| {
            format!(
                "{}:{line}: the last line is cut off (a run stopped while writing it); \
                 replaying the {} calls before it",
                dir.join(CALLS).display(),
                good.len()
            )
        })
    }

    /// The recorded run's default endpoint, if it had one.
    pub fn meta(dir: &Path) -> Option<Meta> {
        let text = std::fs::read(dir.join(META)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Whether this cassette answers calls.
    pub fn is_replay(&self) -> bool {
        matches!(self, Self::Replaying(_))
    }

    /// The recorded answer for this call (the same request asked twice gets its
    /// answers in recorded order), or a miss.
    pub fn answer(&self, model: &str, req: &ChatRequest) -> Option<Result<Recorded, LlmError>> {
        let Self::Replaying(entries) = self else {
            return None;
        };
        let key = key(model, req);
        let mut entries = entries.lock().unwrap_or_else(|p| p.into_inner());
        Some(match entries.get_mut(&key) {
            Some(queue) if queue.len() > 1 => Ok(queue.pop_front().expect("non-empty")),
            Some(queue) => Ok(queue.front().cloned().expect("never emptied")),
            None => Err(LlmError::CassetteMiss { key }),
        })
    }

    /// Appends a call (recording only); a failed write loses that entry.
    pub fn write(&self, model: &str, req: &ChatRequest, recorded: &Recorded) {
        let Self::Recording(file) = self else { return };
        let entry = Entry {
            key: key(model, req),
            model: model.to_string(),
            request: req.clone(),
            recorded: recorded.clone(),
        };
        let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(line) = serde_json::to_string(&entry) {
            // A failed write loses one entry; replay then reports a clear miss.
            let _ = writeln!(file, "{line}").and_then(|_| file.flush());
        }
    }
}

/// The entries of `dir/calls.jsonl`, and the number of a damaged last line
/// left out, if any.
fn read_entries(dir: &Path) -> Result<(Vec<Entry>, Option<usize>), CassetteError> {
    let path = dir.join(CALLS);
    let unreadable = |source| CassetteError::Read {
        path: path.clone(),
        source,
    };
    let file = std::fs::File::open(&path).map_err(unreadable)?;
    let mut entries = Vec::new();
    let mut damaged: Option<(usize, serde_json::Error)> = None;
    for (n, line) in std::io::BufReader::new(file).split(b'\n').enumerate() {
        let line = line.map_err(unreadable)?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some((line, e)) = damaged {
            // More lines after a bad one: the damage is not a cut-off end.
            return Err(CassetteError::Damaged {
                path,
                line,
                column: e.column(),
                message: e.to_string(),
            });
        }
        match serde_json::from_slice::<Entry>(&line) {
            Ok(e) => entries.push(e),
            Err(e) => damaged = Some((n + 1, e)),
        }
    }
    Ok((entries, damaged.map(|(at, _)| at)))
}

/// Where a cassette goes or comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CassetteMode {
    /// Record into this folder.
    Record(PathBuf),
    /// Replay from this folder.
    Replay(PathBuf),
}
