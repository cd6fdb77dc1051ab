//! Ties fade when people do not talk: each morning, a tie (not family) whose
//! two did not speak the whole day before loses a little, down to where
//! acquaintance begins, so what grew over days has to be kept up. The
//! first morning of a run fades nothing (its day had no day before).

use bevy::prelude::*;

use super::SocialState;
use super::analysis::reclassify;
use crate::scenario::RelationKind;
use crate::sim::clock::Clock;
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::residents::{Relationships, Resident};
use crate::sim::town::ActiveTuning;

/// Once a morning (at the start of the residents' day), every tie left
/// quiet fades by `relationship.fade`, not below the acquaintance threshold.
pub(super) fn fade_ties(
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    mut state: ResMut<SocialState>,
    mut q: Query<(&Resident, &mut Relationships)>,
    mut events: MessageWriter<SimEvent>,
) {
    let today = clock.now.social_day();
    if state.faded_day == 0 {
        // The run's first day: nothing has had time to fade.
        state.faded_day = today;
        state.first_day = today;
        return;
    }
    if today <= state.faded_day {
        return;
    }
    state.faded_day = today;
    let r = &tuning.social.relationship;
    let floor = r.acquaintance;
    let mut faded: Vec<(usize, SimEvent)> = Vec::new();
    for (me, mut ties) in &mut q {
        for t in ties.iter_mut() {
            // Never talked in this run: quiet since the day before it began.
            let last = t.talk_days.last().map_or(state.first_day - 1, i64::from);
            let quiet = today - last > 1;
            if t.kind == RelationKind::Family || !quiet || t.strength <= floor {
                continue;
            }
            let old = (t.strength, t.kind);
            t.strength = (t.strength - r.fade).max(floor);
            t.kind = reclassify(t.kind, t.strength, r);
            faded.push((
                me.idx.i(),
                SimEvent {
                    time: clock.now,
                    body: EventBody::RelationshipChange {
                        resident: me.id.clone(),
                        other: t.with.clone(),
                        old_strength: old.0,
                        new_strength: t.strength,
                        previous_relation: (t.kind != old.1).then_some(old.1),
                        relation: t.kind,
                        reason: format!("昨天没来往，淡了些（{:+}）", -r.fade),
                    },
                },
            ));
        }
    }
    // In roster order: the log is the same however the query visits.
    faded.sort_by_key(|(i, _)| *i);
    events.write_batch(faded.into_iter().map(|(_, e)| e));
}
