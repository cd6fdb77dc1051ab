//! The terminal's view of a date's answer being written: while a step waits
//! on the model, a line on stderr grows with the streamed pieces (the field
//! being written, e.g. `✍ 主持人·问题：雨突然下大了…`), cleared before the
//! answer is printed. Only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crossbeam_channel::{Receiver, unbounded};

use crate::cupid::{Date, Message, Turn};
use crate::llm::client::Pieces;
use crate::llm::cupid::{LlmMinds, preview};

/// The characters of the growing text shown (its end).
const SHOWN_CHARS: usize = 40;

/// Watches the pieces of a streamed date.
pub(super) struct Typing {
    pieces: Receiver<String>,
}

impl Typing {
    /// A watcher and the sender for the minds' pieces; `None` when stderr is
    /// not a terminal (a pipe or a file gets only the finished lines).
    pub(super) fn start() -> Option<(Self, Pieces)> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let (tx, rx) = unbounded();
        Some((Self { pieces: rx }, tx))
    }

    /// One step of the date, on a thread of its own while this one shows
    /// the answer being written.
    pub(super) fn step(&self, date: &mut Date, minds: &mut LlmMinds) -> Vec<Message> {
        let who = match date.next_turn() {
            Some(Turn::Avatar(k)) => date.avatars()[k].name.clone(),
            _ => "主持人".to_string(),
        };
        std::thread::scope(|s| {
            let job = s.spawn(|| date.step(minds));
            let mut written = String::new();
            while !job.is_finished() {
                if let Ok(piece) = self.pieces.recv_timeout(Duration::from_millis(50)) {
                    written.push_str(&piece);
                    show(&who, &written);
                }
            }
            self.pieces.try_iter().for_each(drop);
            eprint!("\r\x1b[K");
            job.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    }
}

/// The line for an answer written so far.
fn show(who: &str, written: &str) {
    let Some((field, text)) = preview(written) else {
        return;
    };
    let count = text.chars().count();
    let tail: String = text
        .chars()
        .skip(count.saturating_sub(SHOWN_CHARS))
        .collect();
    let more = if count > SHOWN_CHARS { "…" } else { "" };
    eprint!("\r\x1b[K✍ {who}·{field}：{more}{tail}");
    let _ = std::io::stderr().flush();
}
