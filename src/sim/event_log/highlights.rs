//! 今日要闻: what mattered each day, read from the events — new friendships
//! and fallings-out, arguments, gatherings and who came, appointments kept
//! or missed, notices, dates. Render-free, so a log read back gives the same
//! list as the running town.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::events::{EventBody, SimEvent};
use super::narration::Names;
use crate::base::time::GameTime;
use crate::scenario::{LocationId, RelationKind, ResidentId};
use crate::sim::social::emotion::Emotion;

/// What kind of news a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    /// Two became friends (or close friends).
    Friendship,
    /// A tie fell a step.
    FallingOut,
    /// A conversation with anger in it, or that cost a tie.
    Argument,
    /// A gathering, and who came.
    Gathering,
    /// An appointment both kept.
    AppointmentKept,
    /// An appointment someone missed.
    AppointmentMissed,
    /// A notice went up.
    Notice,
    /// A date ended.
    Date,
}

impl HighlightKind {
    /// The tag shown before the line.
    pub fn tag(self) -> &'static str {
        match self {
            Self::Friendship => "新朋友",
            Self::FallingOut => "闹翻",
            Self::Argument => "争执",
            Self::Gathering => "聚会",
            Self::AppointmentKept => "赴约",
            Self::AppointmentMissed => "爽约",
            Self::Notice => "公告",
            Self::Date => "约会",
        }
    }
}

/// One line of the day's news.
#[derive(Debug, Clone, PartialEq)]
pub struct Highlight {
    /// When it happened (a gathering: when the first set off for it).
    pub time: GameTime,
    /// What kind of news it is.
    pub kind: HighlightKind,
    /// The line, in Chinese.
    pub text: String,
    /// Who it is about (a click selects the first).
    pub residents: Vec<ResidentId>,
    /// Where it happened, when it happened somewhere.
    pub place: Option<LocationId>,
}

/// Each day's news, in the order it happened.
#[derive(Debug, Default, Clone)]
pub struct Highlights {
    days: BTreeMap<NaiveDate, Vec<Highlight>>,
    /// Conversations under way in which someone spoke in anger.
    angry_talks: Vec<u64>,
}

/// How close a tie is, for telling a step up from a step down.
fn closeness(kind: RelationKind) -> u8 {
    match kind {
        RelationKind::Stranger => 0,
        RelationKind::Acquaintance | RelationKind::Colleague => 1,
        RelationKind::Friend => 2,
        RelationKind::CloseFriend | RelationKind::Family => 3,
    }
}

impl Highlights {
    /// The days with news, oldest first.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        self.days.keys().copied()
    }

    /// The news of `day`.
    pub fn of(&self, day: NaiveDate) -> &[Highlight] {
        self.days.get(&day).map_or(&[], Vec::as_slice)
    }

    /// Reads one event; most are not news.
    pub fn add(&mut self, e: &SimEvent, names: &impl Names) {
        let news = match &e.body {
            EventBody::RelationshipChange {
                resident,
                other,
                relation,
                previous_relation: Some(before),
                ..
            } => tie(resident, other, *relation, *before, names),
            EventBody::Message {
                conversation,
                emotion: Emotion::Angry,
                ..
            } => {
                if !self.angry_talks.contains(conversation) {
                    self.angry_talks.push(*conversation);
                }
                None
            }
            EventBody::ConversationEnd { conversation, .. } => {
                let angry = self.angry_talks.contains(conversation);
                self.angry_talks.retain(|c| c != conversation);
                argument(&e.body, angry, names)
            }
            EventBody::Plan {
                resident,
                activity: crate::sim::residents::ActivityKind::Attend,
                target_location,
                ..
            } => {
                self.came(e.time, resident, target_location, names);
                None
            }
            _ => plans_and_dates(&e.body, names),
        };
        if let Some((kind, text, residents, place)) = news {
            self.push(Highlight {
                time: e.time,
                kind,
                text,
                residents,
                place,
            });
        }
    }

    fn push(&mut self, h: Highlight) {
        self.days.entry(h.time.date()).or_default().push(h);
    }

    /// A resident set off for a gathering: the day's line for that place
    /// lists everyone who came.
    fn came(&mut self, time: GameTime, who: &ResidentId, place: &LocationId, names: &impl Names) {
        let day = self.days.entry(time.date()).or_default();
        let found = day
            .iter_mut()
            .find(|h| h.kind == HighlightKind::Gathering && h.place.as_ref() == Some(place));
        let line = match found {
            Some(line) => line,
            None => {
                day.push(Highlight {
                    time,
                    kind: HighlightKind::Gathering,
                    text: String::new(),
                    residents: Vec::new(),
                    place: Some(place.clone()),
                });
                day.last_mut().expect("just pushed")
            }
        };
        if !line.residents.contains(who) {
            line.residents.push(who.clone());
        }
        let came: Vec<String> = line.residents.iter().map(|r| names.resident(r)).collect();
        line.text = format!(
            "{}的聚会：{}来了（{} 人）",
            names.place(place),
            came.join("、"),
            came.len()
        );
    }
}

