//! Needs decay every game minute and are restored by what the resident is doing.

use bevy::prelude::*;

use super::clock::Clock;
use super::residents::census::Census;
use super::residents::{Activity, ActivityKind, Needs, Resident, Walking};
use super::town::ActiveTuning;
use super::{SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{NeedsTuning, Service, Town};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(SimStep, update_needs.in_set(SimSet::Needs));
}

fn update_needs(
    clock: Res<Clock>,
    tuning: Res<ActiveTuning>,
    town: Res<Town>,
    census: Res<Census>,
    walkers: Query<&Resident, With<Walking>>,
    mut walking: Local<Vec<bool>>,
    mut q: Query<(&Resident, &mut Needs, Option<&Activity>)>,
) {
    let minutes = clock.step_minutes as f32;
    let t = &tuning.needs;
    // Who walks, by roster idx, from the few walkers: with the sparse `Walking` in
    // the main query, Bevy would visit residents archetype by archetype, in no
    // order in memory, which is slow in a large town.
    walking.clear();
    for r in &walkers {
        let i = r.idx.i();
        if walking.len() <= i {
            walking.resize(i + 1, false);
        }
        walking[i] = true;
    }
    // Each resident's needs are its own: a large town's are worked out on
    // every core (the order does not matter).
    let walking = &*walking;
    let one = |(r, mut needs, activity): (&Resident, Mut<Needs>, Option<&Activity>)| {
        let walking = walking.get(r.idx.i()).copied().unwrap_or(false);
        let doing = activity.filter(|a| a.underway && !walking);
        // Company matters for most activities; count it once, only when needed.
        let company = || doing.map_or(0.0, |a| census.count_at(a.target).saturating_sub(1) as f32);
        let food = doing.is_some_and(|a| town.get(a.target).has(Service::Food));
        tick(
            &mut needs,
            (doing.map(|a| a.kind), walking),
            company,
            (food, census.eats(r.idx)),
            clock.now,
            (minutes, t),
        );
    };
    let threads = crate::sim::pool_threads();
    if threads > 1 && census.entries.len() >= PARALLEL_FROM {
        q.par_iter_mut()
            .batching_strategy(crate::sim::batching())
            .for_each(one);
    } else {
        q.iter_mut().for_each(one);
    }
}

/// Residents from which needs are worked out in parallel (a small town's
/// step would spend more handing them out).
const PARALLEL_FROM: usize = 2048;

/// One step of `minutes` for one resident: needs decay, and what it is doing
/// (`kind`, under way and not walking) restores some. `company` counts the
/// others at its place; `food` says the place serves food, `eats` that the
/// resident eats at all (one who does not is never hungry).
fn tick(
    n: &mut Needs,
    (kind, walking): (Option<ActivityKind>, bool),
    company: impl Fn() -> f32,
    (food, eats): (bool, bool),
    now: GameTime,
    (minutes, t): (f32, &NeedsTuning),
) {
    let asleep = kind == Some(ActivityKind::Sleep);
    // Asleep, the body runs slower: hunger and company matter less.
    let slow = if asleep { t.asleep_decay } else { 1.0 };
    if !asleep {
        n.energy -= t.decay.energy * minutes * if walking { t.walking_decay } else { 1.0 };
    }
    if eats {
        n.hunger -= t.decay.hunger * minutes * slow;
    } else {
        n.hunger = 100.0;
    }
    n.social -= t.decay.social * minutes * slow;
    n.fun -= t.decay.fun * minutes * slow;
    if let Some(kind) = kind {
        match kind {
            ActivityKind::Sleep => n.energy += t.sleep_restore * minutes,
            ActivityKind::Eat if food => {
                n.hunger += t.eat_restore * minutes;
                n.last_meal = now;
            }
            ActivityKind::Attend | ActivityKind::Socialise => {
                n.social += t.company_restore * minutes * company().min(t.company_cap);
                n.fun += t.leisure_restore * minutes * t.social_fun;
            }
            ActivityKind::Leisure => n.fun += t.leisure_restore * minutes,
            ActivityKind::Idle => n.energy += t.decay.energy * minutes * t.idle_energy,
            _ => {}
        }
        if !matches!(
            kind,
            ActivityKind::Sleep | ActivityKind::Attend | ActivityKind::Socialise
        ) && company() > 0.0
        {
            n.social += t.company_restore * minutes * t.company_nearby;
        }
    }
    n.clamp();
}

