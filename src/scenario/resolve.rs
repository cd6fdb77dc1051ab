//! Semantic checks across the scenario files, and resolution of ids to indices.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use bevy::math::Vec2;
use serde_saphyr::Spanned;

use super::spec::{self, Service, Weekday};
use super::{
    CONVERSE_FIELDS, Converse, ConverseSkill, Counsel, Diagnostic, Diagnostics, Gathering, Goal,
    Hobby, InitialRelationship, LocIdx, Location, LocationId, Profile, ResidentId, Scenario, Town,
    WorkShift,
};
use crate::base::closest;
use crate::base::time::{GameTime, parse_clock};

pub(super) struct Files<'a> {
    pub dir: &'a Path,
    pub town: spec::TownFile,
    pub locations: spec::LocationsFile,
    pub residents: spec::ResidentsFile,
    pub tuning: spec::Tuning,
}

struct Ctx<'a> {
    diags: &'a mut Diagnostics,
    town_file: std::path::PathBuf,
    loc_file: std::path::PathBuf,
    res_file: std::path::PathBuf,
    tuning_file: std::path::PathBuf,
}

impl Ctx<'_> {
    fn err<T>(
        &mut self,
        file: &Path,
        span: &Spanned<T>,
        field: String,
        msg: String,
        hint: Option<String>,
    ) {
        let mut d = Diagnostic::at(file, span, &field, msg);
        d.hint = hint;
        self.diags.push(d);
    }
}

pub(super) fn resolve(files: Files<'_>, diags: &mut Diagnostics) -> Option<Scenario> {
    let mut cx = Ctx {
        diags,
        town_file: files.dir.join("town.yaml"),
        loc_file: files.dir.join("locations.yaml"),
        res_file: files.dir.join("residents.yaml"),
        tuning_file: files.dir.join("tuning.yaml"),
    };
    let tf = &files.town;
    let start = GameTime::parse(&tf.start.value);
    if start.is_none() {
        let f = cx.town_file.clone();
        cx.err(
            &f,
            &tf.start,
            "start".into(),
            format!("bad start time `{}`", tf.start.value),
            Some("write it as \"YYYY-MM-DD HH:MM\", e.g. \"2026-04-06 06:00\"".into()),
        );
    }
    if tf.days == 0 {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            "`days` must be at least 1",
            None,
        ));
    }
    if tf.minutes_per_second <= 0.0 || !tf.minutes_per_second.is_finite() {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            "`minutes_per_second` must be positive",
            None,
        ));
    }
    check_tuning(&mut cx, &files.tuning);

    let town = resolve_locations(&mut cx, &files.locations, tf)?;
    let (residents, gatherings) = resolve_residents(
        &mut cx,
        &files.residents,
        &town,
        start.unwrap_or_default(),
        tf.days,
    )?;
    Some(Scenario {
        dir: files.dir.to_path_buf(),
        name: tf.name.clone(),
        description: tf.description.clone(),
        start: start?,
        days: tf.days,
        minutes_per_second: tf.minutes_per_second,
        map: tf.map,
        seed: tf.seed.unwrap_or(42),
        town,
        residents,
        gatherings,
        tuning: files.tuning,
        llm: tf.llm.clone(),
    })
}

/// Checks the map alone (used when residents.yaml could not be read).
pub(super) fn check_map(
    dir: &Path,
    town: &spec::TownFile,
    locations: &spec::LocationsFile,
    diags: &mut Diagnostics,
) {
    let mut cx = Ctx {
        diags,
        town_file: dir.join("town.yaml"),
        loc_file: dir.join("locations.yaml"),
        res_file: dir.join("residents.yaml"),
        tuning_file: dir.join("tuning.yaml"),
    };
    let _ = resolve_locations(&mut cx, locations, town);
}