/// A line of news before it gets its time.
type News = (HighlightKind, String, Vec<ResidentId>, Option<LocationId>);

/// Names joined with 、.
fn all(ids: &[ResidentId], names: &impl Names) -> String {
    ids.iter()
        .map(|r| names.resident(r))
        .collect::<Vec<_>>()
        .join("、")
}

/// A tie that stepped up to friend (or closer), or down a step.
fn tie(
    who: &ResidentId,
    other: &ResidentId,
    now: RelationKind,
    before: RelationKind,
    names: &impl Names,
) -> Option<News> {
    let (up, down) = (closeness(now), closeness(before));
    let kind = if up > down && up >= 2 {
        HighlightKind::Friendship
    } else if up < down {
        HighlightKind::FallingOut
    } else {
        return None;
    };
    let text = format!(
        "{}把{}当作了{}（原是{}）",
        names.resident(who),
        names.resident(other),
        now.label(),
        before.label()
    );
    Some((kind, text, vec![who.clone(), other.clone()], None))
}

/// A conversation that had anger in it, or that cost ties a few points.
fn argument(body: &EventBody, angry: bool, names: &impl Names) -> Option<News> {
    let EventBody::ConversationEnd {
        participants,
        location,
        topic,
        changes,
        ..
    } = body
    else {
        return None;
    };
    let lost: f32 = changes.iter().map(|c| (c.new - c.old).min(0.0)).sum();
    if lost > -4.0 && !angry {
        return None;
    }
    // In Chinese, and only when it says something (not 「家常」).
    let about = match crate::sim::social::analysis::topic_zh(topic) {
        "" | "家常" => String::new(),
        zh => format!("，为了{zh}"),
    };
    // Those whose ties fell are the ones who quarrelled, not the whole table.
    let mut who: Vec<ResidentId> = Vec::new();
    for c in changes.iter().filter(|c| c.new < c.old) {
        for id in [&c.resident, &c.other] {
            if !who.contains(id) {
                who.push(id.clone());
            }
        }
    }
    if who.is_empty() {
        who = participants.clone();
    }
    let text = format!(
        "{}在{}起了争执{about}",
        all(&who, names),
        names.place(location)
    );
    let place = Some(location.clone());
    Some((HighlightKind::Argument, text, who, place))
}

