//! Utility planner: every sensible next action gets a score from needs, the
//! clock, duties, persona and what the resident knows; the best one wins.
//! A little seeded noise (more for open minds) keeps days from repeating.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{roll, speech};
use crate::scenario::{LocIdx, LocationKind, Service};
use crate::sim::brain::{Plan, PlanContext};
use crate::sim::residents::ActivityKind;

/// An action phrase, written out only for the option that wins.
#[derive(Debug, Clone)]
pub(super) enum ActionText {
    Fixed(&'static str),
    Own(String),
    EatAtHome(&'static str),
    EatAt(&'static str, LocIdx),
    ChatWith(u32),
    HangOutAt(LocIdx),
    Meet(u32, LocIdx),
    DineWith(&'static str, u32, LocIdx),
}

impl ActionText {
    fn render(&self, cx: &PlanContext<'_>) -> String {
        match self {
            Self::Fixed(t) => t.to_string(),
            Self::Own(t) => t.clone(),
            Self::EatAtHome(meal) => format!("Eat {meal} at home"),
            Self::EatAt(meal, place) => format!("Have {meal} at {}", place_word(cx, *place)),
            Self::ChatWith(who) => format!("Chat with {}", cx.roster.names[*who as usize]),
            Self::HangOutAt(place) => format!("Hang out at {}", place_word(cx, *place)),
            Self::DineWith(meal, who, place) => format!(
                "Have {meal} with {} at {}",
                cx.roster.names[*who as usize],
                place_word(cx, *place)
            ),
            Self::Meet(who, place) => format!(
                "Meet {} at {}",
                cx.roster.names[*who as usize],
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
    pub action: ActionText,
    pub kind: ActivityKind,
    pub target: LocIdx,
    pub duration: u32,
    pub emoji: String,
    pub score: f32,
    /// A line the persona suggests for this option (hobby `says`, notice text).
    pub line: Option<String>,
    /// Friend the option is about, by roster idx.
    pub friend: Option<u32>,
    /// Gathering the option is about.
    pub gathering: Option<usize>,
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

pub(super) fn plan(cx: &PlanContext<'_>, rng: &mut ChaCha8Rng) -> Plan {
    let mut options = candidates(cx, rng);
    make_room_for_meetings(cx, &mut options);
    leave_out_full_places(cx, &mut options);
    let openness = cx.me.personality.openness;
    for c in &mut options {
        c.score += rng.random::<f32>() * (4.0 + openness / 10.0);
        if c.kind == ActivityKind::Leisure
            && cx
                .previous
                .is_some_and(|p| c.action.same_as(&p.text.action))
        {
            c.score -= 25.0;
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
    }
}

/// A place at its capacity (counting those on their way) takes nobody new: those
/// not there already look elsewhere. One's own home and workplace, a gathering one attends and an
/// appointment one keeps are always open; staying where one is always remains.
fn leave_out_full_places(cx: &PlanContext<'_>, options: &mut Vec<Candidate>) {
    let me = cx.me;
    let workplace = me.work.as_ref().map(|w| w.place);
    options.retain(|c| {
        c.target == cx.at
            || c.target == me.home
            || Some(c.target) == workplace
            || c.gathering.is_some()
            || matches!(c.action, ActionText::Meet(..) | ActionText::DineWith(..))
            || cx.census.expected_at(c.target) < cx.town.get(c.target).capacity as usize
    });
}

/// Whoever means to keep an appointment later today cuts other plans short
/// so as to be free to walk there in time.
fn make_room_for_meetings(cx: &PlanContext<'_>, options: &mut [Candidate]) {
    let speed = cx.tuning.walk_speed;
    let Some(leave_by) = cx
        .agenda
        .meetings
        .iter()
        .filter(|n| n.keep && n.at.day_number() == cx.now.day_number())
        .map(|n| {
            n.at.plus_minutes(-(cx.town.walk_minutes(cx.at, n.place, speed) as i64) - 20)
        })
        .filter(|&t| t > cx.now)
        .min()
    else {
        return;
    };
    for c in options.iter_mut().filter(|c| c.gathering.is_none()) {
        if matches!(c.action, ActionText::Meet(..) | ActionText::DineWith(..)) {
            continue;
        }
        let walk = cx.town.walk_minutes(cx.at, c.target, speed) as i64;
        let room = cx.now.minutes_until(leave_by) - walk;
        if room >= cx.tuning.durations.min as i64 && (c.duration as i64) > room {
            c.duration = room as u32;
        }
    }
}

/// Minutes of the evening: times after midnight count past 24:00.
fn evening_minute(m: u32) -> u32 {
    if m < 12 * 60 { m + 1440 } else { m }
}

/// Tonight's bedtime, later on the nights this resident stays out.
pub(super) fn bedtime_tonight(cx: &PlanContext<'_>) -> u32 {
    let night = cx.now.night_of();
    let day = chrono::Datelike::num_days_from_ce(&night) as i64;
    let id = cx.me.id.as_str();
    let late = roll(cx.seed, id, day, 1) < cx.me.late_night_chance;
    let extra = if late {
        60 + (roll(cx.seed, id, day, 2) * 90.0) as u32
    } else {
        0
    };
    cx.me.bedtime + extra
}

fn candidates(cx: &PlanContext<'_>, rng: &mut ChaCha8Rng) -> Vec<Candidate> {
    let me = cx.me;
    let p = &me.personality;
    let d = &cx.tuning.durations;
    let speed = cx.tuning.walk_speed;
    let m = cx.now.minute_of_day();
    let mm = evening_minute(m);
    let bedtime = bedtime_tonight(cx);
    let walk = |to: LocIdx| cx.town.walk_minutes(cx.at, to, speed);
    let clamp = |mins: i64| mins.clamp(d.min as i64, d.max as i64) as u32;
    let mut out = Vec::new();

    // Night: sleep at home until tomorrow's wake time. After midnight a resident
    // up past tonight's bedtime (or past 03:00) goes to bed until morning.
    let bedtime_now = if m < 12 * 60 {
        m < me.wake && (mm >= bedtime || m >= 3 * 60)
    } else {
        mm >= bedtime
    };
    if bedtime_now {
        // Woke before the alarm after a full night: start the day quietly at home.
        let slept = cx
            .previous
            .is_some_and(|p| p.kind == ActivityKind::Sleep && p.duration >= 360);
        if m < 12 * 60 && slept && me.wake - m <= 90 {
            out.push(Candidate::new(
                "Get up early and make tea",
                ActivityKind::Leisure,
                me.home,
                clamp((me.wake - m) as i64),
                "🍵",
                500.0,
            ));
            return out;
        }
        let until_wake = if m < me.wake {
            me.wake - m
        } else {
            1440 - m + me.wake
        };
        let mins = (until_wake as f32 - walk(me.home)).max(d.min as f32) as i64;
        out.push(Candidate::new(
            "Sleep",
            ActivityKind::Sleep,
            me.home,
            clamp(mins),
            "😴",
            1000.0,
        ));
        return out;
    }

    // Gatherings the resident means to attend.
    for a in cx.agenda.appointments.iter().filter(|a| a.will_attend) {
        let Some(g) = cx.gatherings.get(a.gathering) else {
            continue;
        };
        let lead = walk(g.location) as i64 + 15;
        if cx.now >= g.starts.plus_minutes(-lead) && cx.now < g.ends.plus_minutes(-20) {
            let stay = cx.now.minutes_until(g.ends) - walk(g.location) as i64;
            let organiser = g.organiser == me.id;
            let mut c = Candidate::new(
                if organiser {
                    "Host the get-together"
                } else {
                    "Attend the get-together"
                },
                ActivityKind::Attend,
                g.location,
                clamp(stay),
                "🎉",
                if organiser {
                    320.0
                } else {
                    260.0 + p.conscientiousness / 5.0
                },
            );
            c.gathering = Some(g.id);
            out.push(c);
        }
    }

    // Appointments made in conversation, for those who mean to keep them.
    let wait = cx.tuning.social.appointments.wait_minutes as i64;
    for n in cx.agenda.meetings.iter().filter(|n| n.keep) {
        let lead = walk(n.place) as i64 + 30;
        if cx.now >= n.at.plus_minutes(-lead) && cx.now < n.at.plus_minutes(wait - 10) {
            let stay = cx.now.minutes_until(n.at.plus_minutes(60)) - walk(n.place) as i64;
            // Around a meal at an eatery, the meeting is a meal together.
            let meal = match n.at.minute_of_day() / 60 {
                11..=13 => Some("lunch"),
                17..=20 => Some("dinner"),
                _ => None,
            }
            .filter(|_| cx.town.get(n.place).has(Service::Food));
            let (action, kind) = match meal {
                Some(meal) => (
                    ActionText::DineWith(meal, n.with, n.place),
                    ActivityKind::Eat,
                ),
                None => (ActionText::Meet(n.with, n.place), ActivityKind::Socialise),
            };
            let mut c = Candidate::new(
                action,
                kind,
                n.place,
                clamp(stay),
                "🤝",
                280.0 + p.conscientiousness / 5.0,
            );
            c.friend = Some(n.with);
            out.push(c);
        }
    }

    // Notices the resident's goals call for, posted once, in daytime.
    if m >= me.wake + 20 && m < 21 * 60 {
        for goal in &me.goals {
            let text = goal.notice.clone().or_else(|| {
                goal.gathering
                    .and_then(|g| cx.gatherings.get(g))
                    .map(|g| speech::gathering_notice(cx, g))
            });
            let Some(text) = text else { continue };
            if cx.notices.posted_by(&me.id, &text) {
                continue;
            }
            if let Some(board) = cx.town.nearest_with(cx.at, Service::NoticeBoard) {
                let mut c = Candidate::new(
                    "Post Notice",
                    ActivityKind::PostNotice,
                    board,
                    d.notice,
                    "📌",
                    150.0,
                );
                c.line = Some(text);
                out.push(c);
            }
        }
    }

    // Work, including the walk there shortly before the shift. `free_for` is how
    // long anything else may take before the resident must set off for work.
    let mut on_shift = false;
    let mut free_for: Option<u32> = None;
    if let Some(w) = &me.work {
        let commute = walk(w.place) as u32;
        let arrive = m + commute + 10;
        let wd = cx.now.weekday_index();
        if w.days[wd] && m < w.start {
            free_for = Some((w.start - m).saturating_sub(commute + 5));
        }
        let no_time_for_more = free_for.is_some_and(|f| f < d.min + 10);
        if w.days[wd]
            && (w.covers(wd, m) || w.covers(wd, arrive) || no_time_for_more)
            && w.end > m + 20
        {
            on_shift = true;
            let left = w.end as i64 - m.max(w.start) as i64;
            let mins = left.min(240);
            out.push(Candidate::new(
                w.action.clone(),
                ActivityKind::Work,
                w.place,
                clamp(mins),
                &w.emoji,
                80.0 + 40.0 * p.conscientiousness / 100.0,
            ));
        }
    }
    let duty = if on_shift { 0.35 } else { 1.0 };

    // Meals: hunger, plus a pull at meal times if not eaten lately.
    let meal = meal_name(m, me.wake);
    let ate_lately = cx.needs.last_meal.minutes_until(cx.now) < 150;
    let mut eat = (100.0 - cx.needs.hunger) * 1.2;
    if meal.is_some() && !ate_lately {
        eat += 75.0;
    }
    if cx.needs.hunger < 25.0 {
        eat += 60.0;
    } else if on_shift && meal != Some("lunch") {
        // On duty, a meal waits for the lunch break unless hunger is pressing.
        eat *= 0.5;
    }
    let meal_word = meal.unwrap_or("a meal");
    if cx.town.get(me.home).has(Service::Food) {
        let homely =
            (55.0 - p.extraversion) / 4.0 + if meal == Some("breakfast") { 10.0 } else { 0.0 };
        out.push(Candidate::new(
            ActionText::EatAtHome(meal_word),
            ActivityKind::Eat,
            me.home,
            d.meal,
            "🍚",
            eat + homely - walk(me.home) * 0.5,
        ));
    }
    let known = known_whereabouts(cx);
    // People weigh the few places near them, not every corner of a big town.
    // Eating out means a tavern or canteen, not someone's home or camp.
    let eatery = |l: &crate::scenario::Location| {
        l.has(Service::Food) && matches!(l.kind, LocationKind::Food | LocationKind::Public)
    };
    let mut food_places = nearest(cx, 4, eatery);
    let mut social_places = nearest(cx, 6, |l| {
        matches!(l.kind, LocationKind::Public | LocationKind::Food)
    });
    for &(at, _, _) in &known {
        let loc = cx.town.get(at);
        if eatery(loc) && !food_places.contains(&at) {
            food_places.push(at);
        }
        if matches!(loc.kind, LocationKind::Public | LocationKind::Food)
            && !social_places.contains(&at)
        {
            social_places.push(at);
        }
    }
    for place in food_places {
        let company = friends_at(&known, place).0 * 0.15
            + (cx.census.count_at(place) as f32).min(CROWD_DRAW) * p.extraversion / 100.0;
        let score = eat + (p.extraversion - 50.0) / 4.0 + company.min(20.0) - walk(place) * 0.5;
        out.push(Candidate::new(
            ActionText::EatAt(meal_word, place),
            ActivityKind::Eat,
            place,
            d.meal,
            "🍲",
            score,
        ));
    }

    // Company: go where friends or people are. A lively place draws more than an
    // empty one, up to a dozen people: a bigger crowd adds nothing (without the
    // cap, a crowd drew ever more people until a whole town stood in one canteen).
    let lonely = (100.0 - cx.needs.social) * (0.4 + p.extraversion / 100.0);
    let evening = if (17 * 60..22 * 60).contains(&m) {
        1.3
    } else {
        1.0
    };
    for place in social_places {
        let (bond, friend) = friends_at(&known, place);
        let crowd = (cx.census.count_at(place) as f32).min(CROWD_DRAW);
        let score = (lonely * evening + bond * 0.25 + crowd * p.extraversion / 50.0) * duty
            - walk(place) * 0.4;
        let mut c = match friend {
            Some(f) => Candidate::new(
                ActionText::ChatWith(f),
                ActivityKind::Socialise,
                place,
                clamp(60 + rng.random_range(0..40)),
                "💬",
                score,
            ),
            None => Candidate::new(
                ActionText::HangOutAt(place),
                ActivityKind::Socialise,
                place,
                clamp(60 + rng.random_range(0..30)),
                "🙂",
                score - 10.0,
            ),
        };
        c.friend = friend;
        out.push(c);
    }

    // Leisure: hobbies, books, a walk outdoors.
    let bored = (100.0 - cx.needs.fun) * 0.9 + p.openness / 8.0;
    for h in &me.hobbies {
        if h.evening && m < 18 * 60 {
            continue;
        }
        // Night owls find their hobbies most tempting after dark.
        let owl = if mm >= me.bedtime.saturating_sub(60) {
            40.0
        } else {
            0.0
        };
        let mut c = Candidate::new(
            h.action.clone(),
            ActivityKind::from_action(&h.action),
            h.place,
            clamp(60 + rng.random_range(0..60)),
            &h.emoji,
            (bored + 8.0 + owl) * duty - walk(h.place) * 0.3,
        );
        if c.kind == ActivityKind::Work || c.kind == ActivityKind::Eat {
            c.kind = ActivityKind::Leisure;
        }
        c.line = h.says.clone();
        out.push(c);
    }
    if let Some(lib) = cx.town.nearest_with(cx.at, Service::Books) {
        let score = (bored * p.openness / 80.0) * duty - walk(lib) * 0.3;
        out.push(Candidate::new(
            "Read at the library",
            ActivityKind::Leisure,
            lib,
            clamp(60 + rng.random_range(0..60)),
            "📚",
            score,
        ));
    }
    if let Some(&park) = nearest(cx, 1, |l| l.kind == LocationKind::Nature).first() {
        out.push(Candidate::new(
            "Take a walk outdoors",
            ActivityKind::Leisure,
            park,
            clamp(50 + rng.random_range(0..40)),
            "🌿",
            bored * 0.7 * duty - walk(park) * 0.3,
        ));
    }

    // Evenings wind down at home; tiredness asks for a rest.
    if m >= 19 * 60 + 30 {
        let near_bed = if bedtime.saturating_sub(mm) < 90 {
            60.0
        } else {
            0.0
        };
        out.push(Candidate::new(
            "Relax at home",
            ActivityKind::Leisure,
            me.home,
            clamp(bedtime.saturating_sub(mm) as i64),
            "🏠",
            30.0 + (100.0 - p.extraversion) / 4.0 + near_bed,
        ));
    }
    if cx.needs.energy < 30.0 {
        out.push(Candidate::new(
            "Rest at home",
            ActivityKind::Idle,
            me.home,
            d.min,
            "🛋️",
            (30.0 - cx.needs.energy) * 4.0 + 20.0,
        ));
    }
    out.push(Candidate::new(
        "Look around",
        ActivityKind::Idle,
        cx.at,
        d.min,
        "👀",
        5.0,
    ));
    out
}

/// The crowd beyond which a place draws no more for its liveliness.
const CROWD_DRAW: f32 = 12.0;

/// Where the people this resident knows are now: (place, strength, roster idx),
/// awake and standing somewhere. Looked up from the resident's own ties, so the
/// cost does not grow with the size of the town.
fn known_whereabouts(cx: &PlanContext<'_>) -> Vec<(LocIdx, f32, u32)> {
    cx.relationships
        .0
        .iter()
        .filter_map(|r| {
            let i = r.with_idx;
            let e = cx.census.entries.get(i as usize)?;
            (!e.walking && !cx.census.asleep(i)).then_some((e.at, r.strength, i))
        })
        .collect()
}

/// Sum of ties' strength at `place`, and the closest friend there.
fn friends_at(known: &[(LocIdx, f32, u32)], place: LocIdx) -> (f32, Option<u32>) {
    let mut sum = 0.0;
    let mut best: Option<(f32, u32)> = None;
    for &(_, s, i) in known.iter().filter(|k| k.0 == place) {
        sum += s;
        if s >= 35.0 && best.is_none_or(|(b, _)| s > b) {
            best = Some((s, i));
        }
    }
    (sum, best.map(|b| b.1))
}

/// The `k` nearest shared places passing `keep`, nearest first.
fn nearest(
    cx: &PlanContext<'_>,
    k: usize,
    keep: impl Fn(&crate::scenario::Location) -> bool,
) -> Vec<LocIdx> {
    cx.town
        .nearby(cx.at)
        .iter()
        .copied()
        .filter(|&l| keep(cx.town.get(l)))
        .take(k)
        .collect()
}

/// The meal this time of day calls for.
pub(super) fn meal_name(m: u32, wake: u32) -> Option<&'static str> {
    if m >= wake && m < wake + 120 {
        Some("breakfast")
    } else if (11 * 60 + 30..13 * 60 + 30).contains(&m) {
        Some("lunch")
    } else if (17 * 60 + 30..20 * 60).contains(&m) {
        Some("dinner")
    } else {
        None
    }
}

/// An English-friendly word for a place in action phrases ("the tavern").
fn place_word(cx: &PlanContext<'_>, place: LocIdx) -> String {
    format!("the {}", cx.town.id(place).as_str().replace('_', " "))
}
