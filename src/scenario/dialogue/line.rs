//! One line of the phrase bank and when it may be said: a plain string, or
//! `{ say: "…", if: { who: [长笛], at: [evening], feels: hungry, … } }`. The
//! conditions keep a line true of whoever says it — a first-person hobby line
//! from the one whose hobby it is, 「好久不见」 only after days apart, a hungry
//! grumble only from the hungry, good night only at night.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::words::{PersonaWord, persona_fits};
use crate::base::weather::{Season, Weather};
use crate::scenario::Profile;

/// A line (a template with `{slot}`s) and when it may be said.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The words, with slots.
    pub text: String,
    /// When it fits; the default fits always.
    pub cond: Cond,
}

impl Line {
    /// A line that fits always.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cond: Cond::default(),
        }
    }
}

/// When a line may be said. Every condition given must hold; none given:
/// always.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cond {
    /// Said only by one whose persona (occupation, traits, topics, hobbies,
    /// goals) has one of these words: a first-person line about a hobby or
    /// a trade.
    #[serde(default)]
    pub who: Vec<PersonaWord>,
    /// Said only to one whose persona has one of these words.
    #[serde(default)]
    pub to: Vec<PersonaWord>,
    /// Said only at these times of day.
    #[serde(default)]
    pub at: Vec<DayPart>,
    /// Said only when the speaker feels this.
    #[serde(default)]
    pub feels: Option<Feeling>,
    /// Said only when the two last talked at least this many whole days ago
    /// (never talked in this run: not said — they may have met yesterday).
    #[serde(default)]
    pub apart: Option<u32>,
    /// Said only by a speaker of this age, `[least, most]` years.
    #[serde(default)]
    pub age: Option<[u32; 2]>,
    /// Said only by a speaker of this extraversion, `[least, most]` (0–100).
    #[serde(default)]
    pub extraversion: Option<[f32; 2]>,
    /// Said only to one who has a job (「今天活儿多吗？」).
    #[serde(default)]
    pub listener_works: bool,
    /// Said only in (true) or away from (false) a home the two share:
    /// 「晚上早点回家」 is not said at home.
    #[serde(default)]
    pub at_home: Option<bool>,
    /// Said only by one staying on where they talk (true) or leaving
    /// (false): 「走了走了」 is not said by one who sits on reading.
    #[serde(default)]
    pub staying: Option<bool>,
    /// Said only by one who was comforted in this talk (true) or was not
    /// (false): the one who comforted does not say 「说得我心里亮堂多了」.
    #[serde(default)]
    pub comforted: Option<bool>,
    /// Said only to one who works at the same place (true) or does not
    /// (false): 「你干这行多少年了？」 is not asked of a co-worker.
    #[serde(default)]
    pub same_work: Option<bool>,
    /// Said only by one at work (true: at its workplace, on shift or at its
    /// work there) or not (false):
    /// 「出门就踩了一脚泥」 is not said behind one's own counter.
    #[serde(default)]
    pub working: Option<bool>,
    /// Said only by one who came where they talk within the last quarter hour
    /// (true) or earlier (false): 「出门就踩了一脚泥」 is said on coming in,
    /// not after an afternoon by the fire.
    #[serde(default)]
    pub arrived: Option<bool>,
    /// Said only to one who came within the last quarter hour (true) or
    /// earlier (false): 「等你一会儿了，快坐」 greets one coming in, not one
    /// served at the same table half an hour ago.
    #[serde(default)]
    pub to_arrived: Option<bool>,
    /// Said only to one at work (true: at its workplace, on shift or at its
    /// work there) or not (false): 「我还以为你在家呢」 is not said to one
    /// working its own fields.
    #[serde(default)]
    pub to_working: Option<bool>,
    /// Said only under one of these skies (`sunny`, `cloudy`, `rain`): the
    /// day's weather, the same for every line that day. Not said where the
    /// sky is unknown (a chat with the player).
    #[serde(default)]
    pub weather: Vec<Weather>,
    /// Said only in one of these seasons (`spring`, `summer`, `autumn`,
    /// `winter`): 「风一起，树叶子哗啦啦掉了一地」 is not said in April.
    #[serde(default)]
    pub season: Vec<Season>,
}

/// A part of the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DayPart {
    /// 05:00–10:59.
    Morning,
    /// 11:00–13:59.
    Noon,
    /// 14:00–17:59.
    Afternoon,
    /// 18:00–20:59.
    Evening,
    /// 21:00–04:59.
    Night,
}

impl DayPart {
    /// The part of the day `minute` (of the day) falls in.
    pub fn of(minute: u32) -> Self {
        match minute / 60 {
            5..=10 => Self::Morning,
            11..=13 => Self::Noon,
            14..=17 => Self::Afternoon,
            18..=20 => Self::Evening,
            _ => Self::Night,
        }
    }
}

/// How a speaker feels, from its needs and its day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feeling {
    /// Hungry, and no meal for a while.
    Hungry,
    /// Just ate.
    Fed,
    /// Ate in the last few hours (「吃过了」).
    Ate,
    /// No meal in the last few hours (「待会儿去吃」).
    Unfed,
    /// Wants a meal: here for one, or none in the last few hours (orders
    /// a dish, not just a drink).
    Appetite,
    /// Not here for a meal and ate in the last few hours: 「刚吃过，来壶茶」.
    Full,
    /// Worn out.
    Tired,
    /// Well rested.
    Rested,
    /// Wants company.
    Lonely,
    /// Wants something to do.
    Bored,
}

