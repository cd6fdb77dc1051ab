//! Options needs call for: meals (at home or out), company, leisure
//! (hobbies, books, a walk), and rest.

use rand_chacha::ChaCha8Rng;

use super::{ActionText, Candidate, Length, MID_TRAIT, Moment, TRAIT_POINTS_PER_SCORE, meal_name};
use crate::scenario::{LocIdx, Location, LocationKind, Service};
use crate::sim::residents::{ActivityKind, RosterIdx};

/// Not eaten for this many minutes: a meal time pulls (and before it, no
/// meal at all unless starving).
pub(super) const ATE_LATELY: i64 = 150;
/// Three meals a day; a fourth only as a snack when starving.
const MEALS_A_DAY: u32 = 3;
/// Eateries weighed: the nearest this many, and any where friends are.
const EATERIES: usize = 4;
/// Gathering places weighed: the nearest this many, and any where friends are.
const HANGOUTS: usize = 6;
/// Company pulls harder in these evening hours (minutes of the day).
const COMPANY_EVENING: std::ops::Range<u32> = 17 * 60..22 * 60;
/// Openness points per point of boredom: the curious tire of idleness sooner.
const OPENNESS_PER_BOREDOM: f32 = 8.0;
/// Openness at which the library pulls with the whole of boredom.
const BOOKISH_OPENNESS: f32 = 80.0;
/// A chat with a friend.
const CHAT: Length = Length {
    least: 60,
    spread: 40,
};
/// Hanging out where people are.
const HANG_OUT: Length = Length {
    least: 60,
    spread: 30,
};
/// A hobby, or reading at the library.
const PASTIME: Length = Length {
    least: 60,
    spread: 60,
};
/// A walk outdoors.
const WALK: Length = Length {
    least: 50,
    spread: 40,
};

/// Where the people this resident knows are now, and the places worth
/// weighing for a meal and for company.
pub(super) struct Places {
    /// Every tie awake and standing somewhere.
    known: Vec<Known>,
    food: Vec<LocIdx>,
    social: Vec<LocIdx>,
}

impl Places {
    /// People weigh the few places near them, not every corner of a big town,
    /// and any place where someone they know is. Eating out means a tavern or
    /// canteen, not someone's home or camp.
    pub(super) fn around(now: &Moment) -> Self {
        let cx = now.cx;
        let known = known_whereabouts(now);
        let gathering_place = |l: &Location| {
            matches!(
                l.kind,
                LocationKind::Public | LocationKind::Food | LocationKind::Nature
            )
        };
        let eatery = |l: &Location| {
            l.has(Service::Food) && matches!(l.kind, LocationKind::Public | LocationKind::Food)
        };
        let mut food = nearest(now, EATERIES, eatery);
        let mut social = nearest(now, HANGOUTS, gathering_place);
        for &Known { at, .. } in &known {
            let loc = cx.town.get(at);
            if eatery(loc) && !food.contains(&at) {
                food.push(at);
            }
            if gathering_place(loc) && !social.contains(&at) {
                social.push(at);
            }
        }
        Places {
            known,
            food,
            social,
        }
    }

    /// Sum of ties' strength at `place`, and the closest friend there.
    fn friends_at(&self, place: LocIdx, friend_at: f32) -> (f32, Option<RosterIdx>) {
        let mut sum = 0.0;
        let mut best: Option<(f32, RosterIdx)> = None;
        for k in self.known.iter().filter(|k| k.at == place) {
            // One at work is busy: company of a sort, not the company one seeks.
            sum += if k.working {
                k.strength * AT_WORK
            } else {
                k.strength
            };
            if k.to_chat && k.strength >= friend_at && best.is_none_or(|(b, _)| k.strength > b) {
                best = Some((k.strength, k.idx));
            }
        }
        (sum, best.map(|b| b.1))
    }
}

