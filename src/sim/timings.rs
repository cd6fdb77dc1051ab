//! Where a step's time goes: wall time per phase of [`SimStep`], for
//! `heartvale sim --timings` and for profiling large towns. Off unless
//! [`enable`]d: marker systems between the phases stamp the clock, so a phase's
//! time includes the commands applied at its start.

use std::time::{Duration, Instant};

use bevy::ecs::schedule::InternedSystemSet;
use bevy::prelude::*;
use comfy_table::Table;
use comfy_table::presets::UTF8_FULL_CONDENSED;

use super::memory::{Consolidation, Remembering};
use super::planning::PlanningSet;
use super::social::SocialSet;
use super::{SimSet, SimStep};

/// The phases timed, in the order they run.
pub const PHASES: [&str; 17] = [
    "clock",
    "finish actions",
    "movement",
    "needs",
    "census",
    "notices",
    "social: presence",
    "social: triggers",
    "social: talk",
    "social: conclude",
    "planning: request",
    "planning: answer",
    "planning: apply",
    "begin actions",
    "memory: record",
    "memory: night",
    "end + log",
];

/// Time spent in each of [`PHASES`] over the steps run since [`enable`].
#[derive(Resource, Debug, Default, Clone)]
pub struct StepTimings {
    /// Time per phase.
    pub(crate) spent: [Duration; PHASES.len()],
    /// Steps measured.
    pub(crate) steps: u64,
    last: Option<Instant>,
}

impl StepTimings {
    /// Marker `i` runs before phase `i` (and after phase `i - 1`).
    fn stamp(&mut self, i: usize) {
        let now = Instant::now();
        if let (Some(last), Some(prev)) = (self.last, i.checked_sub(1)) {
            self.spent[prev] += now - last;
        }
        self.last = (i < PHASES.len()).then_some(now);
        if i == PHASES.len() {
            self.steps += 1;
        }
    }

    /// Time in all phases.
    pub fn total(&self) -> Duration {
        self.spent.iter().sum()
    }
}

fn marker(i: usize) -> impl FnMut(ResMut<StepTimings>) {
    move |mut t: ResMut<StepTimings>| t.stamp(i)
}

/// The system sets each of [`PHASES`] spans: (first, last).
fn phase_sets() -> [(InternedSystemSet, InternedSystemSet); PHASES.len()] {
    let one = |s: InternedSystemSet| (s, s);
    [
        one(SimSet::Clock.intern()),
        one(SimSet::Finish.intern()),
        one(SimSet::Movement.intern()),
        one(SimSet::Needs.intern()),
        one(SimSet::Census.intern()),
        one(SimSet::Notices.intern()),
        one(SocialSet::Presence.intern()),
        one(SocialSet::Triggers.intern()),
        one(SocialSet::Talk.intern()),
        one(SocialSet::Conclude.intern()),
        one(PlanningSet::Request.intern()),
        one(PlanningSet::Answer.intern()),
        one(PlanningSet::Apply.intern()),
        one(SimSet::Begin.intern()),
        one(Remembering.intern()),
        (Consolidation.intern(), SimSet::Memory.intern()),
        (SimSet::End.intern(), SimSet::Log.intern()),
    ]
}

/// Starts timing the phases of every following step: marker `i` runs after
/// phase `i - 1` and before phase `i`.
pub fn enable(app: &mut App) {
    app.init_resource::<StepTimings>();
    let sets = phase_sets();
    for i in 0..=PHASES.len() {
        let mut m = marker(i).into_configs();
        if let Some(&(_, last)) = i.checked_sub(1).and_then(|p| sets.get(p)) {
            m = m.after(last);
        }
        if let Some(&(first, _)) = sets.get(i) {
            m = m.before(first);
        }
        app.add_systems(SimStep, m);
    }
}

/// Rows of (phase, mean per step, share of the step), in running order.
pub fn report(t: &StepTimings) -> Vec<(&'static str, Duration, f64)> {
    let total = t.total().as_secs_f64().max(1e-12);
    PHASES
        .iter()
        .zip(t.spent)
        .map(|(&name, d)| (name, d / t.steps.max(1) as u32, d.as_secs_f64() / total))
        .collect()
}

/// The [`report`] as a table, with the whole step's mean at the bottom
/// (`heartvale sim --timings`, the step benchmark).
pub fn table(t: &StepTimings) -> String {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(vec!["phase", "µs per step", "share"]);
    for (name, mean, share) in report(t) {
        table.add_row(vec![
            name.to_string(),
            format!("{:.1}", mean.as_secs_f64() * 1e6),
            format!("{:.1}%", share * 100.0),
        ]);
    }
    let mean = t.total() / t.steps.max(1) as u32;
    table.add_row(vec![
        format!("step ({} steps)", t.steps),
        format!("{:.1}", mean.as_secs_f64() * 1e6),
        "100%".to_string(),
    ]);
    table.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::{default_scenario, headless_app};
    use crate::sim::event_log::EventLog;

    #[test]
    fn every_phase_of_every_step_is_timed() {
        let mut app = headless_app(default_scenario(), 1, 1, EventLog::in_memory());
        enable(&mut app);
        for _ in 0..120 {
            app.update();
        }
        let t = app.world().resource::<StepTimings>();
        assert_eq!(t.steps, 120);
        // Planning and the census do work every step; their time is never zero.
        for (name, mean, _) in report(t) {
            if ["census", "planning: answer", "social: triggers"].contains(&name) {
                assert!(mean > Duration::ZERO, "{name}");
            }
        }
        let shares: f64 = report(t).iter().map(|r| r.2).sum();
        assert!((shares - 1.0).abs() < 1e-9, "{shares}");
    }
}
