//! The days two residents talked, kept in eight bytes: a big town has a
//! million ties, and a list on the heap for each cost more than the tie.

use serde::{Deserialize, Serialize};

/// How many days of talk a tie remembers (whom one talked with, day by day).
pub const TALK_DAYS_KEPT: usize = 14;

/// The days of talk before the last one, as bits.
const EARLIER: u32 = TALK_DAYS_KEPT as u32 - 1;

/// The days they talked (as residents count days: see
/// [`GameTime::social_day`](crate::base::time::GameTime::social_day)), the
/// latest [`TALK_DAYS_KEPT`]: the last one, and bit `k` of `earlier` for the
/// day `k + 1` before it. Saved as the list of days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<i32>", into = "Vec<i32>")]
pub struct TalkDays {
    /// `i32::MIN`: never.
    last: i32,
    earlier: u16,
}

impl Default for TalkDays {
    fn default() -> Self {
        Self {
            last: i32::MIN,
            earlier: 0,
        }
    }
}

impl TalkDays {
    /// The last day they talked.
    pub fn last(&self) -> Option<i32> {
        (self.last != i32::MIN).then_some(self.last)
    }

    /// They talked on `day` (the days kept slide on; a day older than they
    /// reach is dropped).
    pub fn note(&mut self, day: i32) {
        let Some(last) = self.last() else {
            self.last = day;
            return;
        };
        let gap = i64::from(day) - i64::from(last);
        if gap > 0 {
            let shifted = if gap > i64::from(EARLIER) {
                0
            } else {
                (u32::from(self.earlier) << gap) | 1 << (gap - 1)
            };
            self.earlier = (shifted & ((1 << EARLIER) - 1)) as u16;
            self.last = day;
        } else if gap < 0 && -gap <= i64::from(EARLIER) {
            self.earlier |= 1 << (-gap - 1);
        }
    }

    /// Whether they talked on `day`.
    pub fn contains(&self, day: i32) -> bool {
        let Some(last) = self.last() else {
            return false;
        };
        let back = i64::from(last) - i64::from(day);
        back == 0 || (1..=i64::from(EARLIER)).contains(&back) && self.earlier & 1 << (back - 1) != 0
    }

    /// The days, oldest first.
    pub fn days(&self) -> Vec<i32> {
        let Some(last) = self.last() else {
            return Vec::new();
        };
        let mut days: Vec<i32> = (1..=EARLIER as i32)
            .rev()
            .filter(|&k| self.earlier & 1 << (k - 1) != 0)
            .map(|k| last - k)
            .collect();
        days.push(last);
        days
    }
}

impl From<Vec<i32>> for TalkDays {
    fn from(mut days: Vec<i32>) -> Self {
        days.sort_unstable();
        let mut out = Self::default();
        for d in days {
            out.note(d);
        }
        out
    }
}

impl From<TalkDays> for Vec<i32> {
    fn from(days: TalkDays) -> Self {
        days.days()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_fortnight_of_talk_is_kept() {
        let mut t = TalkDays::default();
        assert_eq!((t.last(), t.days()), (None, vec![]));
        assert!(!t.contains(0));
        for d in [3, 3, 4, 7] {
            t.note(d);
        }
        assert_eq!(t.days(), [3, 4, 7]);
        assert!(t.contains(4) && t.contains(7) && !t.contains(5) && !t.contains(8));
        // Day 7 + 13 still reaches day 7; one more day drops it.
        t.note(20);
        assert_eq!(t.days(), [7, 20]);
        t.note(21);
        assert_eq!(t.days(), [20, 21]);
        // A long silence forgets everything before.
        t.note(100);
        assert_eq!((t.last(), t.days()), (Some(100), vec![100]));
        // Negative days (before the run's first) and the save's list.
        let back = TalkDays::from(vec![-2, -5, 0]);
        assert_eq!(back.days(), [-5, -2, 0]);
        let json = serde_json::to_string(&back).unwrap();
        assert_eq!(json, "[-5,-2,0]");
        assert_eq!(serde_json::from_str::<TalkDays>(&json).unwrap(), back);
        // As many as a fortnight, oldest dropped beyond.
        let all = TalkDays::from((0..20).collect::<Vec<_>>());
        assert_eq!(all.days(), (6..20).collect::<Vec<_>>());
    }
}
