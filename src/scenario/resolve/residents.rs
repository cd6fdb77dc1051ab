//! `residents.yaml`: each resident's places, work, personality, ties,
//! hobbies, goals (with the gatherings they organise) and daily rhythm.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde_saphyr::Spanned;

use super::scripts::{converse, counsel};
use super::{Ctx, clock, parse_hours, unknown_hint, weekday_index};
use crate::base::Diagnostic;
use crate::base::time::GameTime;
use crate::scenario::spec::{self, Service};
use crate::scenario::{
    Gathering, GatheringIdx, Goal, Hobby, InitialRelationship, LocIdx, Profile, ResidentId, Town,
    WorkShift,
};

/// What a resident's entries are resolved against: the town's places, the
/// other residents' ids, the run's calendar.
struct Known<'a> {
    file: PathBuf,
    town: &'a Town,
    loc_ids: Vec<&'a str>,
    res_ids: Vec<&'a str>,
    start: GameTime,
    days: u32,
}

impl Known<'_> {
    /// A place id, or an error at it.
    fn place(&self, cx: &mut Ctx<'_>, s: &Spanned<String>, field: String) -> Option<LocIdx> {
        let found = self.town.find(&s.value);
        if found.is_none() {
            let hint = unknown_hint(&s.value, self.loc_ids.iter().copied(), "locations.yaml");
            let msg = format!("unknown location `{}`", s.value);
            cx.err(&self.file, s, field, msg, Some(hint));
        }
        found
    }

    /// An error at `span`.
    fn err<T>(&self, cx: &mut Ctx<'_>, span: &Spanned<T>, field: String, msg: String) {
        cx.err(&self.file, span, field, msg, None);
    }
}

/// The residents' profiles and the gatherings they organise.
pub(super) fn resolve_residents(
    cx: &mut Ctx<'_>,
    rf: &spec::ResidentsFile,
    town: &Town,
    start: GameTime,
    days: u32,
) -> Option<(Vec<Arc<Profile>>, Vec<Gathering>)> {
    let known = Known {
        file: cx.res_file.clone(),
        town,
        loc_ids: town.locations.iter().map(|l| l.id.as_str()).collect(),
        res_ids: rf.residents.iter().map(|r| r.id.value.as_str()).collect(),
        start,
        days,
    };
    let mut seen = HashSet::new();
    for (i, r) in rf.residents.iter().enumerate() {
        if !seen.insert(r.id.value.as_str()) {
            cx.err(
                &known.file,
                &r.id,
                format!("residents[{i}].id"),
                format!("duplicate resident id `{}`", r.id.value),
                Some("every resident needs its own id".into()),
            );
        }
    }
    let mut profiles = Vec::new();
    let mut gatherings = Vec::new();
    for (i, r) in rf.residents.iter().enumerate() {
        let profile = resident(cx, &known, r, &format!("residents[{i}]"), &mut gatherings);
        profiles.push(Arc::new(profile));
    }
    if rf.residents.is_empty() {
        cx.diags.push(Diagnostic::file(
            &known.file,
            "a town needs at least one resident",
            None,
        ));
    }
    Some((profiles, gatherings))
}

