//! Each resident's memory stream, fed from the step's events (`record`),
//! searchable (an index kept inside it), and the nightly consolidation that
//! replaces a day's entries with one summary.

mod record;
pub(crate) mod store;
pub use store::{Embedding, Memories, Memory, MemoryKind};

use std::sync::{Arc, OnceLock};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::actions::FellAsleep;
use super::brain::ActiveBrain;
use super::event_log::events::{EventBody, SimEvent};
use super::residents::{AsyncMind, NightState, Persona, Resident};
use super::town::ActiveTuning;
use super::{SimSet, SimStep};
use crate::base::time::GameTime;
use crate::recall::{self, Segmenter};
use crate::scenario::Scenario;
use crate::sim::StepCx;
use crate::sim::brain::SummaryContext;

/// The town's tokenizer for memory search: jieba with the residents' and
/// places' names added, loaded on first use (~80 ms), shared by every search.
#[derive(Resource, Clone, Debug, Default)]
pub struct MemorySearch {
    names: Arc<Vec<String>>,
    segmenter: Arc<OnceLock<Segmenter>>,
}

impl MemorySearch {
    /// For a scenario: its residents' and places' names.
    pub fn for_scenario(scenario: &Scenario) -> Self {
        Self {
            names: Arc::new(scenario.names()),
            segmenter: Arc::default(),
        }
    }

    /// The tokenizer (loaded now if it was not yet).
    pub fn segmenter(&self) -> &Segmenter {
        self.segmenter
            .get_or_init(|| Segmenter::new(self.names.iter().map(String::as_str)))
    }
}

/// Recalling memories from systems: the town's tokenizer, the tuning's
/// weights and every resident's memories.
#[derive(SystemParam)]
pub struct Recollection<'w, 's> {
    search: Res<'w, MemorySearch>,
    tuning: Res<'w, ActiveTuning>,
    memories: Query<'w, 's, &'static mut Memories>,
}

impl Recollection<'_, '_> {
    /// The town's tuning (its prompt budget, its retrieval weights).
    pub fn tuning(&self) -> &crate::scenario::Tuning {
        &self.tuning.0
    }

    /// The `k` memories of `who` most worth recalling for `query` (by its
    /// words, and by meaning given its vector) at `now`, as stamped lines,
    /// best first (each counts as recalled).
    pub fn recall_lines(
        &mut self,
        who: Entity,
        (query, vector): (&str, Option<&[f32]>),
        now: GameTime,
        k: usize,
    ) -> Vec<String> {
        let Ok(mut memories) = self.memories.get_mut(who) else {
            return Vec::new();
        };
        let q = recall::Query {
            text: query,
            now,
            as_of: None,
            vector,
            k,
        };
        let seg = self.search.segmenter();
        memories
            .recall(seg, &q, &self.tuning.0.memory)
            .into_iter()
            .map(Memory::line)
            .collect()
    }
}

/// Inserts the town's [`MemorySearch`].
pub(super) fn setup(world: &mut World, scenario: &Scenario) {
    world.insert_resource(MemorySearch::for_scenario(scenario));
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<SummaryRequest>().add_systems(
        SimStep,
        (
            record::record.in_set(Remembering),
            consolidate.in_set(Consolidation),
            index_async_minds.after(Consolidation),
        )
            .chain()
            .in_set(SimSet::Memory),
    );
}

/// Replaces the text of the memory of `kind` stored at `time` as `old` (an
/// async mind's own words arriving after the built-in ones); false if it is
/// gone (consolidated into the night's summary).
pub fn revise(
    memories: &mut Memories,
    time: GameTime,
    kind: MemoryKind,
    old: &str,
    new: String,
) -> bool {
    let Some(i) = memories
        .entries
        .iter()
        .rposition(|m| m.time == time && m.kind == kind && &*m.text == old)
    else {
        return false;
    };
    // The text changed: index it again (and its old vector no longer fits).
    memories.index = store::LazyIndex::default();
    let m = &mut memories.entries[i];
    m.text = new.into_boxed_str();
    m.vector = None;
    true
}

/// A night's entries to be summarised.
#[derive(Debug, Clone)]
pub struct PendingSummary {
    /// The date of the night.
    pub(crate) night: chrono::NaiveDate,
    /// The day's entries, oldest first.
    pub(crate) entries: Vec<Memory>,
}

/// An async mind should summarise these entries (taken out of the stream).
#[derive(Message, Debug, Clone)]
pub struct SummaryRequest {
    /// Whose memories.
    pub(crate) entity: Entity,
    /// What to summarise.
    pub(crate) pending: PendingSummary,
}

/// Keeps the memory index of residents with an async mind up to date, so
/// their prompts can search it without writing to it.
fn index_async_minds(search: Res<MemorySearch>, mut q: Query<&mut Memories, With<AsyncMind>>) {
    for mut m in &mut q {
        if m.index.len() < m.entries.len() {
            m.sync(search.segmenter());
        }
    }
}

/// The step's events become memories (what was learnt this step is known by then).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Remembering;

/// Memories are recorded, then consolidated; async minds pick up summary requests after.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Consolidation;

