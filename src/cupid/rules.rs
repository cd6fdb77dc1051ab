//! The rules a date keeps whatever a mind says: the timeline goes forward,
//! an answer is one of the options offered, the design's end conditions and
//! score bands.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::scenes::DayPart;
use super::{Avatar, AvatarTurn, Decision, Posed};

/// `"Day 1, Morning"`: a day and a part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timeline {
    /// 1-based; 0 before the first scene.
    pub day: u32,
    /// The part of the day.
    pub part: DayPart,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            day: 0,
            part: DayPart::Night,
        }
    }
}

impl fmt::Display for Timeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Day {}, {}", self.day.max(1), self.part.english())
    }
}

impl Timeline {
    /// 「第6天 傍晚」: a model's `time` as the player reads it (text that is
    /// no timeline is shown as written).
    pub fn chinese(text: &str) -> String {
        Timeline::parse(text).map_or_else(
            || text.to_string(),
            |t| format!("第{}天 {}", t.day.max(1), t.part.label()),
        )
    }

    /// Reads `"Day N, Part"` (case and spacing as a model writes them).
    pub fn parse(text: &str) -> Option<Timeline> {
        let lower = text.trim().to_ascii_lowercase();
        let rest = lower.strip_prefix("day")?.trim_start();
        let (day, part) = rest.split_once(',')?;
        let day: u32 = day.trim().parse().ok()?;
        let part = DayPart::ALL
            .into_iter()
            .find(|p| p.english().eq_ignore_ascii_case(part.trim()))?;
        Some(Timeline { day, part })
    }

    /// The next slot: the next part of the day, or the next morning.
    pub fn next(self) -> Timeline {
        match DayPart::ALL.iter().position(|&p| p == self.part) {
            Some(i) if i + 1 < DayPart::ALL.len() && self.day > 0 => Timeline {
                day: self.day,
                part: DayPart::ALL[i + 1],
            },
            _ => Timeline {
                day: self.day + 1,
                part: DayPart::Morning,
            },
        }
    }

    /// The first moment at `part` after this one: today if it is still to
    /// come, else the next day.
    pub fn at_next(self, part: DayPart) -> Timeline {
        if self.day > 0 && part > self.part {
            Timeline {
                day: self.day,
                part,
            }
        } else {
            Timeline {
                day: self.day + 1,
                part,
            }
        }
    }

    /// What a host wrote, kept when it is later than now; otherwise (earlier,
    /// the same, or unreadable) the next slot: the timeline never goes back.
    pub fn after(self, written: &str) -> Timeline {
        match Timeline::parse(written) {
            // A week ahead at most: a story, not a time machine.
            Some(t) if t > self && t.day <= self.day.max(1) + 7 => t,
            _ => self.next(),
        }
    }
}

/// Why a date ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The host ended it.
    Host,
    /// The last round was played.
    Rounds,
    /// The score stayed in 0–15 (不和谐) a second round, or fell to 10 or less (破裂).
    BrokeUp,
    /// The score rose to 45 or more after round 5 (确立).
    Established,
}

impl EndReason {
    /// The Chinese the player reads.
    pub fn label(self) -> &'static str {
        match self {
            EndReason::Host => "主持人宣布约会结束",
            EndReason::Rounds => "约定的轮数已满",
            EndReason::BrokeUp => "关系破裂",
            EndReason::Established => "确立关系",
        }
    }
}

/// The design's bands of the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Band {
    /// 0–15.
    #[serde(rename = "不和谐")]
    Discordant,
    /// 16–30.
    #[serde(rename = "一般")]
    Fair,
    /// 31–40.
    #[serde(rename = "良好")]
    Good,
    /// 41–50.
    #[serde(rename = "高度契合")]
    Ideal,
}

impl Band {
    /// The band of a score.
    pub fn of(score: i32) -> Band {
        match score {
            ..=15 => Band::Discordant,
            16..=30 => Band::Fair,
            31..=40 => Band::Good,
            _ => Band::Ideal,
        }
    }

    /// The Chinese name.
    pub fn label(self) -> &'static str {
        match self {
            Band::Discordant => "不和谐",
            Band::Fair => "一般",
            Band::Good => "良好",
            Band::Ideal => "高度契合",
        }
    }
}

/// Whether the date ends after round `round`, its score gone from `before`
/// to `score`, and why: the score's conditions first (they are what
/// happened), then the host's word, then the last round. The design's
/// 0–15 (不和谐) "may end early": it does when the score stays there a
/// second round running, or falls to 10 or less at once.
pub(super) fn end_reason(
    (before, score): (i32, i32),
    round: u32,
    max: u32,
    host_ends: bool,
) -> Option<EndReason> {
    let discordant = |s: i32| Band::of(s) == Band::Discordant;
    if score <= 10 || (discordant(score) && discordant(before) && round > 1) {
        Some(EndReason::BrokeUp)
    } else if score >= 45 && round >= 5 {
        Some(EndReason::Established)
    } else if host_ends {
        Some(EndReason::Host)
    } else if round >= max {
        Some(EndReason::Rounds)
    } else {
        None
    }
}

