//! A resident's memory stream: what each memory is, its vector, and the
//! store that keeps them searchable. Filling it and the nightly
//! consolidation are in the module above.

use std::sync::Arc;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::base::time::GameTime;
use crate::recall::{self, RecallTuning, Segmenter};

/// Where a memory came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// From the scenario: background and goals. Never consolidated away.
    Initial,
    /// Something the resident set out to do.
    Plan,
    /// A conversation.
    Dialogue,
    /// A notice posted or read.
    Notice,
    /// Something seen or learnt (a gathering, an appointment).
    Observation,
    /// A night's consolidated summary.
    Summary,
    /// What the player said in a chat: kept word for word, never consolidated.
    Chat,
}

/// One memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Memory {
    /// When it happened.
    pub(crate) time: GameTime,
    /// Where it came from.
    pub kind: MemoryKind,
    /// 0–100.
    pub importance: u8,
    /// What is remembered (boxed: kept for days, it never grows, and a big
    /// town holds two million).
    pub text: Box<str>,
    /// When it was last recalled (its recency counts from here).
    #[serde(default)]
    pub(crate) last_access: GameTime,
    /// Its embedding, when an embeddings endpoint is configured.
    #[serde(skip)]
    pub(crate) vector: Option<Arc<Embedding>>,
}

/// A memory's vector and the model that made it (vectors of different
/// models are never compared).
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding {
    /// The embedding model.
    pub model: String,
    /// The vector.
    pub values: Vec<f32>,
}

impl Memory {
    pub(super) fn new(time: GameTime, kind: MemoryKind, importance: u8, text: String) -> Self {
        Self {
            time,
            kind,
            importance: importance.min(100),
            // Boxing drops the room `format!` may have left.
            text: text.into_boxed_str(),
            last_access: time,
            vector: None,
        }
    }

    /// A memory read back from a save.
    pub(crate) fn restored(
        (time, last_access): (GameTime, GameTime),
        kind: MemoryKind,
        importance: u8,
        text: String,
        vector: Option<Arc<Embedding>>,
    ) -> Self {
        Self {
            last_access,
            vector,
            ..Self::new(time, kind, importance, text)
        }
    }

    /// `[YYYY-MM-DD HH:MM] text`
    pub fn line(&self) -> String {
        format!("{} {}", self.time.stamp(), self.text)
    }
}

/// A resident's memories, oldest first, with a search index built when first
/// searched and kept up to date as memories are added.
#[derive(Component, Debug, Clone, Default)]
pub struct Memories {
    pub(super) entries: Vec<Memory>,
    /// The index of `entries[..indexed]`; document ids are positions.
    pub(super) index: LazyIndex,
}

impl Memories {
    /// Memories read back from a save, oldest first.
    pub(crate) fn from_entries(entries: Vec<Memory>) -> Self {
        Self {
            entries,
            index: LazyIndex::default(),
        }
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Memory] {
        &self.entries
    }

    /// Remembers `text` (importance capped at 100).
    pub fn push(&mut self, time: GameTime, kind: MemoryKind, importance: u8, text: String) {
        self.keep(Memory::new(time, kind, importance, text));
    }

    /// Keeps a memory made elsewhere (newest last).
    pub(super) fn keep(&mut self, memory: Memory) {
        crate::base::room_for_one(&mut self.entries);
        self.entries.push(memory);
    }

    /// Takes the entries out (the index starts again).
    pub(super) fn take_entries(&mut self) -> Vec<Memory> {
        self.index = LazyIndex::default();
        std::mem::take(&mut self.entries)
    }

    /// Puts a memory at `at` (the index starts again).
    pub(super) fn insert(&mut self, at: usize, memory: Memory) {
        self.index = LazyIndex::default();
        self.entries.insert(at, memory);
    }

    /// Gives entry `i` its embedding.
    pub(crate) fn set_vector(&mut self, i: usize, vector: Arc<Embedding>) {
        if let Some(m) = self.entries.get_mut(i) {
            if i < self.index.len() {
                self.index
                    .get_mut()
                    .set_vector(i as recall::DocId, vector.values.clone());
            }
            m.vector = Some(vector);
        }
    }

