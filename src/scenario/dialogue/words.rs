//! The persona words a line's `who:`/`to:` names, and each persona's memo of
//! which it has. Whether a persona has a word is a substring search over its
//! occupation, traits, topics and hobbies; a large town asked it for every
//! candidate line of every turn (a twentieth of a step), always with the same
//! few dozen words. Each word gets a number once for the process, and each
//! persona remembers its answer by that number.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Deserializer};

use crate::scenario::Profile;

/// A persona word of a `who:`/`to:` list: `word` (one of them describes the
/// persona) or `!word` (none does).
#[derive(Debug, Clone)]
pub struct PersonaWord {
    /// The word, without its `!`.
    pub text: Box<str>,
    /// Written `!word`: the line is not said by (or to) one it describes.
    pub negated: bool,
    id: WordId,
}

impl PartialEq for PersonaWord {
    fn eq(&self, other: &Self) -> bool {
        (self.negated, &self.text) == (other.negated, &other.text)
    }
}

impl PersonaWord {
    /// The word as a list writes it (`!word` when negated).
    pub fn parse(written: &str) -> Self {
        let (text, negated) = match written.strip_prefix('!') {
            Some(w) => (w, true),
            None => (written, false),
        };
        Self {
            text: text.into(),
            negated,
            id: WordId::of(text),
        }
    }

    /// Whether it describes `p` (ignoring `!`).
    pub fn describes(&self, p: &Profile) -> bool {
        p.word_memo.get(self.id).unwrap_or_else(|| {
            let has = p.has_word(&self.text);
            p.word_memo.set(self.id, has);
            has
        })
    }
}

impl<'de> Deserialize<'de> for PersonaWord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|w| Self::parse(&w))
    }
}

/// A persona word's number for this process (the order words were first
/// read in; never written anywhere, so runs need not agree on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WordId(u32);

impl WordId {
    fn of(word: &str) -> Self {
        static IDS: OnceLock<Mutex<HashMap<Box<str>, u32>>> = OnceLock::new();
        let mut ids = IDS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let next = ids.len() as u32;
        Self(*ids.entry(word.into()).or_insert(next))
    }
}

/// Words a memo holds; a scenario with more asks the rest afresh each time.
const MEMO_WORDS: usize = 128;

/// Which persona words a persona has, as far as asked: bits of `known` say a
/// word was asked, bits of `has` the answer. Shared by the threads reading
/// one persona; the answer is the same whoever asks first.
#[derive(Default)]
pub struct WordMemo {
    known: [AtomicU64; MEMO_WORDS / 64],
    has: [AtomicU64; MEMO_WORDS / 64],
}

impl WordMemo {
    fn slot(id: WordId) -> Option<(usize, u64)> {
        let i = id.0 as usize;
        (i < MEMO_WORDS).then(|| (i / 64, 1u64 << (i % 64)))
    }

    fn get(&self, id: WordId) -> Option<bool> {
        let (w, bit) = Self::slot(id)?;
        // `has` is written before `known` (release), so a known bit read
        // (acquire) finds its answer in place.
        (self.known[w].load(Ordering::Acquire) & bit != 0)
            .then(|| self.has[w].load(Ordering::Relaxed) & bit != 0)
    }

    fn set(&self, id: WordId, has: bool) {
        let Some((w, bit)) = Self::slot(id) else {
            return;
        };
        if has {
            self.has[w].fetch_or(bit, Ordering::Relaxed);
        }
        self.known[w].fetch_or(bit, Ordering::Release);
    }
}

/// A copy starts empty: it may be of a persona about to be changed.
impl Clone for WordMemo {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for WordMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WordMemo")
    }
}

/// Whether `p` fits a `who:`/`to:` list: one of its words describes `p`
/// (when any is given) and none of its `!words` does.
pub(super) fn persona_fits(words: &[PersonaWord], p: &Profile) -> bool {
    let (mut wanted, mut found) = (false, false);
    for w in words {
        if w.negated {
            if w.describes(p) {
                return false;
            }
        } else {
            wanted = true;
            found = found || w.describes(p);
        }
    }
    !wanted || found
}