/// Meals: hunger, plus a pull at meal times if not eaten lately; at home,
/// and out at the eateries near or where friends are. None for one who
/// does not eat.
pub(super) fn meals(now: &Moment, on_shift: bool, places: &Places, out: &mut Vec<Candidate>) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    if !cx.me.eats {
        return;
    }
    let meal = meal_name(now.m, cx.me.wake);
    let ate_lately = cx.needs.last_meal.minutes_until(cx.now) < ATE_LATELY;
    let starving = cx.needs.hunger < w.starving_below;
    // Three meals a day and a snack: not another sitting after a full one.
    let enough = cx.meals_today > MEALS_A_DAY || (cx.meals_today == MEALS_A_DAY && !starving);
    if enough || (ate_lately && !starving) {
        return;
    }
    let mut eat = (100.0 - cx.needs.hunger) * w.hunger;
    if meal.is_some() && !ate_lately {
        eat += w.meal_time;
    }
    if cx.needs.hunger < w.starving_below {
        eat += w.starving;
    } else if on_shift && meal != Some("lunch") {
        // On duty, a meal waits for the lunch break unless hunger is pressing.
        eat *= w.meal_on_shift;
    }
    let meal_word = meal.unwrap_or("a meal");
    let d = &cx.tuning.durations;
    if cx.town.get(cx.me.home).has(Service::Food) {
        let breakfast = match meal {
            Some("breakfast") => w.breakfast_at_home,
            Some("dinner") if lives_with_family(cx) => w.dinner_at_home,
            _ => 0.0,
        };
        let homely = (w.homely_extraversion - p.extraversion) / TRAIT_POINTS_PER_SCORE + breakfast;
        out.push(Candidate::new(
            ActionText::EatAtHome(meal_word),
            ActivityKind::Eat,
            cx.me.home,
            d.meal,
            "🍚",
            eat + homely - now.walk(cx.me.home) * w.walk_to_meal,
        ));
    }
    for &place in &places.food {
        let company = places.friends_at(place, w.friend_at).0 * w.friends_at_eatery
            + (cx.census.count_at(place) as f32).min(w.crowd) * p.extraversion / 100.0;
        let score = eat
            + (p.extraversion - MID_TRAIT) / TRAIT_POINTS_PER_SCORE
            + company.min(w.company_at_eatery)
            - now.walk(place) * w.walk_to_meal;
        out.push(Candidate::new(
            ActionText::EatAt(meal_word, place),
            ActivityKind::Eat,
            place,
            d.meal,
            "🍲",
            score,
        ));
    }
}

/// Company: go where friends or people are. A lively place draws more than an
/// empty one, up to a dozen people: a bigger crowd adds nothing (without the
/// cap, a crowd drew ever more people until a whole town stood in one canteen).
pub(super) fn company(
    now: &Moment,
    duty: f32,
    places: &Places,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Candidate>,
) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    let lonely = (100.0 - cx.needs.social) * (w.loneliness + p.extraversion / 100.0);
    let evening = if COMPANY_EVENING.contains(&now.m) {
        w.evening_company
    } else {
        1.0
    };
    for &place in &places.social {
        let (bond, friend) = places.friends_at(place, w.friend_at);
        let crowd = (cx.census.count_at(place) as f32).min(w.crowd);
        let liking = liking(now, place, evening > 1.0);
        let score =
            (lonely * evening + bond * w.friends_there + crowd * p.extraversion / MID_TRAIT)
                * duty
                * liking
                - now.walk(place) * w.walk_to_company;
        let mut c = match friend {
            Some(f) => Candidate::new(
                ActionText::ChatWith(f),
                ActivityKind::Socialise,
                place,
                now.clamp(CHAT.draw(rng)),
                "💬",
                score,
            ),
            None => Candidate::new(
                ActionText::HangOutAt(place),
                ActivityKind::Socialise,
                place,
                now.clamp(HANG_OUT.draw(rng)),
                "🙂",
                score - w.alone_penalty,
            ),
        };
        c.friend = friend;
        out.push(c);
    }
}

