//! What every layer shares, depending on nothing else in the crate: game
//! time, YAML parsing with `file:line:col` diagnostics and "did you mean"
//! hints, and the repair of JSON that models write.

mod diagnostic;
pub(crate) mod files;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod hash;
pub mod intern;
pub(crate) mod json;
pub(crate) mod pairs;
pub mod time;
pub mod weather;
mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics, closest};
pub use yaml::{load_checked, parse_checked, parse_yaml};

/// A brain's or a model's text as a reason or a fix quotes it: trimmed and
/// cut to 120 characters, never a log line the size of a hostile answer.
pub fn quoted(text: &str) -> String {
    shortened(text.trim(), 120)
}

/// `text` without what a terminal would act on rather than show: control
/// characters (escape sequences, bells, carriage returns; line breaks and tabs
/// kept) and the bidirectional overrides that reorder what is shown. A
/// model's or a server's words pass through here before anything keeps them.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let acts = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if text.chars().any(acts) {
        text.chars()
            .filter(|&c| !acts(c))
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// `text` cut to `chars` characters, with `…` when it was longer: a value as
/// a table cell or an error message quotes it.
pub fn shortened(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Makes room for one more in `v`, growing it by a quarter rather than
/// doubling: per-resident lists (ties, memories) of a town of 100,000 would
/// otherwise leave a third of their room empty on average.
pub fn room_for_one<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 4).max(4));
    }
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn what_a_terminal_acts_on_is_dropped_and_the_rest_kept() {
        let hostile = "\u{1b}[2J\u{1b}]0;title\u{7}好\r的。\u{9b}31m\u{202E}cba\n下一行\t完";
        assert_eq!(printable(hostile), "[2J]0;title好的。31mcba\n下一行\t完");
        assert!(matches!(
            printable("平常的话。"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
