//! End conditions: the run's days are done, everyone is asleep at the end of
//! the last day, or someone pressed stop.

use bevy::prelude::*;

use super::clock::Clock;
use super::event_log::EventLog;
use super::event_log::events::{EndReason, EventBody, SimEvent};
use super::outcome::{FailSim, SimFailure, SimOutcome, StopSim};
use super::residents::{Activity, ActivityKind, Resident};
use super::{SimSet, SimStep};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SimOutcome>()
        .add_message::<StopSim>()
        .add_message::<FailSim>()
        .init_resource::<SimFailure>()
        .add_systems(SimStep, check_end.in_set(SimSet::End))
        .add_systems(SimStep, flush_on_end.after(SimSet::Log));
}

fn check_end(
    clock: Res<Clock>,
    mut outcome: ResMut<SimOutcome>,
    mut stops: MessageReader<StopSim>,
    mut failures: MessageReader<FailSim>,
    mut failure: ResMut<SimFailure>,
    mut events: MessageWriter<SimEvent>,
    q: Query<Option<&Activity>, With<Resident>>,
) {
    if outcome.ended() {
        return;
    }
    // The last day's evening: from ten hours before the run's end (20:00 for a 06:00 start).
    let last_evening = clock.now >= clock.end().plus_minutes(-(10 * 60));
    let error = failures.read().next().map(|f| f.0.clone());
    let reason = if error.is_some() {
        failure.0 = error.clone();
        Some(EndReason::Failed)
    } else if stops.read().count() > 0 {
        Some(EndReason::Stopped)
    } else if clock.now >= clock.end() {
        Some(EndReason::DaysDone)
    } else if last_evening
        && !q.is_empty()
        && q.iter()
            .all(|a| a.is_some_and(|a| a.underway && a.kind == ActivityKind::Sleep))
    {
        Some(EndReason::AllAsleep)
    } else {
        None
    };
    if let Some(reason) = reason {
        outcome.0 = Some(reason);
        events.write(SimEvent {
            time: clock.now,
            body: EventBody::End {
                reason,
                day: clock.day(),
                error,
            },
        });
    }
}

fn flush_on_end(outcome: Res<SimOutcome>, mut log: ResMut<EventLog>) {
    if outcome.is_changed() && outcome.ended() {
        log.flush();
    }
}
