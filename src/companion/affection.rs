//! Affection toward the player, 0–9999, in six stages: +1 a message, +50 for
//! every 7 consecutive game days of talk, −100 a day after 30 days apart
//! (never below the floor of the stage reached), plus what key moments give.
//! Every change is a logged [`AffectionChange`] with its reason.

use serde::{Deserialize, Serialize};

/// The highest affection.
pub const MAX_AFFECTION: i32 = 9999;
/// Gained per message.
pub const PER_MESSAGE: i32 = 1;
/// Gained for each run of this many consecutive days of talk …
pub const STREAK_DAYS: u32 = 7;
/// … this much.
pub const STREAK_BONUS: i32 = 50;
/// Days apart before affection starts to fade …
pub const APART_DAYS: i64 = 30;
/// … by this much a day.
pub const FADE_PER_DAY: i32 = 100;

/// The six stages of the memory design, with the affection each starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stage {
    /// 观察者 0–999: cool, watching.
    #[serde(rename = "观察者")]
    Observer,
    /// 困惑者 1000–2499: curious, asks why.
    #[serde(rename = "困惑者")]
    Puzzled,
    /// 学习者 2500–4999: has likes, makes mistakes.
    #[serde(rename = "学习者")]
    Learner,
    /// 感受者 5000–7499: misses, fears, is jealous.
    #[serde(rename = "感受者")]
    Feeler,
    /// 选择者 7500–8999: defies, would sacrifice.
    #[serde(rename = "选择者")]
    Chooser,
    /// 告别者 9000–9999: frail, cherishing, loving.
    #[serde(rename = "告别者")]
    Farewell,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 6] = [
        Stage::Observer,
        Stage::Puzzled,
        Stage::Learner,
        Stage::Feeler,
        Stage::Chooser,
        Stage::Farewell,
    ];

    /// The stage an affection falls in.
    pub fn of(affection: i32) -> Stage {
        Stage::ALL
            .into_iter()
            .rev()
            .find(|s| affection >= s.floor())
            .unwrap_or(Stage::Observer)
    }

    /// The affection it starts at (and never falls below once reached).
    pub fn floor(self) -> i32 {
        match self {
            Stage::Observer => 0,
            Stage::Puzzled => 1000,
            Stage::Learner => 2500,
            Stage::Feeler => 5000,
            Stage::Chooser => 7500,
            Stage::Farewell => 9000,
        }
    }

    /// 1–6, the design's chapter number.
    pub fn chapter(self) -> u8 {
        self as u8 + 1
    }

    /// The stage of a chapter number (1–6).
    pub fn of_chapter(chapter: u8) -> Option<Stage> {
        Stage::ALL
            .get(usize::from(chapter.checked_sub(1)?))
            .copied()
    }

    /// The design's name: 观察者 … 告别者.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Observer => "观察者",
            Stage::Puzzled => "困惑者",
            Stage::Learner => "学习者",
            Stage::Feeler => "感受者",
            Stage::Chooser => "选择者",
            Stage::Farewell => "告别者",
        }
    }
}

/// Why affection changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeReason {
    /// A message from the player.
    Message,
    /// Seven more consecutive days of talk.
    Streak {
        /// Days in a row so far.
        days: u32,
    },
    /// Days apart beyond the grace period.
    Apart {
        /// Days since the last talk.
        days: i64,
    },
    /// A key moment happened.
    KeyMoment {
        /// Its id.
        id: String,
    },
}

impl ChangeReason {
    /// Reads [`ChangeReason::text`] back.
    pub fn parse(text: &str) -> Option<Self> {
        match text.split_once(':') {
            None if text == "message" => Some(ChangeReason::Message),
            Some(("streak", n)) => n.parse().ok().map(|days| ChangeReason::Streak { days }),
            Some(("apart", n)) => n.parse().ok().map(|days| ChangeReason::Apart { days }),
            Some(("key_moment", id)) => Some(ChangeReason::KeyMoment { id: id.into() }),
            _ => None,
        }
    }

    /// The reason as `affection_logs.reason` keeps it.
    pub fn text(&self) -> String {
        match self {
            ChangeReason::Message => "message".into(),
            ChangeReason::Streak { days } => format!("streak:{days}"),
            ChangeReason::Apart { days } => format!("apart:{days}"),
            ChangeReason::KeyMoment { id } => format!("key_moment:{id}"),
        }
    }
}

/// One change, as `affection_logs` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AffectionChange {
    /// After − before (what the floor and ceiling allowed).
    pub delta: i32,
    /// Why.
    pub reason: ChangeReason,
    /// Before.
    pub before: i32,
    /// After.
    pub after: i32,
}

/// The companion's affection toward the player and what it depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affection {
    value: i32,
    /// The highest stage reached: its floor holds.
    reached: Option<Stage>,
    /// Consecutive game days with talk, up to the last one.
    streak: u32,
    /// The game day (days since 1970) of the last message.
    last_day: Option<i64>,
}

impl Affection {
    /// Affection read back from a save.
    pub fn restored(value: i32, reached: Stage, streak: u32, last_day: Option<i64>) -> Self {
        Self {
            value: value.clamp(0, MAX_AFFECTION),
            reached: Some(reached),
            streak,
            last_day,
        }
    }

