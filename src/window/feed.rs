//! What the panels show over time, read from the simulation's events: the
//! event stream (newest last, capped) and hourly
//! samples of every relationship's strength for the plot.

use std::collections::VecDeque;

use bevy::prelude::*;

use super::ViewSet;
use crate::base::time::GameTime;
use crate::scenario::{LocationId, ResidentId, Town};
use crate::sim::clock::Clock;
use crate::sim::event_log::{Highlights, Names, Narration, SimEvent, Strand, narrate};
use crate::sim::residents::RosterIdx;
use crate::sim::residents::{Relationships, Resident, Roster};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<EventFeed>()
        .init_resource::<News>()
        .init_resource::<RelationHistory>()
        .add_systems(
            Update,
            (read_events, sample_relations).in_set(ViewSet::Sync),
        );
}

/// Entries kept in the stream.
const KEEP: usize = 5000;

/// One line of the event stream: an event as the narrator tells it.
#[derive(Debug, Clone)]
pub(crate) struct FeedEntry {
    pub(crate) time: GameTime,
    pub(crate) told: Narration,
}

#[derive(Resource, Debug, Default)]
pub(crate) struct EventFeed {
    pub(crate) entries: VecDeque<FeedEntry>,
    /// Every entry ever added (the stream scrolls when this grows).
    pub(crate) total: u64,
}

/// 今日要闻: each day's news, read from the same events.
#[derive(Resource, Debug, Default)]
pub(crate) struct News(pub(crate) Highlights);

/// Every resident's ties at one moment: `[roster idx] = [(other idx, strength)]`.
pub(crate) type Ties = Vec<Vec<(RosterIdx, f32)>>;

/// Hourly samples of every tie.
#[derive(Resource, Debug, Default)]
pub(crate) struct RelationHistory {
    pub(crate) samples: Vec<(GameTime, Ties)>,
    last_hour: Option<i64>,
}

impl RelationHistory {
    /// `a`'s view of `b` over time.
    pub(super) fn series(&self, a: RosterIdx, b: RosterIdx) -> Vec<(GameTime, f32)> {
        self.samples
            .iter()
            .filter_map(|(t, ties)| {
                let s = ties.get(a.i())?.iter().find(|(o, _)| *o == b)?.1;
                Some((*t, s))
            })
            .collect()
    }
}

/// The strands the stream can filter on, in menu order (the run's start and
/// end are not shown).
pub(crate) fn strands() -> impl Iterator<Item = Strand> {
    Strand::ALL.into_iter().filter(|s| *s != Strand::Run)
}

/// Names from the running town: residents' and places' own names.
struct TownNames<'a> {
    roster: &'a Roster,
    town: &'a Town,
}

impl Names for TownNames<'_> {
    fn resident(&self, id: &ResidentId) -> String {
        self.roster.name(id).to_string()
    }

    fn place(&self, id: &LocationId) -> String {
        self.town
            .find(id.as_str())
            .map_or(id.to_string(), |i| self.town.name(i).to_string())
    }
}

fn read_events(
    mut events: MessageReader<SimEvent>,
    roster: Res<Roster>,
    town: Res<Town>,
    mut feed: ResMut<EventFeed>,
    mut news: ResMut<News>,
) {
    let names = TownNames {
        roster: &roster,
        town: &town,
    };
    for event in events.read() {
        news.0.add(event, &names);
        let told = narrate(&event.body, &names);
        // The stream is about residents: a click goes to the first one.
        if !told.residents.is_empty() {
            feed.entries.push_back(FeedEntry {
                time: event.time,
                told,
            });
            feed.total += 1;
            if feed.entries.len() > KEEP {
                feed.entries.pop_front();
            }
        }
    }
}

/// Once per game hour, every tie's strength.
fn sample_relations(
    clock: Res<Clock>,
    roster: Res<Roster>,
    residents: Query<(&Resident, &Relationships)>,
    mut history: ResMut<RelationHistory>,
) {
    let hour = clock.now.0.div_euclid(3600);
    if history.last_hour == Some(hour) {
        return;
    }
    history.last_hour = Some(hour);
    let mut ties = vec![Vec::new(); roster.len()];
    for (r, rel) in &residents {
        if let Some(slot) = ties.get_mut(r.idx.i()) {
            *slot = rel.iter().map(|t| (t.with_idx, t.strength)).collect();
        }
    }
    history.samples.push((clock.now, ties));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::testing::view_app;

    /// A day of the default town: the stream fills with described events of
    /// known kinds, conversations are counted, relationships sampled hourly.
    #[test]
    fn the_stream_counts_and_samples_follow_the_town() {
        let mut app = view_app();
        app.add_plugins(plugin);
        for _ in 0..(14 * 60) {
            app.update();
        }
        let feed = app.world().resource::<EventFeed>();
        assert!(feed.entries.len() > 50, "{} entries", feed.entries.len());
        for e in &feed.entries {
            assert!(strands().any(|s| s == e.told.strand), "{:?}", e.told.strand);
            assert!(!e.told.residents.is_empty());
            assert!(!e.told.text.is_empty());
        }
        let roster = app.world().resource::<Roster>();
        let first_plan = feed
            .entries
            .iter()
            .find(|e| e.told.strand == Strand::Plan)
            .unwrap();
        assert!(
            first_plan
                .told
                .text
                .starts_with(roster.name(&first_plan.told.residents[0])),
            "{}",
            first_plan.told.text
        );
        let talks = feed
            .entries
            .iter()
            .filter(|e| e.told.strand == Strand::Conversation && e.told.text.contains("聊了起来"))
            .count() as u32;
        assert!(talks > 0, "no conversation by 20:00");
        let state = app.world().resource::<crate::sim::social::SocialState>();
        assert_eq!(state.started_today(), talks);
        let history = app.world().resource::<RelationHistory>();
        // 06:00 … 20:00: one sample an hour.
        assert_eq!(history.samples.len(), 15);
        let (a, b) = roster
            .indices()
            .flat_map(|a| roster.indices().map(move |b| (a, b)))
            .find(|&(a, b)| !history.series(a, b).is_empty())
            .expect("some tie");
        assert!(history.series(a, b).len() > 1);
    }
}
