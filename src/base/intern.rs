//! Ids kept once for the process. A resident's or a place's id is copied
//! into every event, tie and memory: as a shared `&'static str` a copy is
//! two words and its drop is nothing, where an `Arc` bumps a count stored
//! beside the text (a cache miss per copy in a big town, and a line the two
//! threads fight over when both copy the same popular place's id).
//!
//! The texts are never freed: there is one per distinct id the process has
//! seen (about 3 MB for a generated town of 100,000), and a reloaded
//! scenario's ids are the same texts again.

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex, PoisonError};

static TEXTS: LazyLock<Mutex<HashSet<&'static str>>> = LazyLock::new(Default::default);

/// The process's one copy of `text`: equal texts give the same pointer.
pub fn intern(text: &str) -> &'static str {
    let mut texts = TEXTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&kept) = texts.get(text) {
        return kept;
    }
    let kept: &'static str = Box::leak(text.into());
    texts.insert(kept);
    kept
}

/// Reads an interned text from serde (the process's copy of the string read).
pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<&'static str, D::Error> {
    let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    Ok(intern(&text))
}

/// Serde for an id type around one interned `&'static str`: written as the
/// string, read into the process's copy (a derive would try to borrow it
/// from the input).
#[macro_export]
#[doc(hidden)]
macro_rules! interned_serde {
    ($id:ty) => {
        impl serde::Serialize for $id {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
        impl<'de> serde::Deserialize<'de> for $id {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::base::intern::deserialize(d).map(Self)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_one_copy() {
        let a = intern(&String::from("r42"));
        let b = intern("r42");
        assert!(std::ptr::eq(a, b));
        assert!(!std::ptr::eq(a, intern("r43")));
        assert_eq!(a, "r42");
    }
}