fn check_tuning(cx: &mut Ctx<'_>, t: &spec::Tuning) {
    let f = cx.tuning_file.clone();
    let mut bad = |field: &str, msg: &str| {
        let mut d = Diagnostic::file(&f, msg, None);
        d.field = field.to_string();
        cx.diags.push(d);
    };
    if !(1..=60).contains(&t.step_minutes) {
        bad("step_minutes", "must be between 1 and 60");
    }
    if t.walk_speed <= 0.0 {
        bad("walk_speed", "must be positive");
    }
    let s = &t.social;
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
            bad(name, "must be between 0 and 1");
        }
    }
    let c = &s.conversation;
    if c.min_turns < 1 || c.min_turns > c.max_turns {
        bad(
            "social.conversation.min_turns",
            "must be at least 1 and not above max_turns",
        );
    }
    if c.turn_seconds == 0 {
        bad("social.conversation.turn_seconds", "must be positive");
    }
    let r = &s.relationship;
    if !(0.0 < r.acquaintance
        && r.acquaintance < r.friend
        && r.friend < r.close_friend
        && r.close_friend <= 100.0)
    {
        bad(
            "social.relationship.acquaintance",
            "thresholds must rise: 0 < acquaintance < friend < close_friend ≤ 100",
        );
    }
    if s.group.max_size < 2 {
        bad("social.group.max_size", "must be at least 2");
    }
    let a = &s.appointments;
    if a.from_hour > a.to_hour || a.to_hour > 23 {
        bad(
            "social.appointments.from_hour",
            "hours must satisfy from_hour ≤ to_hour ≤ 23",
        );
    }
    let d = &t.durations;
    if d.min == 0 || d.min > d.max {
        bad(
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
            bad(name, "must be between 0 and 10 points per minute");
        }
    }
}

fn resolve_locations(
    cx: &mut Ctx<'_>,
    lf: &spec::LocationsFile,
    tf: &spec::TownFile,
) -> Option<Town> {
    let file = cx.loc_file.clone();
    let mut index: HashMap<&str, LocIdx> = HashMap::new();
    for (i, l) in lf.locations.iter().enumerate() {
        if index
            .insert(l.id.value.as_str(), LocIdx(i as u32))
            .is_some()
        {
            cx.err(
                &file,
                &l.id,
                format!("locations[{i}].id"),
                format!("duplicate location id `{}`", l.id.value),
                Some("every location needs its own id".into()),
            );
        }
        let [x, y] = l.position;
        if x < 0.0 || y < 0.0 || x > tf.map.width || y > tf.map.height {
            cx.err(
                &file,
                &l.id,
                format!("locations[{i}].position"),
                format!(
                    "`{}` lies outside the {}×{} map",
                    l.id.value, tf.map.width, tf.map.height
                ),
                Some("move it inside town.yaml's map size".into()),
            );
        }
    }
    if lf.locations.is_empty() {
        cx.diags.push(Diagnostic::file(
            &file,
            "a town needs at least one location",
            None,
        ));
        return None;
    }
    let ids: Vec<&str> = lf.locations.iter().map(|l| l.id.value.as_str()).collect();
    let mut neighbours: Vec<Vec<LocIdx>> = vec![Vec::new(); lf.locations.len()];
    for (i, l) in lf.locations.iter().enumerate() {
        for (j, c) in l.connections.iter().enumerate() {
            match index.get(c.value.as_str()) {
                Some(&t) if t.i() == i => {
                    cx.err(
                        &file,
                        c,
                        format!("locations[{i}].connections[{j}]"),
                        format!("`{}` is connected to itself", l.id.value),
                        None,
                    );
                }
                Some(&t) => {
                    // Undirected: a path listed on either end works both ways.
                    for (a, b) in [(i, t), (t.i(), LocIdx(i as u32))] {
                        if !neighbours[a].contains(&b) {
                            neighbours[a].push(b);
                        }
                    }
                }
                None => {
                    let hint = unknown_hint(&c.value, ids.iter().copied(), "locations.yaml");
                    cx.err(
                        &file,
                        c,
                        format!("locations[{i}].connections[{j}]"),
                        format!("connection to unknown location `{}`", c.value),
                        Some(hint),
                    );
                }
            }
        }
    }
    for n in &mut neighbours {
        n.sort();
    }
    let locations = lf
        .locations
        .iter()
        .zip(neighbours)
        .map(|(l, neighbours)| Location {
            id: LocationId(Arc::from(l.id.value.as_str())),
            name: l.name.clone(),
            description: l.description.clone(),
            kind: l.kind,
            position: Vec2::from(l.position),
            size: Vec2::from(l.size),
            neighbours,
            capacity: l.capacity,
            services: l.services.clone(),
        })
        .collect();
    Some(Town::new(tf.name.clone(), tf.map, locations))
}

fn unknown_hint<'a>(
    word: &str,
    ids: impl IntoIterator<Item = &'a str> + Clone,
    file: &str,
) -> String {
    match closest(word, ids.clone()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => {
            let all: Vec<&str> = ids.into_iter().take(12).collect();
            format!("ids defined in {file}: {}", all.join(", "))
        }
    }
}

