//! Carrying out plans: walking the route, beginning the action on arrival
//! (sleep, post a notice), and finishing it when its time is up.

use bevy::prelude::*;

use super::clock::Clock;
use super::event_log::events::{EventBody, SimEvent};
use super::notice_board::NoticeBoard;
use super::residents::spawn::spread_position;
use super::residents::{
    Activity, ActivityKind, MapPosition, NightState, Resident, Tally, Walking, Whereabouts,
};
use super::{SimSet, SimStep};
use crate::scenario::{LocIdx, Service, Town};
use crate::sim::StepCx;

/// A resident is where its plan said and starts doing it now.
#[derive(Message, Debug, Clone, Copy)]
pub(crate) struct ActionBegan(pub Entity);

/// A walker passed through a place on its way (notice boards are read in passing).
#[derive(Message, Debug, Clone, Copy)]
pub(crate) struct PassedBy {
    pub(crate) entity: Entity,
    pub(crate) place: LocIdx,
}

/// A resident went to sleep now, until the given time (memory consolidation listens).
#[derive(Message, Debug, Clone, Copy)]
pub(crate) struct FellAsleep {
    pub(crate) entity: Entity,
    pub(crate) until: crate::base::time::GameTime,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<ActionBegan>()
        .add_message::<FellAsleep>()
        .add_message::<PassedBy>()
        .add_systems(
            SimStep,
            (
                finish.in_set(SimSet::Finish),
                walk.in_set(SimSet::Movement),
                begin.in_set(SimSet::Begin),
            ),
        );
}

/// Ends actions whose time is up; a sleeper wakes.
fn finish(
    clock: Res<Clock>,
    town: Res<Town>,
    mut events: MessageWriter<SimEvent>,
    // Not filtered on `Walking` (a sparse filter makes the pass visit residents out
    // of order): a walker's action is not under way yet.
    mut q: Query<(&Resident, &mut Activity)>,
) {
    for (r, mut a) in &mut q {
        if a.underway && a.busy_until <= clock.now {
            a.underway = false;
            if a.kind == ActivityKind::Sleep {
                events.write(SimEvent {
                    time: clock.now,
                    body: EventBody::Wake {
                        resident: r.id.clone(),
                        location: town.id(a.target).clone(),
                    },
                });
            }
        }
    }
}

/// Moves walkers along their route; a walker reaching its destination arrives.
fn walk(
    mut commands: Commands,
    mut cx: StepCx,
    mut began: MessageWriter<ActionBegan>,
    mut passed: MessageWriter<PassedBy>,
    mut q: Query<(
        Entity,
        &Resident,
        &mut Walking,
        &mut Whereabouts,
        &mut MapPosition,
    )>,
) {
    let stride = cx.tuning.walk_speed * cx.clock.step_minutes as f32;
    for (entity, r, mut walking, mut at, mut pos) in &mut q {
        walking.progress += stride;
        while let Some(&next) = walking.route.first() {
            let leg = cx.town.edge_length(at.0, next);
            if walking.progress < leg {
                break;
            }
            walking.progress -= leg;
            at.0 = next;
            walking.route.remove(0);
            if !walking.route.is_empty() {
                passed.write(PassedBy {
                    entity,
                    place: next,
                });
            }
        }
        match walking.route.first() {
            Some(&next) => {
                let (a, b) = (cx.town.get(at.0).position, cx.town.get(next).position);
                let leg = a.distance(b).max(1e-3);
                pos.0 = a.lerp(b, (walking.progress / leg).clamp(0.0, 1.0));
            }
            None => {
                pos.0 = spread_position(&cx.town, at.0, r.idx);
                commands.entity(entity).remove::<Walking>();
                cx.events.write(SimEvent {
                    time: cx.clock.now,
                    body: EventBody::Arrive {
                        resident: r.id.clone(),
                        location: cx.town.id(at.0).clone(),
                    },
                });
                began.write(ActionBegan(entity));
            }
        }
    }
}

/// Starts the action: its clock runs from now; sleep and notices take effect.
fn begin(
    mut cx: StepCx,
    mut board: ResMut<NoticeBoard>,
    mut reader: MessageReader<ActionBegan>,
    mut asleep: MessageWriter<FellAsleep>,
    mut q: Query<(&Resident, &mut Activity, &mut NightState, &mut Tally)>,
) {
    for &ActionBegan(entity) in reader.read() {
        let Ok((r, mut a, mut night, mut tally)) = q.get_mut(entity) else {
            continue;
        };
        a.underway = true;
        a.busy_until = cx.clock.now.plus_minutes(a.duration as i64);
        let here = cx.town.id(a.target).clone();
        match a.kind {
            ActivityKind::Sleep => {
                let tonight = cx.clock.now.night_of();
                if night.slept != Some(tonight)
                    && a.duration > cx.tuning.durations.consolidate_after
                {
                    night.slept = Some(tonight);
                    tally.nights += 1;
                }
                asleep.write(FellAsleep {
                    entity,
                    until: a.busy_until,
                });
                cx.events.write(SimEvent {
                    time: cx.clock.now,
                    body: EventBody::Sleep {
                        resident: r.id.clone(),
                        location: here,
                        until: a.busy_until,
                    },
                });
            }
            ActivityKind::PostNotice if cx.town.get(a.target).has(Service::NoticeBoard) => {
                let text = a.text.dialogue.trim().to_string();
                if !text.is_empty() {
                    let id = board.post(r.id.clone(), cx.clock.now, a.target, text.clone());
                    tally.notices += 1;
                    cx.events.write(SimEvent {
                        time: cx.clock.now,
                        body: EventBody::Notice {
                            resident: r.id.clone(),
                            location: here,
                            notice: id,
                            text,
                        },
                    });
                }
            }
            _ => {}
        }
    }
}