/// One resident (`p` is its field path, `residents[i]`).
fn resident(
    cx: &mut Ctx<'_>,
    known: &Known,
    r: &spec::ResidentSpec,
    p: &str,
    gatherings: &mut Vec<Gathering>,
) -> Profile {
    let home = home(cx, known, r, p);
    check_brain(cx, known, r, p);
    let work = r.work.as_ref().and_then(|w| work(cx, known, w, p));
    if let (Some(h), Some(w)) = (home, &work)
        && !known.town.reachable(h, w.place)
    {
        let s = &r.work.as_ref().expect("work parsed").place;
        let msg = format!(
            "workplace `{}` cannot be reached from home `{}`",
            s.value, r.home.value
        );
        let hint = Some("connect the two places in locations.yaml".into());
        cx.err(&known.file, s, format!("{p}.work.place"), msg, hint);
    }
    check_personality(cx, known, r, p);
    let relationships = relationships(cx, known, r, p);
    let hobbies = hobbies(cx, known, r, home, p);
    let goals = goals(cx, known, r, p, gatherings);
    let (wake, bedtime, late) = schedule(cx, known, r, p);
    let counsel = r
        .counsel
        .as_ref()
        .and_then(|c| counsel(cx, &known.file, p, c));
    let converse = r
        .converse
        .as_ref()
        .and_then(|c| converse(cx, &known.file, p, c));
    let companion = r.companion.as_ref().and_then(|c| {
        let problems = c.value.problems();
        for (field, msg) in &problems {
            cx.err(
                &known.file,
                c,
                format!("{p}.companion.{field}"),
                msg.clone(),
                None,
            );
        }
        problems
            .is_empty()
            .then(|| std::sync::Arc::new(c.value.clone()))
    });
    Profile {
        id: ResidentId::new(&r.id.value),
        name: r.name.clone(),
        age: r.age,
        gender: r.gender.clone(),
        occupation: r.occupation.clone(),
        home: home.unwrap_or(LocIdx(0)),
        work,
        personality: r.personality,
        traits: r.traits.clone(),
        quote: r.quote.clone(),
        goals,
        memories: r.memories.clone(),
        relationships,
        wake,
        bedtime,
        late_night_chance: late,
        hobbies,
        topics: r.topics.clone(),
        food: r.food.clone(),
        eats: r.eats,
        knows: r.knows.clone(),
        brain: r.brain.clone(),
        counsel,
        converse,
        companion,
        host: r.host,
        sprite: sprite(cx, known, r, p),
        word_memo: Default::default(),
    }
}

/// The names of the character sheets under `assets/ninja/characters/`.
pub(crate) const SPRITE_SHEETS: std::ops::RangeInclusive<u32> = 1..=25;

/// A `sprite:` that names a shipped sheet (`"1"` … `"25"`).
fn sprite(cx: &mut Ctx<'_>, known: &Known, r: &spec::ResidentSpec, p: &str) -> Option<String> {
    let s = r.sprite.as_ref()?;
    let ok = s
        .value
        .parse::<u32>()
        .is_ok_and(|n| SPRITE_SHEETS.contains(&n));
    if !ok {
        let msg = format!("no character sheet `{}`", s.value);
        let hint = Some(format!(
            "sheets are numbered {} to {} (assets/ninja/characters/)",
            SPRITE_SHEETS.start(),
            SPRITE_SHEETS.end()
        ));
        cx.err(&known.file, s, format!("{p}.sprite"), msg, hint);
        return None;
    }
    Some(s.value.clone())
}

/// A resident's own brain: URLs that read, and only an API key's variable.
fn check_brain(cx: &mut Ctx<'_>, known: &Known, r: &spec::ResidentSpec, p: &str) {
    if let Some(urls) = r.brain.as_ref().and_then(|b| b.endpoint.as_ref())
        && let Err(e) = urls.members()
    {
        cx.err(&known.file, &r.id, format!("{p}.brain.endpoint"), e, None);
    }
    if let Some(name) = r.brain.as_ref().and_then(|b| b.api_key_env.as_deref())
        && !crate::scenario::key_name_allowed(name)
    {
        cx.err(
            &known.file,
            &r.id,
            format!("{p}.brain.api_key_env"),
            format!(
                "`{}` is not an API key's name",
                crate::base::shortened(name, 60)
            ),
            Some(super::super::spec::key_name_hint()),
        );
    }
}

/// The home: a place with a bed.
fn home(cx: &mut Ctx<'_>, known: &Known, r: &spec::ResidentSpec, p: &str) -> Option<LocIdx> {
    let home = known.place(cx, &r.home, format!("{p}.home"));
    if let Some(h) = home
        && !known.town.get(h).has(Service::Sleep)
    {
        let msg = format!("home `{}` has no bed", r.home.value);
        let hint = Some("add `sleep` to that location's services".into());
        cx.err(&known.file, &r.home, format!("{p}.home"), msg, hint);
    }
    home
}

