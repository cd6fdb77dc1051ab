//! HEART RULE conditions: the JavaScript-like subset the design allows —
//! `== === != !== > < >= <=`, `&& || !`, parentheses, string literals in single
//! or double quotes, numbers, `true false null`, and variable references
//! `{NAME}` — with JavaScript's loose and strict equality (values from users and
//! models are mostly strings, so `'5' == 5` must hold). Nothing else: no calls,
//! no assignment. Expressions are compiled once, at load; errors point at the
//! column inside the YAML scalar and suggest the usual fixes.

use std::fmt;

/// Longest condition accepted, in characters.
pub const MAX_LEN: usize = 2_000;
/// Deepest nesting of parentheses and `!`.
pub const MAX_DEPTH: usize = 32;

/// A value as JavaScript sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    /// A list variable (its items' text), compared as JavaScript compares an array: by its joined text.
    List(Vec<String>),
}

impl Value {
    pub fn truthy(&self) -> bool {
        match self {
            Value::Undefined | Value::Null => false,
            Value::Bool(b) => *b,
            Value::Num(n) => *n != 0.0 && !n.is_nan(),
            Value::Str(s) => !s.is_empty(),
            Value::List(_) => true,
        }
    }

    fn type_tag(&self) -> u8 {
        match self {
            Value::Undefined => 0,
            Value::Null => 1,
            Value::Bool(_) => 2,
            Value::Num(_) => 3,
            Value::Str(_) => 4,
            Value::List(_) => 5,
        }
    }

    /// JavaScript's ToNumber.
    fn to_number(&self) -> f64 {
        match self {
            Value::Undefined => f64::NAN,
            Value::Null => 0.0,
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Num(n) => *n,
            Value::Str(s) => string_to_number(s),
            Value::List(items) => string_to_number(&items.join(",")),
        }
    }

    /// JavaScript's ToPrimitive for lists (their joined text); others unchanged.
    fn primitive(&self) -> Value {
        match self {
            Value::List(items) => Value::Str(items.join(",")),
            v => v.clone(),
        }
    }

    /// `===`
    pub fn strict_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Num(a), Value::Num(b)) => a == b,
            // Two list values are never the same object.
            (Value::List(_), Value::List(_)) => false,
            (a, b) => a.type_tag() == b.type_tag() && a == b,
        }
    }

    /// `==` (the Abstract Equality Comparison).
    pub fn loose_eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (a, b) if a.type_tag() == b.type_tag() => a.strict_eq(b),
            (Undefined | Null, Undefined | Null) => true,
            (Undefined | Null, _) | (_, Undefined | Null) => false,
            (Num(a), Str(_)) => *a == other.to_number(),
            (Str(_), Num(b)) => self.to_number() == *b,
            (Bool(_), _) => Num(self.to_number()).loose_eq(other),
            (_, Bool(_)) => self.loose_eq(&Num(other.to_number())),
            (List(_), _) => self.primitive().loose_eq(other),
            (_, List(_)) => self.loose_eq(&other.primitive()),
            _ => false,
        }
    }

    /// `<` and friends: strings compare as text, anything else as numbers (NaN: false).
    fn less(&self, other: &Value, or_equal: bool) -> bool {
        let (a, b) = (self.primitive(), other.primitive());
        if let (Value::Str(x), Value::Str(y)) = (&a, &b) {
            // JavaScript compares UTF-16 code units; for the BMP text of scripts
            // that is the order of the characters.
            return if or_equal { x <= y } else { x < y };
        }
        let (x, y) = (a.to_number(), b.to_number());
        if or_equal { x <= y } else { x < y }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undefined => write!(f, "undefined"),
            Value::Null => write!(f, "null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Num(n) => write!(f, "{n}"),
            Value::Str(s) => write!(f, "{s}"),
            Value::List(items) => write!(f, "{}", items.join(",")),
        }
    }
}

/// JavaScript's StringToNumber: blank is 0, decimal and 0x/0o/0b literals and
/// `Infinity`; anything else is NaN.
fn string_to_number(s: &str) -> f64 {
    let t = s.trim();
    if t.is_empty() {
        return 0.0;
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            return u64::from_str_radix(digits, radix).map_or(f64::NAN, |v| v as f64);
        }
    }
    // Digits, one dot, an exponent: nothing Rust accepts beyond JavaScript (no "inf", "nan").
    let ok = !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.');
    if !ok {
        return f64::NAN;
    }
    body.parse::<f64>().map_or(f64::NAN, |v| sign * v)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    StrictEq,
    Ne,
    StrictNe,
    Lt,
    Gt,
    Le,
    Ge,
}

