//! Memories in the residents' own words: nightly summaries, and
//! conversations recapped (the built-in text already stored is revised).
//! A summary is due an hour into the night, a recap half an hour after its
//! talk: both after the calls a step waits for sooner.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::dispatch::settle;
use super::record::{Finished, admit};
use super::validate::has_cjk;
use super::{LlmBrain, PRIORITY_SUMMARY, Pending, Purpose};
use crate::llm::bridge::Done;
use crate::llm::client::{ChatRequest, Format};
use crate::llm::prompts;
use crate::sim::ActiveBrain;
use crate::sim::brain::SummaryContext;
use crate::sim::clock::Clock;
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, SimEvent};
use crate::sim::memory::{Memories, MemoryKind, PendingSummary, SummaryRequest, store_summary};
use crate::sim::outcome::FailSim;
use crate::sim::residents::{Persona, Resident};
use crate::sim::social::RecapRequest;
use crate::sim::town::ActiveTuning;
use crate::sim::{RunSettings, memory};

/// Longest recap kept, in characters.
const RECAP_CHARS: usize = 30;
/// Game minutes after its conversation that a recap replaces the built-in
/// memory: long enough for a call to come back while the town goes on.
const RECAP_DUE_MINUTES: i64 = 30;
/// Game minutes after falling asleep that the night's summary is stored.
const SUMMARY_DUE_MINUTES: i64 = 60;
/// Longest summary kept, in characters.
const SUMMARY_CHARS: usize = 300;

/// What recaps read and write.
#[derive(SystemParam)]
pub(super) struct Recaps<'w, 's> {
    brain: ResMut<'w, LlmBrain>,
    clock: Res<'w, Clock>,
    tuning: Res<'w, ActiveTuning>,
    settings: Res<'w, RunSettings>,
    events: MessageWriter<'w, SimEvent>,
    fail: MessageWriter<'w, FailSim>,
    q: Query<'w, 's, (&'static Resident, &'static mut Memories)>,
}

/// Conversation memories in a resident's own words: finished calls revise the
/// built-in line already stored; new requests go out (at summary priority).
pub(super) fn recaps(mut recaps: Recaps, mut requests: MessageReader<RecapRequest>) {
    let now = recaps.clock.now;
    for (done, pending) in recaps
        .brain
        .take_arrived(|p| matches!(p, Purpose::Recap { .. }), now)
    {
        recaps.answered(&done, &pending);
    }
    for req in requests.read() {
        recaps.ask(req);
    }
}

impl Recaps<'_, '_> {
    /// A recap that came back replaces the built-in memory, if it is still there.
    fn answered(&mut self, done: &Done, pending: &Pending) {
        let Purpose::Recap {
            entity,
            time,
            ref fallback,
        } = pending.purpose
        else {
            return;
        };
        let now = self.clock.now;
        let brain = &mut *self.brain;
        let id = brain.ids[pending.resident.i()].clone();
        let call = Finished {
            resident: &id,
            kind: CallKind::Recap,
            done,
            pending,
            now,
        };
        let text = match settle(brain, done, pending, now, &mut self.fail, &id) {
            Err(e) => Err((CallOutcome::Error, e.to_string())),
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
            Ok(t) => match self.q.get_mut(entity) {
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
                return call.log(
                    outcome,
                    AnswerUsed::Builtin,
                    Some(why),
                    brain,
                    &mut self.events,
                );
            }
        };
        call.log(CallOutcome::Ok, used, why, brain, &mut self.events);
    }

