//! Invitations to a gathering, answered: yes or no, with the reason the guest
//! gives. Decided when the talk opens, so what the guest says and what goes
//! on its agenda agree.

use serde::{Deserialize, Serialize};

use crate::scenario::{Gathering, Profile};
use crate::sim::residents::Heard;
use crate::sim::residents::roster::RosterIdx;

/// Why a guest says yes or no.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum InviteReason {
    /// Yes: the organiser is a friend.
    Friend,
    /// Yes: one likes a crowd.
    Lively,
    /// Yes: one simply means to come.
    Keen,
    /// No: a work shift falls on it.
    Shift,
    /// No: crowds are not for one.
    Crowds,
    /// No: something else is on.
    Busy,
}

impl InviteReason {
    /// Whether the answer is yes.
    pub(crate) fn will_attend(self) -> bool {
        matches!(self, Self::Friend | Self::Lively | Self::Keen)
    }
}

/// The chance a resident goes to a gathering it heard of (`heard`), the
/// bond with its organiser out of 100 (what `notices::decide_attendance`
/// rolls against).
pub fn attendance_chance(me: &Profile, heard: Heard, bond_with_organiser: f32) -> f32 {
    let p = &me.personality;
    let mut chance = 0.25
        + 0.3 * p.conscientiousness / 100.0
        + 0.25 * p.extraversion / 100.0
        + 0.1 * p.agreeableness / 100.0
        + 0.2 * bond_with_organiser / 100.0;
    if matches!(heard, Heard::Invitation | Heard::Told) {
        chance *= 0.7;
    }
    chance.clamp(0.05, 0.95)
}

/// The invited guest's answer, decided when the talk opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InviteAnswer {
    /// Who answers.
    pub(crate) guest: RosterIdx,
    /// Yes or no, and why.
    pub(crate) reason: InviteReason,
}

/// A shift at the gathering's time leaves this share of the wish to go.
const SHIFT_FACTOR: f32 = 0.4;
/// A tie this strong to the organiser is a friend's "of course I'll come".
const FRIEND_BOND: f32 = 45.0;
/// Extraversion this high loves a crowd…
const LIVELY: f32 = 60.0;
/// …this low shies away from one.
const SHY: f32 = 40.0;

/// The guest's answer to an invitation to `g`: the chance of word of mouth
/// (see [`attendance_chance`]), lower when a shift falls on it; `roll` is a
/// draw in 0..1.
pub(crate) fn answer(guest: &Profile, bond: f32, g: &Gathering, roll: f32) -> InviteReason {
    let on_shift = guest.work.as_ref().is_some_and(|w| {
        let (day, start) = (g.starts.weekday_index(), g.starts.minute_of_day());
        w.covers(day, start) || w.covers(day, start + 60)
    });
    let mut chance = attendance_chance(guest, Heard::Invitation, bond);
    if on_shift {
        chance *= SHIFT_FACTOR;
    }
    let extraversion = guest.personality.extraversion;
    match (roll < chance, on_shift) {
        (true, _) if bond >= FRIEND_BOND => InviteReason::Friend,
        (true, _) if extraversion >= LIVELY => InviteReason::Lively,
        (true, _) => InviteReason::Keen,
        (false, true) => InviteReason::Shift,
        (false, false) if extraversion < SHY => InviteReason::Crowds,
        (false, false) => InviteReason::Busy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;

    #[test]
    fn answers_follow_the_guest() {
        let s = default_scenario();
        let g = &s.gatherings[0];
        let guest = |id: &str| {
            let p = s.residents.iter().find(|p| p.id.as_str() == id);
            Profile::clone(p.expect("in the default town"))
        };
        // A sure yes from a friend of the organiser is a friend's yes.
        let mut p = guest("xiaoxi");
        p.work = None;
        assert_eq!(answer(&p, 80.0, g, 0.0), InviteReason::Friend);
        p.personality.extraversion = 90.0;
        assert_eq!(answer(&p, 0.0, g, 0.0), InviteReason::Lively);
        // A sure no: the shy say crowds, the rest something else on…
        p.personality.extraversion = 20.0;
        assert_eq!(answer(&p, 0.0, g, 0.999), InviteReason::Crowds);
        p.personality.extraversion = 50.0;
        assert_eq!(answer(&p, 0.0, g, 0.999), InviteReason::Busy);
        // …and one whose shift covers the start says so, and is likelier to.
        let mut worker = guest("adou");
        let shift = worker.work.as_mut().expect("adou works");
        shift.days = [true; 7];
        (shift.start, shift.end) = (0, 24 * 60 - 1);
        assert_eq!(answer(&worker, 0.0, g, 0.999), InviteReason::Shift);
        let mid = attendance_chance(&worker, Heard::Invitation, 0.0) * 0.7;
        assert!(!answer(&worker, 0.0, g, mid).will_attend());
        worker.work = None;
        assert!(answer(&worker, 0.0, g, mid).will_attend());
    }
}
