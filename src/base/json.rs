//! JSON as models write it: the first object in an answer, found inside code
//! fences or prose and repaired for the usual small-model mistakes.

use serde_json::Value;

/// Finds the first JSON object in `text` and parses it, repairing the usual
/// small-model mistakes (code fences, prose around it, trailing commas,
/// a missing closing brace).
pub(crate) fn extract_object(text: &str) -> Result<Value, String> {
    let start = text
        .find('{')
        .ok_or_else(|| "no JSON object in the answer".to_string())?;
    let candidate = balanced(&text[start..]);
    let attempts = [candidate.to_string(), without_trailing_commas(candidate)];
    let mut last_err = String::new();
    for a in attempts
        .iter()
        .chain(std::iter::once(&close_open(&attempts[1])))
    {
        match serde_json::from_str::<Value>(a) {
            Ok(v @ Value::Object(_)) => return Ok(v),
            Ok(_) => last_err = "not a JSON object".into(),
            Err(e) => last_err = e.to_string(),
        }
    }
    Err(format!("unparseable JSON: {last_err}"))
}

/// Tracks whether a scan over JSON text is inside a string literal.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Feeds one character; true when it belongs to a string literal (quotes included).
    fn step(&mut self, c: char) -> bool {
        if self.inside {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => self.inside = false,
                _ => {}
            }
            return true;
        }
        self.inside = c == '"';
        self.inside
    }
}

/// The prefix of `s` (starting at `{`) up to its matching `}`, or all of it.
fn balanced(s: &str) -> &str {
    let mut depth = 0i32;
    let mut strings = Strings::default();
    for (i, c) in s.char_indices() {
        if strings.step(c) {
            continue;
        }
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return &s[..=i];
                }
            }
            _ => {}
        }
    }
    s
}

/// Drops commas that directly precede `}` or `]` (outside strings).
fn without_trailing_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut strings = Strings::default();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if strings.step(c) {
            out.push(c);
            continue;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']') | None) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Closes an answer that was cut off (e.g. by `max_tokens`): an open string,
/// then open arrays and objects.
fn close_open(s: &str) -> String {
    let mut stack = Vec::new();
    let mut strings = Strings::default();
    for c in s.chars() {
        if strings.step(c) {
            continue;
        }
        match c {
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut out = s.trim_end().trim_end_matches(',').to_string();
    if strings.inside {
        out.push('"');
    }
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    out
}
