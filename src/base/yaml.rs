//! YAML text → typed values through serde-saphyr, with errors that name
//! line, column and the dotted path of the field.
//!
//! Every pass keeps a budget. serde-saphyr's own budget counts events, nodes
//! and the bytes written in the file, and its alias limit counts replayed
//! events; neither sees that one alias of a 10 KB string costs 10 KB each time
//! it is deserialised. So before parsing, a file with aliases is walked once
//! (events only, nothing kept) and its *expanded* size — what the values would
//! take with every alias replaced by its anchor — must stay within
//! [`MAX_EXPANDED`].

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde_saphyr::granit_parser::{Event, Parser};

use super::Diagnostic;

/// The most bytes of values a YAML file may expand to, aliases replaced by
/// their anchors: a file may be 64 MiB (`files::MAX_FILE`), and anchors may
/// not make it more.
pub(crate) const MAX_EXPANDED: u64 = 64 * 1024 * 1024;

/// What each node costs beyond its text: so a bomb of empty values counts too.
const NODE: u64 = 1;

/// A YAML file of one value read from `path` (at most `files::MAX_FILE`),
/// parsed and then checked by `problems`: every problem, or the value.
pub fn load_checked<T: DeserializeOwned>(
    path: &std::path::Path,
    problems: impl Fn(&T, &std::path::Path) -> super::Diagnostics,
) -> Result<T, super::Diagnostics> {
    let text = super::files::read_text(path, super::files::MAX_FILE).map_err(|e| {
        let d = Diagnostic::file(path, &format!("cannot read file: {e}"), None);
        super::Diagnostics(vec![d])
    })?;
    parse_checked(&text, path, problems)
}

/// [`load_checked`] for text already read from `path`.
pub fn parse_checked<T: DeserializeOwned>(
    text: &str,
    path: &std::path::Path,
    problems: impl Fn(&T, &std::path::Path) -> super::Diagnostics,
) -> Result<T, super::Diagnostics> {
    let value: T = parse_yaml(text).map_err(|d| super::Diagnostics(vec![d.in_file(path)]))?;
    let found = problems(&value, path);
    if found.is_empty() {
        Ok(value)
    } else {
        Err(found)
    }
}

/// Parses YAML text into `T`, reporting line, column and the dotted field path.
pub fn parse_yaml<T: DeserializeOwned>(text: &str) -> Result<T, Diagnostic> {
    expanded_size(text, MAX_EXPANDED)?;
    // First without tracking the field path, which costs; error snippets are
    // not needed on this path.
    let mut fast = options();
    fast.with_snippet = false;
    if let Ok(v) = serde_saphyr::from_str_with_options::<T>(text, fast) {
        return Ok(v);
    }
    let mut path = String::new();
    let result = serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
        serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
            path = e.path().to_string().replace(".value", "");
            e.into_inner()
        })
    });
    result.map_err(|e| super::diagnostic::from_yaml_error(&e, &path))
}

/// The parser's options on every pass: its budget on, sized for the largest
/// file we read (a generated town of tens of thousands of places has millions
/// of events; the defaults stop at a quarter of a million nodes).
fn options() -> serde_saphyr::Options {
    let mut o = serde_saphyr::Options::default();
    let budget = o.budget.get_or_insert_with(Default::default);
    budget.max_events = 16_000_000;
    budget.max_nodes = 8_000_000;
    budget.max_total_scalar_bytes = MAX_EXPANDED as usize;
    // Its guess at a bomb (more than 10 aliases per anchor) refuses honest
    // files — a list of 100 places sharing one anchor — and the expanded
    // size above measures the real cost instead.
    budget.enforce_alias_anchor_ratio = false;
    o
}

/// Walks the events of `text` and refuses it when its values, aliases
/// expanded, would exceed `limit` bytes: the refusal names the alias that
/// crossed it. A text with no `*` has no alias, so it is its own size (the
/// file's limit bounds it) and is not walked. Syntax errors end the walk: the
/// parse that follows reports them with the field.
pub(crate) fn expanded_size(text: &str, limit: u64) -> Result<u64, Diagnostic> {
    if !text.contains('*') {
        return Ok(text.len() as u64);
    }
    let mut walk = Expansion::default();
    for item in Parser::new_from_str(text) {
        let Ok((event, span)) = item else { break };
        if walk.add(event) > limit {
            let mut d = Diagnostic::file(
                std::path::Path::new(""),
                &format!(
                    "the file's values would take over {} MiB with its aliases (`*name`) expanded",
                    limit / (1024 * 1024)
                ),
                Some("use fewer aliases of long values, or write the values out"),
            );
            d.line = span.start.line().max(1) as u64;
            d.col = span.start.col() as u64 + 1;
            return Err(d);
        }
    }
    Ok(walk.total)
}

