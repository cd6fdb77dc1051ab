//! Utility planner: every sensible next action gets a score from needs, the
//! clock, duties, persona and what the resident knows; the best one wins.
//! A little seeded noise (more for open minds) keeps days from repeating.
//! The weights are `planner:` in `tuning.yaml` ([`PlannerTuning`]).
//!
//! - `duties`: what the clock and others call for (sleep, gatherings,
//!   appointments, notices, work);
//! - `wants`: what needs call for (meals, company, leisure, rest).

mod duties;
mod wants;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{roll, speech};
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, PlannerTuning};
use crate::sim::brain::{Plan, PlanContext};
use crate::sim::residents::{ActivityKind, RosterIdx};

/// An action phrase, written out only for the option that wins.
#[derive(Debug, Clone)]
pub(super) enum ActionText {
    Fixed(&'static str),
    Own(String),
    EatAtHome(&'static str),
    EatAt(&'static str, LocIdx),
    ChatWith(RosterIdx),
    HangOutAt(LocIdx),
    Meet(RosterIdx, LocIdx),
    DineWith(&'static str, RosterIdx, LocIdx),
}

impl ActionText {
    fn render(&self, cx: &PlanContext<'_>) -> String {
        match self {
            Self::Fixed(t) => t.to_string(),
            Self::Own(t) => t.clone(),
            Self::EatAtHome(meal) => format!("Eat {meal} at home"),
            Self::EatAt(meal, place) => format!("Have {meal} at {}", place_word(cx, *place)),
            Self::ChatWith(who) => format!("Chat with {}", cx.roster.name_of(*who)),
            Self::HangOutAt(place) => format!("Hang out at {}", place_word(cx, *place)),
            Self::DineWith(meal, who, place) => format!(
                "Have {meal} with {} at {}",
                cx.roster.name_of(*who),
                place_word(cx, *place)
            ),
            Self::Meet(who, place) => format!(
                "Meet {} at {}",
                cx.roster.name_of(*who),
                place_word(cx, *place)
            ),
        }
    }

    pub(super) fn is_rest(&self) -> bool {
        matches!(self, Self::Fixed(t) if t.starts_with("Rest"))
    }

    /// Whether this is the same phrase as `text` (for leisure, which is `Own` or `Fixed`).
    fn same_as(&self, text: &str) -> bool {
        match self {
            Self::Fixed(t) => *t == text,
            Self::Own(t) => t == text,
            _ => false,
        }
    }
}

impl From<&'static str> for ActionText {
    fn from(t: &'static str) -> Self {
        Self::Fixed(t)
    }
}

impl From<String> for ActionText {
    fn from(t: String) -> Self {
        Self::Own(t)
    }
}

/// One option the planner weighs.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) action: ActionText,
    pub(super) kind: ActivityKind,
    pub(super) target: LocIdx,
    pub(super) duration: u32,
    pub(super) emoji: String,
    pub(super) score: f32,
    /// A line the persona suggests for this option (hobby `says`, notice text).
    pub(super) line: Option<String>,
    /// Friend the option is about, by roster idx.
    pub(super) friend: Option<RosterIdx>,
    /// Gathering the option is about.
    pub(super) gathering: Option<crate::scenario::GatheringIdx>,
}

impl Candidate {
    fn new(
        action: impl Into<ActionText>,
        kind: ActivityKind,
        target: LocIdx,
        duration: u32,
        emoji: &str,
        score: f32,
    ) -> Self {
        Self {
            action: action.into(),
            kind,
            target,
            duration,
            emoji: emoji.to_string(),
            score,
            line: None,
            friend: None,
            gathering: None,
        }
    }
}

/// The middle of a Big Five scale: traits above it pull one way, below the other.
const MID_TRAIT: f32 = 50.0;
/// Trait points (0–100) per point of score where a trait leans a choice:
/// eating out or at home, staying in of an evening.
const TRAIT_POINTS_PER_SCORE: f32 = 4.0;
/// Openness points per point of random noise in the scores: the open are less
/// predictable.
const OPENNESS_PER_NOISE: f32 = 10.0;

/// How long a pastime lasts: at least `least` minutes, plus a random part
/// under `spread` (then clamped to the tuning's shortest and longest action).
#[derive(Clone, Copy)]
struct Length {
    least: i64,
    spread: i64,
}

impl Length {
    fn draw(self, rng: &mut ChaCha8Rng) -> i64 {
        self.least + rng.random_range(0..self.spread)
    }
}

/// Breakfast is the meal of this many minutes after waking.
const BREAKFAST_WINDOW: u32 = 120;
/// Lunch time (minutes of the day).
const LUNCH_TIME: std::ops::Range<u32> = 11 * 60 + 30..13 * 60 + 30;
/// Dinner time (minutes of the day).
const DINNER_TIME: std::ops::Range<u32> = 17 * 60 + 30..20 * 60;

/// The moment a plan is made, as the options read it.
struct Moment<'a, 'c> {
    cx: &'a PlanContext<'c>,
    w: &'a PlannerTuning,
    /// Minute of the day.
    m: u32,
    /// Minute of the evening: after midnight counts past 24:00.
    mm: u32,
    /// Tonight's bedtime (evening minutes).
    bedtime: u32,
}

impl Moment<'_, '_> {
    /// Game minutes to walk from here to `to`.
    fn walk(&self, to: LocIdx) -> f32 {
        self.cx
            .town
            .walk_minutes(self.cx.at, to, self.cx.tuning.walk_speed)
    }

    /// Minutes within the tuning's shortest and longest action.
    fn clamp(&self, mins: i64) -> u32 {
        let d = &self.cx.tuning.durations;
        mins.clamp(d.min as i64, d.max as i64) as u32
    }
}

pub(super) fn plan(cx: &PlanContext<'_>, rng: &mut ChaCha8Rng) -> Plan {
    let w = &cx.tuning.planner;
    let mut options = candidates(cx, rng);
    make_room_for_meetings(cx, &mut options);
    leave_out_full_places(cx, &mut options);
    let openness = cx.me.personality.openness;
    for c in &mut options {
        c.score += rng.random::<f32>() * (w.noise + openness / OPENNESS_PER_NOISE);
        if c.kind == ActivityKind::Leisure
            && cx
                .previous
                .is_some_and(|p| c.action.same_as(&p.text.action))
        {
            c.score -= w.repeat_leisure;
        }
    }
    let best = options
        .into_iter()
        .max_by(|a, b| a.score.total_cmp(&b.score))
        .expect("the planner always offers at least one option");
    let dialogue = speech::plan_line(cx, &best, rng);
    Plan {
        action: best.action.render(cx),
        target_location: cx.town.id(best.target).to_string(),
        dialogue,
        emoji: best.emoji,
        duration: best.duration as i64,
        activity: Some(best.kind),
        with: best.friend.map(|f| cx.roster.id_of(f).to_string()),
    }
}

/// Every option worth weighing now, in a fixed order (the random draws
/// follow it). At bedtime, only sleep.
fn candidates(cx: &PlanContext<'_>, rng: &mut ChaCha8Rng) -> Vec<Candidate> {
    let m = cx.now.minute_of_day();
    let now = Moment {
        cx,
        w: &cx.tuning.planner,
        m,
        mm: evening_minute(m),
        bedtime: bedtime_tonight(cx),
    };
    if let Some(night) = duties::night(&now) {
        return vec![night];
    }
    let mut out = Vec::new();
    duties::gatherings(&now, &mut out);
    duties::appointments(&now, &mut out);
    duties::notices(&now, &mut out);
    let on_shift = duties::work(&now, &mut out);
    let places = wants::Places::around(&now);
    wants::meals(&now, on_shift, &places, &mut out);
    let duty = if on_shift { now.w.on_shift_duty } else { 1.0 };
    wants::company(&now, duty, &places, rng, &mut out);
    wants::leisure(&now, duty, rng, &mut out);
    wants::rest(&now, &mut out);
    out
}

/// A place filling up appeals less (many choosing in the same step would
/// otherwise all pile in), and one at its capacity (counting those on their
/// way) takes nobody new: those not there already look elsewhere. One's own
/// home and workplace, a gathering one attends and an appointment one keeps
/// are always open; staying where one is always remains.
fn leave_out_full_places(cx: &PlanContext<'_>, options: &mut Vec<Candidate>) {
    let me = cx.me;
    let workplace = me.work.as_ref().map(|w| w.place);
    let open = |c: &Candidate| {
        c.target == cx.at
            || c.target == me.home
            || Some(c.target) == workplace
            || c.gathering.is_some()
            || matches!(c.action, ActionText::Meet(..) | ActionText::DineWith(..))
    };
    options.retain_mut(|c| {
        if open(c) {
            return true;
        }
        let capacity = cx.town.get(c.target).capacity.max(1) as f32;
        let room = 1.0 - cx.census.expected_at(c.target) as f32 / capacity;
        if room < CROWDED && c.score > 0.0 {
            c.score *= (room / CROWDED).max(0.0);
        }
        room > 0.0
    });
}

/// A place with less than this share of its room left starts to put people off.
const CROWDED: f32 = 0.4;

/// Minutes of walking slack before an appointment: one sets off this early.
const APPOINTMENT_SLACK: i64 = 20;

/// Whoever means to keep an appointment or go to a gathering later today cuts
/// other plans short so as to be free to walk there in time (an organiser
/// early enough to set up).
fn make_room_for_meetings(cx: &PlanContext<'_>, options: &mut Vec<Candidate>) {
    let speed = cx.tuning.walk_speed;
    let walk = |to: LocIdx| cx.town.walk_minutes(cx.at, to, speed) as i64;
    let today = |t: GameTime| t.day_number() == cx.now.day_number();
    let meetings = cx
        .agenda
        .meetings
        .iter()
        .filter(|n| n.keep && today(n.at))
        .map(|n| n.at.plus_minutes(-walk(n.place) - APPOINTMENT_SLACK));
    let gatherings = cx
        .agenda
        .appointments
        .iter()
        .filter(|a| a.will_attend)
        .filter_map(|a| cx.gatherings.get(a.gathering.i()))
        .filter(|g| today(g.starts))
        .map(|g| {
            let lead = duties::gathering_lead(g, cx.me);
            g.starts.plus_minutes(-walk(g.location) - lead)
        });
    let Some(leave_by) = meetings.chain(gatherings).filter(|&t| t > cx.now).min() else {
        return;
    };
    let least = cx.tuning.durations.min as i64;
    let can_go = options.iter().any(|c| {
        c.gathering.is_some() || matches!(c.action, ActionText::Meet(..) | ActionText::DineWith(..))
    });
    let mut too_far = Vec::new();
    for (k, c) in options.iter_mut().enumerate() {
        let meeting = matches!(c.action, ActionText::Meet(..) | ActionText::DineWith(..));
        if c.gathering.is_some() || meeting {
            continue;
        }
        let walk = cx.town.walk_minutes(cx.at, c.target, speed) as i64;
        let room = cx.now.minutes_until(leave_by) - walk;
        if room >= least && (c.duration as i64) > room {
            c.duration = room as u32;
        } else if room < least && (c.target != cx.at || can_go) {
            // Staying on would be staying the shortest action, past the
            // time to set off: with the meeting to go to, one goes.
            too_far.push(k);
        }
    }
    // No time to go elsewhere first: one stays (a short while) or sets off,
    // rather than walking away half an hour before a meeting where one stands.
    if too_far.len() < options.len() {
        let mut k = 0;
        options.retain(|_| {
            k += 1;
            !too_far.contains(&(k - 1))
        });
    }
}

/// Noon, in minutes: earlier times of day count as after midnight.
const NOON: u32 = 12 * 60;

/// Minutes of the evening: times after midnight count past 24:00.
fn evening_minute(m: u32) -> u32 {
    if m < NOON { m + 1440 } else { m }
}

/// A late night starts this many minutes after bedtime, plus up to `LATE_SPREAD`.
const LATE_EXTRA: u32 = 60;
/// See `LATE_EXTRA`.
const LATE_SPREAD: f32 = 90.0;

/// Tonight's bedtime, later on the nights this resident stays out.
pub(super) fn bedtime_tonight(cx: &PlanContext<'_>) -> u32 {
    let night = cx.now.night_of();
    let day = chrono::Datelike::num_days_from_ce(&night) as i64;
    let id = cx.me.id.as_str();
    let late = roll(cx.seed, id, day, 1) < cx.me.late_night_chance;
    let extra = if late {
        LATE_EXTRA + (roll(cx.seed, id, day, 2) * LATE_SPREAD) as u32
    } else {
        0
    };
    cx.me.bedtime + extra
}

/// The meal this time of day calls for: breakfast in the two hours after
/// waking, lunch 11:30–13:30, dinner 17:30–20:00.
pub(super) fn meal_name(m: u32, wake: u32) -> Option<&'static str> {
    if m >= wake && m < wake + BREAKFAST_WINDOW {
        Some("breakfast")
    } else if LUNCH_TIME.contains(&m) {
        Some("lunch")
    } else if DINNER_TIME.contains(&m) {
        Some("dinner")
    } else {
        None
    }
}

/// An English-friendly word for a place in action phrases ("the tavern").
fn place_word(cx: &PlanContext<'_>, place: LocIdx) -> String {
    format!("the {}", cx.town.id(place).as_str().replace('_', " "))
}
