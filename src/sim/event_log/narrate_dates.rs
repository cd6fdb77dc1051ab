//! Cupid's dates in town as the event stream tells them.

use super::events::EventBody;
use super::narration::{Names, Narration, Strand};
use crate::scenario::ResidentId;

/// Tells a date event.
pub(super) fn narrate(body: &EventBody, names: &impl Names) -> Narration {
    let name = |id: &ResidentId| names.resident(id);
    let (residents, text) = match body {
        EventBody::DateStart(d) => (
            d.residents.clone(),
            format!(
                "💘 {} 和 {} 在{}开始约会，{}主持{}",
                name(&d.residents[0]),
                name(&d.residents[1]),
                names.place(&d.location),
                name(&d.host),
                if d.requested {
                    "（玩家安排）"
                } else {
                    ""
                }
            ),
        ),
        EventBody::DateRound(r) => {
            let picks: Vec<String> = r
                .choices
                .iter()
                .map(|c| format!("{}选{}「{}」", name(&c.resident), c.option, c.content))
                .collect();
            (
                r.residents.clone(),
                format!(
                    "💘 第 {} 轮：{}；分数 {}",
                    r.round,
                    picks.join("，"),
                    super::narration::moved(r.before.into(), r.after.into())
                ),
            )
        }
        EventBody::DateEnd(e) => (
            e.residents.clone(),
            format!(
                "💘 {} 和 {} 的约会结束：{}，{} 轮，{} 分（{}）",
                name(&e.residents[0]),
                name(&e.residents[1]),
                e.reason.label(),
                e.rounds,
                e.score,
                e.band.label()
            ),
        ),
        _ => unreachable!("narrate sends only dates here"),
    };
    Narration {
        strand: Strand::Date,
        residents,
        conversation: None,
        text,
    }
}
