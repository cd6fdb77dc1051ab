//! `chat --record DIR` / `--replay DIR`, as `sim` has them: recording writes
//! each input line and the reply it got to `DIR/chat.jsonl` (and, with a
//! model, every call to `DIR/calls.jsonl`, never a key); replaying feeds the
//! recorded lines again — model calls answered from the cassette, no
//! network — and checks every reply is the same.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::CliError;

const CHAT: &str = "chat.jsonl";

/// One recorded input and the reply it got (none for `/wait`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Step {
    /// The line as typed.
    pub(super) input: String,
    /// The reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) reply: Option<String>,
}

/// Recording a chat, or checking one against its recording.
pub(super) enum ChatTape {
    /// Neither.
    Off,
    /// Writing `chat.jsonl`.
    Recording(std::io::BufWriter<std::fs::File>),
    /// The recorded steps, and what differed so far.
    Replaying {
        dir: PathBuf,
        steps: Vec<Step>,
        next: usize,
        differ: Vec<String>,
    },
}

impl ChatTape {
    pub(super) fn record(dir: &Path) -> Result<Self, CliError> {
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::File::create(dir.join(CHAT)))
            .map(|f| Self::Recording(std::io::BufWriter::new(f)))
            .map_err(|e| CliError::failed(format!("cannot record into {}: {e}", dir.display())))
    }

    pub(super) fn replay(dir: &Path) -> Result<Self, CliError> {
        let path = dir.join(CHAT);
        let file = std::fs::File::open(&path)
            .map_err(|e| CliError::failed(format!("cannot replay {}: {e}", path.display())))?;
        let mut steps = Vec::new();
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line =
                line.map_err(|e| CliError::failed(format!("{}:{}: {e}", path.display(), n + 1)))?;
            if line.trim().is_empty() {
                continue;
            }
            let step: Step = serde_json::from_str(&line).map_err(|e| {
                CliError::failed(format!("{}:{}:{}: {e}", path.display(), n + 1, e.column()))
            })?;
            steps.push(step);
        }
        Ok(Self::Replaying {
            dir: dir.to_path_buf(),
            steps,
            next: 0,
            differ: Vec::new(),
        })
    }

    /// The recorded input lines, when replaying.
    pub(super) fn inputs(&self) -> Option<Vec<String>> {
        match self {
            Self::Replaying { steps, .. } => Some(steps.iter().map(|s| s.input.clone()).collect()),
            _ => None,
        }
    }

    /// Notes a step: written when recording, compared when replaying.
    pub(super) fn step(&mut self, input: &str, reply: Option<&str>) -> Result<(), CliError> {
        match self {
            Self::Off => Ok(()),
            Self::Recording(w) => {
                let step = Step {
                    input: input.to_string(),
                    reply: reply.map(str::to_string),
                };
                let line = serde_json::to_string(&step).expect("a step serializes");
                writeln!(w, "{line}")
                    .and_then(|_| w.flush())
                    .map_err(|e| CliError::failed(format!("cannot write {CHAT}: {e}")))
            }
            Self::Replaying {
                steps,
                next,
                differ,
                ..
            } => {
                let recorded = steps.get(*next).and_then(|s| s.reply.as_deref());
                if recorded != reply {
                    differ.push(format!(
                        "step {}: 「{input}」 was answered 「{}」, now 「{}」",
                        *next + 1,
                        recorded.unwrap_or("—"),
                        reply.unwrap_or("—")
                    ));
                }
                *next += 1;
                Ok(())
            }
        }
    }

    /// Says how the replay went; an error when any reply differed.
    pub(super) fn finish(self) -> Result<(), CliError> {
        let Self::Replaying {
            dir, steps, differ, ..
        } = self
        else {
            return Ok(());
        };
        let replies = steps.iter().filter(|s| s.reply.is_some()).count();
        if differ.is_empty() {
            eprintln!("（重放 {}：{replies} 句回复全部相同）", dir.display());
            return Ok(());
        }
        for d in &differ {
            eprintln!("{d}");
        }
        Err(CliError::failed(format!(
            "replaying {}: {} of {replies} replies differ (the scenario, the bank or the code changed since the recording)",
            dir.display(),
            differ.len()
        )))
    }
}
