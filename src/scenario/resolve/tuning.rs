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
    if !super::positive(t.walk_speed) {
        p.bad("walk_speed", "must be a positive number");
    }
    check_needs(&mut p, &t.needs);
    check_social(&mut p, &t.social);
    let d = &t.durations;
    if d.min == 0 || d.min > d.max {
        p.bad(
            "durations.min",
            "must be positive and not above durations.max",
        );
    }
}

/// Rates and shares of the needs: finite, not negative (NaN fails every range).
fn check_needs(p: &mut Problems, n: &spec::NeedsTuning) {
    let per_minute = "must be between 0 and 10 points per minute";
    let amount = "must be a number from 0 to 100";
    for (name, v, max, msg) in [
        ("needs.decay.energy", n.decay.energy, 10.0, per_minute),
        ("needs.decay.hunger", n.decay.hunger, 10.0, per_minute),
        ("needs.decay.social", n.decay.social, 10.0, per_minute),
        ("needs.decay.fun", n.decay.fun, 10.0, per_minute),
        ("needs.sleep_restore", n.sleep_restore, 100.0, amount),
        ("needs.eat_restore", n.eat_restore, 100.0, amount),
        ("needs.talk_restore", n.talk_restore, 100.0, amount),
        ("needs.company_restore", n.company_restore, 100.0, amount),
        ("needs.leisure_restore", n.leisure_restore, 100.0, amount),
        ("needs.asleep_decay", n.asleep_decay, 100.0, amount),
        ("needs.walking_decay", n.walking_decay, 100.0, amount),
        ("needs.company_cap", n.company_cap, 100.0, amount),
        ("needs.social_fun", n.social_fun, 100.0, amount),
        ("needs.idle_energy", n.idle_energy, 100.0, amount),
        ("needs.company_nearby", n.company_nearby, 100.0, amount),
    ] {
        if !(0.0..=max).contains(&v) {
            p.bad(name, msg);
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
    if !(s.gathering_talk.is_finite() && s.gathering_talk >= 0.0) {
        p.bad("social.gathering_talk", "must be a number ≥ 0");
    }
    if !(c.chars_per_second.is_finite() && c.chars_per_second > 0.0) {
        p.bad(
            "social.conversation.chars_per_second",
            "must be a positive number",
        );
    }
    if c.pause_seconds[0] > c.pause_seconds[1] {
        p.bad(
            "social.conversation.pause_seconds",
            "must be [least, most] with least ≤ most",
        );
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