    /// 0–9999.
    pub fn value(&self) -> i32 {
        self.value
    }

    /// The stage it is in.
    pub fn stage(&self) -> Stage {
        Stage::of(self.value)
    }

    /// The highest stage reached (its floor holds).
    pub fn reached(&self) -> Stage {
        self.reached.unwrap_or(Stage::Observer)
    }

    /// Consecutive days of talk.
    pub fn streak(&self) -> u32 {
        self.streak
    }

    /// A message from the player on game day `day`: the fading of a long
    /// absence first, then the streak, then the message's own point.
    pub fn on_message(&mut self, day: i64) -> Vec<AffectionChange> {
        let mut changes = Vec::new();
        let grew = match self.last_day {
            Some(last) if day <= last => false,
            Some(last) if day == last + 1 => {
                self.streak += 1;
                true
            }
            Some(last) => {
                let apart = day - last;
                if apart > APART_DAYS {
                    let fade = FADE_PER_DAY.saturating_mul((apart - APART_DAYS).min(100) as i32);
                    changes.extend(self.add(-fade, ChangeReason::Apart { days: apart }));
                }
                self.streak = 1;
                false
            }
            None => {
                self.streak = 1;
                false
            }
        };
        self.last_day = Some(self.last_day.map_or(day, |l| l.max(day)));
        // Paid once, on the day a run of seven is completed.
        if grew && self.streak.is_multiple_of(STREAK_DAYS) {
            let days = self.streak;
            changes.extend(self.add(STREAK_BONUS, ChangeReason::Streak { days }));
        }
        changes.extend(self.add(PER_MESSAGE, ChangeReason::Message));
        changes
    }

    /// Adds `delta` (clamped to the reached stage's floor and 9999) and
    /// returns the change, if any.
    pub fn add(&mut self, delta: i32, reason: ChangeReason) -> Option<AffectionChange> {
        let floor = self.reached.map_or(0, Stage::floor);
        let before = self.value;
        let after = before.saturating_add(delta).clamp(floor, MAX_AFFECTION);
        self.value = after;
        let stage = Stage::of(after);
        if self.reached.is_none_or(|r| stage > r) {
            self.reached = Some(stage);
        }
        (after != before).then_some(AffectionChange {
            delta: after - before,
            reason,
            before,
            after,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_start_where_the_design_says() {
        let at = |v| Stage::of(v).name();
        assert_eq!(
            [
                0, 999, 1000, 2499, 2500, 4999, 5000, 7499, 7500, 8999, 9000, 9999
            ]
            .map(at),
            [
                "观察者",
                "观察者",
                "困惑者",
                "困惑者",
                "学习者",
                "学习者",
                "感受者",
                "感受者",
                "选择者",
                "选择者",
                "告别者",
                "告别者"
            ]
        );
        assert_eq!(Stage::of_chapter(3), Some(Stage::Learner));
        assert_eq!(Stage::Learner.chapter(), 3);
        assert_eq!(Stage::of_chapter(0), None);
    }

    #[test]
    fn a_message_a_point_and_fifty_for_each_week_in_a_row() {
        let mut a = Affection::default();
        let mut total = Vec::new();
        for day in 100..114 {
            total.extend(a.on_message(day));
            total.extend(a.on_message(day)); // twice a day: the streak grows once
        }
        assert_eq!(a.streak(), 14);
        let bonuses: Vec<&AffectionChange> = total
            .iter()
            .filter(|c| matches!(c.reason, ChangeReason::Streak { .. }))
            .collect();
        assert_eq!(bonuses.len(), 2, "days 7 and 14");
        assert_eq!(bonuses[0].reason, ChangeReason::Streak { days: 7 });
        assert_eq!(a.value(), 28 + 100);
        // A day missed starts the count again.
        a.on_message(115);
        assert_eq!(a.streak(), 1);
        for c in &total {
            assert_eq!(c.after - c.before, c.delta);
        }
    }

    #[test]
    fn long_absence_fades_but_never_below_the_stage_reached() {
        let mut a = Affection::default();
        a.add(2600, ChangeReason::KeyMoment { id: "x".into() });
        a.on_message(10);
        assert_eq!(a.stage(), Stage::Learner);
        // 30 days apart: nothing lost.
        let c = a.on_message(40);
        assert_eq!(c.len(), 1, "{c:?}");
        // 33 days apart: −300, from 2602 down to the floor 2500.
        let c = a.on_message(73);
        assert_eq!(c[0].reason, ChangeReason::Apart { days: 33 });
        assert_eq!((c[0].before, c[0].after, c[0].delta), (2602, 2500, -102));
        assert_eq!(a.value(), 2501);
        assert_eq!(a.stage(), Stage::Learner);
    }

    #[test]
    fn affection_stays_within_0_and_9999() {
        let mut a = Affection::default();
        assert!(a.add(-5, ChangeReason::Message).is_none());
        a.add(20_000, ChangeReason::KeyMoment { id: "x".into() });
        assert_eq!(a.value(), MAX_AFFECTION);
        assert_eq!(a.stage(), Stage::Farewell);
    }
}
