//! The clock a script run's prompts read. Prompts carry the time to the
//! second, and a recorded call is found again by its prompt: so a recording
//! keeps every reading in its folder, and a replay reads them back in order
//! (a replay a second later would otherwise miss every call and fall back to
//! the built-in mind).

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::super::CliError;

/// Where a recording's clock readings are kept, one a line.
const READINGS: &str = "clock.txt";

/// The run's clock: the wall clock, kept or read back.
pub(super) enum PromptClock {
    Wall,
    /// Recording: each reading is also written to the folder.
    Keeping(RefCell<File>),
    /// Replaying: the recorded readings, then the wall clock if they run out.
    Replaying(RefCell<std::vec::IntoIter<String>>),
}

impl PromptClock {
    /// The clock for `--record DIR`, `--replay DIR` or neither. A recording
    /// made before readings were kept replays with the wall clock.
    pub(super) fn for_run(record: Option<&Path>, replay: Option<&Path>) -> Result<Self, CliError> {
        let failed = |what: &str, path: &Path, e: std::io::Error| {
            CliError::failed(format!("cannot {what} {}: {e}", path.display()))
        };
        if let Some(dir) = record {
            std::fs::create_dir_all(dir).map_err(|e| failed("create", dir, e))?;
            let path = dir.join(READINGS);
            let file = File::create(&path).map_err(|e| failed("write", &path, e))?;
            return Ok(Self::Keeping(RefCell::new(file)));
        }
        if let Some(dir) = replay {
            let path = dir.join(READINGS);
            return match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let readings: Vec<String> = text.lines().map(str::to_owned).collect();
                    Ok(Self::Replaying(RefCell::new(readings.into_iter())))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::Wall),
                Err(e) => Err(failed("read", &path, e)),
            };
        }
        Ok(Self::Wall)
    }

    /// The time now, as the prompts read it.
    pub(super) fn now(&self) -> String {
        match self {
            Self::Wall => wall_clock(),
            Self::Keeping(file) => {
                let now = wall_clock();
                // A reading that cannot be kept only costs a later replay its match.
                let _ = writeln!(file.borrow_mut(), "{now}");
                now
            }
            Self::Replaying(readings) => readings.borrow_mut().next().unwrap_or_else(wall_clock),
        }
    }
}

/// The local wall clock to the second, with its offset from UTC, for the
/// prompts (and the stage budgets, which read the first 19 characters).
fn wall_clock() -> String {
    chrono::Local::now()
        .format("%Y-%m-%d %H:%M:%S %:z")
        .to_string()
}
