//! Serde for hash maps whose keys are not strings (JSON objects need string
//! keys) and for hash sets: written as sorted lists (`[key, value]` pairs for
//! a map), so the same contents always give the same text.

use std::hash::{BuildHasher, Hash};

use bevy::platform::collections::HashMap;
use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// Writes a map as sorted `[key, value]` pairs.
pub(crate) fn serialize<K, V, S>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
where
    K: Serialize + Ord,
    V: Serialize,
    S: Serializer,
{
    let mut pairs: Vec<(&K, &V)> = map.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs.serialize(s)
}

/// Reads `[key, value]` pairs back into a map.
pub(crate) fn deserialize<'de, K, V, D>(d: D) -> Result<HashMap<K, V>, D::Error>
where
    K: Deserialize<'de> + Eq + Hash,
    V: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
}

/// A hash set as a sorted list.
pub(crate) mod set {
    use super::*;
    use std::collections::HashSet;

    /// Writes the set's items sorted.
    pub(crate) fn serialize<T, H, S>(set: &HashSet<T, H>, s: S) -> Result<S::Ok, S::Error>
    where
        T: Serialize + Ord,
        S: Serializer,
    {
        let mut items: Vec<&T> = set.iter().collect();
        items.sort();
        items.serialize(s)
    }

    /// Reads the list back into a set.
    pub(crate) fn deserialize<'de, T, H, D>(d: D) -> Result<HashSet<T, H>, D::Error>
    where
        T: Deserialize<'de> + Eq + Hash,
        H: BuildHasher + Default,
        D: Deserializer<'de>,
    {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}
