//! Needs decay every game minute and are restored by what the resident is doing.

use bevy::prelude::*;

use super::clock::Clock;
use super::residents::census::Census;
use super::residents::{Activity, ActivityKind, Needs, Resident, Walking};
use super::town::ActiveTuning;
use super::{SimSet, SimStep};
use crate::scenario::{Service, Town};

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
    for (r, mut needs, activity) in &mut q {
        let walking = walking.get(r.idx.i()).copied().unwrap_or(false);
        let n = &mut *needs;
        let doing = activity.filter(|a| a.underway && !walking);
        let asleep = doing.is_some_and(|a| a.kind == ActivityKind::Sleep);
        // Asleep, the body runs slower: hunger and company matter less.
        let slow = if asleep { t.asleep_decay } else { 1.0 };
        if !asleep {
            n.energy -= t.decay.energy * minutes * if walking { t.walking_decay } else { 1.0 };
        }
        n.hunger -= t.decay.hunger * minutes * slow;
        n.social -= t.decay.social * minutes * slow;
        n.fun -= t.decay.fun * minutes * slow;
        if let Some(a) = doing {
            // Company matters for most activities; count it once, only when needed.
            let company = || census.count_at(a.target).saturating_sub(1) as f32;
            match a.kind {
                ActivityKind::Sleep => n.energy += t.sleep_restore * minutes,
                ActivityKind::Eat if town.get(a.target).has(Service::Food) => {
                    n.hunger += t.eat_restore * minutes;
                    n.last_meal = clock.now;
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
                a.kind,
                ActivityKind::Sleep | ActivityKind::Attend | ActivityKind::Socialise
            ) && company() > 0.0
            {
                n.social += t.company_restore * minutes * t.company_nearby;
            }
        }
        n.clamp();
    }
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
}
