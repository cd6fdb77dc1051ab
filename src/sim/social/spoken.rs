//! What each resident has said lately, so a built-in speaker does not repeat
//! its own lines: never within a day, and not within [`DAYS`] days while the
//! phrase bank has something else. Kept as hashes, in roster order; saved
//! with the town so a resumed run chooses the same lines.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::roster::{Roster, RosterIdx};

/// Lines are remembered for this many days (today and the days before).
pub const DAYS: i64 = 3;

/// Lines said lately, by roster index: (day number, hash of the words).
#[derive(Resource, Debug, Default, Clone, Serialize, Deserialize)]
pub struct Spoken {
    lines: Vec<Vec<(i64, u64)>>,
    /// How often each line (hash) was said in town today, by anyone: a
    /// speaker with several fresh lines takes one the town has heard least
    /// (a town of 200 shares a trade's lines among dozens of speakers).
    /// Looked up for every line weighed; saved as a sorted map.
    #[serde(default, with = "sorted")]
    town: HashMap<u64, u32>,
    /// The day `town` counts.
    #[serde(default)]
    town_day: i64,
}

impl Spoken {
    /// What resident `i` has said in the last [`DAYS`] days.
    pub fn of(&self, i: RosterIdx) -> &[(i64, u64)] {
        self.lines.get(i.i()).map_or(&[], Vec::as_slice)
    }

    /// How often the town has heard the line with this hash today.
    pub fn heard_today(&self, hash: u64) -> u32 {
        self.town.get(&hash).copied().unwrap_or(0)
    }

    /// Notes that `i` said the line with this hash on `day`.
    fn note(&mut self, day: i64, i: RosterIdx, hash: u64) {
        if self.lines.len() <= i.i() {
            self.lines.resize(i.i() + 1, Vec::new());
        }
        let mine = &mut self.lines[i.i()];
        // Kept oldest first: only an old first line means there are some to drop.
        if mine.first().is_some_and(|&(d, _)| d <= day - DAYS) {
            mine.retain(|&(d, _)| d > day - DAYS);
        }
        mine.push((day, hash));
        if day != self.town_day {
            self.town.clear();
            self.town_day = day;
        }
        *self.town.entry(hash).or_default() += 1;
    }
}

/// The town's counts written as a sorted map (as they always were saved).
mod sorted {
    use std::collections::BTreeMap;

    use bevy::platform::collections::HashMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(m: &HashMap<u64, u32>, s: S) -> Result<S::Ok, S::Error> {
        m.iter().collect::<BTreeMap<_, _>>().serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<HashMap<u64, u32>, D::Error> {
        Ok(BTreeMap::<u64, u32>::deserialize(d)?.into_iter().collect())
    }
}

/// A line's hash (FNV-1a over its words; a leading `@名字 ` ignored).
pub fn line_hash(text: &str) -> u64 {
    let words = crate::scenario::dialogue::without_mention(text);
    crate::base::hash::fnv1a(words)
}

/// From this many events, the step's lines are found and hashed on all threads.
const PARALLEL_EVENTS: usize = 1024;

/// Notes this step's messages under their speakers: who said what (a hash)
/// is found side by side, in chunks of events, then noted in order.
pub(super) fn remember(
    clock: Res<Clock>,
    roster: Res<Roster>,
    mut spoken: ResMut<Spoken>,
    mut events: MessageReader<SimEvent>,
) {
    let day = clock.now.day_number();
    let events: Vec<&SimEvent> = events.read().collect();
    let said = crate::sim::par_chunks(&events, PARALLEL_EVENTS, |part| {
        part.iter()
            .filter_map(|e| match &e.body {
                EventBody::Message { speaker, text, .. } => {
                    Some((roster.idx(speaker)?, line_hash(text)))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    });
    for (i, hash) in said.into_iter().flatten() {
        spoken.note(day, i, hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_kept_for_three_days_and_a_mention_does_not_count() {
        let mut s = Spoken::default();
        s.note(10, RosterIdx(2), line_hash("@阿朵 今天的汤真香。"));
        assert_eq!(s.of(RosterIdx(2)), &[(10, line_hash("今天的汤真香。"))]);
        assert!(s.of(RosterIdx(0)).is_empty());
        s.note(12, RosterIdx(2), line_hash("早！"));
        assert_eq!(s.of(RosterIdx(2)).len(), 2, "two days later: still known");
        s.note(13, RosterIdx(2), line_hash("晚上好。"));
        let days: Vec<i64> = s.of(RosterIdx(2)).iter().map(|l| l.0).collect();
        assert_eq!(days, [12, 13], "three days later: forgotten");
    }
}
