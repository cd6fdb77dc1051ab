//! A date's answer as it is written: the pieces of a streamed call read as
//! the JSON they will make, so the terminal and the 💘 panel can show the
//! question, the choice or the reasoning while the model writes it.

/// The fields worth showing, and what the view calls them.
const SHOWN: [(&str, &str); 5] = [
    ("time", "时间"),
    ("question", "问题"),
    ("answers", "选项"),
    ("content", "回答"),
    ("rationale", "理由"),
];

/// The field being written in a half-written answer, and its text so far
/// (`None` before the first such field starts).
pub fn preview(partial: &str) -> Option<(&'static str, String)> {
    let (label, from) = SHOWN
        .iter()
        .filter_map(|(key, label)| value_start(partial, key).map(|at| (*label, at)))
        .max_by_key(|(_, at)| *at)?;
    Some((label, string_so_far(&partial[from..])))
}

/// Where the string value of the last `"key":` starts (after its quote).
fn value_start(text: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    let at = text.rfind(&quoted)? + quoted.len();
    let rest = &text[at..];
    let colon = rest.len() - rest.trim_start().len();
    let rest = rest.trim_start().strip_prefix(':')?;
    let space = rest.len() - rest.trim_start().len();
    rest.trim_start()
        .starts_with('"')
        .then(|| at + colon + 1 + space + 1)
}

/// A JSON string's text up to its closing quote or the end so far, its
/// escapes read (a half-written escape at the end is left out).
fn string_so_far(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push(' '),
                Some('t') => out.push(' '),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(c);
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn the_field_being_written_is_shown_as_it_grows() {
        assert_eq!(preview("{\"action\":{\"ty"), None);
        let host =
            "{\"action\":{\"type\":\"predict\",\"object\":\"adou\",\"question\":\"雨突然下大了，你";
        assert_eq!(preview(host), Some(("问题", "雨突然下大了，你".into())));
        let next = format!("{host}会怎么做？\",\"answers\": \"A. 撑伞");
        assert_eq!(preview(&next), Some(("选项", "A. 撑伞".into())));
        let avatar = "{\"gender\":\"女\",\"decision\":{\"option\":\"B\",\"content\":\"我把伞递给他\"},\"rationale\" : \"他看起来\\\"很冷\\\"\\n";
        assert_eq!(preview(avatar), Some(("理由", "他看起来\"很冷\" ".into())));
        // Half an escape at the end waits for the rest.
        assert_eq!(
            preview("{\"rationale\":\"好\\"),
            Some(("理由", "好".into()))
        );
        assert_eq!(
            preview("{\"rationale\":\"\\u4f60好"),
            Some(("理由", "你好".into()))
        );
    }
}
