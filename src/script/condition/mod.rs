//! HEART RULE conditions: the JavaScript-like subset the design allows —
//! `== === != !== > < >= <=`, `&& || !`, parentheses, string literals in single
//! or double quotes, numbers, `true false null`, and variable references
//! `{NAME}` — with JavaScript's loose and strict equality (values from users and
//! models are mostly strings, so `'5' == 5` must hold); and one word of our
//! own, `contains`: `{chat} contains '失眠'` holds when the text (or a list's
//! item) contains the other side, and `{chat}` is what was said in the
//! running goal. Nothing else: no calls, no assignment. Expressions are compiled once, at load; errors point at the
//! column inside the YAML scalar and suggest the usual fixes.

use std::fmt;

mod lex;
mod parse;
mod value;

use lex::lex;
use parse::Parser;
pub(crate) use value::Value;

/// Longest condition accepted, in characters.
pub(crate) const MAX_LEN: usize = 2_000;
/// Deepest nesting of parentheses and `!`.
pub(crate) const MAX_DEPTH: usize = 32;
/// The variable a condition reads for what was said in the running goal
/// (unless the script declares one of that name).
pub(crate) const CHAT: &str = "chat";
/// The variable a condition reads for the human's last answer (unless the
/// script declares one of that name).
pub(crate) const REPLY: &str = "reply";
/// The variable text and conditions read for a course's past sessions, one
/// line each (empty in a first session), unless the script declares one.
pub(crate) const HISTORY: &str = "history";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    StrictEq,
    Ne,
    StrictNe,
    Lt,
    Gt,
    Le,
    Ge,
    /// Text containing text, or a list containing an item.
    Contains,
}

impl CmpOp {
    pub(crate) fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::StrictEq => "===",
            CmpOp::Ne => "!=",
            CmpOp::StrictNe => "!==",
            CmpOp::Lt => "<",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
            CmpOp::Ge => ">=",
            CmpOp::Contains => "contains",
        }
    }
}

/// A piece of a string literal: text, or `{NAME}` interpolated when evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Var(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
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
pub(crate) struct Condition {
    pub(crate) source: String,
    pub(crate) expr: Expr,
}

/// Why a condition does not parse: `column` is 1-based, in characters of the condition text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConditionError {
    pub(crate) column: usize,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
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
    pub(crate) fn parse(source: &str) -> Result<Condition, ConditionError> {
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
    pub(crate) fn eval(&self, lookup: &dyn Fn(&str) -> Value) -> bool {
        eval(&self.expr, lookup).truthy()
    }

    /// Every variable the condition reads, in order of appearance (repeats removed).
    pub(crate) fn variables(&self) -> Vec<&str> {
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
    pub(crate) fn compared_literals(&self) -> Vec<(&str, String)> {
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

impl Condition {
    /// The ordering comparisons (`<`, `>=` …) of a variable holding text
    /// that is no number with a number: JavaScript makes them false either
    /// way, which a writer comparing an extracted 「大概七分」 with 7 never
    /// means. Each as (variable, its text, operator).
    pub(crate) fn text_against_number(
        &self,
        lookup: &dyn Fn(&str) -> Value,
    ) -> Vec<(String, String, &'static str)> {
        let mut out = Vec::new();
        walk(&self.expr, &mut |e| {
            let Expr::Cmp(op, a, b) = e else { return };
            if !matches!(op, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge) {
                return;
            }
            for (var, other) in [(a, b), (b, a)] {
                let Expr::Var(name) = &**var else { continue };
                let v = lookup(name);
                let text = matches!(v, Value::Str(_) | Value::List(_))
                    && !v.to_string().trim().is_empty()
                    && v.to_number().is_nan();
                if text && matches!(eval(other, lookup), Value::Num(_)) {
                    out.push((name.clone(), v.to_string(), op.text()));
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
                CmpOp::Contains => l.contains(&r),
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
    fn contains_finds_text_in_text_and_items_in_lists() {
        let c = Condition::parse("{chat} contains '失眠'").unwrap();
        let with = |v: Value| move |_: &str| v.clone();
        assert!(c.eval(&with(Value::Str("来访者：最近失眠".into()))));
        assert!(!c.eval(&with(Value::Str("来访者：睡得好".into()))));
        assert!(c.eval(&with(Value::List(vec!["头痛".into(), "失眠".into()]))));
        assert!(
            !c.eval(&with(Value::List(vec!["失眠多梦".into()]))),
            "items, not substrings"
        );
        assert!(!c.eval(&with(Value::Undefined)));
        // A variable on the right, and a comparison's place in the grammar.
        let c = Condition::parse("{话} contains {词} && {n} > 1").unwrap();
        let vars = |n: &str| match n {
            "话" => Value::Str("我想换工作".into()),
            "词" => Value::Str("工作".into()),
            _ => Value::Num(2.0),
        };
        assert!(c.eval(&vars));
        assert!(Condition::parse("{a} contains 'x' contains 'y'").is_err());
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

    /// Property: whatever a writer types, parsing never panics; an error
    /// points inside the text; a parsed condition evaluates (with any values)
    /// without panicking, the same each time, and parses again from its
    /// source to the same variables.
    #[test]
    fn fuzzed_conditions_never_panic_and_errors_point_inside() {
        use crate::base::fuzz::{Bounds, fuzz};
        let corpus = [
            "{用户选择}=='A' && !{是否已登录}",
            "!({用户选择}=='A' && {分数}==7) || {年龄}>=15",
            "'{甲}-{乙}' == {丙} && {甲} != 'x'",
            "{家人} == '妈妈,爸爸' || {空} === null",
            "'0x10' == 16 && '1e3' !== 1000 && {真}",
        ];
        let vocabulary = [
            "&&",
            "||",
            "!",
            "==",
            "===",
            "!=",
            "!==",
            ">",
            "<",
            ">=",
            "<=",
            "{用户选择}",
            "{分数}",
            "{家人}",
            "{",
            "}",
            "(",
            ")",
            "'",
            "\"",
            "true",
            "false",
            "null",
            "undefined",
            "and",
            "1.5e3",
            "-0",
        ];
        let ran =
            fuzz(
                17,
                &corpus,
                &vocabulary,
                Bounds::cases(20_000),
                |text| match Condition::parse(text) {
                    Ok(c) => {
                        let once = c.eval(&vars);
                        assert_eq!(c.eval(&vars), once);
                        let again = Condition::parse(&c.source).expect("its own source parses");
                        assert_eq!(again.variables(), c.variables());
                        c.compared_literals();
                    }
                    Err(e) => {
                        let len = text.chars().count();
                        assert!(
                            (1..=len.max(MAX_LEN) + 1).contains(&e.column),
                            "column {} of {len}",
                            e.column
                        );
                        assert!(!e.message.is_empty());
                    }
                },
            );
        assert!(ran >= 1_000, "only {ran} cases ran");
    }
}
