//! The facts a resident knows: what each is about, where it came from, and
//! the messages that teach or raise one. The systems that keep them are in
//! the module above.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::base::time::GameTime;
use crate::scenario::{GatheringIdx, LocIdx};
use crate::sim::event_log::dates::DateOutcome;
use crate::sim::residents::roster::RosterIdx;

/// What a fact is about. Symmetric events keep their two people in roster
/// order, so two residents who know the same thing hold equal values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum About {
    /// What `who` does for a living.
    Job {
        /// Whose trade.
        who: RosterIdx,
    },
    /// One of `who`'s pastimes (its index in their hobbies).
    Hobby {
        /// Whose pastime.
        who: RosterIdx,
        /// Which.
        hobby: u8,
    },
    /// `who` is family of `of`.
    Family {
        /// The relative.
        who: RosterIdx,
        /// Whose relative.
        of: RosterIdx,
    },
    /// What `who` likes to eat.
    Food {
        /// Whose taste.
        who: RosterIdx,
    },
    /// A gathering: what, when, where, whose.
    Gathering {
        /// Its index among the scenario's gatherings.
        gathering: GatheringIdx,
    },
    /// `who` was at a gathering.
    Attended {
        /// Which gathering.
        gathering: GatheringIdx,
        /// Who came.
        who: RosterIdx,
    },
    /// Two quarrelled.
    Quarrel {
        /// The one first in roster order.
        a: RosterIdx,
        /// The other.
        b: RosterIdx,
        /// Where.
        place: LocIdx,
        /// On which day (days since 1970).
        day: i32,
    },
    /// Two went on a date.
    Date {
        /// The one first in roster order.
        a: RosterIdx,
        /// The other.
        b: RosterIdx,
        /// On which day.
        day: i32,
        /// How it went: what the town says of it.
        #[serde(default)]
        went: DateWent,
    },
    /// `absent` did not come to meet `waiting`, who waited.
    StoodUp {
        /// Who stayed away.
        absent: RosterIdx,
        /// Who waited.
        waiting: RosterIdx,
        /// Where they were to meet.
        place: LocIdx,
        /// On which day.
        day: i32,
    },
}

impl About {
    /// A quarrel between two, in canonical order.
    pub fn quarrel(x: RosterIdx, y: RosterIdx, place: LocIdx, time: GameTime) -> Self {
        About::Quarrel {
            a: x.min(y),
            b: x.max(y),
            place,
            day: time.day_number() as i32,
        }
    }

    /// A date between two, in canonical order.
    pub fn date(x: RosterIdx, y: RosterIdx, time: GameTime, went: DateWent) -> Self {
        About::Date {
            a: x.min(y),
            b: x.max(y),
            day: time.day_number() as i32,
            went,
        }
    }

    /// The people it is about, first the main one.
    pub fn people(&self) -> Vec<RosterIdx> {
        match *self {
            About::Job { who }
            | About::Hobby { who, .. }
            | About::Food { who }
            | About::Attended { who, .. } => vec![who],
            About::Family { who, of } => vec![who, of],
            About::Quarrel { a, b, .. } | About::Date { a, b, .. } => vec![a, b],
            About::StoodUp {
                absent, waiting, ..
            } => vec![absent, waiting],
            About::Gathering { .. } => Vec::new(),
        }
    }

    /// The day an event happened (people's traits have none).
    pub fn day(&self) -> Option<i64> {
        match *self {
            About::Quarrel { day, .. } | About::Date { day, .. } | About::StoodUp { day, .. } => {
                Some(i64::from(day))
            }
            _ => None,
        }
    }

    /// The gathering it concerns, if any.
    pub fn gathering(&self) -> Option<GatheringIdx> {
        match *self {
            About::Gathering { gathering } | About::Attended { gathering, .. } => Some(gathering),
            _ => None,
        }
    }

    /// Its kind as the log names it.
    pub fn kind(&self) -> &'static str {
        match self {
            About::Job { .. } => "job",
            About::Hobby { .. } => "hobby",
            About::Family { .. } => "family",
            About::Food { .. } => "food",
            About::Gathering { .. } => "gathering",
            About::Attended { .. } => "attended",
            About::Quarrel { .. } => "quarrel",
            About::Date { .. } => "date",
            About::StoodUp { .. } => "stood_up",
        }
    }

    /// How much knowing it matters, 0–100.
    pub fn importance(&self) -> u8 {
        match self {
            About::Gathering { .. } | About::Date { .. } => 70,
            About::Quarrel { .. } => 60,
            About::StoodUp { .. } => 55,
            About::Family { .. } | About::Attended { .. } => 40,
            About::Job { .. } => 30,
            About::Hobby { .. } => 25,
            About::Food { .. } => 20,
        }
    }
}