impl CmpOp {
    fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::StrictEq => "===",
            CmpOp::Ne => "!=",
            CmpOp::StrictNe => "!==",
            CmpOp::Lt => "<",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
            CmpOp::Ge => ">=",
        }
    }
}

/// A piece of a string literal: text, or `{NAME}` interpolated when evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Var(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    /// A string literal with `{NAME}` inside.
    Template(Vec<Piece>),
    Var(String),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
}

/// A compiled condition.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub source: String,
    pub expr: Expr,
}

/// Why a condition does not parse: `column` is 1-based, in characters of the condition text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionError {
    pub column: usize,
    pub message: String,
    pub help: Option<String>,
}

impl fmt::Display for ConditionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)?;
        if let Some(h) = &self.help {
            write!(f, " (help: {h})")?;
        }
        Ok(())
    }
}

impl Condition {
    pub fn parse(source: &str) -> Result<Condition, ConditionError> {
        let chars: Vec<char> = source.chars().collect();
        if chars.len() > MAX_LEN {
            return Err(err(
                MAX_LEN,
                format!("condition longer than {MAX_LEN} characters"),
                Some("split it over several actions".into()),
            ));
        }
        let tokens = lex(&chars)?;
        let mut p = Parser {
            tokens: &tokens,
            at: 0,
            depth: 0,
            end: chars.len() + 1,
        };
        if tokens.is_empty() {
            return Err(err(1, "empty condition".into(), None));
        }
        let expr = p.or()?;
        if let Some(t) = p.peek() {
            return Err(err(
                t.col,
                format!(
                    "unexpected {} after a complete condition",
                    t.kind.describe()
                ),
                Some("join conditions with && or ||".into()),
            ));
        }
        Ok(Condition {
            source: source.to_string(),
            expr,
        })
    }

    /// Evaluates with `lookup` giving each variable's value.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Value) -> bool {
        eval(&self.expr, lookup).truthy()
    }

    /// Every variable the condition reads, in order of appearance (repeats removed).
    pub fn variables(&self) -> Vec<&str> {
        let mut out = Vec::new();
        walk(&self.expr, &mut |e| match e {
            Expr::Var(v) => out.push(v.as_str()),
            Expr::Template(pieces) => {
                for p in pieces {
                    if let Piece::Var(v) = p {
                        out.push(v.as_str());
                    }
                }
            }
            _ => {}
        });
        let mut seen = std::collections::HashSet::new();
        out.retain(|v| seen.insert(*v));
        out
    }

    /// `{VAR} == 'literal'` comparisons (either side, any equality), for checking
    /// a `user_option` variable against its choice keys.
    pub fn compared_literals(&self) -> Vec<(&str, String)> {
        let mut out = Vec::new();
        walk(&self.expr, &mut |e| {
            if let Expr::Cmp(op, a, b) = e
                && matches!(
                    op,
                    CmpOp::Eq | CmpOp::StrictEq | CmpOp::Ne | CmpOp::StrictNe
                )
            {
                match (&**a, &**b) {
                    (Expr::Var(v), Expr::Lit(Value::Str(s)))
                    | (Expr::Lit(Value::Str(s)), Expr::Var(v)) => out.push((v.as_str(), s.clone())),
                    _ => {}
                }
            }
        });
        out
    }
}

fn walk<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match e {
        Expr::Not(x) => walk(x, f),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Cmp(_, a, b) => {
            walk(a, f);
            walk(b, f);
        }
        _ => {}
    }
}

fn eval(e: &Expr, lookup: &dyn Fn(&str) -> Value) -> Value {
    match e {
        Expr::Lit(v) => v.clone(),
        Expr::Var(name) => lookup(name),
        Expr::Template(pieces) => {
            let mut s = String::new();
            for p in pieces {
                match p {
                    Piece::Text(t) => s.push_str(t),
                    Piece::Var(v) => s.push_str(&lookup(v).to_string()),
                }
            }
            Value::Str(s)
        }
        Expr::Not(x) => Value::Bool(!eval(x, lookup).truthy()),
        // JavaScript's && and || yield an operand, not a boolean.
        Expr::And(a, b) => {
            let l = eval(a, lookup);
            if l.truthy() { eval(b, lookup) } else { l }
        }
        Expr::Or(a, b) => {
            let l = eval(a, lookup);
            if l.truthy() { l } else { eval(b, lookup) }
        }
        Expr::Cmp(op, a, b) => {
            let (l, r) = (eval(a, lookup), eval(b, lookup));
            Value::Bool(match op {
                CmpOp::Eq => l.loose_eq(&r),
                CmpOp::Ne => !l.loose_eq(&r),
                CmpOp::StrictEq => l.strict_eq(&r),
                CmpOp::StrictNe => !l.strict_eq(&r),
                CmpOp::Lt => l.less(&r, false),
                CmpOp::Le => l.less(&r, true),
                CmpOp::Gt => r.less(&l, false),
                CmpOp::Ge => r.less(&l, true),
            })
        }
    }
}

