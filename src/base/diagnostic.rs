//! Errors a designer can act on: `file:line:col: message (field) — hint`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

/// One problem in a scenario file, where it is and what would fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The file.
    pub(crate) file: PathBuf,
    /// 1-based line.
    pub(crate) line: u64,
    /// 1-based column.
    pub(crate) col: u64,
    /// Dotted path of the field, e.g. `locations[2].connections[0]`.
    pub(crate) field: String,
    /// What is wrong.
    pub(crate) message: String,
    /// What would fix it, when something would ("did you mean …").
    pub(crate) hint: Option<String>,
}

impl Diagnostic {
    /// A problem with a whole file (missing, unreadable).
    pub fn file(file: &Path, message: &str, hint: Option<&str>) -> Self {
        Self {
            file: file.to_path_buf(),
            line: 1,
            col: 1,
            field: String::new(),
            message: message.to_string(),
            hint: hint.map(str::to_string),
        }
    }

    /// A problem at a spanned value.
    pub fn at<T>(file: &Path, span: &Spanned<T>, field: &str, message: String) -> Self {
        Self {
            file: file.to_path_buf(),
            line: span.referenced.line().max(1),
            col: span.referenced.column().max(1),
            field: field.to_string(),
            message,
            hint: None,
        }
    }

    /// The same problem, in another file (a nested document's).
    pub fn in_file(mut self, file: &Path) -> Self {
        self.file = file.to_path_buf();
        self
    }
}

/// The most of a message, field or hint a printed diagnostic shows: values
/// quoted from a file (a 50 MB id) must not make a line of that size.
const SHOWN: usize = 400;

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = |text: &str| super::shortened(text, SHOWN);
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.col,
            cut(&self.message)
        )?;
        if !self.field.is_empty() {
            write!(f, " (field `{}`)", cut(&self.field))?;
        }
        if let Some(h) = &self.hint {
            write!(f, " — hint: {}", cut(h))?;
        }
        Ok(())
    }
}

/// All problems found in one check, in file order.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// How many problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// The problems, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Turns a serde-saphyr error into a diagnostic (file filled in by the caller).
pub(super) fn from_yaml_error(e: &serde_saphyr::Error, field: &str) -> Diagnostic {
    let (line, col) = e
        .location()
        .map(|l| (l.line().max(1), l.column().max(1)))
        .unwrap_or((1, 1));
    let raw = e.without_snippet().to_string();
    // The crate appends its own " at line L, column C"; we print ours in front.
    let message = match raw.rfind(" at line ") {
        Some(i) => raw[..i].to_string(),
        None => raw,
    };
    let hint = yaml_hint(&message);
    Diagnostic {
        file: PathBuf::new(),
        line,
        col,
        field: field.to_string(),
        message,
        hint,
    }
}

fn yaml_hint(message: &str) -> Option<String> {
    let hint = if message.contains("trailing content after") && message.contains("quoted scalar") {
        // The design's own sample: `condition: "{a}=='A'" && !{b}"`.
        "a quote inside the text ended it early: quote the whole value once — \
         use single quotes inside double ones (`\"{a}=='A' && !{b}\"`) or remove the stray quote"
    } else if message.contains("mapping values are not allowed") {
        // The design's multi-line `think:` whose line ends in `列表:`.
        "a `:` before a space or a line end inside unquoted text starts a key: \
         write text of several lines as a block (`think: |`, its lines indented under it) or quote it"
    } else if message.contains("expected string scalar") {
        // The design's `user_say: {守望精灵名}，你好…`.
        "text is expected here, and a value starting with `{` or `[` is read as a map or a list: \
         quote the whole text (`\"{名字}，你好\"`)"
    } else if message.starts_with("unknown field") {
        "remove the field or fix its spelling; the expected fields are listed"
    } else if message.starts_with("missing field") {
        "add the field to this entry"
    } else if message.starts_with("unknown variant") {
        "use one of the listed values"
    } else if message.contains("invalid type") || message.contains("invalid") {
        "check the value's type (number, text, list)"
    } else if message.contains("duplicate") {
        "each key may appear once per mapping"
    } else {
        "check indentation, colons and brackets near this position"
    };
    Some(hint.to_string())
}

/// The closest of `candidates` to `word`, for "did you mean" hints: at most
/// half the longer name changed (two edits for long names), and never a name
/// with nothing in common (two-character Chinese names are common).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (levenshtein(word, c), c))
        .filter(|(d, c)| {
            let longer = c.chars().count().max(word.chars().count());
            *d <= (longer / 2).max(2) && *d < longer
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design's unbalanced-quote sample gets the quoting fix, not a
    /// word about types.
    #[test]
    fn a_quote_that_ends_the_text_early_gets_the_quoting_fix() {
        let hint = yaml_hint("invalid trailing content after double-quoted scalar").unwrap();
        assert!(hint.contains("quote the whole value once"), "{hint}");
        let other = yaml_hint("invalid type: map, expected a string").unwrap();
        assert!(other.contains("type"), "{other}");
    }

    #[test]
    fn suggests_close_ids() {
        assert_eq!(
            closest("tavren", ["tavern", "square", "library"]),
            Some("tavern")
        );
        assert_eq!(closest("zzzzzz", ["tavern", "square"]), None);
    }
}