/// How much one likes spending time at `place` among people: an eatery
/// less outside the evening, a place of one's pastimes (or the outdoors for
/// one who loves it) more.
fn liking(now: &Moment, place: LocIdx, evening: bool) -> f32 {
    let (cx, w) = (now.cx, now.w);
    let loc = cx.town.get(place);
    let extraversion = cx.me.personality.extraversion / 100.0;
    let mut f = 1.0;
    // An eatery is the evening's place, and the sociable's; the quiet
    // prefer the outdoors.
    if loc.has(Service::Food) {
        f *= match evening {
            true => w.eatery_evening + 0.3 * extraversion,
            false => w.eatery_company,
        };
    } else if loc.kind == LocationKind::Nature {
        f *= 1.5 - extraversion;
    }
    let pastime = cx.me.hobbies.iter().any(|h| h.place == place);
    let outdoorsy = loc.kind == LocationKind::Nature
        && cx
            .me
            .hobbies
            .iter()
            .any(|h| cx.town.get(h.place).kind == LocationKind::Nature);
    if pastime || outdoorsy {
        f *= w.favourite_place;
    }
    f
}

/// Whether family lives under the same roof (dinner at home, then).
fn lives_with_family(cx: &crate::sim::brain::PlanContext<'_>) -> bool {
    cx.relationships.iter().any(|r| {
        r.kind == crate::scenario::RelationKind::Family
            && cx
                .census
                .traits
                .get(r.with_idx.i())
                .copied()
                .flatten()
                .is_some_and(|t| t.home == cx.me.home)
    })
}

/// Evening hobbies wait until this hour (minutes).
const EVENING: u32 = 18 * 60;
/// Night owls feel their hobbies' pull from this many minutes before bedtime.
const OWL_HOUR: u32 = 60;

/// Leisure: hobbies, books, a walk outdoors.
pub(super) fn leisure(now: &Moment, duty: f32, rng: &mut ChaCha8Rng, out: &mut Vec<Candidate>) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    let bored = (100.0 - cx.needs.fun) * w.boredom + p.openness / OPENNESS_PER_BOREDOM;
    let day = cx.now.day_number();
    for (i, h) in cx.me.hobbies.iter().enumerate() {
        if h.evening && now.m < EVENING {
            continue;
        }
        // Some pastimes come to mind only now and then (a trip into town).
        let salt = 40 + i as u64;
        if h.often < 1.0 && crate::builtin::roll(cx.seed, cx.me.id.as_str(), day, salt) >= h.often {
            continue;
        }
        // Night owls find their hobbies most tempting after dark.
        let owl = if now.mm >= cx.me.bedtime.saturating_sub(OWL_HOUR) {
            w.owl
        } else {
            0.0
        };
        let mut c = Candidate::new(
            h.action.to_string(),
            ActivityKind::from_action(&h.action),
            h.place,
            now.clamp(PASTIME.draw(rng)),
            &h.emoji,
            (bored + w.hobby + owl) * duty - now.walk(h.place) * w.walk_to_leisure,
        );
        if c.kind == ActivityKind::Work || c.kind == ActivityKind::Eat {
            c.kind = ActivityKind::Leisure;
        }
        c.line = h.says.as_deref().map(str::to_owned);
        out.push(c);
    }
    if let Some(lib) = cx.town.nearest_with(cx.at, Service::Books) {
        let score =
            (bored * p.openness / BOOKISH_OPENNESS) * duty - now.walk(lib) * w.walk_to_leisure;
        out.push(Candidate::new(
            "Read at the library",
            ActivityKind::Leisure,
            lib,
            now.clamp(PASTIME.draw(rng)),
            "📚",
            score,
        ));
    }
    if let Some(&park) = nearest(now, 1, |l| l.kind == LocationKind::Nature).first() {
        out.push(Candidate::new(
            "Take a walk outdoors",
            ActivityKind::Leisure,
            park,
            now.clamp(WALK.draw(rng)),
            "🌿",
            bored * w.outdoors * duty - now.walk(park) * w.walk_to_leisure,
        ));
    }
}

