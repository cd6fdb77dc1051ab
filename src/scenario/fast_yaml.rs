//! A fast path for YAML that is well formed and plainly written: values are
//! deserialized straight from the events of granit-parser (the parser that
//! serde-saphyr itself runs on), for the shapes our files use.
//!
//! Why: serde-saphyr's own event layer (anchor replay, budgets, comments,
//! includes, error context) costs as much again as the parse itself, and a
//! script folder of 100 files has a 100 ms budget.
//!
//! It must never read a file differently from serde-saphyr, so it *declines*
//! (returns `None`) wherever it is not sure to: anchors, aliases, tags, merge
//! keys, complex or duplicate keys, scalars whose type YAML could read more
//! than one way (`yes`, `0x10`, `1_000`, `.inf` …), and every error. The caller
//! then parses with serde-saphyr, which gives the same value or reports the
//! problem with its line, column and field. The tests compare both on every
//! YAML file of the repository and on edge cases.

use std::borrow::Cow;

use granit_parser::{Event, Parser, ScalarStyle, Span, StrInput};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};

/// `Some(value)` when the fast path read `text` exactly as serde-saphyr
/// would; `None` when it declined (see the module docs).
pub(super) fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    let mut r = Reader::new(text);
    r.expect_outer(OuterKind::StreamStart)?;
    r.expect_outer(OuterKind::DocumentStart)?;
    let value = T::deserialize(&mut r).ok()?;
    r.expect_outer(OuterKind::DocumentEnd)?;
    r.expect_outer(OuterKind::StreamEnd)?;
    r.parser.next_event().is_none().then_some(value)
}

/// The fast path's only error: "let serde-saphyr do it".
#[derive(Debug)]
struct Decline;

impl std::fmt::Display for Decline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the fast YAML path declined")
    }
}

impl std::error::Error for Decline {}

impl de::Error for Decline {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Decline
    }
}

type Result<T> = std::result::Result<T, Decline>;

/// Where a node starts, as serde-saphyr's `Location` records it.
#[derive(Clone, Copy)]
struct At {
    line: u32,
    column: u32,
    offset: u64,
    len: u64,
    bytes: (u64, u64),
}

impl At {
    fn of(span: &Span) -> Result<At> {
        let (start, end) = (&span.start, &span.end);
        let (Some(b0), Some(b1)) = (start.byte_offset(), end.byte_offset()) else {
            return Err(Decline);
        };
        Ok(At {
            line: u32::try_from(start.line()).map_err(|_| Decline)?,
            column: u32::try_from(start.col() + 1).map_err(|_| Decline)?,
            offset: start.index() as u64,
            len: end.index().saturating_sub(start.index()) as u64,
            bytes: (b0 as u64, b1.saturating_sub(b0) as u64),
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    SeqStart,
    SeqEnd,
    MapStart,
    MapEnd,
}

/// One node event, small enough to move around freely.
struct Node<'a> {
    kind: Kind,
    /// A scalar's text (empty for the others).
    text: Cow<'a, str>,
    /// Whether a scalar is plain (unquoted, not a block scalar): only plain
    /// scalars can be null, a boolean or a number.
    plain: bool,
    at: At,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OuterKind {
    StreamStart,
    DocumentStart,
    DocumentEnd,
    StreamEnd,
}

/// Nesting beyond this declines (serde-saphyr has its own limits).
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    parser: Parser<'a, StrInput<'a>>,
    peeked: Option<Node<'a>>,
    depth: usize,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Self {
        // The parser limits serde-saphyr sets from its default budget.
        let budget = serde_saphyr::Budget::default();
        let mut options = granit_parser::Options::default();
        options.simple_key_max_lookahead = budget.simple_key_max_lookahead;
        options.flow_nesting_limit = budget.flow_nesting_limit;
        options.block_nesting_limit = options
            .block_nesting_limit
            .max(budget.max_depth.saturating_add(1));
        options.emit_comments = false;
        options.strict_indentation = false;
        Reader {
            parser: Parser::new_from_str_with_options(text, options),
            peeked: None,
            depth: 0,
        }
    }

    fn expect_outer(&mut self, want: OuterKind) -> Option<()> {
        let (ev, _) = self.parser.next_event()?.ok()?;
        let got = match ev {
            Event::StreamStart => OuterKind::StreamStart,
            Event::DocumentStart(..) => OuterKind::DocumentStart,
            Event::DocumentEnd => OuterKind::DocumentEnd,
            Event::StreamEnd => OuterKind::StreamEnd,
            _ => return None,
        };
        (got == want).then_some(())
    }

    fn peek(&mut self) -> Result<&Node<'a>> {
        if self.peeked.is_none() {
            let node = self.read()?;
            self.peeked = Some(node);
        }
        self.peeked.as_ref().ok_or(Decline)
    }

    fn next(&mut self) -> Result<Node<'a>> {
        match self.peeked.take() {
            Some(n) => Ok(n),
            None => self.read(),
        }
    }

