//! `tuning.yaml`: every number in a range the simulation can work with.

use std::path::PathBuf;

use super::Ctx;
use crate::base::Diagnostic;
use crate::scenario::spec::{self, SocialTuning};

/// Problems found in `tuning.yaml`, each at the file with its field.
struct Problems<'c, 'a> {
    cx: &'c mut Ctx<'a>,
    file: PathBuf,
}

impl Problems<'_, '_> {
    fn bad(&mut self, field: &str, msg: &str) {
        let mut d = Diagnostic::file(&self.file, msg, None);
        d.field = field.to_string();
        self.cx.diags.push(d);
    }
}

/// Checks the tuning's numbers.
pub(super) fn check_tuning(cx: &mut Ctx<'_>, t: &spec::Tuning) {
    let file = cx.tuning_file.clone();
    let mut p = Problems { cx, file };
    if !(1..=60).contains(&t.step_minutes) {
        p.bad("step_minutes", "must be between 1 and 60");
    }
    if t.walk_speed <= 0.0 {
        p.bad("walk_speed", "must be positive");
    }
    check_social(&mut p, &t.social);
    let d = &t.durations;
    if d.min == 0 || d.min > d.max {
        p.bad(
            "durations.min",
            "must be positive and not above durations.max",
        );
    }
    for (name, v) in [
        ("needs.decay.energy", t.needs.decay.energy),
        ("needs.decay.hunger", t.needs.decay.hunger),
        ("needs.decay.social", t.needs.decay.social),
        ("needs.decay.fun", t.needs.decay.fun),
    ] {
        if !(0.0..=10.0).contains(&v) {
            p.bad(name, "must be between 0 and 10 points per minute");
        }
    }
}

/// Probabilities, conversation lengths, tie thresholds, group sizes, meeting hours.
fn check_social(p: &mut Problems, s: &SocialTuning) {
    for (name, v) in [
        (
            "social.proximity.base_probability",
            s.proximity.base_probability,
        ),
        ("social.group.join_probability", s.group.join_probability),
        (
            "social.group.mention_probability",
            s.group.mention_probability,
        ),
        (
            "social.appointments.probability",
            s.appointments.probability,
        ),
    ] {
        if !(0.0..=1.0).contains(&v) {
            p.bad(name, "must be between 0 and 1");
        }
    }
    let c = &s.conversation;
    if c.min_turns < 1 || c.min_turns > c.max_turns {
        p.bad(
            "social.conversation.min_turns",
            "must be at least 1 and not above max_turns",
        );
    }
    if c.turn_seconds == 0 {
        p.bad("social.conversation.turn_seconds", "must be positive");
    }
    let r = &s.relationship;
    if !(0.0 < r.acquaintance
        && r.acquaintance < r.friend
        && r.friend < r.close_friend
        && r.close_friend <= 100.0)
    {
        p.bad(
            "social.relationship.acquaintance",
            "thresholds must rise: 0 < acquaintance < friend < close_friend ≤ 100",
        );
    }
    if s.group.max_size < 2 {
        p.bad("social.group.max_size", "must be at least 2");
    }
    let a = &s.appointments;
    if a.from_hour > a.to_hour || a.to_hour > 23 {
        p.bad(
            "social.appointments.from_hour",
            "hours must satisfy from_hour ≤ to_hour ≤ 23",
        );
    }
}
