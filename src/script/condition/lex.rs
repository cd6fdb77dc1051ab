//! Condition text → tokens, each with its column, refusing look-alike
//! punctuation and the usual mistakes with the fix.

use super::value::string_to_number;
use super::{CmpOp, ConditionError, Piece, err};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum TokenKind {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Cmp(CmpOp),
    Str(Vec<Piece>),
    Num(f64),
    True,
    False,
    Null,
    Var(String),
}

impl TokenKind {
    pub(super) fn describe(&self) -> String {
        match self {
            TokenKind::LParen => "`(`".into(),
            TokenKind::RParen => "`)`".into(),
            TokenKind::Not => "`!`".into(),
            TokenKind::And => "`&&`".into(),
            TokenKind::Or => "`||`".into(),
            TokenKind::Cmp(op) => format!("`{}`", op.text()),
            TokenKind::Str(_) => "a string".into(),
            TokenKind::Num(_) => "a number".into(),
            TokenKind::True | TokenKind::False => "a boolean".into(),
            TokenKind::Null => "`null`".into(),
            TokenKind::Var(v) => format!("`{{{v}}}`"),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) kind: TokenKind,
    /// 1-based column of its first character.
    pub(super) col: usize,
}

/// Full-width and typographic look-alikes writers type on Chinese keyboards.
fn look_alike(c: char) -> Option<&'static str> {
    Some(match c {
        '｛' => "{",
        '｝' => "}",
        '（' => "(",
        '）' => ")",
        '“' | '”' | '＂' => "\"",
        '‘' | '’' | '＇' => "'",
        '＝' => "=",
        '！' => "!",
        '＆' => "&",
        '｜' => "|",
        '＜' => "<",
        '＞' => ">",
        _ => return None,
    })
}

/// The condition's tokens, each with its column.
pub(super) fn lex(chars: &[char]) -> Result<Vec<Token>, ConditionError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let (kind, end) = token_at(chars, i)?;
        out.push(Token { kind, col: i + 1 });
        i = end;
    }
    Ok(out)
}

/// The token starting at `i`, and the index after it.
fn token_at(chars: &[char], i: usize) -> Result<(TokenKind, usize), ConditionError> {
    let c = chars[i];
    let col = i + 1;
    let next = chars.get(i + 1).copied();
    match c {
        '(' => Ok((TokenKind::LParen, i + 1)),
        ')' => Ok((TokenKind::RParen, i + 1)),
        '&' if next == Some('&') => Ok((TokenKind::And, i + 2)),
        '|' if next == Some('|') => Ok((TokenKind::Or, i + 2)),
        '&' | '|' => Err(err(
            col,
            format!("`{c}` alone is not an operator"),
            Some(format!("write `{c}{c}`")),
        )),
        '=' | '!' => equality(chars, i),
        '<' | '>' => {
            let eq = next == Some('=');
            let op = match (c, eq) {
                ('<', false) => CmpOp::Lt,
                ('<', true) => CmpOp::Le,
                ('>', false) => CmpOp::Gt,
                _ => CmpOp::Ge,
            };
            Ok((TokenKind::Cmp(op), i + 1 + usize::from(eq)))
        }
        '{' => var_name(chars, i).map(|(name, end)| (TokenKind::Var(name), end)),
        '}' => Err(err(
            col,
            "`}` without a matching `{`".into(),
            Some("variables are written `{NAME}`".into()),
        )),
        '\'' | '"' => string(chars, i).map(|(pieces, end)| (TokenKind::Str(pieces), end)),
        c if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
            number(chars, i)
        }
        c if c.is_alphanumeric() || c == '_' => word(chars, i),
        c => {
            let help = look_alike(c).map(|ascii| {
                format!("`{c}` is full-width or typographic punctuation; type the ASCII `{ascii}`")
            });
            Err(err(col, format!("unexpected character `{c}`"), help))
        }
    }
}

