//! Options the clock and others call for: sleep, gatherings, appointments,
//! notices a goal asks for, and work.

use super::{ActionText, Candidate, Moment, NOON};
use crate::scenario::Service;
use crate::sim::residents::ActivityKind;

/// After this hour (minutes) past midnight, whoever is still up goes to bed.
const LATEST_BEDTIME: u32 = 3 * 60;
/// A night's sleep this long counts as a full night.
const FULL_NIGHT: u32 = 360;
/// Up before the alarm by at most this much after a full night: tea at home.
const EARLY_TEA_WINDOW: u32 = 90;

/// Night: sleep at home until tomorrow's wake time. After midnight a resident
/// up past tonight's bedtime (or past 03:00) goes to bed until morning.
pub(super) fn night(now: &Moment) -> Option<Candidate> {
    let (cx, me, m, w) = (now.cx, now.cx.me, now.m, now.w);
    let bedtime_now = if m < NOON {
        m < me.wake && (now.mm >= now.bedtime || m >= LATEST_BEDTIME)
    } else {
        now.mm >= now.bedtime
    };
    if !bedtime_now {
        return None;
    }
    // Woke before the alarm after a full night: start the day quietly at home.
    let slept = cx
        .previous
        .is_some_and(|p| p.kind == ActivityKind::Sleep && p.duration >= FULL_NIGHT);
    if m < NOON && slept && me.wake - m <= EARLY_TEA_WINDOW {
        return Some(Candidate::new(
            "Get up early and make tea",
            ActivityKind::Leisure,
            me.home,
            now.clamp((me.wake - m) as i64),
            "🍵",
            w.early_tea,
        ));
    }
    let until_wake = if m < me.wake {
        me.wake - m
    } else {
        1440 - m + me.wake
    };
    let d = &cx.tuning.durations;
    let mins = (until_wake as f32 - now.walk(me.home)).max(d.min as f32) as i64;
    Some(Candidate::new(
        "Sleep",
        ActivityKind::Sleep,
        me.home,
        now.clamp(mins),
        "😴",
        w.sleep,
    ))
}

/// Guests arrive this many minutes before a gathering starts (plus the walk).
const GATHERING_LEAD: i64 = 15;
/// The organiser arrives this many minutes early to prepare (plus the walk).
const HOSTING_LEAD: i64 = 40;

/// How early one means to be at gathering `g`: the organiser to set up, guests
/// a little before the start.
pub(super) fn gathering_lead(g: &crate::scenario::Gathering, me: &crate::scenario::Profile) -> i64 {
    if g.organiser == me.id {
        HOSTING_LEAD
    } else {
        GATHERING_LEAD
    }
}
/// Nobody sets off for a gathering that ends within this many minutes.
const GATHERING_TAIL: i64 = 20;
/// Conscientiousness adds `C` / this to keeping one's word.
const WORD_KEEPING: f32 = 5.0;

/// Gatherings the resident means to attend, from a little before they start.
/// Other plans are cut to end when one must set off (`make_room_for_meetings`);
/// one who comes to plan with less time left than the shortest action sets
/// off at once rather than be late.
pub(super) fn gatherings(now: &Moment, out: &mut Vec<Candidate>) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    let shortest = cx.tuning.durations.min as i64;
    for a in cx.agenda.appointments.iter().filter(|a| a.will_attend) {
        let Some(g) = cx.gatherings.get(a.gathering.i()) else {
            continue;
        };
        let lead = now.walk(g.location) as i64 + gathering_lead(g, cx.me);
        let opens = g.starts.plus_minutes(-lead - shortest);
        if cx.now > opens && cx.now < g.ends.plus_minutes(-GATHERING_TAIL) {
            let stay = cx.now.minutes_until(g.ends) - now.walk(g.location) as i64;
            let organiser = g.organiser == cx.me.id;
            let mut c = Candidate::new(
                if organiser && cx.now < g.starts {
                    "Set up for the get-together"
                } else if organiser {
                    "Host the get-together"
                } else {
                    "Attend the get-together"
                },
                ActivityKind::Attend,
                g.location,
                now.clamp(stay),
                "🎉",
                if organiser {
                    w.host_gathering
                } else {
                    w.attend_gathering + p.conscientiousness / WORD_KEEPING
                },
            );
            c.gathering = Some(g.id);
            out.push(c);
        }
    }
}

/// One sets off for an appointment this many minutes early (plus the walk).
const APPOINTMENT_LEAD: i64 = 30;
/// Nobody sets off for an appointment later than this before the wait ends.
const APPOINTMENT_TAIL: i64 = 10;
/// An appointment lasts until this many minutes after its hour.
const APPOINTMENT_LENGTH: i64 = 60;