/// How a date went, as the town tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateWent {
    /// They became a couple.
    Together,
    /// Warmly (a good or ideal score).
    Well,
    /// Neither here nor there.
    #[default]
    Fair,
    /// Badly (a broken-off date, a discordant score).
    Badly,
}

impl DateWent {
    /// From a date's end.
    pub fn of(outcome: DateOutcome, band: crate::cupid::Band) -> Self {
        use crate::cupid::Band;
        match (outcome, band) {
            (DateOutcome::Established, _) => DateWent::Together,
            (DateOutcome::BrokeUp, _) | (_, Band::Discordant) => DateWent::Badly,
            (_, Band::Good | Band::Ideal) => DateWent::Well,
            (_, Band::Fair) => DateWent::Fair,
        }
    }

    /// Whether the two would rather not be reminded of it.
    pub fn awkward(self) -> bool {
        self == DateWent::Badly
    }

    /// Whether it is told as a happy story (not of a lukewarm or bad date).
    pub fn happy(self) -> bool {
        matches!(self, DateWent::Together | DateWent::Well)
    }

    /// How one of the two says it went, in the first person.
    pub fn felt(self) -> &'static str {
        match self {
            DateWent::Together => "我们在一起了",
            DateWent::Well => "挺开心的",
            DateWent::Fair => "说不上好，也说不上坏",
            DateWent::Badly => "处得挺别扭",
        }
    }

    /// How the town says it went, after 「约会了」.
    pub fn told(self) -> &'static str {
        match self {
            DateWent::Together => "，两人已经在一起了",
            DateWent::Well => "，处得挺投机",
            DateWent::Fair => "，不温不火",
            DateWent::Badly => "，闹得不太愉快",
        }
    }
}

/// Where a fact came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Source {
    /// Known before the run began (neighbours know each other).
    Known,
    /// One took part in it (organised the gathering, had the quarrel).
    Lived,
    /// One was there and saw it.
    Saw,
    /// Read on the notice board.
    Notice {
        /// The notice's number.
        id: u32,
    },
    /// Told in a conversation.
    Told {
        /// By whom.
        by: RosterIdx,
    },
}

impl Source {
    /// Its kind as the log names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Known => "known",
            Source::Lived => "lived",
            Source::Saw => "saw",
            Source::Notice { .. } => "notice",
            Source::Told { .. } => "told",
        }
    }
}

/// One thing a resident knows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// What it is.
    pub about: About,
    /// Where it came from (the first time it was heard).
    pub source: Source,
    /// When it was learnt.
    pub learned: GameTime,
    /// How much it matters, 0–100.
    pub importance: u8,
}

/// What a resident knows, in the order it learnt it, and what it has
/// brought up with whom (a missed meeting, an evening both were at: raised
/// once, not at every meeting).
#[derive(Component, Debug, Clone, Default, Serialize, Deserialize)]
pub struct Knowledge {
    facts: Vec<Fact>,
    #[serde(default)]
    raised: Vec<(About, RosterIdx)>,
}

impl Knowledge {
    /// Knowledge read back from a save.
    pub(crate) fn restored(facts: Vec<Fact>, raised: Vec<(About, RosterIdx)>) -> Self {
        Self { facts, raised }
    }

    /// What was brought up with whom.
    pub(crate) fn raised(&self) -> &[(About, RosterIdx)] {
        &self.raised
    }

    /// Every fact, in the order learnt.
    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// The fact about `about`, if known.
    pub fn get(&self, about: &About) -> Option<&Fact> {
        self.facts.iter().find(|f| f.about == *about)
    }

    /// Whether it is known.
    pub fn knows(&self, about: &About) -> bool {
        self.get(about).is_some()
    }

    /// Adds a fact unless it is known already (the first source stays);
    /// whether it was new.
    pub fn add(&mut self, fact: Fact) -> bool {
        if self.knows(&fact.about) {
            return false;
        }
        self.facts.push(fact);
        true
    }

    /// Whether `about` was brought up with `with` already.
    pub fn raised_with(&self, about: &About, with: RosterIdx) -> bool {
        self.raised.contains(&(*about, with))
    }

    /// Notes that `about` was brought up with `with`.
    pub fn mark_raised(&mut self, about: About, with: RosterIdx) {
        if !self.raised_with(&about, with) {
            self.raised.push((about, with));
        }
    }
}

/// A resident brought something up with another (not to be raised again).
#[derive(Message, Debug, Clone, Copy)]
pub struct Raise {
    /// Who brought it up.
    pub who: RosterIdx,
    /// What.
    pub about: About,
    /// With whom.
    pub with: RosterIdx,
}

/// A resident learns something now (from a line, a notice, an event).
#[derive(Message, Debug, Clone, Copy)]
pub struct Learn {
    /// Who learns it.
    pub who: RosterIdx,
    /// What.
    pub about: About,
    /// From where.
    pub source: Source,
    /// When.
    pub time: GameTime,
}