/// The needs a resident will wake to when `activity`, under way now, ends:
/// each step until then as [`update_needs`] would take it, with the company
/// at its place as it is now (`food`: it serves food; `eats`: the resident
/// eats at all). A plan asked for ahead is asked from these.
pub(crate) fn projected(
    needs: &Needs,
    activity: &Activity,
    (now, step_minutes): (GameTime, u32),
    (company, food, eats): (f32, bool, bool),
    t: &NeedsTuning,
) -> Needs {
    let mut n = *needs;
    let step = i64::from(step_minutes.max(1));
    let mut at = now.plus_minutes(step);
    // The step that reaches `busy_until` ends the action before needs move.
    while at < activity.busy_until {
        let kind = Some(activity.kind);
        tick(
            &mut n,
            (kind, false),
            || company,
            (food, eats),
            at,
            (step as f32, t),
        );
        at = at.plus_minutes(step);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_clamp_to_range() {
        let mut n = Needs {
            energy: -5.0,
            hunger: 150.0,
            ..default()
        };
        n.clamp();
        assert_eq!((n.energy, n.hunger), (0.0, 100.0));
    }

    #[test]
    fn one_who_does_not_eat_is_never_hungry() {
        let t = NeedsTuning::default();
        let (mut eater, mut spirit) = (Needs::default(), Needs::default());
        for step in 0..100 {
            let at = GameTime(0).plus_minutes(step * 5);
            tick(
                &mut eater,
                (None, false),
                || 0.0,
                (false, true),
                at,
                (5.0, &t),
            );
            tick(
                &mut spirit,
                (None, false),
                || 0.0,
                (false, false),
                at,
                (5.0, &t),
            );
        }
        assert!(eater.hunger < 50.0, "{eater:?}");
        assert_eq!(spirit.hunger, 100.0);
        // The rest of its needs move as anyone's.
        assert_eq!((spirit.energy, spirit.social), (eater.energy, eater.social));
    }

    fn sleep_until(hours: i64) -> Activity {
        Activity {
            text: Box::new(crate::sim::residents::ActivityText {
                action: "Sleep".into(),
                dialogue: String::new(),
                emoji: String::new(),
            }),
            kind: ActivityKind::Sleep,
            target: crate::scenario::LocIdx(0),
            duration: hours as u32 * 60,
            busy_until: GameTime(0).plus_minutes(hours * 60),
            underway: true,
            walked: false,
            with: None,
        }
    }

    #[test]
    fn a_sleeper_wakes_rested_and_hungrier_as_the_steps_would_leave_it() {
        let t = NeedsTuning::default();
        let tired = Needs {
            energy: 20.0,
            hunger: 80.0,
            ..default()
        };
        let night = sleep_until(7);
        let woke = projected(&tired, &night, (GameTime(0), 5), (0.0, false, true), &t);
        assert!(woke.energy > tired.energy + 20.0, "{woke:?}");
        assert!(woke.hunger < tired.hunger, "{woke:?}");
        // Step by step, as the needs system takes them, to the same needs.
        let mut n = tired;
        let mut at = GameTime(0).plus_minutes(5);
        while at < night.busy_until {
            tick(
                &mut n,
                (Some(ActivityKind::Sleep), false),
                || 0.0,
                (false, true),
                at,
                (5.0, &t),
            );
            at = at.plus_minutes(5);
        }
        assert_eq!(n, woke);
        // An action ending at the next step changes nothing before it.
        let nap = sleep_until(0);
        assert_eq!(
            projected(&tired, &nap, (GameTime(0), 5), (0.0, false, true), &t),
            tired
        );
    }
}
