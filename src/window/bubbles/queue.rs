//! The lines waiting for a bubble. A conversation's lines queue and go up
//! one after another, each held long enough to read; a queue that falls far
//! behind (high speed) skips to its newest lines. When the talk ends, its
//! lines not yet shown are dropped (they are in the feed): a bubble never
//! outlives its talk. A plan's line, which nobody answers, goes up at once.

use std::collections::{BTreeMap, VecDeque};

use bevy::prelude::*;

use super::SHOW;
use crate::scenario::ResidentId;
use crate::sim::event_log::{EventBody, SimEvent};

/// A conversation's next line waits at least this long after the one before…
pub(crate) const HOLD: f32 = 3.0;
/// …or as long as the line takes to read at this many characters a second.
const READ_CHARS_PER_SECOND: f32 = 8.0;
/// A conversation's queue keeps at most this many lines not yet shown.
const BACKLOG: usize = 4;

/// A line waiting for its bubble: who, what, and its conversation (`None`:
/// a plan's line, drawn as a thought).
pub(crate) type Line = (ResidentId, String, Option<u64>);

/// Lines not yet shown, by conversation, and when each conversation last
/// showed one; plan lines go out at once.
#[derive(Resource, Debug, Default)]
pub(crate) struct LineQueue {
    talks: BTreeMap<u64, Talk>,
    /// Lines to show this frame.
    pub(super) due: Vec<Line>,
    /// Conversations that ended this frame (their bubbles go).
    pub(super) ended: Vec<u64>,
}

#[derive(Debug, Default)]
struct Talk {
    pending: VecDeque<Line>,
    /// When the last line went up, and how long it is held.
    shown: Option<(f32, f32)>,
}

/// How long a line is held before the conversation's next one.
pub(crate) fn hold_for(text: &str) -> f32 {
    (text.chars().count() as f32 / READ_CHARS_PER_SECOND).clamp(HOLD, SHOW)
}

/// The frame's spoken lines join their conversation's queue; an ended
/// conversation's queue is dropped.
pub(super) fn queue_lines(mut events: MessageReader<SimEvent>, mut queue: ResMut<LineQueue>) {
    for e in events.read() {
        match &e.body {
            EventBody::Message {
                speaker,
                text,
                conversation,
                ..
            } => {
                let talk = queue.talks.entry(*conversation).or_default();
                talk.pending
                    .push_back((speaker.clone(), text.clone(), Some(*conversation)));
                // Far behind: the oldest unshown lines are skipped.
                while talk.pending.len() > BACKLOG {
                    talk.pending.pop_front();
                }
            }
            EventBody::ConversationEnd { conversation, .. } => {
                queue.talks.remove(conversation);
                let c = Some(*conversation);
                queue.due.retain(|line| line.2 != c);
                queue.ended.push(*conversation);
            }
            EventBody::Plan {
                resident, dialogue, ..
            } if !dialogue.trim().is_empty() => {
                let line = (resident.clone(), dialogue.clone(), None);
                queue.due.retain(|(r, _, _)| r != resident);
                queue.due.push(line);
            }
            _ => {}
        }
    }
}

/// Each conversation whose last line has been up long enough shows its next.
pub(super) fn release_lines(time: Res<Time<Real>>, mut queue: ResMut<LineQueue>) {
    let now = time.elapsed_secs();
    let LineQueue { talks, due, .. } = &mut *queue;
    talks.retain(|_, talk| {
        let ready = talk.shown.is_none_or(|(at, hold)| now - at >= hold);
        if ready && let Some(line) = talk.pending.pop_front() {
            talk.shown = Some((now, hold_for(&line.1)));
            due.retain(|(r, _, _)| *r != line.0);
            due.push(line);
        }
        // Forgotten once its last line has had its time.
        !talk.pending.is_empty() || talk.shown.is_some_and(|(at, _)| now - at < SHOW)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_time_grows_with_the_line_within_limits() {
        assert_eq!(hold_for("好"), HOLD);
        let long = "字".repeat(36);
        assert!((hold_for(&long) - 4.5).abs() < 1e-4);
        assert_eq!(hold_for(&"字".repeat(200)), SHOW);
    }
}
