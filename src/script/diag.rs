//! What `heartvale check` says about a script set:
//! `file:line:col: error[CODE]: message (help: …)`, every problem at once.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::base::Diagnostic;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The set cannot run as written; `check` exits 1.
    Error,
    /// It runs, but probably not as meant.
    Warning,
}

/// One problem in a script set, where it is, its code and what would fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptDiagnostic {
    /// The file.
    pub(crate) file: PathBuf,
    /// 1-based line.
    pub(crate) line: u64,
    /// 1-based column.
    pub(crate) col: u64,
    /// How bad it is.
    pub severity: Severity,
    /// Stable code, e.g. `E101` (see the table in `docs/heart-rule.md`).
    pub(crate) code: &'static str,
    /// What is wrong.
    pub(crate) message: String,
    /// What would fix it.
    pub(crate) help: Option<String>,
}

impl ScriptDiagnostic {
    /// An error with code `code` at (line, col).
    pub fn error(
        file: &Path,
        (line, col): (u64, u64),
        code: &'static str,
        message: String,
    ) -> Self {
        Self {
            file: file.to_path_buf(),
            line: line.max(1),
            col: col.max(1),
            severity: Severity::Error,
            code,
            message,
            help: None,
        }
    }

    /// A warning with code `code` at (line, col).
    pub fn warning(file: &Path, at: (u64, u64), code: &'static str, message: String) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(file, at, code, message)
        }
    }

    /// The same problem, with a hint.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// A YAML or shape error from the shared parser, `line_offset` lines into the file.
    pub fn from_yaml(file: &Path, source: &str, d: &Diagnostic, line_offset: u64) -> Self {
        // The parser names Rust types (`invalid i64`); writers think in numbers.
        let numeric = d.message.strip_prefix("invalid ").and_then(|t| {
            let int = t.len() > 1
                && (t.starts_with('i') || t.starts_with('u'))
                && t[1..].bytes().all(|b| b.is_ascii_digit());
            let float = t == "f32" || t == "f64";
            (int || float).then_some(if int { "a whole number" } else { "a number" })
        });
        let code = if numeric.is_some() {
            "E104"
        } else if d.message.starts_with("unknown field") {
            "E101"
        } else if d.message.starts_with("missing field") {
            "E102"
        } else if d.message.starts_with("unknown variant") {
            "E103"
        } else if d.message.contains("invalid type") {
            "E104"
        } else {
            "E100"
        };
        let line = d.line + line_offset;
        let mut message = match numeric {
            Some(what) => format!("expected {what} here"),
            None => d.message.clone(),
        };
        if !d.field.is_empty() {
            message.push_str(&format!(" (at `{}`)", d.field));
        }
        // A full-width colon makes `key：value` one string, so the error is far
        // from obvious; look for one on the reported line (or the one above).
        let lines: Vec<&str> = source.lines().collect();
        let near = |l: u64| {
            lines
                .get((l as usize).saturating_sub(1))
                .copied()
                .unwrap_or("")
        };
        let full_width = [line, line.saturating_sub(1)]
            .into_iter()
            .find(|&l| near(l).contains('：') && !near(l).contains(": "));
        let help = match full_width {
            Some(l) => format!(
                "line {l} has a full-width colon `：`; YAML keys need the ASCII `:` followed by a space"
            ),
            None => d.hint.clone().unwrap_or_default(),
        };
        let mut out = Self::error(file, (line, d.col), code, message);
        if !help.is_empty() {
            out = out.help(help);
        }
        out
    }
}

impl fmt::Display for ScriptDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {sev}[{}]: {}",
            self.file.display(),
            self.line,
            self.col,
            self.code,
            self.message
        )?;
        if let Some(h) = &self.help {
            write!(f, " (help: {h})")?;
        }
        Ok(())
    }
}
