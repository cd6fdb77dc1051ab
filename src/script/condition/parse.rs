//! Tokens → an expression tree, with nesting bounded.

use super::lex::{Token, TokenKind};
use super::value::Value;
use super::{ConditionError, Expr, MAX_DEPTH, Piece, err};

/// A recursive-descent parser over the tokens: `||` over `&&` over `!` over
/// one comparison over values.
pub(super) struct Parser<'a> {
    pub(super) tokens: &'a [Token],
    pub(super) at: usize,
    pub(super) depth: usize,
    /// Column just past the end, for "expected … at the end" errors.
    pub(super) end: usize,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Token> {
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

    pub(super) fn or(&mut self) -> Result<Expr, ConditionError> {
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
