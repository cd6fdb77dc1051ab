//! LLM accounting per game day: an `llm_usage` event when a day closes, and
//! at the end, with the calls still out booked as abandoned.

use bevy::prelude::*;

use super::LlmBrain;
use crate::context::LayerTokens;
use crate::sim::clock::Clock;
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, EventBody, SimEvent};
use crate::sim::outcome::SimOutcome;
use crate::sim::residents::{Roster, RosterIdx};

/// Closes game days for accounting (`llm_usage` events), and the last one at the end.
pub(super) fn account(
    mut brain: ResMut<LlmBrain>,
    clock: Res<Clock>,
    roster: Res<Roster>,
    outcome: Res<SimOutcome>,
    mut events: MessageWriter<SimEvent>,
) {
    let day = clock.day();
    if day != brain.day {
        let closing = brain.day;
        let usage = brain.stats.close_day(closing);
        events.write(SimEvent {
            time: clock.now,
            body: usage,
        });
        brain.day = day;
        brain.day_calls = 0;
    }
    if outcome.ended() && !brain.final_usage_logged {
        brain.final_usage_logged = true;
        // Calls still out when the run ends are accounted too.
        type Left = (
            u64,
            RosterIdx,
            usize,
            (CallKind, bool),
            (u32, Option<LayerTokens>),
        );
        let mut left: Vec<Left> = brain
            .pending
            .iter()
            .map(|(id, p)| {
                (
                    *id,
                    p.resident,
                    p.endpoint,
                    (p.purpose.kind(), p.purpose.early()),
                    (p.prompt_estimate, p.layers),
                )
            })
            .collect();
        left.sort_unstable_by_key(|l| l.0);
        for (_, idx, endpoint, (kind, early), (prompt, layers)) in left {
            let id = roster.id_of(idx).clone();
            brain.stats.call(idx, &id, kind, prompt, 0, 0);
            events.write(SimEvent {
                time: clock.now,
                body: EventBody::LlmCall {
                    resident: id,
                    call: kind,
                    model: brain.endpoints[endpoint].model().to_string(),
                    outcome: CallOutcome::Abandoned,
                    used: AnswerUsed::None,
                    endpoint: None,
                    failed_over: Vec::new(),
                    reason: Some("the run ended first".into()),
                    early,
                    latency_ms: 0,
                    prompt_tokens: prompt,
                    completion_tokens: 0,
                    estimated: true,
                    attempts: 0,
                    format: None,
                    layers,
                },
            });
        }
        brain.pending.clear();
        brain.arrived.clear();
        let usage = brain.stats.close_day(day);
        events.write(SimEvent {
            time: clock.now,
            body: usage,
        });
    }
}