/// What a line's conditions are checked against.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// Who would say it.
    pub speaker: &'a Profile,
    /// To whom.
    pub listener: &'a Profile,
    /// The minute of the day.
    pub minute: u32,
    /// What the speaker feels now.
    pub feels: &'a [Feeling],
    /// Whole days (24 hours) since the two last talked (`None`: not in this run).
    pub apart_days: Option<i64>,
    /// The talk is in a home the two share.
    pub at_home: bool,
    /// The speaker stays on where they talk after the talk.
    pub staying: bool,
    /// Someone comforted the speaker in this talk.
    pub comforted: bool,
    /// The speaker is at work (its workplace, on shift or at its work there).
    pub working: bool,
    /// The speaker came where they talk within the last quarter hour.
    pub arrived: bool,
    /// … and the listener.
    pub listener_arrived: bool,
    /// The listener is at work (as `working`).
    pub listener_working: bool,
    /// The day's weather and the season (`None` where unknown).
    pub sky: Option<(Weather, Season)>,
}

impl Cond {
    /// Whether a line with these conditions fits `s`.
    pub fn holds(&self, s: &Situation<'_>) -> bool {
        // The words are searched last: most lines fail on a cheaper test.
        (!self.listener_works || s.listener.work.is_some())
            && self.at_home.is_none_or(|h| h == s.at_home)
            && self.staying.is_none_or(|h| h == s.staying)
            && self.comforted.is_none_or(|h| h == s.comforted)
            && self.working.is_none_or(|w| w == s.working)
            && self.arrived.is_none_or(|a| a == s.arrived)
            && self.to_arrived.is_none_or(|a| a == s.listener_arrived)
            && self.to_working.is_none_or(|w| w == s.listener_working)
            && (self.weather.is_empty() || s.sky.is_some_and(|(w, _)| self.weather.contains(&w)))
            && (self.season.is_empty() || s.sky.is_some_and(|(_, x)| self.season.contains(&x)))
            && self
                .same_work
                .is_none_or(|w| w == same_work(s.speaker, s.listener))
            && (self.at.is_empty() || self.at.contains(&DayPart::of(s.minute)))
            && self.feels.is_none_or(|f| s.feels.contains(&f))
            && self
                .apart
                .is_none_or(|d| s.apart_days.is_some_and(|a| a >= i64::from(d)))
            && self
                .age
                .is_none_or(|[lo, hi]| (lo..=hi).contains(&s.speaker.age))
            && self
                .extraversion
                .is_none_or(|[lo, hi]| (lo..=hi).contains(&s.speaker.personality.extraversion))
            && persona_fits(&self.who, s.speaker)
            && persona_fits(&self.to, s.listener)
    }

    /// Whether it has no conditions.
    pub fn is_always(&self) -> bool {
        *self == Cond::default()
    }
}

/// Whether the two work at the same place.
fn same_work(a: &Profile, b: &Profile) -> bool {
    a.work
        .as_ref()
        .zip(b.work.as_ref())
        .is_some_and(|(x, y)| x.place == y.place)
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LineVisitor)
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a line: a string, or `{ say: \"…\", if: { … } }`")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Line, E> {
        Ok(Line::plain(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
        let (mut text, mut cond) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "say" => text = Some(map.next_value::<String>()?),
                "if" => cond = Some(map.next_value::<Cond>()?),
                other => return Err(de::Error::unknown_field(other, &["say", "if"])),
            }
        }
        let text = text.ok_or_else(|| de::Error::missing_field("say"))?;
        Ok(Line {
            text,
            cond: cond.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct List {
        lines: Vec<Line>,
    }

    #[test]
    fn a_line_is_a_string_or_a_map_with_conditions() {
        let yaml = "lines:\n  - 早！\n  - { say: 吹笛子去, if: { who: [长笛], at: [evening] } }\n";
        let l: List = serde_saphyr::from_str(yaml).unwrap();
        assert_eq!(l.lines[0], Line::plain("早！"));
        assert_eq!(l.lines[1].text, "吹笛子去");
        assert_eq!(l.lines[1].cond.who, vec![PersonaWord::parse("长笛")]);
        assert_eq!(l.lines[1].cond.at, vec![DayPart::Evening]);
        let bad = "lines:\n  - { say: 早, if: { whom: [x] } }\n";
        assert!(serde_saphyr::from_str::<List>(bad).is_err());
        let bad = "lines:\n  - { said: 早 }\n";
        assert!(serde_saphyr::from_str::<List>(bad).is_err());
    }

    #[test]
    fn parts_of_the_day() {
        assert_eq!(DayPart::of(6 * 60), DayPart::Morning);
        assert_eq!(DayPart::of(12 * 60), DayPart::Noon);
        assert_eq!(DayPart::of(19 * 60), DayPart::Evening);
        assert_eq!(DayPart::of(23 * 60), DayPart::Night);
        assert_eq!(DayPart::of(2 * 60), DayPart::Night);
    }
}
