//! Game time: seconds since 1970-01-01 00:00 in the town's own calendar.
//! Plain integers keep the hot loop cheap; chrono does the calendar maths.

use std::fmt;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use serde::{Deserialize, Serialize};

/// Minutes in a day.
pub const MINUTES_PER_DAY: u32 = 24 * 60;

/// A moment in game time, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GameTime(pub i64);

/// A moment that may not have come yet, in eight bytes (`Option<GameTime>`
/// takes sixteen, and a big town's million ties hold two each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaybeTime(i64);

impl MaybeTime {
    /// Not yet.
    pub const NEVER: Self = Self(i64::MIN);

    /// The moment, if it came.
    pub fn get(self) -> Option<GameTime> {
        (self != Self::NEVER).then_some(GameTime(self.0))
    }

    /// It came at `t`.
    pub fn set(&mut self, t: GameTime) {
        self.0 = t.0;
    }
}

impl Default for MaybeTime {
    fn default() -> Self {
        Self::NEVER
    }
}

impl From<Option<GameTime>> for MaybeTime {
    fn from(t: Option<GameTime>) -> Self {
        t.map_or(Self::NEVER, |t| Self(t.0))
    }
}

impl GameTime {
    /// The time-of-day word: 早上, 上午, 中午, 下午, 傍晚, 晚上, 深夜.
    pub fn period(self) -> &'static str {
        match self.minute_of_day() / 60 {
            5..=8 => "早上",
            9..=11 => "上午",
            12..=13 => "中午",
            14..=17 => "下午",
            18..=19 => "傍晚",
            20..=23 => "晚上",
            _ => "深夜",
        }
    }

    /// The moment of a calendar date and time.
    pub fn from_datetime(dt: NaiveDateTime) -> Self {
        Self(dt.and_utc().timestamp())
    }

    /// Parses `"YYYY-MM-DD HH:MM"` or, to the second, `"YYYY-MM-DD HH:MM:SS"`.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
            .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M"))
            .ok()
            .map(Self::from_datetime)
    }

    /// The calendar date and time.
    pub fn datetime(self) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(self.0, 0)
            .map(|d| d.naive_utc())
            .unwrap_or_default()
    }

    /// The calendar date.
    pub fn date(self) -> NaiveDate {
        self.datetime().date()
    }

    /// Minutes since midnight, 0..1440.
    pub fn minute_of_day(self) -> u32 {
        (self.0.rem_euclid(86_400) / 60) as u32
    }

    /// Days since 1970-01-01, for cheap same-day comparisons.
    pub fn day_number(self) -> i64 {
        self.0.div_euclid(86_400)
    }

    /// 0 = Monday … 6 = Sunday.
    pub fn weekday_index(self) -> usize {
        // 1970-01-01 was a Thursday (index 3).
        ((self.day_number() + 3).rem_euclid(7)) as usize
    }

    /// `Mon` … `Sun`.
    pub fn weekday_name(self) -> &'static str {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][self.weekday_index()]
    }

    /// `星期一` … `星期日`: the weekday as a Chinese reader says it.
    pub fn weekday_zh(self) -> &'static str {
        [
            "星期一",
            "星期二",
            "星期三",
            "星期四",
            "星期五",
            "星期六",
            "星期日",
        ][self.weekday_index()]
    }

    /// The moment `minutes` later (earlier when negative).
    pub fn plus_minutes(self, minutes: i64) -> Self {
        Self(self.0 + minutes * 60)
    }

    /// Whole minutes from `self` until `later` (negative when `later` is earlier).
    pub fn minutes_until(self, later: GameTime) -> i64 {
        (later.0 - self.0).div_euclid(60)
    }

    /// Day 06:00–22:00; night 22:00–06:00.
    pub fn is_night(self) -> bool {
        let m = self.minute_of_day();
        !(6 * 60..22 * 60).contains(&m)
    }

    /// The day (since 1970) a resident calls "today": until five in the
    /// morning it is still the evening's day (asked at one at night,
    /// "yesterday" is the day before the evening just gone).
    pub fn social_day(self) -> i64 {
        GameTime(self.0 - 5 * 3600).day_number()
    }

    /// The date whose night this moment belongs to: 01:30 on the 5th is the night of the 4th.
    pub fn night_of(self) -> NaiveDate {
        GameTime(self.0 - 12 * 3600).date()
    }

    /// Midnight of this moment's day.
    pub fn midnight(self) -> GameTime {
        GameTime(self.day_number() * 86_400)
    }

    /// This day at `minute` past midnight.
    pub fn at_minute(self, minute: u32) -> GameTime {
        GameTime(self.midnight().0 + minute as i64 * 60)
    }

    /// `YYYY-MM-DD HH:MM:SS`, the time in script prompts.
    pub fn seconds_text(self) -> String {
        self.datetime().format("%Y-%m-%d %H:%M:%S").to_string()
    }

    /// `[YYYY-MM-DD HH:MM]` prefix of memory entries.
    pub fn stamp(self) -> String {
        format!("[{self}]")
    }
}

