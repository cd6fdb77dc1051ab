//! Each resident's memory stream, fed from the step's events, and the nightly
//! consolidation that replaces a day's entries with one summary.

use std::sync::{Arc, OnceLock};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::actions::FellAsleep;
use super::event_log::{EventBody, SimEvent};
use super::notices::NoticeBoard;
use super::residents::{ActivityKind, AsyncMind, Census, NightState, Persona, Resident, Roster};
use super::town::ActiveTuning;
use super::{ActiveBrain, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::recall::{self, RecallTuning, Segmenter};
use crate::scenario::{LocationId, ResidentId, Scenario, Town};
use crate::sim::StepCx;
use crate::sim::brain::SummaryContext;

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
    /// What is remembered.
    pub text: String,
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
    fn new(time: GameTime, kind: MemoryKind, importance: u8, text: String) -> Self {
        Self {
            time,
            kind,
            importance: importance.min(100),
            text,
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
    entries: Vec<Memory>,
    /// The index of `entries[..indexed]`; document ids are positions.
    index: recall::Index,
}

impl Memories {
    /// Memories read back from a save, oldest first.
    pub(crate) fn from_entries(entries: Vec<Memory>) -> Self {
        Self {
            entries,
            index: recall::Index::default(),
        }
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Memory] {
        &self.entries
    }

    /// Remembers `text` (importance capped at 100).
    pub fn push(&mut self, time: GameTime, kind: MemoryKind, importance: u8, text: String) {
        self.entries.push(Memory::new(time, kind, importance, text));
    }

    /// Takes the entries out (the index starts again).
    fn take_entries(&mut self) -> Vec<Memory> {
        self.index = recall::Index::default();
        std::mem::take(&mut self.entries)
    }

    /// Puts a memory at `at` (the index starts again).
    fn insert(&mut self, at: usize, memory: Memory) {
        self.index = recall::Index::default();
        self.entries.insert(at, memory);
    }

    /// Gives entry `i` its embedding.
    pub(crate) fn set_vector(&mut self, i: usize, vector: Arc<Embedding>) {
        if let Some(m) = self.entries.get_mut(i) {
            if i < self.index.len() {
                self.index
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
            let doc = self.index.add(seg, &m.text, meta);
            if let Some(v) = &m.vector {
                self.index.set_vector(doc, v.values.clone());
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
        self.index.search(seg, q, tuning)
    }

    /// A search of what is indexed so far, for readers that cannot index
    /// (the index of a resident with an async mind is kept up to date each step).
    pub fn search_indexed(
        &self,
        seg: &Segmenter,
        q: &recall::Query<'_>,
        tuning: &RecallTuning,
    ) -> Vec<recall::Hit> {
        self.index.search(seg, q, tuning)
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
        let wide = recall::Query { k: q.k * 4, ..*q };
        let mut hits = self.search(seg, &wide, tuning);
        hits.retain(|h| h.relevance > 0.0);
        hits.truncate(q.k);
        self.touch(&hits, q.now)
    }

    /// Marks the hits recalled at `now`.
    fn touch(&mut self, hits: &[recall::Hit], now: GameTime) -> Vec<&Memory> {
        for h in hits {
            self.index.touch(h.doc, now);
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

    /// The `k` memories of `who` most worth recalling for `query` at `now`,
    /// as stamped lines, best first (each counts as recalled).
    pub fn recall_lines(
        &mut self,
        who: Entity,
        query: &str,
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
            vector: None,
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
            record,
            consolidate.in_set(Consolidation),
            index_async_minds.after(Consolidation),
        )
            .chain()
            .in_set(SimSet::Memory),
    );
}

/// How much each kind of memory matters (0–100): what a night's summary and
/// the waking thought pick first.
mod importance {
    /// Going to a gathering, posting a notice.
    pub(super) const PLAN_EVENTFUL: u8 = 45;
    /// Going to see people.
    pub(super) const PLAN_SOCIAL: u8 = 25;
    /// Sleeping, idling.
    pub(super) const PLAN_ROUTINE: u8 = 5;
    /// Any other plan.
    pub(super) const PLAN: u8 = 12;
    /// What a HEART RULE skill found out.
    pub(super) const SKILL_LEARNT: u8 = 80;
    /// An appointment made.
    pub(super) const APPOINTMENT: u8 = 60;
    /// Stood up at an appointment.
    pub(super) const STOOD_UP: u8 = 55;
    /// A notice one posted.
    pub(super) const NOTICE_POSTED: u8 = 60;
    /// A notice one read.
    pub(super) const NOTICE_READ: u8 = 65;
    /// A gathering one means to go to …
    pub(super) const GOING: u8 = 70;
    /// … or heard of and will miss.
    pub(super) const NOT_GOING: u8 = 40;
    /// Who one saw on arriving somewhere.
    pub(super) const SEEN: u8 = 15;
}

/// Stores one memory for a resident.
type Remember<'a> = dyn FnMut(&ResidentId, GameTime, MemoryKind, u8, String) + 'a;

/// What memories are written from.
struct Sources<'a> {
    roster: &'a Roster,
    town: &'a Town,
    census: &'a Census,
    board: &'a NoticeBoard,
}

/// Turns this step's events into memories of the residents involved.
fn record(
    mut reader: MessageReader<SimEvent>,
    roster: Res<Roster>,
    town: Res<Town>,
    census: Res<Census>,
    board: Res<NoticeBoard>,
    mut q: Query<&mut Memories>,
) {
    let mut remember =
        |id: &ResidentId, time: GameTime, kind: MemoryKind, imp: u8, text: String| {
            if let Some(mut m) = roster.entity(id).and_then(|e| q.get_mut(e).ok()) {
                m.push(time, kind, imp, text);
            }
        };
    let sources = Sources {
        roster: &roster,
        town: &town,
        census: &census,
        board: &board,
    };
    for e in reader.read() {
        sources.recall(e, &mut remember);
    }
}

impl Sources<'_> {
    /// The memories one event leaves.
    fn recall(&self, e: &SimEvent, remember: &mut Remember) {
        match &e.body {
            EventBody::Plan { .. } | EventBody::Arrive { .. } => self.own_day(e, remember),
            EventBody::ConversationEnd { .. }
            | EventBody::SkillEnd { .. }
            | EventBody::AppointmentMade { .. }
            | EventBody::AppointmentMissed { .. } => self.with_others(e, remember),
            EventBody::Notice { .. }
            | EventBody::NoticeRead { .. }
            | EventBody::Appointment { .. } => self.heard(e, remember),
            _ => {}
        }
    }

    fn place_name(&self, id: &LocationId) -> &str {
        self.town
            .find(id.as_str())
            .map_or("", |l| self.town.name(l))
    }

    /// Plans, and whom one saw on arriving.
    fn own_day(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            EventBody::Plan {
                resident,
                action,
                activity,
                target_location,
                dialogue,
                ..
            } => {
                let place = self.place_name(target_location);
                let importance = match activity {
                    ActivityKind::Attend | ActivityKind::PostNotice => importance::PLAN_EVENTFUL,
                    ActivityKind::Socialise => importance::PLAN_SOCIAL,
                    ActivityKind::Sleep | ActivityKind::Idle => importance::PLAN_ROUTINE,
                    _ => importance::PLAN,
                };
                let text = format!("{action} @{place}：{dialogue}");
                remember(resident, t, MemoryKind::Plan, importance, text);
            }
            EventBody::Arrive { resident, location } => {
                let (Some(place), Some(me)) =
                    (self.town.find(location.as_str()), self.roster.idx(resident))
                else {
                    return;
                };
                let seen: Vec<&str> = self.census.at_place[place.i()]
                    .iter()
                    .filter(|&&i| i != me)
                    .take(3)
                    .map(|&i| self.roster.name_of(i))
                    .collect();
                if !seen.is_empty() {
                    let text = format!("在{}看到了{}", self.town.name(place), seen.join("、"));
                    remember(resident, t, MemoryKind::Observation, importance::SEEN, text);
                }
            }
            _ => {}
        }
    }

    /// Conversations, skills and appointments.
    fn with_others(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            // Each participant keeps its own one-line view, importance from the social rules.
            EventBody::ConversationEnd { memories, .. } => {
                for m in memories {
                    let importance = m.importance.min(100) as u8;
                    let text = m.text.clone();
                    remember(&m.resident, t, MemoryKind::Dialogue, importance, text);
                }
            }
            // What a skill found out stays with the one who ran it.
            EventBody::SkillEnd {
                resident,
                partner,
                skill,
                finished: true,
                results,
                ..
            } if !results.is_empty() => {
                let who = self
                    .roster
                    .idx(partner)
                    .map_or("", |i| self.roster.name_of(i));
                let found: Vec<String> = results.iter().map(|(k, v)| format!("{k}：{v}")).collect();
                let text: String = format!("和{who}谈了「{skill}」，了解到{}", found.join("；"))
                    .chars()
                    .take(120)
                    .collect();
                remember(
                    resident,
                    t,
                    MemoryKind::Dialogue,
                    importance::SKILL_LEARNT,
                    text,
                );
            }
            EventBody::AppointmentMade {
                residents,
                location,
                at,
                ..
            } => {
                let place = self.place_name(location);
                for (k, r) in residents.iter().enumerate() {
                    let other = self.roster.name(&residents[1 - k.min(1)]);
                    let when = crate::sim::social::meetings::when_text(t, *at);
                    let text = format!("和{other}约好{when}在{place}见面");
                    remember(r, t, MemoryKind::Plan, importance::APPOINTMENT, text);
                }
            }
            EventBody::AppointmentMissed {
                residents, showed, ..
            } => {
                for k in 0..residents.len().min(2) {
                    if showed[k] && !showed[1 - k] {
                        let other = self.roster.name(&residents[1 - k]);
                        let text = format!("{other}说好要来，却让我白等了一场");
                        let kind = MemoryKind::Observation;
                        remember(&residents[k], t, kind, importance::STOOD_UP, text);
                    }
                }
            }
            _ => {}
        }
    }

    /// Notices posted and read, and gatherings heard of.
    fn heard(&self, e: &SimEvent, remember: &mut Remember) {
        let t = e.time;
        match &e.body {
            EventBody::Notice { resident, text, .. } => {
                let text = format!("我在公告板上贴了公告：「{text}」");
                remember(
                    resident,
                    t,
                    MemoryKind::Notice,
                    importance::NOTICE_POSTED,
                    text,
                );
            }
            EventBody::NoticeRead {
                resident,
                notice,
                author,
            } => {
                if let Some(n) = self.board.notices.iter().find(|n| n.id == *notice) {
                    let text = format!(
                        "在公告板上看到{}的公告：「{}」",
                        self.roster.name(author),
                        n.text
                    );
                    remember(
                        resident,
                        t,
                        MemoryKind::Notice,
                        importance::NOTICE_READ,
                        text,
                    );
                }
            }
            EventBody::Appointment {
                resident,
                gathering,
                will_attend,
                ..
            } => {
                let (text, importance) = if *will_attend {
                    (format!("打算去参加{gathering}"), importance::GOING)
                } else {
                    (
                        format!("听说了{gathering}，不过可能去不了"),
                        importance::NOT_GOING,
                    )
                };
                remember(resident, t, MemoryKind::Plan, importance, text);
            }
            _ => {}
        }
    }
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
        .rposition(|m| m.time == time && m.kind == kind && m.text == old)
    else {
        return false;
    };
    // The text changed: index it again (and its old vector no longer fits).
    memories.index = recall::Index::default();
    let m = &mut memories.entries[i];
    m.text = new;
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
        assert_eq!(found[0].text, "和阿朵聊了美食");
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
