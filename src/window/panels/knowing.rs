//! The inspector's 「TA知道的事」 (each fact with where it came from) and
//! 「问问TA」: the player asks the resident anything, and the built-in brain
//! answers from what it knows, frozen in time (asking changes nothing).

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::egui;

use crate::scenario::{ResidentId, Town};
use crate::sim::LoadedScenario;
use crate::sim::clock::Clock;
use crate::sim::interview::{Interview, Subject};
use crate::sim::knowledge::{FactWords, Knowledge};
use crate::sim::memory::{Memories, MemorySearch};
use crate::sim::residents::{Needs, Relationships, Roster};
use crate::sim::town::Gatherings;

/// Facts listed at most (the newest).
const SHOWN: usize = 200;

/// What asking reads, and the box's own state.
#[derive(SystemParam)]
pub(super) struct Asking<'w, 's> {
    town: Res<'w, Town>,
    gatherings: Res<'w, Gatherings>,
    scenario: Res<'w, LoadedScenario>,
    search: Res<'w, MemorySearch>,
    clock: Res<'w, Clock>,
    settings: Res<'w, crate::sim::RunSettings>,
    state: Local<'s, AskBox>,
}

/// The question being typed, and the last answer (with whom it was asked of).
#[derive(Default)]
pub(super) struct AskBox {
    question: String,
    answer: Option<(ResidentId, String, String)>,
}

/// A resident as asking reads it.
pub(super) type Known<'a> = (&'a Knowledge, &'a Relationships, &'a Memories, &'a Needs);

impl Asking<'_, '_> {
    fn words<'a>(&'a self, roster: &'a Roster) -> FactWords<'a> {
        FactWords {
            roster,
            town: &self.town,
            gatherings: &self.gatherings,
            residents: &self.scenario.0.residents,
        }
    }

    /// 「TA知道的事」: newest first, each with its source.
    pub(super) fn knowledge_section(&self, ui: &mut egui::Ui, knows: &Knowledge, roster: &Roster) {
        let words = self.words(roster);
        egui::CollapsingHeader::new(format!("TA知道的事（{}）", knows.facts().len()))
            .default_open(false)
            .show(ui, |ui| {
                for f in knows.facts().iter().rev().take(SHOWN) {
                    ui.label(format!("{} {}", f.learned.stamp(), words.with_source(f)));
                }
            });
    }

    /// 「问问TA」: a question box and the resident's answer.
    pub(super) fn ask_section(
        &mut self,
        ui: &mut egui::Ui,
        id: &ResidentId,
        known: Known,
        roster: &Roster,
    ) {
        egui::CollapsingHeader::new("问问TA")
            .default_open(true)
            .show(ui, |ui| {
                let mut asked = false;
                ui.horizontal(|ui| {
                    let edit = egui::TextEdit::singleline(&mut self.state.question)
                        .hint_text("你昨天都和谁聊过天？")
                        .desired_width(220.0);
                    let r = ui.add(edit);
                    let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    asked = ui.button("问").clicked() || enter;
                });
                let question = self.state.question.trim().to_string();
                if asked && !question.is_empty() {
                    let answer = self.answer(id, known, roster, &question);
                    self.state.answer = Some((id.clone(), question, answer));
                }
                if let Some((who, q, a)) = &self.state.answer
                    && who == id
                {
                    ui.label(egui::RichText::new(format!("问：{q}")).weak());
                    ui.label(format!("答：{a}"));
                }
            });
    }

    /// The built-in brain's answer, from what the resident knows now.
    fn answer(&self, id: &ResidentId, known: Known, roster: &Roster, question: &str) -> String {
        let Some(idx) = roster.idx(id) else {
            return String::new();
        };
        let (knows, ties, memories, needs) = known;
        let iv = Interview {
            who: Subject {
                idx,
                me: &self.scenario.0.residents[idx.i()],
                knows,
                ties,
                memories: memories.entries(),
                needs: Some(needs),
            },
            words: self.words(roster),
            now: self.clock.now,
            bank: &self.scenario.0.dialogue,
            segmenter: self.search.segmenter(),
            seed: self.settings.seed,
        };
        crate::builtin::interview::answer(&iv, question).text
    }
}
