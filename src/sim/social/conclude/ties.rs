//! How a closing talk moves its participants' ties: each one's view of each
//! other, by what the two said to each other, their compatibility and how
//! close they already are. Every view is one resident's own list, so when
//! nobody closes two talks at once, all views are worked out on all
//! threads before the talks are closed, one after another, in their order.

use std::collections::BTreeSet;
use std::sync::Mutex;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::super::analysis::{self, topic_zh};
use super::super::message::Trigger;
use super::{Closing, Conversation};
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, Profile, RelationKind, RelationshipTuning, Town};
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{Impression, Relationships};

/// A staff greeting's gain in a tie counts this much (quarrels in full).
const STAFF_GREETING_WEIGHT: f32 = 0.3;

/// From this many participants, closing talks work their views out on all threads.
const PARALLEL_VIEWS: usize = 64;

/// How one view moved.
pub(super) struct TieMove {
    pub(super) old: f32,
    pub(super) new: f32,
    pub(super) kind: RelationKind,
    pub(super) old_kind: RelationKind,
    /// Why, for the log.
    pub(super) reason: String,
}

/// A talk's views worked out ahead: `[k][j]` is participant `k`'s view of
/// participant `j` (`None` for its own, or one that could not be read).
pub(super) type Views = Vec<Vec<Option<TieMove>>>;

/// First impressions made so far, by place and occupation (looked up by the
/// occupation's text, without copying it).
pub(super) type Impressions = HashMap<LocIdx, HashMap<String, Impression>>;

/// What a view is worked out from, besides the two residents.
pub(super) struct TieCx<'a> {
    pub(super) tuning: &'a RelationshipTuning,
    pub(super) now: GameTime,
    pub(super) town: &'a Town,
    pub(super) roster: &'a Roster,
    /// Holds every impression the views may need (see [`Closing::know_impressions`]).
    pub(super) impressions: &'a Impressions,
}

/// `a`'s view of `b` (`mine` its ties, `me` and `them` their personas)
/// after the talk `c`: the strength before and after, the kind after and
/// before, and why.
pub(super) fn move_tie(
    cx: &TieCx,
    c: &Conversation,
    (a, b): (RosterIdx, RosterIdx),
    (me, mine): (&Profile, &mut Relationships),
    them: &Profile,
) -> TieMove {
    let t = cx.tuning;
    let mut delta = analysis::tie_delta(t, &c.messages, (a, b), (c.participants.len(), &c.topic));
    // Serving a customer is courtesy, not friendship: it counts a little.
    if c.trigger == Trigger::Work && delta.points > 0.0 {
        delta.points *= STAFF_GREETING_WEIGHT;
        delta
            .rules
            .push(format!("招呼客人×{STAFF_GREETING_WEIGHT}"));
    }
    let (factor, why) = analysis::compatibility(t, &me.personality, &them.personality);
    let rel = mine.entry(cx.roster.id_of(b), b);
    let today = cx.now.social_day() as i32;
    if delta.points > 0.0 && rel.talk_days.last() == Some(today) {
        delta.points *= t.again_today;
        delta.rules.push("今天已聊过，增幅减半".into());
    }
    let points = analysis::diminished(t, rel.strength, delta.points * factor);
    if points < delta.points * factor {
        delta.rules.push("交情已深，增幅递减".into());
    }
    let (old, old_kind) = analysis::meet(rel, points, cx.now, t);
    if rel.impression.is_empty() {
        rel.impression = impression(cx, c.place, &them.occupation);
    }
    let mut rules = delta.rules;
    rules.extend(why);
    let reason = format!(
        "{}（{}句，话题：{}）：{}",
        if c.is_group() { "群聊" } else { "对话" },
        c.messages.len(),
        topic_zh(&c.topic),
        rules.join("、")
    );
    TieMove {
        old,
        new: rel.strength,
        kind: rel.kind,
        old_kind,
        reason,
    }
}

/// The first impression of someone of `occupation` met at `place`: made
/// ahead and shared, as many meet many at the same place.
fn impression(cx: &TieCx, place: LocIdx, occupation: &str) -> Impression {
    cx.impressions
        .get(&place)
        .and_then(|here| here.get(occupation))
        .cloned()
        .unwrap_or_else(|| made_at(cx.town.name(place), occupation))
}

