//! What a resident is asked from (`heartvale interview`, the inspector's
//! 问问TA box): frozen in time and without side effects, the one asked —
//! its persona, what it knows, its ties and memories — with the words of
//! the town. The built-in brain answers from it (`crate::builtin::interview`);
//! a model is told its facts with their sources (`crate::llm::interview`).

use serde::Serialize;

use super::knowledge::facts::{Fact, Knowledge};
use super::knowledge::words::FactWords;
use super::memory::store::Memory;
use super::residents::Relationships;
use super::residents::roster::RosterIdx;
use crate::base::time::GameTime;
use crate::recall::Segmenter;
use crate::scenario::{PhraseBank, Profile};

/// The one asked.
#[derive(Clone, Copy)]
pub struct Subject<'a> {
    /// Its roster index.
    pub idx: RosterIdx,
    /// Who it is.
    pub me: &'a Profile,
    /// What it knows.
    pub knows: &'a Knowledge,
    /// Its ties.
    pub ties: &'a Relationships,
    /// Its memories, oldest first.
    pub memories: &'a [Memory],
    /// How it feels now (its needs).
    pub needs: Option<&'a super::residents::Needs>,
}

/// Everything an answer is made from.
#[derive(Clone, Copy)]
pub struct Interview<'a> {
    /// The one asked.
    pub who: Subject<'a>,
    /// Names, places, gatherings and personas.
    pub words: FactWords<'a>,
    /// The moment of the question.
    pub now: GameTime,
    /// The town's phrase bank (its `interview:` lines).
    pub bank: &'a PhraseBank,
    /// The town's tokenizer, for searching memories.
    pub segmenter: &'a Segmenter,
    /// The run's seed (the wording varies by it).
    pub seed: u64,
}

/// An answer, and what it was made from.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// What the question was read as asking.
    pub asked: String,
    /// The answer, in the resident's words.
    pub text: String,
    /// The facts it used, in Chinese with their sources.
    pub facts: Vec<String>,
    /// The memories it used.
    pub memories: Vec<String>,
}

impl<'w> Interview<'w> {
    /// The resident at `idx` as the world holds it now (none: it lacks
    /// what an answer is made from).
    pub fn of(world: &'w bevy::prelude::World, idx: RosterIdx) -> Option<Self> {
        use super::memory::MemorySearch;
        use super::memory::store::Memories;
        let roster = world.resource::<super::residents::roster::Roster>();
        let entity = roster.entity_of(idx);
        let scenario = &world.get_resource::<super::LoadedScenario>()?.0;
        Some(Interview {
            who: Subject {
                idx,
                me: scenario.residents.get(idx.i())?,
                knows: world.get::<Knowledge>(entity)?,
                ties: world.get::<Relationships>(entity)?,
                memories: world.get::<Memories>(entity)?.entries(),
                needs: world.get::<super::residents::Needs>(entity),
            },
            words: FactWords {
                roster,
                town: world.get_resource::<crate::scenario::Town>()?,
                gatherings: &world.get_resource::<super::town::Gatherings>()?.0,
                residents: &scenario.residents,
            },
            now: world.resource::<super::clock::Clock>().now,
            bank: &scenario.dialogue,
            segmenter: world.get_resource::<MemorySearch>()?.segmenter(),
            seed: world.get_resource::<super::RunSettings>()?.seed,
        })
    }

    /// The facts a model's prompt is told, with their sources: the most
    /// important and newest first.
    pub fn known_lines(&self, limit: usize) -> Vec<String> {
        let mut facts: Vec<&Fact> = self.who.knows.facts().iter().collect();
        facts.sort_by_key(|f| {
            (
                std::cmp::Reverse(f.importance),
                std::cmp::Reverse(f.learned),
            )
        });
        facts
            .into_iter()
            .take(limit)
            .map(|f| self.words.with_source(f))
            .collect()
    }

    /// Whom it talked with on each of the last `days` days, newest first:
    /// (day, names).
    pub fn talks_by_day(&self, days: i64) -> Vec<(i64, Vec<&str>)> {
        let today = self.now.social_day();
        (0..days)
            .map(|back| {
                let day = today - back;
                let names = self
                    .who
                    .ties
                    .iter()
                    .filter(|r| r.talked_on(day))
                    .map(|r| self.words.roster.name_of(r.with_idx))
                    .collect();
                (day, names)
            })
            .collect()
    }
}
