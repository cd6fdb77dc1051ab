//! Conversation lines: answers go into their conversations before they talk
//! (the built-in line where an answer is unusable), and requests go out for
//! the conversations that wait on a model's speaker.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::dispatch::{next_step, settle};
use super::record::{Finished, admit};
use super::validate::line_problem;
use super::{LlmBrain, LlmFocus, Purpose};
use crate::llm::client::{ChatRequest, Format};
use crate::llm::embed::town::{QueryVector, TownEmbeddings};
use crate::llm::parse::line_from_text;
use crate::llm::prompts::{self, LineExtras};
use crate::sim::event_log::{AnswerUsed, CallKind, CallOutcome, SimEvent};
use crate::sim::memory::Recollection;
use crate::sim::outcome::FailSim;

/// How many memories a line prompt recalls.
const RECALLED: usize = 5;
use crate::sim::residents::Needs;
use crate::sim::social::{
    self, Conversation, Delivered, LineInputs, LineRequest, SocialState, TalkerView, deliver,
    with_line_context,
};

/// What the line systems read and write.
#[derive(SystemParam)]
pub(super) struct LineCalls<'w, 's> {
    brain: ResMut<'w, LlmBrain>,
    inputs: LineInputs<'w>,
    social: Res<'w, SocialState>,
    conversations: Query<'w, 's, &'static mut Conversation>,
    events: MessageWriter<'w, SimEvent>,
    q: Query<'w, 's, TalkerView<'static>>,
}

/// Lines that came back go into their conversations before they talk.
pub(super) fn deliver_lines(mut calls: LineCalls, mut fail: MessageWriter<FailSim>) {
    let now = calls.inputs.clock.now;
    for (done, pending) in calls
        .brain
        .take_arrived(|p| matches!(p, Purpose::Line { .. }), now)
    {
        let Purpose::Line {
            conversation,
            ref speaker,
            ref prompt,
        } = pending.purpose
        else {
            continue;
        };
        let id = calls.inputs.roster.id_of(pending.resident).clone();
        let call = Finished {
            resident: &id,
            kind: CallKind::Line,
            done: &done,
            pending: &pending,
            now,
        };
        let parsed = match settle(&mut calls.brain, &done, &pending, now, &mut fail, &id) {
            Err(e) => Err((CallOutcome::Error, e.to_string())),
            Ok(reply) => {
                let (line, ends, emotion) = line_from_text(&reply.content, speaker);
                let said = Delivered::from_model(line, ends, emotion);
                match line_problem(&said.line, prompt) {
                    Some(problem) if !(said.line.is_empty() && ends) => {
                        Err((CallOutcome::Invalid, problem))
                    }
                    _ => Ok(said),
                }
            }
        };
        let (brain, events) = (&mut *calls.brain, &mut calls.events);
        match parsed {
            Ok(said) => {
                call.log(CallOutcome::Ok, AnswerUsed::Llm, None, brain, events);
                brain.stats.residents[pending.resident.i()].llm_lines += 1;
                deliver(&calls.social, &mut calls.conversations, conversation, said);
            }
            Err((outcome, why)) => {
                call.log(outcome, AnswerUsed::Builtin, Some(why), brain, events);
                brain.stats.fallback(pending.resident);
                calls.builtin_line(conversation);
            }
        }
    }
}

/// Line requests from conversations waiting on an async speaker (those
/// parked for their query's vector first).
pub(super) fn request_lines(
    mut calls: LineCalls,
    focus: Res<LlmFocus>,
    mut requests: MessageReader<LineRequest>,
    needs: Query<&Needs>,
    mut memory: Recollection,
    mut embeddings: Option<ResMut<TownEmbeddings>>,
    mut parked: Local<Vec<LineRequest>>,
) {
    let waiting = std::mem::take(&mut *parked);
    for req in waiting.iter().chain(requests.read()) {
        let query = calls.query(req);
        let now = calls.inputs.clock.now;
        let vector = match embeddings.as_mut().map(|e| e.query(&query, now)) {
            Some(QueryVector::Waiting) => {
                parked.push(*req);
                continue;
            }
            Some(QueryVector::Ready(v)) => Some(v),
            Some(QueryVector::Lexical) | None => None,
        };
        let recall = (query.as_str(), vector.as_deref());
        calls.ask(req, &focus, &needs, (&mut memory, recall));
    }
}

