//! Every participant's view of every other after a talk: it moves by what
//! the two said to each other and their compatibility, less as the tie nears
//! the top. In a big town a hundred talks close in a step, and working a
//! view out only reads the talk, the view and the two personas: so it is
//! done for every closing talk at once, on all threads, and the views are
//! then put in place one talk after another, in order. A view changed in
//! between (two residents who were together in two talks closing in the
//! same step) is worked out again then, so the log does not depend on the
//! threads.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::super::analysis::{self, TieCore, topic_zh};
use super::super::message::Trigger;
use super::{Closing, Conversation, Effects};
use crate::base::time::GameTime;
use crate::scenario::{BigFive, LocIdx, RelationKind, ResidentId, SocialTuning};
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::event_log::ties::RelationshipDelta;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{Impression, Relationship, Relationships};
use crate::sim::town::ActiveTuning;

/// A staff greeting's gain in a tie counts this much (quarrels in full).
const STAFF_GREETING_WEIGHT: f32 = 0.3;

/// One view after a talk, worked out ahead.
pub(super) struct Foreseen {
    /// The view it was worked out from.
    before: TieCore,
    moved: Moved,
}

/// How a view moved.
struct Moved {
    after: TieCore,
    /// Strength and kind before.
    old: (f32, RelationKind),
    /// Why, in Chinese, for the log.
    reason: String,
}

/// What working views out ahead reads: shared by the talks side by side.
pub(super) struct Foresight<'a, 'w, 's> {
    pub(super) clock: &'a Clock,
    pub(super) tuning: &'a ActiveTuning,
    pub(super) roster: &'a Roster,
    pub(super) people: &'a Query<'w, 's, Effects<'static>>,
}

/// Every view in `c`, in the order they are put in place ([`pairs`]);
/// `None` where one of the two is gone.
pub(super) fn foresee(cx: &Foresight, c: &Conversation) -> Vec<Option<Foreseen>> {
    pairs(c)
        .map(|(_, a, b)| {
            let me = cx.people.get(cx.roster.entity_of(a)).ok()?;
            let other = cx.people.get(cx.roster.entity_of(b)).ok()?;
            let before = view(me.3, b, &other.0.id);
            let personas = (&me.1.personality, &other.1.personality);
            let moved = work_out(&cx.tuning.social, cx.clock.now, c, (a, b), personas, before);
            Some(Foreseen { before, moved })
        })
        .collect()
}

/// Each participant's (at its place `k`) view of each other, in turn.
fn pairs(c: &Conversation) -> impl Iterator<Item = (usize, RosterIdx, RosterIdx)> + '_ {
    let people = &c.participants;
    people.iter().enumerate().flat_map(move |(k, &a)| {
        people
            .iter()
            .filter(move |&&b| b != a)
            .map(move |&b| (k, a, b))
    })
}

/// The view of `b` (id `id`) in `ties`: strangers when there is none yet.
fn view(ties: &Relationships, b: RosterIdx, id: &ResidentId) -> TieCore {
    match ties.by_idx(b) {
        Some(tie) => TieCore::of(tie),
        None => TieCore::of(&Relationship::stranger(id.clone(), b)),
    }
}

/// `a`'s view of `b` after `c`, from `tie` before it.
fn work_out(
    t: &SocialTuning,
    now: GameTime,
    c: &Conversation,
    (a, b): (RosterIdx, RosterIdx),
    (mine, theirs): (&BigFive, &BigFive),
    tie: TieCore,
) -> Moved {
    let r = &t.relationship;
    let mut delta = analysis::tie_delta(r, &c.messages, (a, b), (c.participants.len(), &c.topic));
    // Serving a customer is courtesy, not friendship: it counts a little.
    if c.trigger == Trigger::Work && delta.points > 0.0 {
        delta.points *= STAFF_GREETING_WEIGHT;
        delta
            .rules
            .push(format!("招呼客人×{STAFF_GREETING_WEIGHT}"));
    }
    let (factor, why) = analysis::compatibility(r, mine, theirs);
    if delta.points > 0.0 && tie.talk_days.last() == Some(now.social_day() as i32) {
        delta.points *= r.again_today;
        delta.rules.push("今天已聊过，增幅减半".into());
    }
    let points = analysis::diminished(r, tie.strength, delta.points * factor);
    if points < delta.points * factor {
        delta.rules.push("交情已深，增幅递减".into());
    }
    let mut after = tie;
    let old = after.meet(points, now, r);
    let mut rules = delta.rules;
    rules.extend(why);
    let reason = format!(
        "{}（{}句，话题：{}）：{}",
        if c.is_group() { "群聊" } else { "对话" },
        c.messages.len(),
        topic_zh(&c.topic),
        rules.join("、")
    );
    Moved { after, old, reason }
}