impl fmt::Display for GameTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dt = self.datetime();
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}",
            dt.year(),
            dt.month(),
            dt.day(),
            dt.hour(),
            dt.minute()
        )?;
        // Seconds only where they matter (conversation messages), so most times stay short.
        if dt.second() != 0 {
            write!(f, ":{:02}", dt.second())?;
        }
        Ok(())
    }
}

impl Serialize for GameTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GameTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        GameTime::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("bad time `{text}`")))
    }
}

/// Parses `"HH:MM"` into minutes after midnight (`"24:00"` is allowed as end of day).
pub fn parse_clock(text: &str) -> Option<u32> {
    let text = text.trim();
    if text == "24:00" {
        return Some(MINUTES_PER_DAY);
    }
    NaiveTime::parse_from_str(text, "%H:%M")
        .ok()
        .map(|t| t.hour() * 60 + t.minute())
}

/// Formats minutes after midnight as `"HH:MM"`.
pub fn clock_text(minute: u32) -> String {
    format!("{:02}:{:02}", (minute / 60) % 24, minute % 60)
}

/// "4月8日傍晚六点": a moment by its date, whenever it is seen from.
pub fn date_text(at: GameTime) -> String {
    format!(
        "{}月{}日{}{}",
        chrono::Datelike::month(&at.date()),
        chrono::Datelike::day(&at.date()),
        at.period(),
        spoken_clock(at.minute_of_day())
    )
}

/// A time of day as it is said: `六点`, `六点半`, `十点一刻`, `九点零五分`
/// (twelve-hour; the period — 傍晚, 上午 — goes before it).
pub fn spoken_clock(minute: u32) -> String {
    let (h, m) = ((minute / 60) % 12, minute % 60);
    let hour = number_zh(if h == 0 { 12 } else { h });
    match m {
        0 => format!("{hour}点"),
        15 => format!("{hour}点一刻"),
        30 => format!("{hour}点半"),
        1..=9 => format!("{hour}点零{}分", number_zh(m)),
        _ => format!("{hour}点{}分", number_zh(m)),
    }
}

/// 0–99 in Chinese numerals (二十五); 2 is 两 (两点, 两天); from 100, digits.
pub fn number_zh(n: u32) -> String {
    const DIGITS: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    match n {
        2 => "两".into(),
        0..=9 => DIGITS[n as usize].into(),
        10 => "十".into(),
        11..=19 => format!("十{}", DIGITS[(n % 10) as usize]),
        100.. => n.to_string(),
        _ if n.is_multiple_of(10) => format!("{}十", DIGITS[(n / 10) as usize]),
        _ => format!(
            "{}十{}",
            DIGITS[(n / 10) as usize],
            DIGITS[(n % 10) as usize]
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_said_in_chinese() {
        assert_eq!(spoken_clock(18 * 60), "六点");
        assert_eq!(spoken_clock(13 * 60 + 30), "一点半");
        assert_eq!(spoken_clock(14 * 60), "两点");
        assert_eq!(spoken_clock(10 * 60 + 15), "十点一刻");
        assert_eq!(spoken_clock(9 * 60 + 5), "九点零五分");
        assert_eq!(spoken_clock(12 * 60 + 45), "十二点四十五分");
        assert_eq!(spoken_clock(0), "十二点");
    }

    #[test]
    fn parses_and_prints_round_trip() {
        let t = GameTime::parse("2026-04-06 06:00").unwrap();
        assert_eq!(t.to_string(), "2026-04-06 06:00");
        assert_eq!(t.minute_of_day(), 360);
        assert_eq!(t.weekday_index(), 0, "2026-04-06 is a Monday");
        assert_eq!(t.weekday_name(), "Mon");
        assert_eq!(t.plus_minutes(90).to_string(), "2026-04-06 07:30");
        assert!(GameTime::parse("2026-04-06").is_none());
    }

    #[test]
    fn night_belongs_to_the_evening_before() {
        let late = GameTime::parse("2026-04-07 01:30").unwrap();
        assert_eq!(late.night_of().to_string(), "2026-04-06");
        assert!(late.is_night());
        let evening = GameTime::parse("2026-04-06 22:10").unwrap();
        assert_eq!(evening.night_of().to_string(), "2026-04-06");
        assert!(!GameTime::parse("2026-04-06 21:59").unwrap().is_night());
    }

    #[test]
    fn clock_strings() {
        assert_eq!(parse_clock("08:30"), Some(510));
        assert_eq!(parse_clock("24:00"), Some(1440));
        assert_eq!(parse_clock("25:00"), None);
        assert_eq!(clock_text(1290), "21:30");
    }
}