/// Evenings wind down at home from this hour (minutes).
const WIND_DOWN: u32 = 19 * 60 + 30;
/// Within this many minutes of bedtime, home pulls harder.
const NEAR_BEDTIME: u32 = 90;

/// Evenings wind down at home; tiredness asks for a rest; looking around
/// is always there.
pub(super) fn rest(now: &Moment, out: &mut Vec<Candidate>) {
    let (cx, w, p) = (now.cx, now.w, &now.cx.me.personality);
    let d = &cx.tuning.durations;
    if now.m >= WIND_DOWN {
        let near_bed = if now.bedtime.saturating_sub(now.mm) < NEAR_BEDTIME {
            w.near_bedtime
        } else {
            0.0
        };
        out.push(Candidate::new(
            "Relax at home",
            ActivityKind::Leisure,
            cx.me.home,
            now.clamp(now.bedtime.saturating_sub(now.mm) as i64),
            "🏠",
            w.relax_at_home + (100.0 - p.extraversion) / TRAIT_POINTS_PER_SCORE + near_bed,
        ));
    }
    if cx.needs.energy < w.tired_below {
        out.push(Candidate::new(
            "Rest at home",
            ActivityKind::Idle,
            cx.me.home,
            d.min,
            "🛋️",
            (w.tired_below - cx.needs.energy) * w.rest + w.rest_base,
        ));
    }
    out.push(Candidate::new(
        "Look around",
        ActivityKind::Idle,
        cx.at,
        d.min,
        "👀",
        w.look_around,
    ));
}

/// Where the people this resident knows are now: (place, strength, roster idx),
/// awake and standing somewhere. Looked up from the resident's own ties, so the
/// cost does not grow with the size of the town.
/// A tie awake and standing somewhere.
struct Known {
    at: LocIdx,
    strength: f32,
    idx: RosterIdx,
    /// Worth going to chat with: not on a shift, not just talked with.
    to_chat: bool,
    /// On a shift there.
    working: bool,
}

/// A tie at work draws one to its place this much (it is busy).
const AT_WORK: f32 = 0.3;

/// A friend about to leave within this many minutes is not walked over to.
const STAYING_MINUTES: i64 = 30;

/// One seeks out a friend to chat with at most this often: the talk just had
/// is still fresh.
const CHAT_AGAIN_MINUTES: i64 = 8 * 60;

fn known_whereabouts(now: &Moment) -> Vec<Known> {
    let cx = now.cx;
    cx.relationships
        .iter()
        .filter_map(|r| {
            let i = r.with_idx;
            let e = cx.census.entries.get(i.i())?;
            let working = e.underway && e.kind == Some(ActivityKind::Work);
            let lately = r
                .last_interaction
                .get()
                .is_some_and(|t| t.minutes_until(cx.now) < CHAT_AGAIN_MINUTES);
            // One about to leave is not worth walking over to, nor one on a
            // date (it talks to no one else until it ends).
            let leaving = cx.now.minutes_until(e.until) < STAYING_MINUTES
                || cx.social.is_some_and(|s| s.engaged(i, cx.now));
            (!e.walking && !cx.census.asleep(i)).then_some(Known {
                at: e.at,
                strength: r.strength,
                idx: i,
                to_chat: !working && !lately && !leaving,
                working,
            })
        })
        .collect()
}

/// The `k` nearest shared places passing `keep`, nearest first.
fn nearest(now: &Moment, k: usize, keep: impl Fn(&Location) -> bool) -> Vec<LocIdx> {
    let cx = now.cx;
    cx.town
        .nearby(cx.at)
        .iter()
        .copied()
        .filter(|&l| keep(cx.town.get(l)))
        .take(k)
        .collect()
}