/// A meeting at an eatery in these hours is lunch together.
const LUNCH_HOURS: std::ops::RangeInclusive<u32> = 11..=13;
/// A meeting at an eatery in these hours is dinner together.
const DINNER_HOURS: std::ops::RangeInclusive<u32> = 17..=20;

/// Appointments made in conversation, for those who mean to keep them.
pub(super) fn appointments(now: &Moment, out: &mut Vec<Candidate>) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    let wait = cx.tuning.social.appointments.wait_minutes as i64;
    // From when the time left before setting off is shorter than any other
    // action (`make_room_for_meetings`), the meeting is there to go to.
    let shortest = cx.tuning.durations.min as i64 + super::APPOINTMENT_SLACK;
    for n in cx.agenda.meetings.iter().filter(|n| n.keep) {
        let lead = now.walk(n.place) as i64 + APPOINTMENT_LEAD.max(shortest);
        if cx.now < n.at.plus_minutes(-lead) || cx.now >= n.at.plus_minutes(wait - APPOINTMENT_TAIL)
        {
            continue;
        }
        let stay =
            cx.now.minutes_until(n.at.plus_minutes(APPOINTMENT_LENGTH)) - now.walk(n.place) as i64;
        // Around a meal at an eatery, the meeting is a meal together, unless
        // one has just eaten: then one keeps the other company.
        let hour = n.at.minute_of_day() / 60;
        let ate_lately = cx.needs.last_meal.minutes_until(cx.now) < super::wants::ATE_LATELY;
        let meal = if LUNCH_HOURS.contains(&hour) {
            Some("lunch")
        } else if DINNER_HOURS.contains(&hour) {
            Some("dinner")
        } else {
            None
        }
        .filter(|_| cx.me.eats && cx.town.get(n.place).has(Service::Food) && !ate_lately);
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
            now.clamp(stay),
            "🤝",
            w.keep_appointment + p.conscientiousness / WORD_KEEPING,
        );
        c.friend = Some(n.with);
        out.push(c);
    }
}

/// Notices go up from this many minutes after waking…
const NOTICE_AFTER_WAKING: u32 = 20;
/// …until this hour (minutes).
const NOTICE_UNTIL: u32 = 21 * 60;

/// Notices the resident's goals call for, posted once, in daytime.
pub(super) fn notices(now: &Moment, out: &mut Vec<Candidate>) {
    let (cx, me, m) = (now.cx, now.cx.me, now.m);
    if m < me.wake + NOTICE_AFTER_WAKING || m >= NOTICE_UNTIL {
        return;
    }
    for goal in &me.goals {
        let text = goal.notice.clone().or_else(|| {
            goal.gathering
                .and_then(|g| cx.gatherings.get(g.i()))
                .map(|g| super::speech::gathering_notice(cx, g))
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
                cx.tuning.durations.notice,
                "📌",
                now.w.post_notice,
            );
            c.line = Some(text);
            out.push(c);
        }
    }
}

/// One arrives at work this many minutes before the shift.
const WORK_EARLY: u32 = 10;
/// Plans before a shift leave this much slack to set off.
const WORK_SLACK: u32 = 5;
/// An action fits before work only with this much on top of the shortest action.
const WORK_MARGIN: u32 = 10;
/// A shift ending within this many minutes is not gone to.
const WORK_TAIL: u32 = 20;
/// The longest stretch of work in one plan.
const WORK_BLOCK: i64 = 240;

/// Work, including the walk there shortly before the shift; whether the
/// resident is on (or due at) its shift now.
pub(super) fn work(now: &Moment, out: &mut Vec<Candidate>) -> bool {
    let (cx, m, w) = (now.cx, now.m, now.w);
    let Some(shift) = &cx.me.work else {
        return false;
    };
    let d = &cx.tuning.durations;
    let commute = now.walk(shift.place) as u32;
    let arrive = m + commute + WORK_EARLY;
    let wd = cx.now.weekday_index();
    // How long anything else may take before the resident must set off for work.
    let free_for = (shift.days[wd] && m < shift.start)
        .then(|| (shift.start - m).saturating_sub(commute + WORK_SLACK));
    let no_time_for_more = free_for.is_some_and(|f| f < d.min + WORK_MARGIN);
    let due = shift.covers(wd, m) || shift.covers(wd, arrive) || no_time_for_more;
    if !(shift.days[wd] && due && shift.end > m + WORK_TAIL) {
        return false;
    }
    let left = shift.end as i64 - m.max(shift.start) as i64;
    let p = &cx.me.personality;
    out.push(Candidate::new(
        shift.action.clone(),
        ActivityKind::Work,
        shift.place,
        now.clamp(left.min(WORK_BLOCK)),
        &shift.emoji,
        w.work + w.work_conscientiousness * p.conscientiousness / 100.0,
    ));
    true
}
