//! What a told event is: its line, its strand (for filters), whom it is
//! about, and where the narrator gets names from. The telling itself is in
//! `narrate`.

use std::collections::HashMap;

use super::events::EventBody;
use crate::scenario::{LocationId, ResidentId};

/// Where the narrator gets the names of residents and places.
pub trait Names {
    /// A resident's name (its id when unknown).
    fn resident(&self, id: &ResidentId) -> String;
    /// A place's name (its id when unknown).
    fn place(&self, id: &LocationId) -> String;
}

/// Names read from a log's `start` line: residents and places by name
/// (places by id in logs older than their names).
#[derive(Debug, Default)]
pub struct LogNames {
    residents: HashMap<ResidentId, String>,
    places: HashMap<LocationId, String>,
}

impl LogNames {
    /// Learns the names from a `start` event (other events: no change).
    pub fn learn(&mut self, body: &EventBody) {
        if let EventBody::Start {
            residents,
            names,
            places,
            place_names,
            ..
        } = body
        {
            for (id, name) in residents.iter().zip(names) {
                self.residents.insert(id.clone(), name.clone());
            }
            for (id, name) in places.iter().zip(place_names) {
                self.places.insert(id.clone(), name.clone());
            }
        }
    }
}

impl Names for LogNames {
    fn resident(&self, id: &ResidentId) -> String {
        self.residents
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    fn place(&self, id: &LocationId) -> String {
        self.places
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }
}

/// What a reader filters the stream by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strand {
    /// Plans and fixed plans.
    Plan,
    /// Setting off.
    Move,
    /// Arriving.
    Arrive,
    /// Conversations starting, growing, ending; skills in them.
    Conversation,
    /// Lines said.
    Message,
    /// Ties changing.
    Relationship,
    /// Appointments and gatherings.
    Appointment,
    /// Notices posted and read.
    Notice,
    /// Going to sleep.
    Sleep,
    /// Waking.
    Wake,
    /// Memories consolidated.
    Consolidate,
    /// Something learnt, and from where.
    Learned,
    /// Cupid's dates.
    Date,
    /// Calls to models, and their daily accounting.
    Llm,
    /// The run's start and end.
    Run,
}

impl Strand {
    /// Every strand, in menu order.
    pub const ALL: [Strand; 15] = [
        Strand::Plan,
        Strand::Move,
        Strand::Arrive,
        Strand::Conversation,
        Strand::Message,
        Strand::Relationship,
        Strand::Appointment,
        Strand::Notice,
        Strand::Sleep,
        Strand::Wake,
        Strand::Consolidate,
        Strand::Learned,
        Strand::Date,
        Strand::Llm,
        Strand::Run,
    ];

    /// The strand's name in a filter menu.
    pub fn label(self) -> &'static str {
        match self {
            Strand::Plan => "计划",
            Strand::Move => "出发",
            Strand::Arrive => "到达",
            Strand::Conversation => "对话",
            Strand::Message => "台词",
            Strand::Relationship => "关系",
            Strand::Appointment => "约定",
            Strand::Notice => "公告",
            Strand::Sleep => "睡觉",
            Strand::Wake => "起床",
            Strand::Consolidate => "记忆",
            Strand::Learned => "消息",
            Strand::Date => "约会",
            Strand::Llm => "模型",
            Strand::Run => "运行",
        }
    }
}

/// An event, told.
#[derive(Debug, Clone, PartialEq)]
pub struct Narration {
    /// What it is about, for filters.
    pub(crate) strand: Strand,
    /// Who it is about; the first is where a reader's click goes.
    pub(crate) residents: Vec<ResidentId>,
    /// The conversation a line belongs to.
    pub(crate) conversation: Option<u64>,
    /// The line.
    pub(crate) text: String,
}

/// 「40 升到 47」, 「47 降到 40」 or 「60，没变」 (the fonts have no arrow).
pub(crate) fn moved(before: i64, after: i64) -> String {
    match after.cmp(&before) {
        std::cmp::Ordering::Greater => format!("{before} 升到 {after}"),
        std::cmp::Ordering::Less => format!("{before} 降到 {after}"),
        std::cmp::Ordering::Equal => format!("{after}，没变"),
    }
}
