//! The built-in brain answering a question put to a resident (`heartvale
//! interview`, the inspector's 问问TA box): the question is read for what it
//! asks about — whom one talked with on a day, where one heard of
//! something, whether one knows of something, what one thinks of someone,
//! what one's day was like, someone's trade, pastime, taste or family, one's
//! own — and answered from the resident's own facts, memories and ties, in
//! its words. What it never heard of, it does not know.

mod answers;
mod chat;
mod read;

pub use chat::town_answer;

pub use read::{Asked, Aspect, read_question};

use crate::sim::interview::{Answer, Interview};

/// The answer to `question`.
pub fn answer(iv: &Interview<'_>, question: &str) -> Answer {
    let asked = read_question(question, iv);
    answers::answer(iv, &asked, question)
}