/// Appointments kept or missed, notices, dates.
fn plans_and_dates(body: &EventBody, names: &impl Names) -> Option<News> {
    Some(match body {
        EventBody::AppointmentKept {
            residents,
            location,
            ..
        } => {
            let text = format!(
                "{}如约在{}碰面",
                all(residents, names),
                names.place(location)
            );
            let place = Some(location.clone());
            (
                HighlightKind::AppointmentKept,
                text,
                residents.clone(),
                place,
            )
        }
        EventBody::AppointmentMissed {
            residents,
            location,
            showed,
            ..
        } => {
            let missed: Vec<ResidentId> = residents
                .iter()
                .zip(showed)
                .filter(|(_, s)| !**s)
                .map(|(r, _)| r.clone())
                .collect();
            let (who, at) = (all(residents, names), names.place(location));
            let text = format!("{who}约在{at}，{}没来", all(&missed, names));
            let place = Some(location.clone());
            (
                HighlightKind::AppointmentMissed,
                text,
                residents.clone(),
                place,
            )
        }
        EventBody::Notice {
            resident,
            location,
            text,
            ..
        } => {
            let (who, at) = (names.resident(resident), names.place(location));
            let line = format!("{who}在{at}贴了公告：{text}");
            let place = Some(location.clone());
            (HighlightKind::Notice, line, vec![resident.clone()], place)
        }
        EventBody::DateEnd(end) => {
            let (who, score, rounds) = (all(&end.residents, names), end.score, end.rounds);
            let text = format!("{who}的约会结束：{score} 分（{rounds} 轮）");
            (HighlightKind::Date, text, end.residents.clone(), None)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event_log::{EventLog, LogNames};

    /// The default town's three days, read back from its log: every kind of
    /// news the town makes is there, on the day it happened, each line about
    /// residents of the town and in Chinese.
    #[test]
    fn three_days_of_the_default_town_make_the_news() {
        let mut app = crate::headless::headless_app(
            crate::headless::default_scenario(),
            7,
            3,
            EventLog::in_memory(),
        );
        crate::headless::run_to_end(&mut app, 10_000);
        let log = app.world().resource::<EventLog>().text().to_string();
        let mut names = LogNames::default();
        let mut news = Highlights::default();
        for line in log.lines() {
            let e: SimEvent = serde_json::from_str(line).unwrap();
            names.learn(&e.body);
            news.add(&e, &names);
        }
        let days: Vec<_> = news.days().collect();
        assert!(days.len() >= 3, "news on {} days", days.len());
        let all: Vec<&Highlight> = days.iter().flat_map(|d| news.of(*d)).collect();
        let has = |k: HighlightKind| all.iter().filter(|h| h.kind == k).count();
        assert!(
            has(HighlightKind::Friendship) > 0,
            "no new friendship in 3 days"
        );
        assert!(has(HighlightKind::Notice) > 0, "no notice");
        assert!(has(HighlightKind::Gathering) > 0, "no gathering");
        assert!(
            has(HighlightKind::AppointmentKept) + has(HighlightKind::AppointmentMissed) > 0,
            "no appointment"
        );
        for d in &days {
            for h in news.of(*d) {
                assert_eq!(h.time.date(), *d, "{h:?} filed on the wrong day");
                assert!(!h.residents.is_empty(), "{h:?} is about nobody");
                assert!(!h.text.contains("r0") && !h.text.is_ascii(), "{}", h.text);
            }
        }
        // The gathering lists everyone who came, once each.
        let party = all
            .iter()
            .find(|h| h.kind == HighlightKind::Gathering)
            .unwrap();
        let mut unique = party.residents.clone();
        unique.dedup();
        assert_eq!(unique.len(), party.residents.len());
        assert!(
            party
                .text
                .contains(&format!("（{} 人）", party.residents.len()))
        );
    }

    #[test]
    fn a_tie_stepping_up_to_friend_is_news_and_stepping_down_is_a_falling_out() {
        let names = LogNames::default();
        let change = |from: RelationKind, to: RelationKind| SimEvent {
            time: GameTime(0),
            body: EventBody::RelationshipChange {
                resident: ResidentId::new("a"),
                other: ResidentId::new("b"),
                old_strength: 50.0,
                new_strength: 60.0,
                relation: to,
                previous_relation: Some(from),
                reason: String::new(),
            },
        };
        let mut news = Highlights::default();
        news.add(
            &change(RelationKind::Acquaintance, RelationKind::Friend),
            &names,
        );
        news.add(
            &change(RelationKind::Stranger, RelationKind::Acquaintance),
            &names,
        );
        news.add(
            &change(RelationKind::Friend, RelationKind::Acquaintance),
            &names,
        );
        let day = news.days().next().unwrap();
        let kinds: Vec<_> = news.of(day).iter().map(|h| h.kind).collect();
        assert_eq!(
            kinds,
            [HighlightKind::Friendship, HighlightKind::FallingOut]
        );
    }
}
