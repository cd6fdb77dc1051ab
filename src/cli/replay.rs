//! `heartvale replay`: an event log told line by line by the narrator,
//! filtered by kind or resident.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use super::CliError;
use crate::sim::event_log::{LogNames, SimEvent, narrate};

/// Prints the log's events (of `kinds`, about `resident`, when given).
pub(super) fn replay(
    file: &Path,
    kinds: &[String],
    resident: Option<&str>,
) -> Result<ExitCode, CliError> {
    let f = std::fs::File::open(file)
        .map_err(|e| CliError::failed(format!("cannot open {}: {e}", file.display())))?;
    let mut names = LogNames::default();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line =
            line.map_err(|e| CliError::failed(format!("{}:{}: {e}", file.display(), n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let event: SimEvent = serde_json::from_str(&line).map_err(|e| {
            CliError::failed(format!(
                "{}:{}:{}: not an event of this version's log: {e}",
                file.display(),
                n + 1,
                e.column()
            ))
        })?;
        names.learn(&event.body);
        if !kinds.is_empty() && !kinds.iter().any(|k| k == event.body.kind()) {
            continue;
        }
        let told = narrate(&event.body, &names);
        if let Some(r) = resident
            && !told.residents.iter().any(|x| x.as_str() == r)
        {
            continue;
        }
        // A log someone sent may carry terminal escapes in its texts.
        let text = crate::base::printable(&told.text);
        if writeln!(out, "{}  {text}", event.time).is_err() {
            break; // stdout closed (e.g. piped into `head`)
        }
    }
    Ok(ExitCode::SUCCESS)
}