fn clock(cx: &mut Ctx<'_>, file: &Path, s: &Spanned<String>, field: String) -> Option<u32> {
    let v = parse_clock(&s.value);
    if v.is_none() {
        cx.err(
            file,
            s,
            field,
            format!("bad time of day `{}`", s.value),
            Some("write it as \"HH:MM\", e.g. \"08:30\"".into()),
        );
    }
    v
}

fn resolve_residents(
    cx: &mut Ctx<'_>,
    rf: &spec::ResidentsFile,
    town: &Town,
    start: GameTime,
    days: u32,
) -> Option<(Vec<Arc<Profile>>, Vec<Gathering>)> {
    let file = cx.res_file.clone();
    let loc_ids: Vec<&str> = town.locations.iter().map(|l| l.id.as_str()).collect();
    let res_ids: Vec<&str> = rf.residents.iter().map(|r| r.id.value.as_str()).collect();
    let mut seen = HashSet::new();
    for (i, r) in rf.residents.iter().enumerate() {
        if !seen.insert(r.id.value.as_str()) {
            cx.err(
                &file,
                &r.id,
                format!("residents[{i}].id"),
                format!("duplicate resident id `{}`", r.id.value),
                Some("every resident needs its own id".into()),
            );
        }
    }
    let place = |cx: &mut Ctx<'_>, s: &Spanned<String>, field: String| -> Option<LocIdx> {
        let found = town.find(&s.value);
        if found.is_none() {
            let hint = unknown_hint(&s.value, loc_ids.iter().copied(), "locations.yaml");
            cx.err(
                &file,
                s,
                field,
                format!("unknown location `{}`", s.value),
                Some(hint),
            );
        }
        found
    };
    let mut profiles = Vec::new();
    let mut gatherings = Vec::new();
    for (i, r) in rf.residents.iter().enumerate() {
        let p = format!("residents[{i}]");
        let home = place(cx, &r.home, format!("{p}.home"));
        if let Some(h) = home
            && !town.get(h).has(Service::Sleep)
        {
            cx.err(
                &file,
                &r.home,
                format!("{p}.home"),
                format!("home `{}` has no bed", r.home.value),
                Some("add `sleep` to that location's services".into()),
            );
        }
        let work = r.work.as_ref().and_then(|w| {
            let at = place(cx, &w.place, format!("{p}.work.place"));
            let hours = parse_hours(&w.hours.value);
            if hours.is_none() {
                cx.err(
                    &file,
                    &w.hours,
                    format!("{p}.work.hours"),
                    format!("bad work hours `{}`", w.hours.value),
                    Some("write them as \"HH:MM-HH:MM\", e.g. \"09:00-17:00\"".into()),
                );
            }
            let mut greets = Vec::new();
            for (j, g) in w.greets.iter().enumerate() {
                if res_ids.contains(&g.value.as_str()) {
                    greets.push(ResidentId::new(&g.value));
                } else {
                    let hint = unknown_hint(&g.value, res_ids.iter().copied(), "residents.yaml");
                    cx.err(
                        &file,
                        g,
                        format!("{p}.work.greets[{j}]"),
                        format!("greets unknown resident `{}`", g.value),
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
        });
        if let (Some(h), Some(w)) = (home, &work)
            && !town.reachable(h, w.place)
        {
            let s = &r.work.as_ref().expect("work parsed").place;
            cx.err(
                &file,
                s,
                format!("{p}.work.place"),
                format!(
                    "workplace `{}` cannot be reached from home `{}`",
                    s.value, r.home.value
                ),
                Some("connect the two places in locations.yaml".into()),
            );
        }
        let pers = r.personality;
        for (name, v) in [
            ("openness", pers.openness),
            ("conscientiousness", pers.conscientiousness),
            ("extraversion", pers.extraversion),
            ("agreeableness", pers.agreeableness),
            ("neuroticism", pers.neuroticism),
        ] {
            if !(0.0..=100.0).contains(&v) {
                cx.err(
                    &file,
                    &r.id,
                    format!("{p}.personality.{name}"),
                    format!("{name} {v} is outside 0–100"),
                    None,
                );
            }
        }
        let mut relationships = Vec::new();
        for (j, rel) in r.relationships.iter().enumerate() {
            let field = format!("{p}.relationships[{j}].with");
            if rel.with.value == r.id.value {
                cx.err(
                    &file,
                    &rel.with,
                    field,
                    "a resident cannot have a relationship with itself".into(),
                    None,
                );
            } else if !res_ids.contains(&rel.with.value.as_str()) {
                let hint = unknown_hint(&rel.with.value, res_ids.iter().copied(), "residents.yaml");
                cx.err(
                    &file,
                    &rel.with,
                    field,
                    format!("relationship with unknown resident `{}`", rel.with.value),
                    Some(hint),
                );
            } else if !(0.0..=100.0).contains(&rel.strength) {
                cx.err(
                    &file,
                    &rel.with,
                    format!("{p}.relationships[{j}].strength"),
                    format!("strength {} is outside 0–100", rel.strength),
                    None,
                );
            } else {
                relationships.push(InitialRelationship {
                    with: ResidentId::new(&rel.with.value),
                    kind: rel.kind,
                    strength: rel.strength,
                    impression: rel.impression.clone(),
                });
            }
        }
        let mut hobbies = Vec::new();
        for (j, h) in r.hobbies.iter().enumerate() {
            if let Some(at) = place(cx, &h.place, format!("{p}.hobbies[{j}].place")) {
                if let Some(home) = home
                    && !town.reachable(home, at)
                {
                    cx.err(
                        &file,
                        &h.place,
                        format!("{p}.hobbies[{j}].place"),
                        format!("`{}` cannot be reached from home", h.place.value),
                        None,
                    );
                }
                hobbies.push(Hobby {
                    action: h.action.clone(),
                    place: at,
                    emoji: h.emoji.clone().unwrap_or_else(|| "🙂".into()),
                    says: h.says.clone(),
                    evening: h.evening,
                });
            }
        }
        let mut goals = Vec::new();
        for (j, g) in r.goals.iter().enumerate() {
            let mut gathering = None;
            if let Some(gs) = &g.gathering {
                let gp = format!("{p}.goals[{j}].gathering");
                let at = place(cx, &gs.location, format!("{gp}.location"));
                let from = clock(cx, &file, &gs.from, format!("{gp}.from"));
                let to = clock(cx, &file, &gs.to, format!("{gp}.to"));
                if gs.day == 0 || gs.day > days {
                    cx.err(
                        &file,
                        &gs.location,
                        format!("{gp}.day"),
                        format!("day {} is outside the run's {days} days", gs.day),
                        Some("days count from 1".into()),
                    );
                }
                if let (Some(at), Some(from), Some(to)) = (at, from, to) {
                    if to <= from {
                        cx.err(
                            &file,
                            &gs.to,
                            format!("{gp}.to"),
                            "a gathering must end after it starts".into(),
                            None,
                        );
                    }
                    let day0 = start
                        .midnight()
                        .plus_minutes((gs.day.max(1) as i64 - 1) * 1440);
                    gathering = Some(gatherings.len());
                    gatherings.push(Gathering {
                        id: gatherings.len(),
                        title: gs.title.clone(),
                        organiser: ResidentId::new(&r.id.value),
                        location: at,
                        starts: day0.plus_minutes(from as i64),
                        ends: day0.plus_minutes(to as i64),
                    });
                }
            }
            goals.push(Goal {
                text: g.text.clone(),
                gathering,
                notice: g.notice.clone(),
            });
        }
        let (wake, bedtime, late) = match &r.schedule {
            Some(s) => {
                let wake = clock(cx, &file, &s.wake, format!("{p}.schedule.wake"));
                let bed = clock(cx, &file, &s.bedtime, format!("{p}.schedule.bedtime"));
                let late = s.late_night_chance.unwrap_or(0.0).clamp(0.0, 1.0);
                // A bedtime after midnight counts as the same evening.
                let bed = bed.map(|b| if b < 12 * 60 { b + 1440 } else { b });
                (wake.unwrap_or(420), bed.unwrap_or(1320), late)
            }
            None => derived_schedule(&pers),
        };
        let counsel = r.counsel.as_ref().and_then(|c| {
            let dir = script_dir(cx, &file, &c.scripts, format!("{p}.counsel.scripts"))?;
            Some(Counsel {
                dir,
                session: c.session.clone(),
            })
        });
        let converse = r.converse.as_ref().and_then(|c| converse(cx, &file, &p, c));
        profiles.push(Arc::new(Profile {
            id: ResidentId::new(&r.id.value),
            name: r.name.clone(),
            age: r.age,
            gender: r.gender.clone(),
            occupation: r.occupation.clone(),
            home: home.unwrap_or(LocIdx(0)),
            work,
            personality: pers,
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
            brain: r.brain.clone(),
            counsel,
            converse,
        }));
    }
    if rf.residents.is_empty() {
        cx.diags.push(Diagnostic::file(
            &file,
            "a town needs at least one resident",
            None,
        ));
    }
    Some((profiles, gatherings))
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

fn parse_hours(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('-')?;
    let (a, b) = (parse_clock(a)?, parse_clock(b)?);
    (a < b).then_some((a, b))
}

fn weekday_index(d: Weekday) -> usize {
    match d {
        Weekday::Mon => 0,
        Weekday::Tue => 1,
        Weekday::Wed => 2,
        Weekday::Thu => 3,
        Weekday::Fri => 4,
        Weekday::Sat => 5,
        Weekday::Sun => 6,
    }
}

/// A resident's `converse:`: the script set loads without errors, every skill
/// exists, and each input names a variable of its skill and only known fields.
/// A script folder named in `residents.yaml`, resolved against the scenario
/// folder; an error at the entry when it is not there.
fn script_dir(
    cx: &mut Ctx,
    file: &Path,
    scripts: &Spanned<String>,
    field: String,
) -> Option<std::path::PathBuf> {
    let dir = file.parent().unwrap_or(Path::new(".")).join(&scripts.value);
    if dir.is_dir() {
        return Some(dir);
    }
    cx.err(
        file,
        scripts,
        field,
        format!("script folder `{}` not found", scripts.value),
        Some("the path is relative to the scenario folder, e.g. `scripts/guardian`".into()),
    );
    None
}

fn converse(cx: &mut Ctx, file: &Path, p: &str, c: &spec::ConverseSpec) -> Option<Converse> {
    let field = format!("{p}.converse.scripts");
    let dir = script_dir(cx, file, &c.scripts, field.clone())?;
    let script = match crate::script::engine::Script::load_clean(&dir) {
        Ok(s) => s,
        Err(errors) => {
            // The first few go along, so the window's reload message shows them.
            let mut hint = errors.iter().take(3).cloned().collect::<Vec<_>>();
            hint.push(format!("run `heartvale check {}` for all", dir.display()));
            cx.err(
                file,
                &c.scripts,
                field,
                format!(
                    "script set `{}` has {} error(s)",
                    c.scripts.value,
                    errors.len()
                ),
                Some(hint.join("; ")),
            );
            return None;
        }
    };
    let mut ok = true;
    if !(0.0..=1.0).contains(&c.chance) {
        cx.err(
            file,
            &c.scripts,
            format!("{p}.converse.chance"),
            format!("chance {} is not between 0 and 1", c.chance),
            None,
        );
        ok = false;
    }
    if c.skills.is_empty() {
        cx.err(
            file,
            &c.scripts,
            format!("{p}.converse.skills"),
            "no skills listed".into(),
            Some("list at least one `- skill: NAME` from the set's skills.yaml".into()),
        );
        ok = false;
    }
    let mut skills = Vec::new();
    for (k, s) in c.skills.iter().enumerate() {
        let at = format!("{p}.converse.skills[{k}]");
        let Some(goal) = script.skills.get(&s.skill.value) else {
            let hint = match closest(&s.skill.value, script.skills.keys().map(String::as_str)) {
                Some(n) => format!("did you mean `{n}`?"),
                None => format!(
                    "the set's skills: {}",
                    script.skills.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            };
            cx.err(
                file,
                &s.skill,
                format!("{at}.skill"),
                format!("no skill `{}` in `{}`", s.skill.value, c.scripts.value),
                Some(hint),
            );
            ok = false;
            continue;
        };
        let declared: Vec<&str> = goal.declared().collect();
        let mut input = Vec::new();
        for (var, template) in &s.input {
            if !declared.contains(&var.as_str()) {
                cx.err(
                    file,
                    template,
                    format!("{at}.input.{var}"),
                    format!("skill `{}` declares no variable `{var}`", s.skill.value),
                    Some(format!("its variables: {}", declared.join(", "))),
                );
                ok = false;
            }
            for name in crate::script::check::referenced_vars(&template.value) {
                if !CONVERSE_FIELDS.iter().any(|(f, _)| *f == name) {
                    cx.err(
                        file,
                        template,
                        format!("{at}.input.{var}"),
                        format!("unknown field `{{{name}}}`"),
                        Some(format!(
                            "the fields: {}",
                            CONVERSE_FIELDS
                                .iter()
                                .map(|(f, _)| format!("{{{f}}}"))
                                .collect::<Vec<_>>()
                                .join(" ")
                        )),
                    );
                    ok = false;
                }
            }
            input.push((var.clone(), template.value.clone()));
        }
        skills.push(ConverseSkill {
            skill: s.skill.value.clone(),
            input,
        });
    }
    ok.then(|| Converse {
        dir,
        script: Arc::new(script),
        chance: c.chance,
        with: c.with.clone(),
        skills,
    })
}
