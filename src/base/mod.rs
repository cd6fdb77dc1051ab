//! What every layer shares, depending on nothing else in the crate: game
//! time, YAML parsing with `file:line:col` diagnostics and "did you mean"
//! hints, and the repair of JSON that models write.

mod diagnostic;
pub(crate) mod files;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod hash;
pub(crate) mod json;
pub(crate) mod pairs;
pub mod time;
mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics, closest};
pub use yaml::{load_checked, parse_checked, parse_yaml};

/// A brain's or a model's text as a reason or a fix quotes it: trimmed and
/// cut to 120 characters, never a log line the size of a hostile answer.
pub fn quoted(text: &str) -> String {
    shortened(text.trim(), 120)
}

/// `text` cut to `chars` characters, with `…` when it was longer: a value as
/// a table cell or an error message quotes it.
pub fn shortened(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
