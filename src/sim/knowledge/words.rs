//! Facts and their sources in Chinese: what the log, the inspector,
//! `heartvale interview` and the models' prompts say a resident knows.

use std::sync::Arc;

use super::facts::{About, Fact, Source};
use crate::base::time::GameTime;
use crate::scenario::{Gathering, LocIdx, Profile, Town};
use crate::sim::residents::roster::{Roster, RosterIdx};

/// What a fact's words are made from.
#[derive(Clone, Copy)]
pub struct FactWords<'a> {
    /// Names.
    pub roster: &'a Roster,
    /// Place names.
    pub town: &'a Town,
    /// The scenario's gatherings.
    pub gatherings: &'a [Gathering],
    /// Personas, in roster order.
    pub residents: &'a [Arc<Profile>],
}

impl FactWords<'_> {
    fn name(&self, who: RosterIdx) -> &str {
        self.roster.name_of(who)
    }

    fn persona(&self, who: RosterIdx) -> Option<&Profile> {
        self.residents.get(who.i()).map(|p| &**p)
    }

    /// The fact as a sentence, told of the people by name.
    pub fn fact(&self, about: &About) -> String {
        match *about {
            About::Job { who } => {
                let job = self.persona(who).map_or("", |p| p.occupation.as_str());
                format!("{}是{job}", self.name(who))
            }
            About::Hobby { who, hobby } => {
                let does = self.hobby(who, hobby as usize);
                let how = match self.seldom(who, hobby as usize) {
                    true => "偶尔会",
                    false => "平时爱",
                };
                format!("{}{how}{does}", self.name(who))
            }
            About::Family { who, of } => {
                format!(
                    "{}是{}的{}",
                    self.name(who),
                    self.name(of),
                    self.kin(who, of)
                )
            }
            About::Food { who } => {
                let food = self
                    .persona(who)
                    .map_or(String::new(), |p| p.food.join("、"));
                format!("{}爱吃{food}", self.name(who))
            }
            About::Gathering { gathering } => match self.gatherings.get(gathering.i()) {
                Some(g) => format!(
                    "{}{}在{}办{}",
                    self.roster.name(&g.organiser),
                    crate::base::time::date_text(g.starts),
                    self.town.name(g.location),
                    g.title
                ),
                None => "一场聚会".into(),
            },
            About::Attended { gathering, who } => {
                let title = self
                    .gatherings
                    .get(gathering.i())
                    .map_or("聚会", |g| g.title.as_str());
                format!("{}去了{title}", self.name(who))
            }
            About::Quarrel { a, b, place, day } => format!(
                "{}和{}{}在{}吵了一架",
                self.name(a),
                self.name(b),
                day_date(day),
                self.town.name(place)
            ),
            About::Date { a, b, day, went } => format!(
                "{}和{}{}约会了{}",
                self.name(a),
                self.name(b),
                day_date(day),
                went.told()
            ),
            About::StoodUp {
                absent,
                waiting,
                place,
                day,
            } => format!(
                "{}{}没去{}赴{}的约，{}白等了一场",
                self.name(absent),
                day_date(day),
                self.town.name(place),
                self.name(waiting),
                self.name(waiting)
            ),
        }
    }

    /// The fact as `me` tells it: itself as 我.
    pub fn fact_as(&self, about: &About, me: RosterIdx) -> String {
        let text = self.fact(about);
        if about.people().contains(&me) {
            text.replace(self.name(me), "我")
        } else {
            text
        }
    }

    /// Where a fact came from, as one says it: 「在公告板上看到的」.
    pub fn source(&self, s: &Source) -> String {
        match *s {
            Source::Known => "早就知道".into(),
            Source::Lived => "亲身经历".into(),
            Source::Saw => "亲眼看见".into(),
            Source::Notice { .. } => "在公告板上看到的".into(),
            Source::Told { by } => format!("听{}说的", self.name(by)),
        }
    }

    /// A fact with its source: 「钟大川4月8日在心谷广场办心谷联谊会（在公告板上看到的）」.
    pub fn with_source(&self, f: &Fact) -> String {
        format!("{}（{}）", self.fact(&f.about), self.source(&f.source))
    }

    /// A pastime in Chinese.
    pub fn hobby(&self, who: RosterIdx, hobby: usize) -> String {
        let Some(p) = self.persona(who) else {
            return String::new();
        };
        let place = p.hobbies.get(hobby).map_or("", |h| self.town.name(h.place));
        p.hobby_words(hobby, place)
    }

    /// Where `who` goes for its pastime `hobby`.
    pub fn hobby_place(&self, who: RosterIdx, hobby: usize) -> Option<LocIdx> {
        self.persona(who)
            .and_then(|p| p.hobbies.get(hobby))
            .map(|h| h.place)
    }

    /// Whether `who` takes up its pastime `hobby` now and then rather than
    /// most days (its `often` below one half).
    pub fn seldom(&self, who: RosterIdx, hobby: usize) -> bool {
        const MOST_DAYS: f32 = 0.5;
        self.persona(who)
            .and_then(|p| p.hobbies.get(hobby))
            .is_some_and(|h| h.often < MOST_DAYS)
    }

    /// What `who` is to `of`: 妈妈, 女儿, 家人.
    pub fn kin(&self, who: RosterIdx, of: RosterIdx) -> &'static str {
        let (Some(w), Some(o)) = (self.persona(who), self.persona(of)) else {
            return "家人";
        };
        const GENERATION: u32 = 16;
        match (
            w.age >= o.age + GENERATION,
            o.age >= w.age + GENERATION,
            w.gender.as_str(),
        ) {
            (true, _, "男") => "爸爸",
            (true, _, "女") => "妈妈",
            (_, true, "男") => "儿子",
            (_, true, "女") => "女儿",
            _ => "家人",
        }
    }
}

/// A day (days since 1970) as a date: 「4月7日」.
pub fn day_date(day: i32) -> String {
    let t = GameTime(i64::from(day) * 86_400);
    format!(
        "{}月{}日",
        chrono::Datelike::month(&t.date()),
        chrono::Datelike::day(&t.date())
    )
}

/// A day seen from `now`: 今天, 昨天, 前天, else the date.
pub fn day_from(now: GameTime, day: i64) -> String {
    match now.day_number() - day {
        0 => "今天".into(),
        1 => "昨天".into(),
        2 => "前天".into(),
        _ => day_date(day as i32),
    }
}

/// The evening or day of `t` seen from `now`, for a gathering: 昨晚, 前天晚上.
pub fn evening_from(now: GameTime, t: GameTime) -> String {
    let evening = t.minute_of_day() >= 17 * 60;
    match (now.day_number() - t.day_number(), evening) {
        (0, true) => "今晚".into(),
        (0, false) => "今天".into(),
        (1, true) => "昨晚".into(),
        (1, false) => "昨天".into(),
        (2, true) => "前天晚上".into(),
        _ => day_from(now, t.day_number()),
    }
}