/// A first impression of someone of `occupation` met at `place` (its index
/// and name), from those `made` so far: shared, as many meet many at the
/// same place.
fn impression(
    made: &mut HashMap<LocIdx, HashMap<String, Impression>>,
    (place, name): (LocIdx, &str),
    occupation: &str,
) -> Impression {
    let here = made.entry(place).or_default();
    if let Some(known) = here.get(occupation) {
        return known.clone();
    }
    let new = Impression::from(format!("在{name}聊过天的{occupation}").as_str());
    here.insert(occupation.to_owned(), new.clone());
    new
}

impl Closing<'_, '_> {
    /// Every participant's view of every other moves (see the module's
    /// note), from `foreseen` where it still holds; returns how far each
    /// one's biggest tie moved.
    pub(super) fn change_ties(
        &mut self,
        c: &Conversation,
        ids: &[ResidentId],
        changes: &mut Vec<RelationshipDelta>,
        foreseen: Vec<Option<Foreseen>>,
    ) -> Vec<f32> {
        let mut moved = vec![0.0f32; c.participants.len()];
        let mut foreseen = foreseen.into_iter();
        for (k, a, b) in pairs(c) {
            let ahead = foreseen.next().flatten();
            let Some((m, new, kind)) = self.change_tie(c, a, b, ahead) else {
                continue;
            };
            let ((old, old_kind), reason) = (m.old, m.reason);
            if (new - old).abs() > moved[k].abs() {
                moved[k] = new - old;
            }
            if new == old && kind == old_kind {
                continue;
            }
            let other = self.roster.id_of(b).clone();
            changes.push(RelationshipDelta {
                resident: ids[k].clone(),
                other: other.clone(),
                old,
                new,
            });
            self.events.write(SimEvent {
                time: self.clock.now,
                body: EventBody::RelationshipChange {
                    resident: ids[k].clone(),
                    other,
                    old_strength: old,
                    new_strength: new,
                    previous_relation: (kind != old_kind).then_some(old_kind),
                    relation: kind,
                    reason,
                },
            });
        }
        moved
    }

    /// `a`'s view of `b` after the conversation, put in place: how it moved,
    /// and its strength and kind now.
    fn change_tie(
        &mut self,
        c: &Conversation,
        a: RosterIdx,
        b: RosterIdx,
        ahead: Option<Foreseen>,
    ) -> Option<(Moved, f32, RelationKind)> {
        let entities = [self.roster.entity_of(a), self.roster.entity_of(b)];
        let [mut me, other] = self.people.get_many_mut(entities).ok()?;
        let other_id = other.0.id.clone();
        let before = view(&me.3, b, &other_id);
        let m = match ahead {
            Some(f) if f.before == before => f.moved,
            _ => {
                let personas = (&me.1.personality, &other.1.personality);
                work_out(
                    &self.tuning.social,
                    self.clock.now,
                    c,
                    (a, b),
                    personas,
                    before,
                )
            }
        };
        let rel = me.3.entry(&other_id, b);
        m.after.put(rel);
        if rel.impression.is_empty() {
            let place = (c.place, self.town.name(c.place));
            rel.impression = impression(&mut self.impressions, place, &other.1.occupation);
        }
        let (strength, kind) = (rel.strength, rel.kind);
        Some((m, strength, kind))
    }
}
