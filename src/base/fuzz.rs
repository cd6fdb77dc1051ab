//! A small mutation fuzzer for the parsers' property tests: seeded (a failure
//! names its seed and input, and comes back on the next run), bounded by a
//! count and a time, with no tool outside `cargo test`.
//!
//! Each case takes a valid input from a corpus and applies a few edits: a cut,
//! a deletion, a duplicated or swapped range, or a token from the parser's
//! own vocabulary (quotes, brackets, operators, YAML indicators, CJK, control
//! characters, long runs). The property under test is the caller's; a panic is
//! caught and reported with the input that caused it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Tokens every text format breaks on.
const COMMON: &[&str] = &[
    "\"",
    "'",
    "\\",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ":",
    ",",
    "\n",
    "\t",
    " ",
    "\0",
    "\u{feff}",
    "\u{7f}",
    "｛",
    "｝",
    "：",
    "，",
    "“",
    "”",
    "心",
    "谷",
    "🙂",
    "0",
    "-1",
    "1e309",
    "NaN",
    "9999999999999999999999",
    "null",
    "true",
    "",
];

/// How many cases, and the most time they may take (whichever ends first).
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) cases: usize,
    pub(crate) time: Duration,
}

impl Bounds {
    /// `cases` within a few seconds: enough to walk every branch of a small
    /// parser from its corpus, short enough for every `cargo test`.
    pub(crate) fn cases(cases: usize) -> Self {
        Self {
            cases,
            time: Duration::from_secs(4),
        }
    }
}

/// Runs `property` on the corpus, then on mutants of it. Panics, naming the
/// seed and the input, when the property panics (or fails an assertion).
pub(crate) fn fuzz(
    seed: u64,
    corpus: &[&str],
    vocabulary: &[&str],
    bounds: Bounds,
    mut property: impl FnMut(&str),
) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let started = Instant::now();
    let mut run = |input: &str| {
        if catch_unwind(AssertUnwindSafe(|| property(input))).is_err() {
            panic!(
                "fuzz seed {seed}: the property failed on {:?}",
                super::shortened(input, 2_000)
            );
        }
    };
    corpus.iter().for_each(|c| run(c));
    let mut done = corpus.len();
    while done < bounds.cases && started.elapsed() < bounds.time {
        let base = corpus[rng.random_range(0..corpus.len())];
        let input = mutate(&mut rng, base, vocabulary);
        run(&input);
        done += 1;
    }
    done
}

/// One to four edits of `text`.
pub(crate) fn mutate(rng: &mut ChaCha8Rng, text: &str, vocabulary: &[&str]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.random_range(1..=4) {
        let len = chars.len();
        let at = rng.random_range(0..=len);
        let to = rng.random_range(at..=len.min(at + 16));
        match rng.random_range(0..6) {
            0 => chars.truncate(at),
            1 => {
                chars.drain(at..to);
            }
            2 => {
                let piece: Vec<char> = chars[at..to].to_vec();
                let times = if rng.random_bool(0.1) { 200 } else { 2 };
                let run: Vec<char> = piece
                    .iter()
                    .copied()
                    .cycle()
                    .take(piece.len() * times)
                    .collect();
                chars.splice(at..to, run);
            }
            3 if len > 1 => {
                let other = rng.random_range(0..len);
                chars.swap(at.min(len - 1), other);
            }
            _ => {
                let pick = |rng: &mut ChaCha8Rng| {
                    if rng.random_bool(0.6) && !vocabulary.is_empty() {
                        vocabulary[rng.random_range(0..vocabulary.len())]
                    } else {
                        COMMON[rng.random_range(0..COMMON.len())]
                    }
                };
                let token = pick(rng);
                chars.splice(at..at, token.chars());
            }
        }
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_mutants() {
        let make = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..50)
                .map(|_| mutate(&mut rng, "心谷 {a} == 'b'", &["&&"]))
                .collect::<Vec<_>>()
        };
        assert_eq!(make(7), make(7));
        assert_ne!(make(7), make(8));
        assert!(make(7).iter().any(|m| m != "心谷 {a} == 'b'"));
    }

    #[test]
    fn a_failing_property_names_its_input() {
        let failed = catch_unwind(|| {
            fuzz(1, &["ok"], &[], Bounds::cases(100), |s| {
                assert!(!s.contains('!'), "no bangs")
            })
        });
        assert!(failed.is_ok(), "the corpus alone passes");
        let failed = catch_unwind(|| {
            fuzz(1, &["ok"], &["!"], Bounds::cases(1_000), |s| {
                assert!(!s.contains('!'), "no bangs")
            })
        });
        let message = *failed.unwrap_err().downcast::<String>().unwrap();
        assert!(
            message.contains("fuzz seed 1") && message.contains('!'),
            "{message}"
        );
    }
}