/// The impression's text.
fn made_at(place: &str, occupation: &str) -> Impression {
    Impression::from(format!("在{place}聊过天的{occupation}").as_str())
}

impl Closing<'_, '_> {
    /// Makes sure the first impressions of everyone in the talks `closing`
    /// (at their places) are made, so the views can share them.
    pub(super) fn know_impressions(&mut self, closing: &[&Conversation]) {
        for c in closing {
            for &b in &c.participants {
                let Ok(them) = self.people.get(self.roster.entity_of(b)) else {
                    continue;
                };
                let occupation = &them.1.0.occupation;
                let here = self.impressions.entry(c.place).or_default();
                if !here.contains_key(occupation.as_str()) {
                    let made = made_at(self.town.name(c.place), occupation);
                    here.insert(occupation.clone(), made);
                }
            }
        }
    }

    /// `a`'s view of `b` after `c`, worked out now.
    pub(super) fn change_tie(
        &mut self,
        c: &Conversation,
        a: RosterIdx,
        b: RosterIdx,
    ) -> Option<TieMove> {
        let entities = [self.roster.entity_of(a), self.roster.entity_of(b)];
        let [mut me, them] = self.people.get_many_mut(entities).ok()?;
        let cx = TieCx {
            tuning: &self.tuning.social.relationship,
            now: self.clock.now,
            town: &self.town,
            roster: &self.roster,
            impressions: &self.impressions,
        };
        Some(move_tie(&cx, c, (a, b), (&me.1.0, &mut me.3), &them.1.0))
    }

    /// Every view in the talks `closing` (those that move ties), worked out
    /// on all threads; `None` for a talk with someone in another one too (its
    /// second talk must see what its first did), and for all when there are
    /// too few to share.
    pub(super) fn views_ahead(&mut self, closing: &[Option<&Conversation>]) -> Vec<Option<Views>> {
        let mut at: HashMap<RosterIdx, (usize, usize)> = HashMap::default();
        let mut twice = BTreeSet::new();
        for (n, c) in closing.iter().enumerate() {
            for (k, &a) in c.iter().flat_map(|c| c.participants.iter().enumerate()) {
                if let Some((m, _)) = at.insert(a, (n, k)) {
                    twice.extend([m, n]);
                }
            }
        }
        at.retain(|_, (n, _)| !twice.contains(n));
        if at.len() < PARALLEL_VIEWS || crate::sim::pool_threads() < 2 {
            return closing.iter().map(|_| None).collect();
        }
        let entities: BTreeSet<Entity> = at.keys().map(|&a| self.roster.entity_of(a)).collect();
        let found = Mutex::new(Vec::with_capacity(at.len()));
        let cx = TieCx {
            tuning: &self.tuning.social.relationship,
            now: self.clock.now,
            town: &self.town,
            roster: &self.roster,
            impressions: &self.impressions,
        };
        let personas = &self.personas;
        self.people
            .par_iter_many_unique_mut(entities)
            .batching_strategy(crate::sim::batching())
            .for_each(|mut me| {
                let a = me.0.idx;
                let Some(&(n, k)) = at.get(&a) else {
                    return;
                };
                let c = closing[n].expect("listed");
                let row: Vec<Option<TieMove>> = c
                    .participants
                    .iter()
                    .map(|&b| {
                        let them = personas.get(cx.roster.entity_of(b)).ok()?;
                        (b != a).then(|| move_tie(&cx, c, (a, b), (&me.1.0, &mut me.3), &them.0))
                    })
                    .collect();
                found.lock().expect("no panics").push((n, k, row));
            });
        let mut views: Vec<Option<Views>> = closing
            .iter()
            .enumerate()
            .map(|(n, c)| {
                c.filter(|_| !twice.contains(&n))
                    .map(|c| c.participants.iter().map(|_| Vec::new()).collect())
            })
            .collect();
        for (n, k, row) in found.into_inner().expect("no panics") {
            if let Some(v) = &mut views[n] {
                v[k] = row;
            }
        }
        views
    }
}
