//! The day's sky and the season: what small talk about the weather must
//! agree with. A day's weather is drawn from the run's seed and the date, so
//! every line said that day (and every run of the seed) sees the same sky,
//! and a rainy day tends to follow a rainy day.

use chrono::{Datelike, NaiveDate};
use serde::Deserialize;

use super::hash::{FNV_START, fnv1a_more};

/// The sky over a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weather {
    /// Clear and sunny.
    Sunny,
    /// Overcast, close or windy: rain may come.
    Cloudy,
    /// It rains: the roads are mud.
    Rain,
}

/// Chances of (sunny, cloudy) after a day that was not rainy; the rest rains.
const AFTER_DRY: (f32, f32) = (0.5, 0.3);
/// The same after a rainy day: rain tends to last.
const AFTER_RAIN: (f32, f32) = (0.25, 0.3);
/// Days looked back over: a day's weather follows from the day before,
/// starting from a dry day this far back.
const MEMORY_DAYS: i64 = 4;

impl Weather {
    /// The weather on `date` in a run with `seed`.
    pub fn of_day(seed: u64, date: NaiveDate) -> Self {
        let day = i64::from(date.num_days_from_ce());
        (day - MEMORY_DAYS..=day).fold(Weather::Sunny, |yesterday, d| {
            let (sunny, cloudy) = match yesterday {
                Weather::Rain => AFTER_RAIN,
                _ => AFTER_DRY,
            };
            let h = fnv1a_more(fnv1a_more(FNV_START, &seed.to_le_bytes()), &d.to_le_bytes());
            let roll = (h >> 40) as f32 / (1u64 << 24) as f32;
            if roll < sunny {
                Weather::Sunny
            } else if roll < sunny + cloudy {
                Weather::Cloudy
            } else {
                Weather::Rain
            }
        })
    }

    /// In Chinese, for a model's prompt.
    pub fn zh(self) -> &'static str {
        match self {
            Weather::Sunny => "晴天",
            Weather::Cloudy => "阴天",
            Weather::Rain => "下雨",
        }
    }
}

/// The weather and the season at `now` in a run with `seed`.
pub fn sky(seed: u64, now: super::time::GameTime) -> (Weather, Season) {
    let date = now.date();
    (Weather::of_day(seed, date), Season::of(date))
}

/// A season of the year (northern: spring is March to May).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Season {
    /// March to May.
    Spring,
    /// June to August.
    Summer,
    /// September to November.
    Autumn,
    /// December to February.
    Winter,
}

impl Season {
    /// The season `date` falls in.
    pub fn of(date: NaiveDate) -> Self {
        match date.month() {
            3..=5 => Season::Spring,
            6..=8 => Season::Summer,
            9..=11 => Season::Autumn,
            _ => Season::Winter,
        }
    }

    /// In Chinese, for a model's prompt.
    pub fn zh(self) -> &'static str {
        match self {
            Season::Spring => "春天",
            Season::Summer => "夏天",
            Season::Autumn => "秋天",
            Season::Winter => "冬天",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_has_one_sky_and_the_seed_decides_it() {
        let day = NaiveDate::from_ymd_opt(2026, 4, 7).expect("a date");
        assert_eq!(Weather::of_day(7, day), Weather::of_day(7, day));
        // Over a year every kind of day comes, rain on a fair share of them.
        let mut rain = 0;
        let mut kinds = Vec::new();
        for d in 0..365 {
            let w = Weather::of_day(7, day + chrono::Days::new(d));
            rain += u32::from(w == Weather::Rain);
            if !kinds.contains(&w) {
                kinds.push(w);
            }
        }
        assert_eq!(kinds.len(), 3);
        assert!((40..=140).contains(&rain), "{rain} rainy days");
        // Another seed, another year's weather.
        let other = (0..30)
            .filter(|&d| {
                let date = day + chrono::Days::new(d);
                Weather::of_day(7, date) != Weather::of_day(8, date)
            })
            .count();
        assert!(other > 5, "{other}");
    }

    #[test]
    fn seasons_by_month() {
        let s = |m| Season::of(NaiveDate::from_ymd_opt(2026, m, 1).expect("a date"));
        assert_eq!(
            [s(1), s(4), s(7), s(10), s(12)],
            [
                Season::Winter,
                Season::Spring,
                Season::Summer,
                Season::Autumn,
                Season::Winter
            ]
        );
    }
}