    /// The next node event; anything else (an alias, an anchor, a tag, the
    /// end of the document, a parse error) declines.
    fn read(&mut self) -> Result<Node<'a>> {
        let (ev, span) = self
            .parser
            .next_event()
            .ok_or(Decline)?
            .map_err(|_| Decline)?;
        let at = At::of(&span)?;
        let (kind, text, plain) = match ev {
            Event::Scalar(text, style, 0, None) => {
                (Kind::Scalar, text, style == ScalarStyle::Plain)
            }
            Event::SequenceStart(_, 0, None) => (Kind::SeqStart, Cow::Borrowed(""), false),
            Event::SequenceEnd => (Kind::SeqEnd, Cow::Borrowed(""), false),
            Event::MappingStart(_, 0, None) => (Kind::MapStart, Cow::Borrowed(""), false),
            Event::MappingEnd => (Kind::MapEnd, Cow::Borrowed(""), false),
            _ => return Err(Decline),
        };
        Ok(Node {
            kind,
            text,
            plain,
            at,
        })
    }

    fn scalar(&mut self) -> Result<Node<'a>> {
        let n = self.next()?;
        if n.kind == Kind::Scalar {
            Ok(n)
        } else {
            Err(Decline)
        }
    }

    /// A sequence or a mapping: `open`, what `visit` reads, then `close`.
    fn collection<T>(
        &mut self,
        open: Kind,
        close: Kind,
        visit: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.next()?.kind != open {
            return Err(Decline);
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Decline);
        }
        let value = visit(self)?;
        // A visitor may stop early (a tuple): what follows must be the end.
        if self.next()?.kind != close {
            return Err(Decline);
        }
        self.depth -= 1;
        Ok(value)
    }
}

/// What serde-saphyr would make of a plain scalar where any type may come.
enum Plain {
    Null,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Text,
    /// YAML could read it another way (a YAML 1.1 boolean, a radix, an
    /// underscore, a float, `.inf` …): decline.
    Unsure,
}

fn nullish(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

fn classify(s: &str) -> Plain {
    if nullish(s) {
        return Plain::Null;
    }
    match s {
        "true" => return Plain::Bool(true),
        "false" => return Plain::Bool(false),
        _ => {}
    }
    const WORDS: [&str; 11] = [
        "true", "false", "yes", "no", "y", "n", "on", "off", "inf", "infinity", "nan",
    ];
    if WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return Plain::Unsure;
    }
    let Some(first) = s.bytes().next() else {
        return Plain::Null;
    };
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return Plain::Text;
    }
    // No reading of YAML makes a number of text with other characters
    // (`./pics/a.png`, `5 apples`).
    let numeric_chars =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-' | b':');
    if !s.bytes().all(numeric_chars) {
        return Plain::Text;
    }
    if !is_decimal_int(s) {
        return Plain::Unsure;
    }
    match s.strip_prefix('-') {
        Some(_) => s.parse().map_or(Plain::Unsure, Plain::Signed),
        None => s.parse().map_or(Plain::Unsure, Plain::Unsigned),
    }
}

/// `0`, `42`, `-7`: no sign `+`, no leading zero, no `-0`.
fn is_decimal_int(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    ok && s != "-0"
}