/// The work shift: its place, hours, days, and whom its role greets.
fn work(cx: &mut Ctx<'_>, known: &Known, w: &spec::WorkSpec, p: &str) -> Option<WorkShift> {
    let at = known.place(cx, &w.place, format!("{p}.work.place"));
    let hours = parse_hours(&w.hours.value);
    if hours.is_none() {
        cx.err(
            &known.file,
            &w.hours,
            format!("{p}.work.hours"),
            format!("bad work hours `{}`", w.hours.value),
            Some("write them as \"HH:MM-HH:MM\", e.g. \"09:00-17:00\"".into()),
        );
    }
    let mut greets = Vec::new();
    for (j, g) in w.greets.iter().enumerate() {
        if known.res_ids.contains(&g.value.as_str()) {
            greets.push(ResidentId::new(&g.value));
        } else {
            let hint = unknown_hint(&g.value, known.res_ids.iter().copied(), "residents.yaml");
            let msg = format!("greets unknown resident `{}`", g.value);
            cx.err(
                &known.file,
                g,
                format!("{p}.work.greets[{j}]"),
                msg,
                Some(hint),
            );
        }
    }
    let (start, end) = hours?;
    let mut days = [w.days.is_empty(); 7];
    for d in &w.days {
        days[weekday_index(*d)] = true;
    }
    Some(WorkShift {
        place: at?,
        start,
        end,
        days,
        action: w.action.clone().unwrap_or_else(|| "Work".to_string()),
        emoji: w.emoji.clone().unwrap_or_else(|| "💼".to_string()),
        role: w.role,
        greets,
    })
}

/// The Big Five, each 0–100.
fn check_personality(cx: &mut Ctx<'_>, known: &Known, r: &spec::ResidentSpec, p: &str) {
    let pers = r.personality;
    for (name, v) in [
        ("openness", pers.openness),
        ("conscientiousness", pers.conscientiousness),
        ("extraversion", pers.extraversion),
        ("agreeableness", pers.agreeableness),
        ("neuroticism", pers.neuroticism),
    ] {
        if !(0.0..=100.0).contains(&v) {
            let msg = format!("{name} {v} is outside 0–100");
            known.err(cx, &r.id, format!("{p}.personality.{name}"), msg);
        }
    }
}

/// Ties to other residents that exist, with a strength of 0–100.
fn relationships(
    cx: &mut Ctx<'_>,
    known: &Known,
    r: &spec::ResidentSpec,
    p: &str,
) -> Vec<InitialRelationship> {
    let mut out = Vec::new();
    for (j, rel) in r.relationships.iter().enumerate() {
        let field = format!("{p}.relationships[{j}].with");
        if rel.with.value == r.id.value {
            let msg = "a resident cannot have a relationship with itself".into();
            known.err(cx, &rel.with, field, msg);
        } else if !known.res_ids.contains(&rel.with.value.as_str()) {
            let ids = known.res_ids.iter().copied();
            let hint = unknown_hint(&rel.with.value, ids, "residents.yaml");
            let msg = format!("relationship with unknown resident `{}`", rel.with.value);
            cx.err(&known.file, &rel.with, field, msg, Some(hint));
        } else if !(0.0..=100.0).contains(&rel.strength) {
            let msg = format!("strength {} is outside 0–100", rel.strength);
            known.err(
                cx,
                &rel.with,
                format!("{p}.relationships[{j}].strength"),
                msg,
            );
        } else {
            out.push(InitialRelationship {
                with: ResidentId::new(&rel.with.value),
                kind: rel.kind,
                strength: rel.strength,
                impression: rel.impression.as_str().into(),
            });
        }
    }
    out
}

/// Hobbies at places reachable from home.
fn hobbies(
    cx: &mut Ctx<'_>,
    known: &Known,
    r: &spec::ResidentSpec,
    home: Option<LocIdx>,
    p: &str,
) -> Vec<Hobby> {
    let mut out = Vec::new();
    for (j, h) in r.hobbies.iter().enumerate() {
        let Some(at) = known.place(cx, &h.place, format!("{p}.hobbies[{j}].place")) else {
            continue;
        };
        if let Some(home) = home
            && !known.town.reachable(home, at)
        {
            let msg = format!("`{}` cannot be reached from home", h.place.value);
            known.err(cx, &h.place, format!("{p}.hobbies[{j}].place"), msg);
        }
        let often = match &h.often {
            Some(o) if !(0.0..=1.0).contains(&o.value) => {
                let msg = format!("often {} is outside 0–1", o.value);
                known.err(cx, o, format!("{p}.hobbies[{j}].often"), msg);
                1.0
            }
            Some(o) => o.value,
            None => 1.0,
        };
        out.push(Hobby {
            action: h.action.as_str().into(),
            often,
            place: at,
            emoji: h.emoji.as_deref().unwrap_or("🙂").into(),
            says: h.says.as_deref().map(Into::into),
            does: h.does.as_deref().map(Into::into),
            evening: h.evening,
        });
    }
    out
}