/// When a resident falls asleep for long enough and has not consolidated tonight,
/// the day's entries become one summary (the brain writes it), dated that day.
fn consolidate(
    mut reader: MessageReader<FellAsleep>,
    mut cx: StepCx,
    brain: Res<ActiveBrain>,
    mut requests: MessageWriter<SummaryRequest>,
    mut q: Query<(
        &Resident,
        &Persona,
        &mut Memories,
        &mut NightState,
        Has<AsyncMind>,
    )>,
) {
    for &FellAsleep { entity, until } in reader.read() {
        let Ok((r, persona, mut memories, mut night, asynchronous)) = q.get_mut(entity) else {
            continue;
        };
        let tonight = cx.clock.now.night_of();
        let long_enough =
            cx.clock.now.minutes_until(until) > cx.tuning.durations.consolidate_after as i64;
        if !long_enough || night.consolidated == Some(tonight) {
            continue;
        }
        night.consolidated = Some(tonight);
        // Split the day's entries from the scenario's memories and older summaries.
        let (entries, kept): (Vec<Memory>, Vec<Memory>) =
            memories.take_entries().into_iter().partition(|m| {
                !matches!(
                    m.kind,
                    MemoryKind::Initial | MemoryKind::Summary | MemoryKind::Chat
                )
            });
        memories.entries = kept;
        let pending = PendingSummary {
            night: tonight,
            entries,
        };
        if asynchronous {
            requests.write(SummaryRequest { entity, pending });
            continue;
        }
        let summary = brain.0.summarise(&SummaryContext {
            me: &persona.0,
            night: tonight,
            entries: &pending.entries,
        });
        store_summary(
            &mut memories,
            r,
            &pending,
            summary,
            cx.clock.now,
            &mut cx.events,
        );
    }
}

/// Adds a night's summary to the stream and logs it.
pub fn store_summary(
    memories: &mut Memories,
    r: &Resident,
    pending: &PendingSummary,
    summary: String,
    now: GameTime,
    events: &mut MessageWriter<SimEvent>,
) {
    let importance = pending
        .entries
        .iter()
        .map(|m| m.importance)
        .max()
        .unwrap_or(30);
    let stamp = pending
        .night
        .and_hms_opt(23, 59, 0)
        .map(GameTime::from_datetime)
        .unwrap_or(now);
    // Keep the stream in time order: the summary goes before anything newer.
    let at = memories.entries.partition_point(|m| m.time <= stamp);
    let memory = Memory::new(stamp, MemoryKind::Summary, importance, summary.clone());
    memories.insert(at, memory);
    events.write(SimEvent {
        time: now,
        body: EventBody::Consolidate {
            resident: r.id.clone(),
            night: pending.night.to_string(),
            entries: pending.entries.len() as u32,
            summary,
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::RecallTuning;

    #[test]
    fn entries_read_as_stamped_lines() {
        let mut m = Memories::default();
        let t = GameTime::parse("2026-04-06 10:30").unwrap();
        m.push(t, MemoryKind::Dialogue, 150, "和阿朵聊了美食".into());
        assert_eq!(m.entries[0].line(), "[2026-04-06 10:30] 和阿朵聊了美食");
        assert_eq!(m.entries[0].importance, 100, "importance is capped at 100");
        assert_eq!(m.recent(5).len(), 1);
    }

    #[test]
    fn recall_finds_new_and_revised_memories_and_marks_them_recalled() {
        let seg = Segmenter::new(["阿朵"]);
        let tuning = RecallTuning::default();
        let t = |s| GameTime::parse(s).unwrap();
        let mut m = Memories::default();
        m.push(
            t("2026-04-06 09:00"),
            MemoryKind::Dialogue,
            30,
            "和阿朵聊了美食".into(),
        );
        m.push(
            t("2026-04-06 10:00"),
            MemoryKind::Plan,
            5,
            "去广场散步".into(),
        );
        let q = |text| recall::Query {
            text,
            now: t("2026-04-06 12:00"),
            as_of: None,
            vector: None,
            k: 1,
        };
        let found = m.recall(&seg, &q("阿朵"), &tuning);
        assert_eq!(&*found[0].text, "和阿朵聊了美食");
        assert_eq!(
            m.entries()[0].last_access,
            t("2026-04-06 12:00"),
            "marked recalled"
        );
        assert_eq!(m.entries()[1].last_access, t("2026-04-06 10:00"));
        // Added after the first search: indexed on the next.
        m.push(
            t("2026-04-06 11:00"),
            MemoryKind::Notice,
            60,
            "公告板上说周六有音乐会".into(),
        );
        assert_eq!(m.search(&seg, &q("音乐会"), &tuning)[0].doc, 2);
        // Revised text is searched as revised.
        let (time, old) = (m.entries()[1].time, m.entries()[1].text.clone());
        assert!(revise(
            &mut m,
            time,
            MemoryKind::Plan,
            &old,
            "去河边钓鱼".into()
        ));
        assert_eq!(m.search(&seg, &q("钓鱼"), &tuning)[0].doc, 1);
    }
}
