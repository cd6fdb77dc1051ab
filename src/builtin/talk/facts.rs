//! Facts put into words: the slots a piece of news or a shared memory fills
//! (who, which day, where, which gathering), and telling news.

use super::{Speaker, said};
use crate::scenario::dialogue::NewsLines;
use crate::sim::brain::Said;
use crate::sim::knowledge::About;
use crate::sim::knowledge::words::{day_from, evening_from};
use crate::sim::residents::RosterIdx;
use crate::sim::social::Cue;

impl Speaker<'_, '_> {
    /// The slots a fact fills for `me` (as one of its people, `{b}` is the
    /// other one).
    pub(super) fn fact_slots(&self, about: &About, me: RosterIdx) -> Vec<(String, String)> {
        let (cx, w) = (self.cx, &self.cx.words);
        let name = |i: RosterIdx| w.roster.name_of(i).to_string();
        // One's own family is 我爸爸, not a full name; told to one's family,
        // 你爸爸 (沈月 hears of a date with 你爸爸, not with 沈博远).
        let telling = me == cx.speaker_idx;
        let kin_of = |i: RosterIdx, of: RosterIdx| cx.knows.knows(&About::Family { who: i, of });
        let other = |i: RosterIdx| {
            if i == me {
                name(i)
            } else if kin_of(i, me) {
                format!("我{}", w.kin(i, me))
            } else if telling && kin_of(i, cx.listener_idx) {
                format!("你{}", w.kin(i, cx.listener_idx))
            } else {
                name(i)
            }
        };
        // `{a}` is said by the teller; a reply names one plainly.
        let third = |i: RosterIdx| if telling { other(i) } else { name(i) };
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |k: &str, v: String| out.push((k.to_string(), v));
        match *about {
            About::Quarrel { a, b, place, day } => {
                put("a", third(a));
                put("b", other(other_of(a, b, me)));
                put("day", day_from(cx.now, i64::from(day)));
                put("place", w.town.name(place).to_string());
            }
            About::Date { a, b, day, went } => {
                put("felt", went.felt().to_string());
                put("a", third(a));
                put("b", other(other_of(a, b, me)));
                put("day", day_from(cx.now, i64::from(day)));
            }
            About::StoodUp {
                absent,
                waiting,
                place,
                day,
            } => {
                put("a", third(absent));
                put("b", other(if waiting == me { absent } else { waiting }));
                put("day", day_from(cx.now, i64::from(day)));
                put("place", w.town.name(place).to_string());
            }
            About::Hobby { who, hobby } => {
                put("a", name(who));
                put("hobby", self.as_said(w.hobby(who, hobby as usize), me));
            }
            About::Gathering { gathering } | About::Attended { gathering, .. } => {
                if let Some(g) = w.gatherings.get(gathering.i()) {
                    put("title", g.title.clone());
                    put("host", w.roster.name(&g.organiser).to_string());
                    put("place", w.town.name(g.location).to_string());
                    put(
                        "when",
                        crate::sim::social::meetings::when_text(cx.now, g.starts),
                    );
                    put("day", evening_from(cx.now, g.starts));
                }
            }
            About::Job { .. } | About::Family { .. } | About::Food { .. } => {}
        }
        out
    }

    /// `words` (a pastime that names someone: 进镇找马铁磨斧子) as the
    /// speaker says them when it is `me`: itself as 我, the one it tells as
    /// 你 (马铁 does not tell of 石松 coming 「找马铁磨斧子」).
    fn as_said(&self, words: String, me: RosterIdx) -> String {
        let cx = self.cx;
        if me != cx.speaker_idx {
            return words;
        }
        words
            .replace(cx.speaker.name.as_str(), "我")
            .replace(cx.listener.name.as_str(), "你")
    }

    /// The bank's lines for news of `about`'s kind (none for facts that
    /// are not news: a job, a family).
    fn news_lines(&self, about: &About) -> Option<&NewsLines> {
        let n = &self.bank().news;
        Some(match about {
            About::Gathering { .. } => &n.gathering,
            About::Quarrel { .. } => &n.quarrel,
            About::Date { went, .. } if !went.happy() => n.date_badly.as_ref().unwrap_or(&n.date),
            About::Date { .. } => &n.date,
            About::StoodUp { .. } => &n.stood_up,
            About::Hobby { who, hobby } if self.cx.words.seldom(*who, *hobby as usize) => {
                n.hobby_seldom.as_ref().unwrap_or(&n.hobby)
            }
            About::Hobby { .. } => &n.hobby,
            _ => return None,
        })
    }

    /// Telling `about` to the listener: in the first person when one is
    /// part of it.
    pub(super) fn tell(&self, about: &About) -> Option<Said> {
        if self.seen_at_work(about) {
            return None;
        }
        let lines = self.news_lines(about)?;
        let me = self.cx.speaker_idx;
        let first = about.people().contains(&me);
        let list = match (&lines.first, first) {
            (Some(f), true) => &f.say,
            (None, true) => return None,
            (_, false) => &lines.say,
        };
        let slots = self.fact_slots(about, me);
        let slots: Vec<(&str, &str)> = slots
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let text = self.pick(&list.value, 13, &slots)?;
        Some(said(
            text,
            Cue::News {
                about: *about,
                first,
            },
        ))
    }

    /// A pastime one of the two sees at its own work (石松's stew at 钟大川's
    /// tavern): no hearsay for the keeper, and not told to him as news.
    fn seen_at_work(&self, about: &About) -> bool {
        let cx = self.cx;
        let About::Hobby { who, hobby } = *about else {
            return false;
        };
        let place = cx.words.hobby_place(who, hobby as usize);
        [cx.speaker, cx.listener]
            .iter()
            .any(|p| p.work.as_ref().is_some_and(|w| Some(w.place) == place))
    }

    /// Hearing news: a reaction that fits it.
    pub(super) fn hear(&self, about: &About, first: bool) -> Option<Said> {
        let lines = self.news_lines(about)?;
        let list = match (&lines.first, first) {
            (Some(f), true) => &f.replies,
            _ => &lines.replies,
        };
        // The teller is the one who just spoke: the slots are as it told them.
        let teller = self.cx.listener_idx;
        let slots = self.fact_slots(about, teller);
        let slots: Vec<(&str, &str)> = slots
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let text = self.pick(&list.value, 14, &slots)?;
        Some(said(text, Cue::NewsHeard { about: *about }))
    }
}

/// Of two people, the one who is not `me` (`b` when `me` is neither).
fn other_of(a: RosterIdx, b: RosterIdx, me: RosterIdx) -> RosterIdx {
    if a == me {
        b
    } else if b == me {
        a
    } else {
        b
    }
}