/// Goals, and the gatherings they organise (added to `gatherings`).
fn goals(
    cx: &mut Ctx<'_>,
    known: &Known,
    r: &spec::ResidentSpec,
    p: &str,
    gatherings: &mut Vec<Gathering>,
) -> Vec<Goal> {
    let mut out = Vec::new();
    for (j, g) in r.goals.iter().enumerate() {
        let gathering = g.gathering.as_ref().and_then(|gs| {
            let gp = format!("{p}.goals[{j}].gathering");
            let found = gathering(cx, known, gs, &gp, ResidentId::new(&r.id.value))?;
            // Facts keep a gathering's index in 16 bits: more are not held.
            let id = GatheringIdx(u16::try_from(gatherings.len()).ok()?);
            gatherings.push(Gathering { id, ..found });
            Some(id)
        });
        out.push(Goal {
            text: g.text.clone(),
            gathering,
            notice: g.notice.clone(),
        });
    }
    out
}

/// A gathering on one of the run's days, ending after it starts (its `id`
/// is set by the caller).
fn gathering(
    cx: &mut Ctx<'_>,
    known: &Known,
    gs: &spec::GatheringSpec,
    gp: &str,
    organiser: ResidentId,
) -> Option<Gathering> {
    let at = known.place(cx, &gs.location, format!("{gp}.location"));
    let from = clock(cx, &known.file, &gs.from, format!("{gp}.from"));
    let to = clock(cx, &known.file, &gs.to, format!("{gp}.to"));
    let days = known.days;
    if gs.day == 0 || gs.day > days {
        cx.err(
            &known.file,
            &gs.location,
            format!("{gp}.day"),
            format!("day {} is outside the run's {days} days", gs.day),
            Some("days count from 1".into()),
        );
    }
    let (at, from, to) = (at?, from?, to?);
    if to <= from {
        let msg = "a gathering must end after it starts".into();
        known.err(cx, &gs.to, format!("{gp}.to"), msg);
    }
    let day0 = known
        .start
        .midnight()
        .plus_minutes((gs.day.max(1) as i64 - 1) * 1440);
    Some(Gathering {
        id: GatheringIdx(0),
        title: gs.title.clone(),
        organiser,
        location: at,
        starts: day0.plus_minutes(from as i64),
        ends: day0.plus_minutes(to as i64),
    })
}

/// Wake time, bedtime (evening minutes) and the chance of a late night:
/// as written, or derived from personality.
fn schedule(cx: &mut Ctx<'_>, known: &Known, r: &spec::ResidentSpec, p: &str) -> (u32, u32, f32) {
    let Some(s) = &r.schedule else {
        return derived_schedule(&r.personality);
    };
    let wake = clock(cx, &known.file, &s.wake, format!("{p}.schedule.wake"));
    let bed = clock(cx, &known.file, &s.bedtime, format!("{p}.schedule.bedtime"));
    let late = s.late_night_chance.unwrap_or(0.0).clamp(0.0, 1.0);
    // A bedtime after midnight counts as the same evening.
    let bed = bed.map(|b| if b < 12 * 60 { b + 1440 } else { b });
    (wake.unwrap_or(420), bed.unwrap_or(1320), late)
}

/// A daily rhythm from personality alone: conscientious people rise early,
/// open and extraverted ones stay up later.
pub(crate) fn derived_schedule(p: &spec::BigFive) -> (u32, u32, f32) {
    let wake = 360.0 + (100.0 - p.conscientiousness) * 0.9; // 06:00–07:30
    let bed = 21.5 * 60.0 + (p.extraversion + p.openness - p.conscientiousness).max(0.0) * 0.6;
    let late = ((p.openness + p.extraversion - p.conscientiousness - 60.0) / 200.0).clamp(0.0, 0.4);
    // A night's sleep fits in the longest action (480 minutes).
    let bed = (bed as u32).clamp(wake as u32 + 1440 - 480, 1440 + 30);
    (wake as u32, bed, late)
}
