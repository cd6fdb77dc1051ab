//! The notice boards' contents: every notice posted, where and by whom.
//! Posting and reading them are in `notices`.

use bevy::prelude::*;

use crate::base::time::GameTime;
use crate::scenario::{LocIdx, ResidentId};

/// A notice on a board.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    /// Its number (1-based, in posting order).
    pub(crate) id: u32,
    /// Who posted it.
    pub(crate) author: ResidentId,
    /// When.
    pub(crate) posted: GameTime,
    /// The board's place.
    pub(crate) location: LocIdx,
    /// What it says.
    pub(crate) text: String,
}

/// Every notice posted, oldest first.
#[derive(Resource, Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct NoticeBoard {
    /// The notices, oldest first.
    pub(crate) notices: Vec<Notice>,
}

impl NoticeBoard {
    /// Posts a notice and returns its number.
    pub fn post(
        &mut self,
        author: ResidentId,
        time: GameTime,
        location: LocIdx,
        text: String,
    ) -> u32 {
        let id = self.notices.len() as u32 + 1;
        self.notices.push(Notice {
            id,
            author,
            posted: time,
            location,
            text,
        });
        id
    }

    /// Places that have at least one notice, in order.
    pub fn locations(&self) -> Vec<LocIdx> {
        let mut l: Vec<LocIdx> = self.notices.iter().map(|n| n.location).collect();
        l.sort();
        l.dedup();
        l
    }

    /// Notices on the board at `location`.
    pub fn at(&self, location: LocIdx) -> impl Iterator<Item = &Notice> {
        self.notices.iter().filter(move |n| n.location == location)
    }

    /// Whether `author` has already posted `text`.
    pub fn posted_by(&self, author: &ResidentId, text: &str) -> bool {
        self.notices
            .iter()
            .any(|n| &n.author == author && n.text == text)
    }
}