    /// A recap request: sent, unless the gate says no (the built-in memory stays).
    fn ask(&mut self, req: &RecapRequest) {
        let Ok((r, _)) = self.q.get(req.entity) else {
            return;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let now = self.clock.now;
        let brain = &mut *self.brain;
        let Some(endpoint) = brain.route.get(idx.i()).copied().flatten() else {
            return;
        };
        let call = ((idx, &id), endpoint, CallKind::Recap);
        if !admit(brain, &mut self.events, now, call, false) {
            return;
        }
        let budget = brain.budgeting(endpoint, &self.tuning.0.prompt);
        let prompt = prompts::recap_messages(req, &budget);
        let layers = brain.show(idx, endpoint, (CallKind::Recap, now), &prompt);
        let request = ChatRequest {
            messages: prompt.messages,
            temperature: brain.settings.temperature,
            max_tokens: 60,
            seed: brain.seed(self.settings.seed, brain.next_job + 1),
            format: Format::Text,
            stream: false,
        };
        let purpose = Purpose::Recap {
            entity: req.entity,
            time: req.time,
            fallback: req.fallback.clone(),
        };
        // Nobody waits for a recap: it is due a while later, so the town
        // goes on while it is written.
        let due = now.plus_minutes(RECAP_DUE_MINUTES);
        brain.send(
            purpose,
            (idx, endpoint),
            (PRIORITY_SUMMARY, due),
            request,
            Some(layers),
        );
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

/// What summaries read and write.
#[derive(SystemParam)]
pub(super) struct Summaries<'w, 's> {
    brain: ResMut<'w, LlmBrain>,
    clock: Res<'w, Clock>,
    tuning: Res<'w, ActiveTuning>,
    settings: Res<'w, RunSettings>,
    active: Res<'w, ActiveBrain>,
    events: MessageWriter<'w, SimEvent>,
    fail: MessageWriter<'w, FailSim>,
    q: Query<'w, 's, (&'static Resident, &'static Persona, &'static mut Memories)>,
}

/// Nightly summaries: finished calls are stored; new requests go out.
pub(super) fn summaries(mut summaries: Summaries, mut requests: MessageReader<SummaryRequest>) {
    let now = summaries.clock.now;
    for (done, pending) in summaries
        .brain
        .take_arrived(|p| matches!(p, Purpose::Summary { .. }), now)
    {
        summaries.answered(&done, &pending);
    }
    for req in requests.read() {
        summaries.ask(req);
    }
}

impl Summaries<'_, '_> {
    /// A summary that came back is stored (the built-in one if it is unusable).
    fn answered(&mut self, done: &Done, pending: &Pending) {
        let Purpose::Summary {
            entity,
            ref entries,
        } = pending.purpose
        else {
            return;
        };
        let now = self.clock.now;
        let brain = &mut *self.brain;
        let Ok((r, persona, mut memories)) = self.q.get_mut(entity) else {
            let id = brain.ids[pending.resident.i()].clone();
            let call = Finished {
                resident: &id,
                kind: CallKind::Summary,
                done,
                pending,
                now,
            };
            let why = Some("the resident is gone".into());
            return call.log(
                CallOutcome::Ok,
                AnswerUsed::Dropped,
                why,
                brain,
                &mut self.events,
            );
        };
        let id = r.id.clone();
        let call = Finished {
            resident: &id,
            kind: CallKind::Summary,
            done,
            pending,
            now,
        };
        let summary = match settle(brain, done, pending, now, &mut self.fail, &id) {
            Ok(reply) if has_cjk(reply.content.trim()) => {
                let t = reply.content.trim().chars().take(SUMMARY_CHARS).collect();
                call.log(
                    CallOutcome::Ok,
                    AnswerUsed::Llm,
                    None,
                    brain,
                    &mut self.events,
                );
                t
            }
            failed => {
                let (outcome, why) = match failed {
                    Err(e) => (CallOutcome::Error, e.to_string()),
                    Ok(_) => (CallOutcome::Invalid, "not a Chinese summary".to_string()),
                };
                call.log(
                    outcome,
                    AnswerUsed::Builtin,
                    Some(why),
                    brain,
                    &mut self.events,
                );
                brain.stats.fallback(pending.resident);
                builtin_summary(&self.active, persona, entries)
            }
        };
        store_summary(&mut memories, r, entries, summary, now, &mut self.events);
    }

    /// A summary request: sent to the resident's endpoint, else summarised
    /// by the built-in brain at once.
    fn ask(&mut self, req: &SummaryRequest) {
        let now = self.clock.now;
        let brain = &mut *self.brain;
        let Ok((r, persona, mut memories)) = self.q.get_mut(req.entity) else {
            return;
        };
        let (idx, id) = (r.idx, r.id.clone());
        let route = brain.route.get(idx.i()).copied().flatten();
        if let Some(endpoint) = route
            && admit(
                brain,
                &mut self.events,
                now,
                ((idx, &id), endpoint, CallKind::Summary),
                false,
            )
        {
            let budget = brain.budgeting(endpoint, &self.tuning.0.prompt);
            let cx = SummaryContext {
                me: &persona.0,
                night: req.pending.night,
                entries: &req.pending.entries,
            };
            let prompt = prompts::summary_messages(&cx, &budget);
            let layers = brain.show(idx, endpoint, (CallKind::Summary, now), &prompt);
            let request = ChatRequest {
                messages: prompt.messages,
                temperature: brain.settings.temperature,
                max_tokens: 320,
                seed: brain.seed(self.settings.seed, brain.next_job + 1),
                format: Format::Text,
                stream: false,
            };
            let purpose = Purpose::Summary {
                entity: req.entity,
                entries: req.pending.clone(),
            };
            // The sleeper wakes hours later: the summary is due within the
            // first half of the shortest sleep that consolidates.
            let half = i64::from(self.tuning.0.durations.consolidate_after / 2);
            let due = now.plus_minutes(SUMMARY_DUE_MINUTES.min(half).max(1));
            return brain.send(
                purpose,
                (idx, endpoint),
                (PRIORITY_SUMMARY, due),
                request,
                Some(layers),
            );
        }
        let summary = builtin_summary(&self.active, persona, &req.pending);
        store_summary(
            &mut memories,
            r,
            &req.pending,
            summary,
            now,
            &mut self.events,
        );
    }
}
