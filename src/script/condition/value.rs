//! Values as JavaScript sees them: truthiness, loose and strict equality,
//! ordering, and the conversion of text to numbers.

use std::fmt;

/// A value as JavaScript sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// No such variable.
    Undefined,
    /// A variable declared with no value, or `null`.
    Null,
    /// `true`, `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// Text.
    Str(String),
    /// A list variable (its items' text), compared as JavaScript compares an array: by its joined text.
    List(Vec<String>),
}

impl Value {
    /// Whether JavaScript's `if` takes it as true.
    pub(crate) fn truthy(&self) -> bool {
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
    pub(super) fn to_number(&self) -> f64 {
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
    /// `contains`: text holding the other's text, a list holding it as an
    /// item; nothing else contains anything.
    pub(crate) fn contains(&self, other: &Value) -> bool {
        let needle = other.to_string();
        match self {
            Value::Str(s) => s.contains(&needle),
            Value::List(items) => items.contains(&needle),
            _ => false,
        }
    }

    pub(crate) fn strict_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Num(a), Value::Num(b)) => a == b,
            // Two list values are never the same object.
            (Value::List(_), Value::List(_)) => false,
            (a, b) => a.type_tag() == b.type_tag() && a == b,
        }
    }

    /// `==` (the Abstract Equality Comparison).
    pub(crate) fn loose_eq(&self, other: &Value) -> bool {
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
    pub(super) fn less(&self, other: &Value, or_equal: bool) -> bool {
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
pub(super) fn string_to_number(s: &str) -> f64 {
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