/// `1`, `-2.5`, `3e8`, `0.25E-3`: a float both parsers read the same way.
fn is_decimal_float(s: &str) -> bool {
    let rest = s.strip_prefix('-').unwrap_or(s);
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    digits(int)
        && (int == "0" || !int.starts_with('0'))
        && frac.is_none_or(digits)
        && exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

fn visit_text<'de, V: Visitor<'de>>(text: Cow<'de, str>, visitor: V) -> Result<V::Value> {
    match text {
        Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
        Cow::Owned(s) => visitor.visit_string(s),
    }
}

/// A finite float written plainly in decimal (`1e999` declines).
fn float<T: std::str::FromStr + Into<f64> + Copy>(n: &Node<'_>) -> Result<T> {
    if !(n.plain && is_decimal_float(&n.text)) {
        return Err(Decline);
    }
    let v: T = n.text.parse().map_err(|_| Decline)?;
    if v.into().is_finite() {
        Ok(v)
    } else {
        Err(Decline)
    }
}

impl<'de> Deserializer<'de> for &mut Reader<'de> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek()?.kind {
            Kind::SeqStart => self.deserialize_seq(visitor),
            Kind::MapStart => self.deserialize_map(visitor),
            Kind::SeqEnd | Kind::MapEnd => Err(Decline),
            Kind::Scalar => {
                let n = self.scalar()?;
                if !n.plain {
                    return visit_text(n.text, visitor);
                }
                match classify(&n.text) {
                    Plain::Null => visitor.visit_unit(),
                    Plain::Bool(b) => visitor.visit_bool(b),
                    Plain::Unsigned(u) => visitor.visit_u64(u),
                    Plain::Signed(i) => visitor.visit_i64(i),
                    Plain::Text => visit_text(n.text, visitor),
                    Plain::Unsure => Err(Decline),
                }
            }
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.scalar()?;
        match (n.plain, n.text.as_ref()) {
            (true, "true") => visitor.visit_bool(true),
            (true, "false") => visitor.visit_bool(false),
            _ => Err(Decline),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f32(float(&self.scalar()?)?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(float(&self.scalar()?)?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Any scalar but null reads as text into a string, as in serde-saphyr.
        let n = self.scalar()?;
        if n.plain && nullish(&n.text) {
            return Err(Decline);
        }
        visit_text(n.text, visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.peek()?;
        if n.kind == Kind::Scalar && n.plain && nullish(&n.text) {
            self.next()?;
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.scalar()?;
        if n.plain && nullish(&n.text) {
            visitor.visit_unit()
        } else {
            Err(Decline)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == SPANNED_NEWTYPE {
            let at = self.peek()?.at;
            return visitor.visit_newtype_struct(SpannedDe { reader: self, at });
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.collection(Kind::SeqStart, Kind::SeqEnd, |reader| {
            visitor.visit_seq(Seq { reader })
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.collection(Kind::MapStart, Kind::MapEnd, |reader| {
            visitor.visit_map(Map {
                reader,
                seen: Vec::new(),
            })
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // Unit variants only (`type: AI`); others decline.
        let n = self.scalar()?;
        if n.plain && nullish(&n.text) {
            return Err(Decline);
        }
        match n.text {
            Cow::Borrowed(s) => {
                visitor.visit_enum(de::value::BorrowedStrDeserializer::<Decline>::new(s))
            }
            Cow::Owned(s) => visitor.visit_enum(s.into_deserializer()),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    // Bytes are base64 (`!!binary`) or sequences in serde-saphyr: its own.
    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Decline)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Decline)
    }

    // Integers: `deserialize_any` visits plain decimal integers as such and
    // anything else as what it is, which an integer refuses.
    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 char tuple tuple_struct
    }
}

struct Seq<'r, 'de> {
    reader: &'r mut Reader<'de>,
}

impl<'de> SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.reader.peek()?.kind == Kind::SeqEnd {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

struct Map<'r, 'de> {
    reader: &'r mut Reader<'de>,
    /// Hashes of the keys so far: a repeated key declines (serde-saphyr
    /// refuses it, while a map or a struct that ignores unknown keys would not).
    seen: Vec<u64>,
}

/// FNV-1a: a collision only costs a needless decline.
fn key_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl<'de> MapAccess<'de> for Map<'_, 'de> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let n = self.reader.peek()?;
        match n.kind {
            Kind::MapEnd => return Ok(None),
            Kind::Scalar => {}
            _ => return Err(Decline),
        }
        // Plain keys that are not plain text (`1:`, `~:`, `yes:`) and merge
        // keys are left to serde-saphyr.
        if n.text == "<<" || (n.plain && !matches!(classify(&n.text), Plain::Text)) {
            return Err(Decline);
        }
        let h = key_hash(&n.text);
        if self.seen.contains(&h) {
            return Err(Decline);
        }
        self.seen.push(h);
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.reader)
    }
}

/// The newtype name `serde_saphyr::Spanned<T>` asks its deserializer for, and
/// the first key of the map it then expects (serde-saphyr's private protocol;
/// the tests catch a change, as every `Spanned` would differ).
const SPANNED_NEWTYPE: &str = "__yaml_spanned";
const SPANNED_MARKER: &str = "__serde_saphyr_private_spanned";

/// `Spanned<T>`: `{marker: true, value: T, referenced: At, defined: At}`.
/// Without aliases, where a value is used is where it is defined.
struct SpannedDe<'r, 'de> {
    reader: &'r mut Reader<'de>,
    at: At,
}

impl<'de> Deserializer<'de> for SpannedDe<'_, 'de> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(SpannedFields {
            reader: self.reader,
            at: self.at,
            state: 0,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct SpannedFields<'r, 'de> {
    reader: &'r mut Reader<'de>,
    at: At,
    state: u8,
}

impl<'de> MapAccess<'de> for SpannedFields<'_, 'de> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let key = match self.state {
            0 => SPANNED_MARKER,
            1 => "value",
            2 => "referenced",
            3 => "defined",
            _ => return Ok(None),
        };
        self.state += 1;
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.state {
            1 => seed.deserialize(true.into_deserializer()),
            2 => seed.deserialize(&mut *self.reader),
            3 | 4 => seed.deserialize(MadeFields::location(self.at)),
            _ => Err(Decline),
        }
    }
}

/// A value of a struct the fast path makes up for serde-saphyr's types.
#[derive(Clone, Copy)]
enum Made {
    U32(u32),
    U64(u64),
    /// A `Span` of this node.
    Span(At),
    /// `(byte_offset, byte_len)`.
    Pair(u64, u64),
}

/// A made-up struct: its fields in order, as a map.
struct MadeFields {
    fields: [(&'static str, Made); 4],
    len: usize,
    next: usize,
}

impl MadeFields {
    /// `Location {line, column, span, source_id}`.
    fn location(at: At) -> Self {
        MadeFields {
            fields: [
                ("line", Made::U32(at.line)),
                ("column", Made::U32(at.column)),
                ("span", Made::Span(at)),
                ("source_id", Made::U32(0)),
            ],
            len: 4,
            next: 0,
        }
    }

    /// `Span {offset, len, byte_info}` (characters, then bytes).
    fn span(at: At) -> Self {
        MadeFields {
            fields: [
                ("offset", Made::U64(at.offset)),
                ("len", Made::U64(at.len)),
                ("byte_info", Made::Pair(at.bytes.0, at.bytes.1)),
                ("", Made::U32(0)),
            ],
            len: 3,
            next: 0,
        }
    }
}

impl<'de> MapAccess<'de> for MadeFields {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.next == self.len {
            return Ok(None);
        }
        self.next += 1;
        let key = self.fields[self.next - 1].0;
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (_, value) = *self.fields.get(self.next.wrapping_sub(1)).ok_or(Decline)?;
        match value {
            Made::U32(v) => seed.deserialize(v.into_deserializer()),
            Made::U64(v) => seed.deserialize(v.into_deserializer()),
            Made::Span(at) => seed.deserialize(MadeFields::span(at)),
            Made::Pair(a, b) => {
                seed.deserialize(de::value::SeqDeserializer::new([a, b].into_iter()))
            }
        }
    }
}

impl<'de> Deserializer<'de> for MadeFields {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fmt::Debug;
    use std::path::Path;

    use serde::Deserialize;
    use serde_saphyr::Spanned;

    use super::*;
    use crate::scenario::spec;
    use crate::script::format::{Document, Timing};
    use crate::script::load::split_documents;

    /// Whether the fast path read `text`; when it did, serde-saphyr must give
    /// the very same value (spans included, through `Debug`).
    fn agrees<T: DeserializeOwned + Debug>(text: &str) -> bool {
        let Some(fast) = from_str::<T>(text) else {
            return false;
        };
        match serde_saphyr::from_str::<T>(text) {
            Ok(reference) => assert_eq!(
                format!("{fast:?}"),
                format!("{reference:?}"),
                "the fast path read {text:?} differently"
            ),
            Err(e) => panic!("the fast path accepted {text:?}, serde-saphyr refuses it: {e}"),
        }
        true
    }

    fn yaml_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_yaml_file_of_the_repository_reads_the_same_both_ways() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        yaml_files(&root.join("scenarios"), &mut files);
        yaml_files(&root.join("tests"), &mut files);
        assert!(files.len() >= 15, "{files:?}");
        let mut declined = Vec::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let shipped = path.starts_with(root.join("scenarios"));
            let name = path.file_name().unwrap().to_str().unwrap();
            let in_scripts = path.components().any(|c| c.as_os_str() == "scripts");
            let used = if in_scripts {
                split_documents(&text).iter().all(|(_, doc)| {
                    agrees::<serde_json::Value>(doc);
                    agrees::<Document>(doc)
                })
            } else {
                let typed = match name {
                    "town.yaml" => agrees::<spec::TownFile>(&text),
                    "locations.yaml" => agrees::<spec::LocationsFile>(&text),
                    "residents.yaml" => agrees::<spec::ResidentsFile>(&text),
                    "tuning.yaml" => agrees::<spec::Tuning>(&text),
                    _ => panic!("an unknown YAML file: {}", path.display()),
                };
                agrees::<serde_json::Value>(&text);
                typed
            };
            if shipped && !used {
                declined.push(path.display().to_string());
            }
        }
        // The shipped files are what the fast path is for: it must read them.
        assert!(declined.is_empty(), "declined: {declined:?}");
    }

    /// Seeded random edits of the shipped files (a character replaced by
    /// YAML punctuation or a look-alike, deleted, or a line repeated): each
    /// broken or odd variant must be read the same way, or declined.
    #[test]
    fn mutated_files_read_the_same_or_are_declined() {
        use rand::{RngExt, SeedableRng};
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut files = Vec::new();
        yaml_files(&root, &mut files);
        files.sort();
        const PIECES: [&str; 22] = [
            " ", ":", ": ", "- ", "\"", "'", "#", "&a ", "*a", "!", "|", ">", "0", "1.5", "yes",
            "~", "\n", "\t", "{", "[", "<<: ", "：",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let (mut read, mut tried) = (0, 0);
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let in_scripts = path.components().any(|c| c.as_os_str() == "scripts");
            let docs: Vec<String> = if in_scripts {
                split_documents(&text).into_iter().map(|(_, d)| d).collect()
            } else {
                vec![text]
            };
            for doc in docs {
                let chars: Vec<char> = doc.chars().collect();
                for _ in 0..60 {
                    let at = rng.random_range(0..chars.len());
                    let mut m: String = chars[..at].iter().collect();
                    match rng.random_range(0..3) {
                        0 => m.push_str(PIECES[rng.random_range(0..PIECES.len())]),
                        1 => {}
                        _ => {
                            let line_start = m.rfind('\n').map_or(0, |i| i + 1);
                            let line = m[line_start..].to_string();
                            m.push_str(&line);
                        }
                    }
                    m.extend(&chars[at + 1..]);
                    tried += 1;
                    let name = path.file_name().unwrap().to_str().unwrap();
                    let used = match name {
                        _ if in_scripts => agrees::<Document>(&m),
                        "town.yaml" => agrees::<spec::TownFile>(&m),
                        "locations.yaml" => agrees::<spec::LocationsFile>(&m),
                        "residents.yaml" => agrees::<spec::ResidentsFile>(&m),
                        _ => agrees::<spec::Tuning>(&m),
                    };
                    read += usize::from(used);
                }
            }
        }
        // Most single edits leave a file the fast path still reads.
        assert!(tried > 400 && read * 4 > tried, "read {read} of {tried}");
    }

    /// `a` of the type under test; `b` may come too, anything else may not.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read through `Debug`
    struct One<T> {
        a: T,
        #[serde(default)]
        b: Option<serde_json::Value>,
    }

    /// Every snippet under every target type: never a different reading.
    #[test]
    fn edge_cases_read_the_same_or_are_declined() {
        let snippets = [
            "a: 1",
            "a: -3",
            "a: 0",
            "a: -0",
            "a: 007",
            "a: 0x1F",
            "a: 0o17",
            "a: 1_000",
            "a: +5",
            "a: 1.5",
            "a: -2.5e3",
            "a: 1E-2",
            "a: .5",
            "a: 5.",
            "a: .inf",
            "a: -.INF",
            "a: .nan",
            "a: inf",
            "a: NaN",
            "a: 1e999",
            "a: 9999999999999999999999",
            "a: -9223372036854775808",
            "a: 300",
            "a: yes",
            "a: Yes",
            "a: on",
            "a: n",
            "a: true",
            "a: TRUE",
            "a: False",
            "a: null",
            "a: Null",
            "a: ~",
            "a:",
            "a: ''",
            "a: \"null\"",
            "a: 'true'",
            "a: \"5\"",
            "a: 12:30",
            "a: 2001-12-14",
            "a: =",
            "a: -abc",
            "a: ./pics/a.png",
            "a: 5 apples",
            "a: 1,5",
            "a: AI",
            "a: BEFORE_GOAL",
            "a: 你好：世界",
            "a: 你好\n  世界\n\n  再见\n",
            "a: |\n  line1\n  line2\n",
            "a: |+\n  kept\n\n",
            "a: >-\n  folded\n  text\n",
            "a: \"esc\\tape\\u00e9\"",
            "a: 'it''s'",
            "a: 'multi\n  line'",
            "a: [1, two, 3.0]",
            "a: [x, y]",
            "a: []",
            "a: {b: c}",
            "a: {}",
            "a:\n  - x\n  -\n",
            "a:\n- k: v\n- k2: v2\n",
            "a:\n  x: 1\n  y: two\n",
            "a:\n  1: x\n",
            "a:\n  ~: x\n",
            "a:\n  x: 1\n  x: 2\n",
            "a: 1\nb: 2",
            "a: 1\na: 2",
            "a: 1\nc: 2",
            "a: &x 1\nb: *x\n",
            "a: !!str 1",
            "a: !custom x",
            "<<: {a: 1}",
            "'<<': {a: 1}",
            "? [a]\n: b",
            "? a\n: b",
            "a: 1\r\nb: two\r\n",
            "a: 1 # note\n# line\nb: 2",
            "a: - b",
            "a: b: c",
            "a:\tb",
            "  a: 1\n b: 2",
            "",
            "# only a comment",
            "---\na: 1\n---\na: 2\n",
            "--- |\n  text\n",
            "a: [1, 2",
            "- a\n- b",
            "hello",
        ];
        let mut used = 0;
        for s in snippets {
            let results = [
                agrees::<serde_json::Value>(s),
                agrees::<One<String>>(s),
                agrees::<One<Option<String>>>(s),
                agrees::<One<bool>>(s),
                agrees::<One<i64>>(s),
                agrees::<One<u8>>(s),
                agrees::<One<f32>>(s),
                agrees::<One<f64>>(s),
                agrees::<One<Option<u32>>>(s),
                agrees::<One<Vec<serde_json::Value>>>(s),
                agrees::<One<Vec<String>>>(s),
                agrees::<One<BTreeMap<String, String>>>(s),
                agrees::<One<Vec<BTreeMap<String, String>>>>(s),
                agrees::<One<Spanned<String>>>(s),
                agrees::<One<Option<Box<Spanned<i64>>>>>(s),
                agrees::<One<Spanned<Timing>>>(s),
                agrees::<One<crate::script::format::RoleType>>(s),
                agrees::<One<()>>(s),
                agrees::<One<(String, String)>>(s),
                agrees::<String>(s),
                agrees::<Vec<String>>(s),
            ];
            used += results.iter().filter(|u| **u).count();
        }
        // Not a test that passes by declining everything.
        assert!(used > 100, "the fast path read only {used} cases");
    }

    #[test]
    fn it_reads_the_plain_cases_and_declines_the_rest() {
        assert_eq!(from_str::<One<i64>>("a: 42").map(|o| o.a), Some(42));
        assert_eq!(
            from_str::<One<String>>("a: 12").map(|o| o.a),
            Some("12".into())
        );
        assert_eq!(
            from_str::<One<Option<String>>>("a: ~").map(|o| o.a),
            Some(None)
        );
        let spanned = from_str::<One<Spanned<String>>>("b: 1\na:   '你好'\n").unwrap();
        assert_eq!(
            (spanned.a.referenced.line(), spanned.a.referenced.column()),
            (2, 6)
        );
        // Anchors, aliases, tags, merge keys, duplicates and ambiguous
        // scalars are serde-saphyr's.
        assert!(from_str::<serde_json::Value>("a: &x 1\nb: *x").is_none());
        assert!(from_str::<serde_json::Value>("a: !!str 1").is_none());
        assert!(from_str::<serde_json::Value>("<<: {a: 1}").is_none());
        assert!(from_str::<serde_json::Value>("a: 1\na: 2").is_none());
        assert!(from_str::<serde_json::Value>("a: yes").is_none());
        assert!(from_str::<One<bool>>("a: yes").is_none());
        assert!(from_str::<One<i64>>("a: 0x10").is_none());
        // Errors always go to serde-saphyr, which explains them.
        assert!(from_str::<One<String>>("a: [1, 2").is_none());
        assert!(from_str::<One<String>>("c: 1").is_none());
        assert!(from_str::<One<u8>>("a: 300").is_none());
    }
}