    /// Indexes the entries added since the last search.
    pub(crate) fn sync(&mut self, seg: &Segmenter) {
        for m in &self.entries[self.index.len().min(self.entries.len())..] {
            let meta = recall::DocMeta {
                time: m.time,
                importance: m.importance,
                last_access: m.last_access,
            };
            let doc = self.index.get_mut().add(seg, &m.text, meta);
            if let Some(v) = &m.vector {
                self.index.get_mut().set_vector(doc, v.values.clone());
            }
        }
    }

    /// The memories most worth recalling for `q` (relevance, importance,
    /// recency), best first, as positions in [`Memories::entries`] with
    /// their scores. Nothing is marked recalled: see [`Memories::recall`].
    pub fn search(
        &mut self,
        seg: &Segmenter,
        q: &recall::Query<'_>,
        tuning: &RecallTuning,
    ) -> Vec<recall::Hit> {
        self.sync(seg);
        self.index.get_mut().search(seg, q, tuning)
    }

    /// The memories sharing something with the query, best first, among
    /// those indexed so far: for readers that cannot index or mark (the index
    /// of a resident with an async mind is kept up to date each step).
    pub fn relevant_indexed(
        &self,
        seg: &Segmenter,
        q: &recall::Query<'_>,
        tuning: &RecallTuning,
    ) -> Vec<&Memory> {
        let hits = self.index.get().map(|i| i.search(seg, q, tuning));
        relevant(hits.unwrap_or_default(), q.k)
            .iter()
            .map(|h| &self.entries[h.doc as usize])
            .collect()
    }

    /// [`Memories::search`], and the memories found count as recalled at
    /// `q.now` (their recency restarts, as in *Generative Agents*).
    pub fn recall(
        &mut self,
        seg: &Segmenter,
        q: &recall::Query<'_>,
        tuning: &RecallTuning,
    ) -> Vec<&Memory> {
        let hits = self.search(seg, q, tuning);
        self.touch(&hits, q.now)
    }

    /// [`Memories::recall`], keeping only memories that share something with
    /// the query (a chat answer should not drift to an unrelated memory).
    pub fn recall_relevant(
        &mut self,
        seg: &Segmenter,
        q: &recall::Query<'_>,
        tuning: &RecallTuning,
    ) -> Vec<&Memory> {
        let hits = relevant(self.search(seg, &widened(q), tuning), q.k);
        self.touch(&hits, q.now)
    }

    /// Marks the hits recalled at `now`.
    fn touch(&mut self, hits: &[recall::Hit], now: GameTime) -> Vec<&Memory> {
        for h in hits {
            self.index.get_mut().touch(h.doc, now);
            let m = &mut self.entries[h.doc as usize];
            m.last_access = m.last_access.max(now);
        }
        hits.iter().map(|h| &self.entries[h.doc as usize]).collect()
    }

    /// Remembers the scenario's background (never consolidated away).
    pub fn push_initial(&mut self, time: GameTime, text: String) {
        self.push(time, MemoryKind::Initial, 80, text);
    }

    /// The newest `n` entries, oldest first.
    pub fn recent(&self, n: usize) -> &[Memory] {
        &self.entries[self.entries.len().saturating_sub(n)..]
    }
}

/// A resident's search index, made on its first search: most residents of
/// a big town are never searched, and an empty index is 150 bytes.
#[derive(Debug, Clone, Default)]
pub(super) struct LazyIndex(Option<Box<recall::Index>>);

impl LazyIndex {
    /// Documents indexed.
    pub(super) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |i| i.len())
    }

    /// The index, if made.
    fn get(&self) -> Option<&recall::Index> {
        self.0.as_deref()
    }

    /// The index, made now if it was not.
    fn get_mut(&mut self) -> &mut recall::Index {
        self.0.get_or_insert_with(Box::default)
    }
}

/// A query asking for more hits, so that `k` relevant ones survive the filter.
fn widened<'a>(q: &recall::Query<'a>) -> recall::Query<'a> {
    recall::Query { k: q.k * 4, ..*q }
}

/// The first `k` hits that share something with the query.
fn relevant(mut hits: Vec<recall::Hit>, k: usize) -> Vec<recall::Hit> {
    hits.retain(|h| h.relevance > 0.0);
    hits.truncate(k);
    hits
}
