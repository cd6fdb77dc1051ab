//! Memories in the residents' own words: nightly summaries, and
//! conversations recapped (the built-in text already stored is revised).
//! Neither is waited for, so both go at the lowest priority.

use bevy::prelude::*;

use super::dispatch::settle;
use super::record::{Finished, log_skip};
use super::validate::has_cjk;
use super::{Gate, LlmBrain, PRIORITY_SUMMARY, Purpose};
use crate::llm::client::{ChatRequest, Format};
use crate::llm::prompts;
use crate::sim::ActiveBrain;
use crate::sim::brain::SummaryContext;
use crate::sim::clock::Clock;
use crate::sim::end::FailSim;
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, SimEvent};
use crate::sim::memory::{Memories, MemoryKind, PendingSummary, SummaryRequest, store_summary};
use crate::sim::residents::{Persona, Resident};
use crate::sim::social::RecapRequest;
use crate::sim::{RunSettings, memory};

/// Longest recap kept, in characters.
const RECAP_CHARS: usize = 30;
/// Longest summary kept, in characters.
const SUMMARY_CHARS: usize = 300;

/// Conversation memories in a resident's own words: finished calls revise the
/// built-in line already stored; new requests go out (at summary priority).
pub(super) fn recaps(
    mut brain: ResMut<LlmBrain>,
    (clock, settings): (Res<Clock>, Res<RunSettings>),
    mut requests: MessageReader<RecapRequest>,
    (mut events, mut fail): (MessageWriter<SimEvent>, MessageWriter<FailSim>),
    mut q: Query<(&Resident, &mut Memories)>,
) {
    let brain = &mut *brain;
    let now = clock.now;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Recap { .. })) {
        let Purpose::Recap {
            entity,
            time,
            ref fallback,
        } = pending.purpose
        else {
            continue;
        };
        let id = brain.ids[pending.resident as usize].clone();
        let call = Finished {
            resident: &id,
            kind: CallKind::Recap,
            done: &done,
            pending: &pending,
            now,
        };
        let text = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err((CallOutcome::Error, e)),
            Ok(reply) => {
                let t = reply
                    .content
                    .trim()
                    .trim_matches(['"', '「', '」', '“', '”'])
                    .trim();
                if has_cjk(t) {
                    Ok(t.chars().take(RECAP_CHARS).collect::<String>())
                } else {
                    Err((CallOutcome::Invalid, "not a Chinese sentence".to_string()))
                }
            }
        };
        let (used, why) = match text {
            Ok(t) => match q.get_mut(entity) {
                Ok((_, mut memories)) => {
                    if memory::revise(&mut memories, time, MemoryKind::Dialogue, fallback, t) {
                        (AnswerUsed::Llm, None)
                    } else {
                        let why = "the memory was consolidated";
                        (AnswerUsed::Dropped, Some(why.into()))
                    }
                }
                Err(_) => (AnswerUsed::Dropped, Some("the resident is gone".into())),
            },
            Err((outcome, why)) => {
                brain.stats.fallback(pending.resident);
                call.log(outcome, AnswerUsed::Builtin, Some(why), brain, &mut events);
                continue;
            }
        };
        call.log(CallOutcome::Ok, used, why, brain, &mut events);
    }
    for req in requests.read() {
        let Ok((r, _)) = q.get(req.entity) else {
            continue;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let Some(endpoint) = brain.route.get(idx as usize).copied().flatten() else {
            continue;
        };
        if let Gate::Skip(why) = brain.gate(endpoint, now, false) {
            log_skip(
                brain,
                &mut events,
                now,
                (idx, &id),
                endpoint,
                CallKind::Recap,
                why,
            );
            continue;
        }
        let request = ChatRequest {
            messages: prompts::recap_messages(req),
            temperature: brain.settings.temperature,
            max_tokens: 60,
            seed: brain.seed(settings.seed, brain.next_job + 1),
            format: Format::Text,
            stream: false,
        };
        let purpose = Purpose::Recap {
            entity: req.entity,
            time: req.time,
            fallback: req.fallback.clone(),
        };
        brain.send(purpose, idx, endpoint, PRIORITY_SUMMARY, request);
    }
}