/// The running expanded size, and each finished anchor's.
#[derive(Default)]
struct Expansion {
    total: u64,
    /// Anchor id → its expanded size.
    anchors: HashMap<usize, u64>,
    /// Collections open now: their anchor (0 for none) and the total at their start.
    open: Vec<(usize, u64)>,
}

impl Expansion {
    /// Counts one event; returns the total so far.
    fn add(&mut self, event: Event<'_>) -> u64 {
        match event {
            Event::Scalar(value, _, anchor, _) => {
                let size = value.len() as u64 + NODE;
                self.total = self.total.saturating_add(size);
                if anchor != 0 {
                    self.anchors.insert(anchor, size);
                }
            }
            Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                self.open.push((anchor, self.total));
                self.total = self.total.saturating_add(NODE);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, start)) = self.open.pop()
                    && anchor != 0
                {
                    self.anchors.insert(anchor, self.total - start);
                }
            }
            Event::Alias(id) => {
                // An alias of an anchor still open (a cycle) is refused by the
                // parse; count it as a node.
                let size = self.anchors.get(&id).copied().unwrap_or(NODE);
                self.total = self.total.saturating_add(size);
            }
            _ => {}
        }
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deep nesting and alias bombs are refused, not a crash.
    #[test]
    fn hostile_yaml_is_refused_not_a_crash() {
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_yaml::<serde_json::Value>(&deep).is_err());
        let deep_block: String = (0..5_000)
            .map(|i| format!("{}- \n", " ".repeat(i)))
            .collect();
        assert!(parse_yaml::<serde_json::Value>(&deep_block).is_err());
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("b{}", i - 1)
            };
            bomb.push_str(&format!(
                "b{i}: &b{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        assert!(parse_yaml::<serde_json::Value>(&bomb).is_err());
    }

    /// The finding: one 10 KB string repeated through a few aliases grew
    /// past 10 GB. Its expanded size is counted, and the alias that crosses
    /// the limit is named.
    #[test]
    fn a_long_value_repeated_by_aliases_is_counted_by_its_size() {
        let long = "长".repeat(3_400); // ≈ 10 KB
        let mut text = format!("a: &a \"{long}\"\n");
        for i in 0..3 {
            let prev = if i == 0 {
                "a".into()
            } else {
                format!("l{}", i - 1)
            };
            let items = vec![format!("*{prev}"); 100].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{items}]\n"));
        }
        assert!(text.len() < 30_000, "a small file: {}", text.len());
        let e = parse_yaml::<serde_json::Value>(&text).unwrap_err();
        assert!(e.message.contains("aliases"), "{}", e.message);
        assert_eq!(e.line, 3, "the second level crosses 64 MiB: {e}");
        assert!(e.col > 1, "{e}");
        // Two levels are 100 × 100 × 10 KB = 100 MB; one (1 MB) is fine.
        let one: String = text.lines().take(2).collect::<Vec<_>>().join("\n");
        let size = expanded_size(&one, MAX_EXPANDED).unwrap();
        assert!((1_000_000..1_100_000).contains(&size), "{size}");
        assert!(parse_yaml::<serde_json::Value>(&one).is_ok());
    }

    #[test]
    fn anchors_count_once_per_use_and_plain_files_are_their_size() {
        let plain = "a: 1\nb: [x, y]\n";
        assert_eq!(expanded_size(plain, 10).unwrap(), plain.len() as u64);
        // "abc" is 3 + 1; the list is 1 + 2 × 4; the keys 2 × 2; the map 1.
        let aliased = "k: &s abc\nl: [*s, *s]\n";
        assert_eq!(expanded_size(aliased, 100).unwrap(), 1 + 2 + 4 + 2 + 9);
        assert!(expanded_size(aliased, 10).is_err());
        // A collection's anchor covers its aliases inside it.
        let nested = "a: &a [xx]\nb: &b [*a, *a]\nc: [*b, *b]\n";
        let a = 1 + 3;
        let b = 1 + 2 * a;
        assert_eq!(
            expanded_size(nested, 1_000).unwrap(),
            1 + 3 * 2 + a + b + 1 + 2 * b
        );
    }
}