fn err(column: usize, message: String, help: Option<String>) -> ConditionError {
    ConditionError {
        column,
        message,
        help,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum TokenKind {
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
    fn describe(&self) -> String {
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
struct Token {
    kind: TokenKind,
    /// 1-based column of its first character.
    col: usize,
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

fn lex(chars: &[char]) -> Result<Vec<Token>, ConditionError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        let next = chars.get(i + 1).copied();
        let push = |out: &mut Vec<Token>, kind| out.push(Token { kind, col });
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                push(&mut out, TokenKind::LParen);
                i += 1;
            }
            ')' => {
                push(&mut out, TokenKind::RParen);
                i += 1;
            }
            '&' if next == Some('&') => {
                push(&mut out, TokenKind::And);
                i += 2;
            }
            '|' if next == Some('|') => {
                push(&mut out, TokenKind::Or);
                i += 2;
            }
            '&' | '|' => {
                return Err(err(
                    col,
                    format!("`{c}` alone is not an operator"),
                    Some(format!("write `{c}{c}`")),
                ));
            }
            '=' | '!' => {
                let eq1 = next == Some('=');
                let eq2 = eq1 && chars.get(i + 2) == Some(&'=');
                let (kind, len) = match (c, eq1, eq2) {
                    ('=', true, true) => (TokenKind::Cmp(CmpOp::StrictEq), 3),
                    ('=', true, false) => (TokenKind::Cmp(CmpOp::Eq), 2),
                    ('=', false, _) => {
                        return Err(err(
                            col,
                            "`=` assigns; conditions compare".into(),
                            Some("use `==` or `===`".into()),
                        ));
                    }
                    ('!', true, true) => (TokenKind::Cmp(CmpOp::StrictNe), 3),
                    ('!', true, false) => (TokenKind::Cmp(CmpOp::Ne), 2),
                    _ => (TokenKind::Not, 1),
                };
                push(&mut out, kind);
                i += len;
            }
            '<' | '>' => {
                let eq = next == Some('=');
                let op = match (c, eq) {
                    ('<', false) => CmpOp::Lt,
                    ('<', true) => CmpOp::Le,
                    ('>', false) => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                push(&mut out, TokenKind::Cmp(op));
                i += 1 + usize::from(eq);
            }
            '{' => {
                let (name, end) = var_name(chars, i)?;
                push(&mut out, TokenKind::Var(name));
                i = end;
            }
            '}' => {
                return Err(err(
                    col,
                    "`}` without a matching `{`".into(),
                    Some("variables are written `{NAME}`".into()),
                ));
            }
            '\'' | '"' => {
                let (pieces, end) = string(chars, i)?;
                push(&mut out, TokenKind::Str(pieces));
                i = end;
            }
            c if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
                let start = i;
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
                    return Err(err(col, format!("`{text}` is not a number"), None));
                }
                push(&mut out, TokenKind::Num(n));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let kind = match word.as_str() {
                    "true" => TokenKind::True,
                    "false" => TokenKind::False,
                    "null" | "undefined" => TokenKind::Null,
                    "Infinity" => TokenKind::Num(f64::INFINITY),
                    "and" | "AND" => {
                        return Err(err(
                            col,
                            format!("`{word}` is not an operator"),
                            Some("use `&&`".into()),
                        ));
                    }
                    "or" | "OR" => {
                        return Err(err(
                            col,
                            format!("`{word}` is not an operator"),
                            Some("use `||`".into()),
                        ));
                    }
                    "not" | "NOT" => {
                        return Err(err(
                            col,
                            format!("`{word}` is not an operator"),
                            Some("use `!`".into()),
                        ));
                    }
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
                push(&mut out, kind);
            }
            c => {
                let help = look_alike(c).map(|ascii| {
                    format!(
                        "`{c}` is full-width or typographic punctuation; type the ASCII `{ascii}`"
                    )
                });
                return Err(err(col, format!("unexpected character `{c}`"), help));
            }
        }
    }
    Ok(out)
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

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    depth: usize,
    /// Column just past the end, for "expected … at the end" errors.
    end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn bump(&mut self) -> Option<&Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    fn deeper(&mut self, col: usize) -> Result<(), ConditionError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(err(col, format!("nested deeper than {MAX_DEPTH}"), None));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, ConditionError> {
        let mut left = self.and()?;
        while self.peek().is_some_and(|t| t.kind == TokenKind::Or) {
            self.bump();
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ConditionError> {
        let mut left = self.unary()?;
        while self.peek().is_some_and(|t| t.kind == TokenKind::And) {
            self.bump();
            let right = self.unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, ConditionError> {
        if let Some(t) = self.peek()
            && t.kind == TokenKind::Not
        {
            let col = t.col;
            self.bump();
            self.deeper(col)?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, ConditionError> {
        let left = self.primary()?;
        let Some(Token {
            kind: TokenKind::Cmp(op),
            ..
        }) = self.peek().cloned()
        else {
            return Ok(left);
        };
        self.bump();
        let right = self.primary()?;
        if let Some(t) = self.peek()
            && matches!(t.kind, TokenKind::Cmp(_))
        {
            return Err(err(
                t.col,
                "comparisons cannot be chained".into(),
                Some("compare two at a time and join them with &&".into()),
            ));
        }
        Ok(Expr::Cmp(op, Box::new(left), Box::new(right)))
    }

    fn primary(&mut self) -> Result<Expr, ConditionError> {
        let end = self.end;
        let Some(t) = self.bump().cloned() else {
            return Err(err(
                end,
                "the condition ends too early".into(),
                Some("something is missing after the last operator".into()),
            ));
        };
        Ok(match t.kind {
            TokenKind::LParen => {
                self.deeper(t.col)?;
                let inner = self.or()?;
                self.depth -= 1;
                match self.bump() {
                    Some(Token {
                        kind: TokenKind::RParen,
                        ..
                    }) => inner,
                    _ => {
                        return Err(err(
                            t.col,
                            "`(` is never closed".into(),
                            Some("add the matching `)`".into()),
                        ));
                    }
                }
            }
            TokenKind::Str(pieces) => match pieces.as_slice() {
                [Piece::Text(s)] => Expr::Lit(Value::Str(s.clone())),
                _ => Expr::Template(pieces),
            },
            TokenKind::Num(n) => Expr::Lit(Value::Num(n)),
            TokenKind::True => Expr::Lit(Value::Bool(true)),
            TokenKind::False => Expr::Lit(Value::Bool(false)),
            TokenKind::Null => Expr::Lit(Value::Null),
            TokenKind::Var(v) => Expr::Var(v),
            other => {
                return Err(err(
                    t.col,
                    format!("expected a value, found {}", other.describe()),
                    None,
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Value {
        match name {
            "用户选择" => Value::Str("A".into()),
            "是否已登录" => Value::Str(String::new()),
            "年龄" => Value::Str("15".into()),
            "分数" => Value::Num(7.0),
            "空" => Value::Null,
            "真" => Value::Bool(true),
            "家人" => Value::List(vec!["妈妈".into(), "爸爸".into()]),
            _ => Value::Undefined,
        }
    }

    fn check(src: &str) -> bool {
        Condition::parse(src)
            .unwrap_or_else(|e| panic!("{src}: {e}"))
            .eval(&vars)
    }

    #[test]
    fn every_operator() {
        for (src, want) in [
            ("{用户选择}=='A'", true),
            ("{用户选择}==\"A\"", true),
            ("{用户选择}==='A'", true),
            ("{用户选择}!='A'", false),
            ("{用户选择}!=='B'", true),
            ("{年龄}>12", true),
            ("{年龄}<12", false),
            ("{年龄}>=15", true),
            ("{年龄}<=14.5", false),
            ("{分数}>{年龄}", false),
            ("{用户选择}=='A' && !{是否已登录}", true),
            ("{用户选择}=='B' || {分数}==7", true),
            ("!({用户选择}=='A' && {分数}==7)", false),
            ("!!{用户选择}", true),
            ("{用户选择}=='A' && ({分数}<5 || {年龄}=='15')", true),
            ("true", true),
            ("false || null", false),
            ("'b' > 'a'", true),
            ("'10' < '9'", true),
            ("10 < 9", false),
            ("'10' < 9", false),
        ] {
            assert_eq!(check(src), want, "{src}");
        }
    }

    #[test]
    fn loose_and_strict_equality_follow_javascript() {
        for (src, want) in [
            ("'5' == 5", true),
            ("'5' === 5", false),
            ("5 === 5.0", true),
            ("'' == 0", true),
            ("' 12 ' == 12", true),
            ("'abc' == 0", false),
            ("'0x10' == 16", true),
            ("'1e3' == 1000", true),
            ("'inf' == Infinity", false),
            ("'Infinity' == Infinity", true),
            ("true == 1", true),
            ("true == '1'", true),
            ("true === 1", false),
            ("false == ''", true),
            ("'true' == true", false),
            ("null == {没有}", true),
            ("null === {没有}", false),
            ("{空} == 0", false),
            ("{空} == null", true),
            ("{真} == 'true'", false),
            ("{真} == 1", true),
            ("{家人} == '妈妈,爸爸'", true),
            ("{家人} === '妈妈,爸爸'", false),
            ("{没有} == ''", false),
        ] {
            assert_eq!(check(src), want, "{src}");
        }
    }

    #[test]
    fn truthiness_of_each_kind() {
        for (src, want) in [
            ("{没有}", false),
            ("{空}", false),
            ("{是否已登录}", false),
            ("{用户选择}", true),
            ("0", false),
            ("{分数}", true),
            ("{家人}", true),
            ("'0'", true),
        ] {
            assert_eq!(check(src), want, "{src}");
        }
    }

    #[test]
    fn strings_interpolate_variables() {
        assert!(check("'{用户选择}{分数}' === 'A7'"));
        assert!(check("\"选了{用户选择}\" == '选了A'"));
        assert!(check("'it\\'s' == \"it's\""));
        let c = Condition::parse("'{甲}-{乙}' == {丙} && {甲} != 'x'").unwrap();
        assert_eq!(c.variables(), ["甲", "乙", "丙"]);
    }

    #[test]
    fn compared_literals_feed_the_option_check() {
        let c = Condition::parse("{用户选择}=='A' || 'C' !== {用户选择} || {分数} > '3'").unwrap();
        assert_eq!(
            c.compared_literals(),
            [("用户选择", "A".to_string()), ("用户选择", "C".to_string())]
        );
    }

    fn error(src: &str) -> ConditionError {
        Condition::parse(src).expect_err(src)
    }

    #[test]
    fn bad_expressions_point_at_the_column_with_a_fix() {
        let e = error("{用户选择}='A'");
        assert_eq!(
            (e.column, e.message.as_str()),
            (7, "`=` assigns; conditions compare")
        );
        assert_eq!(e.help.as_deref(), Some("use `==` or `===`"));
        let e = error("｛用户选择｝=='A'");
        assert_eq!(e.column, 1);
        assert!(e.help.unwrap().contains("ASCII `{`"));
        let e = error("{用户选择}==“A”");
        assert_eq!(e.column, 9);
        assert!(e.help.unwrap().contains("ASCII `\"`"));
        let e = error("（{a}==1）");
        assert!(e.help.unwrap().contains("ASCII `(`"));
        let e = error("{用户选择}=='A' & {b}");
        assert_eq!((e.column, e.help.as_deref()), (13, Some("write `&&`")));
        let e = error("{用户选择}==A");
        assert_eq!(e.column, 9);
        assert!(e.help.unwrap().contains("'A'"));
        let e = error("{a} == 1 and {b} == 2");
        assert_eq!(e.help.as_deref(), Some("use `&&`"));
        let e = error("{a == 1");
        assert_eq!(e.column, 1);
        let e = error("{a}=='x");
        assert_eq!((e.column, e.message.as_str()), (6, "unterminated string"));
        let e = error("({a}==1");
        assert_eq!(e.message, "`(` is never closed");
        let e = error("{a}==1)");
        assert!(e.message.contains("unexpected `)`"));
        let e = error("{a}==");
        assert_eq!(
            (e.column, e.message.as_str()),
            (6, "the condition ends too early")
        );
        let e = error("1 < {a} < 3");
        assert_eq!(e.message, "comparisons cannot be chained");
        let e = error("{}==1");
        assert!(e.message.contains("empty variable"));
        assert_eq!(error("   ").message, "empty condition");
        assert!(error("f({a})").message.contains("bare word"));
        let deep = format!("{}1{}", "(".repeat(40), ")".repeat(40));
        assert!(error(&deep).message.contains("deeper"));
        assert!(error(&"1||".repeat(700)).message.contains("longer"));
    }
}
