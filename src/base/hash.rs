//! FNV-1a: a hash stable across builds and platforms, for seeds and
//! fingerprints that a save or a log must see the same on every run (the
//! standard hasher is randomised per process).

/// FNV-1a's offset basis: the hash of nothing.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// `h` carried on over `bytes` (hash several texts as one).
pub fn fnv1a_more(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The FNV-1a hash of `text`.
pub fn fnv1a(text: &str) -> u64 {
    fnv1a_more(FNV_START, text.as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_values() {
        assert_eq!(super::fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