impl LineCalls<'_, '_> {
    /// The built-in brain's line for a conversation (a speaker who is gone
    /// says nothing, which ends it).
    fn builtin_line(&mut self, conversation: u64) {
        let Some(c) = self
            .social
            .conversation(conversation)
            .and_then(|e| self.conversations.get(e).ok())
        else {
            return;
        };
        let said = social::builtin_line(c, &self.inputs, &self.q)
            .unwrap_or_else(|| Delivered::from_model(String::new(), false, None));
        deliver(&self.social, &mut self.conversations, conversation, said);
    }

    /// One line request: sent to the speaker's endpoint, or answered by the
    /// built-in brain.
    fn ask(
        &mut self,
        req: &LineRequest,
        focus: &LlmFocus,
        needs: &Query<&Needs>,
        (memory, (query, vector)): (&mut Recollection, (&str, Option<&[f32]>)),
    ) {
        let now = self.inputs.clock.now;
        let Ok(speaker) = self.q.get(req.speaker) else {
            return;
        };
        let (idx, id) = (speaker.0.idx, speaker.0.id.clone());
        let Some(endpoint) = self.brain.route.get(idx.i()).copied().flatten() else {
            return self.builtin_line(req.conversation);
        };
        let (priority, watched) = self.brain.priority(focus, &id);
        let call = ((idx, &id), endpoint, CallKind::Line);
        if !admit(&mut self.brain, &mut self.events, now, call, watched) {
            return self.builtin_line(req.conversation);
        }
        let recalled = memory.recall_lines(req.speaker, (query, vector), now, RECALLED);
        let budget = self.brain.budgeting(endpoint, &memory.tuning().prompt);
        let needs = needs.get(req.speaker).ok();
        let Some(built) = self.line_prompt(req, needs, &recalled, &budget) else {
            return;
        };
        let layers = self
            .brain
            .show(idx, endpoint, (CallKind::Line, now), &built);
        let messages = built.messages;
        let prompt = messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let brain = &mut *self.brain;
        let request = ChatRequest {
            messages,
            temperature: brain.settings.temperature,
            max_tokens: 96,
            seed: brain.seed(self.inputs.settings.seed, brain.next_job + 1),
            format: Format::Text,
            stream: brain.settings.stream_lines,
        };
        let purpose = Purpose::Line {
            conversation: req.conversation,
            speaker: speaker.1.name.clone(),
            prompt,
        };
        let due = next_step(self.inputs.clock.now);
        brain.send(
            purpose,
            (idx, endpoint),
            (priority, due),
            request,
            Some(layers),
        );
    }

    /// What the speaker recalls by: the listener and the last thing said.
    fn query(&self, req: &LineRequest) -> String {
        let listener = self.q.get(req.listener).map_or("", |l| l.1.name.as_str());
        let last = self
            .social
            .conversation(req.conversation)
            .and_then(|e| self.conversations.get(e).ok())
            .and_then(|c| c.messages().last().map(|m| m.text.clone()))
            .unwrap_or_default();
        format!("{listener} {last}")
    }

    /// The line prompt: the conversation so far, what both are doing, the
    /// speaker's mood and the memories that mention the listener.
    fn line_prompt(
        &self,
        req: &LineRequest,
        needs: Option<&Needs>,
        recalled: &[String],
        budget: &prompts::Budgeting,
    ) -> Option<prompts::Prompt> {
        let c = self
            .social
            .conversation(req.conversation)
            .and_then(|e| self.conversations.get(e).ok())?;
        let speaker = self.q.get(req.speaker).ok()?;
        let history: Vec<(String, String)> = c
            .messages()
            .iter()
            .map(|m| {
                (
                    self.inputs.roster.name_of(m.speaker).to_owned(),
                    m.text.clone(),
                )
            })
            .collect();
        let listener = self.q.get(req.listener).ok();
        // In Chinese: what the player reads, and what the model is told.
        let doing = |a: Option<&crate::sim::residents::Activity>| {
            a.map_or("闲着".to_string(), |a| {
                a.kind.doing_zh(self.inputs.town.name(a.target))
            })
        };
        let their_action = doing(listener.and_then(|l| l.2));
        let my_action = doing(speaker.2);
        let extras = LineExtras {
            my_action: &my_action,
            their_action: &their_action,
            history: &history,
            memories: recalled,
            mood: needs.map_or("平静", |n| n.mood().label()),
        };
        with_line_context(c, &self.inputs, &self.q, |cx, _, _| {
            prompts::line_messages(cx, &extras, budget)
        })
    }
}