/// `==`, `===`, `!=`, `!==` or `!` at `i` (a lone `=` assigns: refused).
fn equality(chars: &[char], i: usize) -> Result<(TokenKind, usize), ConditionError> {
    let c = chars[i];
    let eq1 = chars.get(i + 1) == Some(&'=');
    let eq2 = eq1 && chars.get(i + 2) == Some(&'=');
    let (kind, len) = match (c, eq1, eq2) {
        ('=', true, true) => (TokenKind::Cmp(CmpOp::StrictEq), 3),
        ('=', true, false) => (TokenKind::Cmp(CmpOp::Eq), 2),
        ('=', false, _) => {
            return Err(err(
                i + 1,
                "`=` assigns; conditions compare".into(),
                Some("use `==` or `===`".into()),
            ));
        }
        ('!', true, true) => (TokenKind::Cmp(CmpOp::StrictNe), 3),
        ('!', true, false) => (TokenKind::Cmp(CmpOp::Ne), 2),
        _ => (TokenKind::Not, 1),
    };
    Ok((kind, i + len))
}

/// A number at `i`, as JavaScript reads it.
fn number(chars: &[char], start: usize) -> Result<(TokenKind, usize), ConditionError> {
    let mut i = start;
    while i < chars.len()
        && (chars[i].is_ascii_alphanumeric()
            || chars[i] == '.'
            || (matches!(chars[i], '+' | '-') && matches!(chars[i - 1], 'e' | 'E')))
    {
        i += 1;
    }
    let text: String = chars[start..i].iter().collect();
    let n = string_to_number(&text);
    if n.is_nan() {
        return Err(err(start + 1, format!("`{text}` is not a number"), None));
    }
    Ok((TokenKind::Num(n), i))
}

/// A word at `i`: `true`, `false`, `null`, `undefined`, `Infinity`; the
/// English operators and bare words are refused with the fix.
fn word(chars: &[char], start: usize) -> Result<(TokenKind, usize), ConditionError> {
    let mut i = start;
    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    let word: String = chars[start..i].iter().collect();
    let col = start + 1;
    let operator = |fix: &str| {
        Err(err(
            col,
            format!("`{word}` is not an operator"),
            Some(format!("use `{fix}`")),
        ))
    };
    let kind = match word.as_str() {
        "true" => TokenKind::True,
        "false" => TokenKind::False,
        "null" | "undefined" => TokenKind::Null,
        "Infinity" => TokenKind::Num(f64::INFINITY),
        "contains" => TokenKind::Cmp(CmpOp::Contains),
        "and" | "AND" => return operator("&&"),
        "or" | "OR" => return operator("||"),
        "not" | "NOT" => return operator("!"),
        _ => {
            return Err(err(
                col,
                format!("bare word `{word}`"),
                Some(format!(
                    "quote text as '{word}', or write a variable as {{{word}}}"
                )),
            ));
        }
    };
    Ok((kind, i))
}

/// `{NAME}` starting at `i`; returns the name and the index after `}`.
fn var_name(chars: &[char], i: usize) -> Result<(String, usize), ConditionError> {
    let mut j = i + 1;
    while j < chars.len() && chars[j] != '}' {
        if matches!(chars[j], '{' | '\'' | '"') || look_alike(chars[j]) == Some("}") {
            break;
        }
        j += 1;
    }
    if chars.get(j) != Some(&'}') {
        let help = if chars.get(j).is_some_and(|&c| look_alike(c) == Some("}")) {
            "close it with the ASCII `}`, not the full-width `｝`"
        } else {
            "close the variable with `}`"
        };
        return Err(err(i + 1, "unclosed `{`".into(), Some(help.into())));
    }
    let name: String = chars[i + 1..j]
        .iter()
        .collect::<String>()
        .trim()
        .to_string();
    if name.is_empty() {
        return Err(err(i + 1, "empty variable name `{}`".into(), None));
    }
    Ok((name, j + 1))
}

/// A quoted string starting at `i` (with `\` escapes and `{NAME}` pieces).
fn string(chars: &[char], i: usize) -> Result<(Vec<Piece>, usize), ConditionError> {
    let quote = chars[i];
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            c if c == quote => {
                if !text.is_empty() || pieces.is_empty() {
                    pieces.push(Piece::Text(text));
                }
                return Ok((pieces, j + 1));
            }
            '\\' if j + 1 < chars.len() => {
                text.push(match chars[j + 1] {
                    'n' => '\n',
                    't' => '\t',
                    c => c,
                });
                j += 2;
            }
            '{' => {
                let (name, end) = var_name(chars, j)?;
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Var(name));
                j = end;
            }
            c => {
                text.push(c);
                j += 1;
            }
        }
    }
    Err(err(
        i + 1,
        "unterminated string".into(),
        Some(format!("close it with {quote}")),
    ))
}