/// A side's answer within the rules: its option one of those offered (a
/// letter in any case, `选B`, `B.`, or the option's own words); an answer
/// outside them (`E`) is replaced by option A, and its rationale says so.
/// Returns the turn and the option's index.
pub(super) fn bound_choice(turn: AvatarTurn, posed: &Posed, me: &Avatar) -> (AvatarTurn, usize) {
    let n = posed.options.len();
    let by_letter = turn
        .decision
        .option
        .trim()
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| (c.to_ascii_uppercase() as u8).wrapping_sub(b'A') as usize)
        .find(|&i| i < n);
    let by_words = || {
        posed.options.iter().position(|o| {
            !turn.decision.content.is_empty() && o.contains(turn.decision.content.trim())
        })
    };
    let (index, repaired) = match by_letter.or_else(by_words) {
        Some(i) => (i, false),
        None => (0, true),
    };
    let rationale = if repaired {
        format!(
            "（所选「{}」不在选项中，按规则改为 A）{}",
            crate::base::quoted(&turn.decision.option),
            turn.rationale
        )
    } else {
        turn.rationale
    };
    let content = if turn.decision.content.trim().is_empty() || repaired {
        posed.options[index].clone()
    } else {
        turn.decision.content
    };
    let turn = AvatarTurn {
        gender: me.gender.clone(),
        decision: Decision {
            option: Posed::letter(index),
            content,
        },
        rationale,
    };
    (turn, index)
}

/// The youngest age that may go on a date.
pub const ADULT_AGE: u32 = 18;

/// Why two residents may not date each other, in words a player reads
/// (none: they may). One rule for `heartvale date`, `--date` and the town:
/// adults only, never family (a `family` tie either way, or a relative named
/// as such), never oneself.
pub fn refusal(a: &crate::scenario::Profile, b: &crate::scenario::Profile) -> Option<String> {
    if a.id == b.id {
        return Some(format!(
            "{} cannot date themself: name two residents",
            a.name
        ));
    }
    if let Some(minor) = [a, b].into_iter().find(|p| p.age < ADULT_AGE) {
        return Some(format!(
            "{} is {}: only adults ({ADULT_AGE} or older) go on dates",
            minor.name, minor.age
        ));
    }
    let family = |p: &crate::scenario::Profile, q: &crate::scenario::Profile| {
        p.relationships
            .iter()
            .any(|t| t.with == q.id && t.kind == crate::scenario::RelationKind::Family)
    };
    if family(a, b) || family(b, a) {
        return Some(format!(
            "{} and {} are family: family never date",
            a.name, b.name
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_goes_forward_only() {
        let t = Timeline::parse("Day 1, Morning").unwrap();
        assert_eq!(t.to_string(), "Day 1, Morning");
        assert_eq!(
            Timeline::parse(" day 2 , evening ").unwrap().to_string(),
            "Day 2, Evening"
        );
        assert_eq!(t.after("Day 1, Afternoon").to_string(), "Day 1, Afternoon");
        // Backwards, the same, or garbage: the next slot.
        let eve = Timeline::parse("Day 2, Evening").unwrap();
        assert_eq!(eve.after("Day 1, Night").to_string(), "Day 2, Night");
        assert_eq!(eve.after("Day 2, Evening").to_string(), "Day 2, Night");
        assert_eq!(eve.after("明天").to_string(), "Day 2, Night");
        let night = Timeline::parse("Day 2, Night").unwrap();
        assert_eq!(night.next().to_string(), "Day 3, Morning");
        assert_eq!(Timeline::default().next().to_string(), "Day 1, Morning");
        assert_eq!(eve.at_next(DayPart::Morning).to_string(), "Day 3, Morning");
        assert_eq!(t.at_next(DayPart::Evening).to_string(), "Day 1, Evening");
    }

    #[test]
    fn ends_and_bands_follow_the_design() {
        assert_eq!(end_reason((20, 10), 2, 10, false), Some(EndReason::BrokeUp));
        assert_eq!(
            end_reason((20, 11), 2, 10, false),
            None,
            "0–15 once: not yet"
        );
        assert_eq!(
            end_reason((15, 14), 3, 10, false),
            Some(EndReason::BrokeUp),
            "0–15 a second round running"
        );
        assert_eq!(end_reason((14, 16), 3, 10, false), None, "out of it again");
        assert_eq!(
            end_reason((40, 45), 4, 10, false),
            None,
            "not before round 5"
        );
        assert_eq!(
            end_reason((40, 45), 5, 10, false),
            Some(EndReason::Established)
        );
        assert_eq!(end_reason((30, 30), 6, 10, true), Some(EndReason::Host));
        assert_eq!(end_reason((30, 30), 10, 10, false), Some(EndReason::Rounds));
        assert_eq!(end_reason((8, 5), 10, 10, true), Some(EndReason::BrokeUp));
        let bands: Vec<Band> = [0, 15, 16, 30, 31, 40, 41, 50].map(Band::of).into();
        use Band::*;
        assert_eq!(
            bands,
            [Discordant, Discordant, Fair, Fair, Good, Good, Ideal, Ideal]
        );
    }
}
