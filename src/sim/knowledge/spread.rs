//! How far word of the town's notable events went: for each gathering and
//! each quarrel, date and missed meeting, how many knew by each day of the
//! run, how they came to know, and who told whom.

use std::collections::BTreeMap;

use super::facts::{About, Knowledge, Source};
use super::words::FactWords;
use crate::base::time::GameTime;
use crate::sim::residents::roster::RosterIdx;

/// How one notable fact spread.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    /// The fact in Chinese.
    pub what: String,
    /// How many knew it by the end of each day of the run (1-based days).
    pub by_day: Vec<usize>,
    /// How many came to know it each way (`notice`, `told` …), in the
    /// order first met.
    pub sources: Vec<(&'static str, usize)>,
    /// Who told whom, in the order it was told.
    pub told: Vec<(RosterIdx, RosterIdx)>,
}

/// The notable facts anyone knows (gatherings first, then events in order
/// of their day), and how each spread over the run from `start` to `now`.
pub fn spread(
    people: &[(RosterIdx, &Knowledge)],
    words: &FactWords<'_>,
    start: GameTime,
    now: GameTime,
) -> Vec<Spread> {
    // (kind order, day, what it says) → who knows it, and how.
    type ByFact<'a> = BTreeMap<(u8, i64, String), Vec<(RosterIdx, &'a super::facts::Fact)>>;
    let mut by_fact: ByFact<'_> = BTreeMap::new();
    for &(who, k) in people {
        for f in k.facts() {
            let order = match f.about {
                About::Gathering { gathering } => (0, i64::from(gathering.0)),
                About::Quarrel { .. } | About::Date { .. } | About::StoodUp { .. } => {
                    (1, f.about.day().unwrap_or(0))
                }
                _ => continue,
            };
            let key = (order.0, order.1, words.fact(&f.about));
            by_fact.entry(key).or_default().push((who, f));
        }
    }
    let days = ((now.0 - start.0).max(0) / 86_400 + 1) as usize;
    by_fact
        .into_iter()
        .map(|((_, _, what), mut knowers)| {
            knowers.sort_by_key(|(who, f)| (f.learned, *who));
            let by_day = (1..=days)
                .map(|d| {
                    let end = start.midnight().plus_minutes(d as i64 * 24 * 60);
                    knowers.iter().filter(|(_, f)| f.learned < end).count()
                })
                .collect();
            let mut sources: Vec<(&'static str, usize)> = Vec::new();
            for (_, f) in &knowers {
                let kind = f.source.kind();
                match sources.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, n)) => *n += 1,
                    None => sources.push((kind, 1)),
                }
            }
            let told = knowers
                .iter()
                .filter_map(|(who, f)| match f.source {
                    Source::Told { by } => Some((by, *who)),
                    _ => None,
                })
                .collect();
            Spread {
                what,
                by_day,
                sources,
                told,
            }
        })
        .collect()
}

/// A source's kind in Chinese, for the summary.
pub fn source_zh(kind: &str) -> &'static str {
    match kind {
        "notice" => "看公告",
        "told" => "听人说",
        "lived" => "亲历",
        "saw" => "亲眼看见",
        _ => "早就知道",
    }
}