/// The built-in brain's summary of a night.
fn builtin_summary(active: &ActiveBrain, persona: &Persona, p: &PendingSummary) -> String {
    active.0.summarise(&SummaryContext {
        me: &persona.0,
        night: p.night,
        entries: &p.entries,
    })
}

/// Nightly summaries: finished calls are stored; new requests go out.
pub(super) fn summaries(
    mut brain: ResMut<LlmBrain>,
    (clock, settings, active): (Res<Clock>, Res<RunSettings>, Res<ActiveBrain>),
    mut requests: MessageReader<SummaryRequest>,
    (mut events, mut fail): (MessageWriter<SimEvent>, MessageWriter<FailSim>),
    mut q: Query<(&Resident, &Persona, &mut Memories)>,
) {
    let brain = &mut *brain;
    let now = clock.now;
    for (done, pending) in brain.take_arrived(|p| matches!(p, Purpose::Summary { .. })) {
        let Purpose::Summary {
            entity,
            ref entries,
        } = pending.purpose
        else {
            continue;
        };
        let gone_id = brain.ids[pending.resident as usize].clone();
        let Ok((r, persona, mut memories)) = q.get_mut(entity) else {
            let call = Finished {
                resident: &gone_id,
                kind: CallKind::Summary,
                done: &done,
                pending: &pending,
                now,
            };
            let why = Some("the resident is gone".into());
            call.log(
                CallOutcome::Ok,
                AnswerUsed::Dropped,
                why,
                brain,
                &mut events,
            );
            continue;
        };
        let id = r.id.clone();
        let call = Finished {
            resident: &id,
            kind: CallKind::Summary,
            done: &done,
            pending: &pending,
            now,
        };
        let summary = match settle(brain, &done, &pending, now, &mut fail, &id) {
            Ok(reply) if has_cjk(reply.content.trim()) => {
                let t = reply.content.trim().chars().take(SUMMARY_CHARS).collect();
                call.log(CallOutcome::Ok, AnswerUsed::Llm, None, brain, &mut events);
                t
            }
            failed => {
                let (outcome, why) = match failed {
                    Err(e) => (CallOutcome::Error, e),
                    Ok(_) => (CallOutcome::Invalid, "not a Chinese summary".to_string()),
                };
                call.log(outcome, AnswerUsed::Builtin, Some(why), brain, &mut events);
                brain.stats.fallback(pending.resident);
                builtin_summary(&active, persona, entries)
            }
        };
        store_summary(&mut memories, r, entries, summary, now, &mut events);
    }
    for req in requests.read() {
        let Ok((r, persona, mut memories)) = q.get_mut(req.entity) else {
            continue;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let route = brain.route.get(idx as usize).copied().flatten();
        match route.map(|e| (e, brain.gate(e, now, false))) {
            Some((endpoint, Gate::Send)) => {
                let messages = prompts::summary_messages(&SummaryContext {
                    me: &persona.0,
                    night: req.pending.night,
                    entries: &req.pending.entries,
                });
                let request = ChatRequest {
                    messages,
                    temperature: brain.settings.temperature,
                    max_tokens: 320,
                    seed: brain.seed(settings.seed, brain.next_job + 1),
                    format: Format::Text,
                    stream: false,
                };
                let purpose = Purpose::Summary {
                    entity: req.entity,
                    entries: req.pending.clone(),
                };
                brain.send(purpose, idx, endpoint, PRIORITY_SUMMARY, request);
            }
            other => {
                if let Some((endpoint, Gate::Skip(why))) = other {
                    let kind = CallKind::Summary;
                    log_skip(brain, &mut events, now, (idx, &id), endpoint, kind, why);
                }
                let summary = builtin_summary(&active, persona, &req.pending);
                store_summary(&mut memories, r, &req.pending, summary, now, &mut events);
            }
        }
    }
}
