//! YAML text → typed values through serde-saphyr, with errors that name
//! line, column and the dotted path of the field.

use serde::de::DeserializeOwned;

use super::Diagnostic;

/// Parses YAML text into `T`, reporting line, column and the dotted field path.
pub fn parse_yaml<T: DeserializeOwned>(text: &str) -> Result<T, Diagnostic> {
    // First without tracking the field path, which costs. Our
    // files are the designer's own: the event and node budget (15 % of a
    // parse) is left off; the parser's nesting limits and the alias limits
    // stay. Error snippets are not needed on this path.
    let mut fast = serde_saphyr::Options::default();
    fast.budget = None;
    fast.with_snippet = false;
    if let Ok(v) = serde_saphyr::from_str_with_options::<T>(text, fast) {
        return Ok(v);
    }
    let mut path = String::new();
    let result = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
            path = e.path().to_string().replace(".value", "");
            e.into_inner()
        })
    });
    result.map_err(|e| super::diagnostic::from_yaml_error(&e, &path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the budget, deep nesting and alias bombs are still refused.
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
}
