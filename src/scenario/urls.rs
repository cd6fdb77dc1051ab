//! LLM endpoint URLs as written in scenarios, flags and the environment: one
//! base URL or several (a pool), each optionally `#weight=N`. The fragment is
//! never sent to a server and needs no quoting in a shell.

use serde::{Deserialize, Serialize};

/// The heaviest weight a pool member may carry.
const MAX_WEIGHT: u32 = 64;

/// `base_url:` / `endpoint:` in a scenario: one URL (commas allowed) or a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Urls {
    /// `http://a/v1` or `http://a/v1,http://b/v1#weight=2`.
    One(String),
    /// `[http://a/v1, http://b/v1#weight=2]`.
    Many(Vec<String>),
}

impl From<&str> for Urls {
    fn from(text: &str) -> Self {
        Self::One(text.to_string())
    }
}

impl Urls {
    /// Every member as written, blanks dropped.
    pub fn items(&self) -> Vec<&str> {
        match self {
            Self::One(text) => split_urls(text).collect(),
            Self::Many(list) => list.iter().flat_map(|t| split_urls(t)).collect(),
        }
    }

    /// Every member read: its URL and weight; the first problem otherwise.
    pub fn members(&self) -> Result<Vec<(String, u32)>, String> {
        let items = self.items();
        if items.is_empty() {
            return Err("no LLM endpoint URL given".into());
        }
        items.into_iter().map(parse_member).collect()
    }
}

/// Splits a list of base URLs: comma-separated, blanks dropped.
fn split_urls(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|u| !u.is_empty())
}

/// A member as written: `URL` or `URL#weight=N` (1 ≤ N ≤ [`MAX_WEIGHT`]).
fn parse_member(text: &str) -> Result<(String, u32), String> {
    let text = text.trim();
    let (url, weight) = match text.split_once('#') {
        None => (text, 1),
        Some((url, fragment)) => {
            let weight = fragment
                .strip_prefix("weight=")
                .and_then(|w| w.trim().parse::<u32>().ok())
                .filter(|w| (1..=MAX_WEIGHT).contains(w))
                .ok_or_else(|| {
                    format!(
                        "LLM endpoint `{}`: write a weight as `#weight=N` with N from 1 to {MAX_WEIGHT}",
                        crate::base::shortened(text, 200)
                    )
                })?;
            (url, weight)
        }
    };
    check_url(url)
        .map_err(|why| format!("LLM base URL `{}` {why}", crate::base::shortened(url, 200)))?;
    Ok((url.to_string(), weight))
}

/// Why `url` cannot be an endpoint: not http(s), no host, or a backslash
/// (which the URL parser reads as `/`, so `http://127.0.0.1\@host/` would
/// go to 127.0.0.1 while reading as `host` to the eye).
pub(crate) fn check_url(url: &str) -> Result<url::Url, String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err("must start with http:// or https:// (e.g. http://127.0.0.1:8089/v1)".into());
    }
    if url.contains('\\') {
        return Err("contains a backslash: write it with `/` only".into());
    }
    let parsed = url::Url::parse(url).map_err(|e| format!("does not read as a URL: {e}"))?;
    match parsed.host_str() {
        Some(h) if !h.is_empty() => Ok(parsed),
        _ => Err("names no host".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_read_with_their_weights() {
        let urls: Vec<&str> = split_urls(" http://a/v1, ,http://b/v1#weight=3 ").collect();
        assert_eq!(urls, ["http://a/v1", "http://b/v1#weight=3"]);
        assert_eq!(parse_member(urls[0]).unwrap(), ("http://a/v1".into(), 1));
        assert_eq!(parse_member(urls[1]).unwrap(), ("http://b/v1".into(), 3));
        for bad in [
            "http://a/v1#weight=0",
            "http://a/v1#w=2",
            "http://a#weight=65",
        ] {
            let e = parse_member(bad).unwrap_err();
            assert!(e.contains("#weight=N"), "{e}");
        }
        assert!(parse_member("a:8080").unwrap_err().contains("http://"));
        let tricked = parse_member("http://127.0.0.1:9\\@api.deepseek.com/v1").unwrap_err();
        assert!(tricked.contains("backslash"), "{tricked}");
        let list = Urls::Many(vec!["http://a/v1".into(), "http://b/v1,http://c/v1".into()]);
        assert_eq!(list.members().unwrap().len(), 3);
        assert!(Urls::Many(Vec::new()).members().is_err());
    }
}
