//! The built-in brain's side of a chat: in character from the stage's lines
//! (`companion.stages.*.lines`), the player's name and what the companion
//! recalls; a possible key moment happens, with its own words when the
//! scenario gives them.

use super::moments::mark;
use super::session::ReplyContext;

/// The built-in reply, marked for the key moments it makes happen.
pub fn reply(cx: &ReplyContext<'_>) -> String {
    let name = cx.state.profile.address();
    let memory = cx
        .recalled
        .first()
        .map(|m| format!("我记得，{}。", strip_stamp(m).trim_end_matches('。')))
        .unwrap_or_default();
    // What it recalls is said even where the line has no place for it.
    let fill = |t: &str| {
        let line = t.replace("{称呼}", name);
        if line.contains("{记忆}") {
            line.replace("{记忆}", &memory)
        } else if memory.is_empty() {
            line
        } else {
            format!("{line}{memory}")
        }
    };
    if let Some(m) = cx.candidates.first() {
        let said = match &m.says {
            Some(says) => fill(says),
            None => fill(&stage_line(cx)),
        };
        return format!("{}{}", said.trim(), mark(&m.id));
    }
    fill(&stage_line(cx)).trim().to_string()
}

/// A line of the current stage, picked by the message and the count so the
/// same chat always gets the same answers.
fn stage_line(cx: &ReplyContext<'_>) -> String {
    let lines = cx
        .spec
        .stage(cx.state.stage())
        .map(|s| s.lines.as_slice())
        .unwrap_or_default();
    if lines.is_empty() {
        return "（安静地听着）嗯，{称呼}，我在听。{记忆}".into();
    }
    let h = cx
        .message
        .chars()
        .fold(u64::from(cx.state.messages), |h, c| {
            h.wrapping_mul(31).wrapping_add(c as u64)
        });
    lines[(h % lines.len() as u64) as usize].clone()
}

/// `[2026-04-06 10:00] text` → `text`.
fn strip_stamp(line: &str) -> &str {
    match line.strip_prefix('[').and_then(|r| r.split_once("] ")) {
        Some((_, text)) => text,
        None => line,
    }
}
