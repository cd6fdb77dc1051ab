//! What one resident may tell another, and what two bring up when they meet:
//! news is a fact the speaker knows and the listener does not, recent, about
//! people the listener knows (never about the listener); a shared memory is
//! something the two lived lately (an evening both were at) or one did to
//! the other (a meeting missed), raised once.

use super::facts::{About, Fact, Knowledge, Source};
use crate::base::time::GameTime;
use crate::scenario::Gathering;
use crate::scenario::dialogue::SharedKind;
use crate::sim::residents::Relationships;
use crate::sim::residents::roster::RosterIdx;

/// Events older than this many days are no longer news.
const NEWS_DAYS: i64 = 3;
/// A gathering is brought up for this many hours after it ends.
const FRESH_HOURS: i64 = 48;
/// A missed meeting is brought up within this many days.
const GRUDGE_DAYS: i64 = 4;

/// One side of a conversation, as news and memories read it.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// Who.
    pub idx: RosterIdx,
    /// What it knows.
    pub knows: &'a Knowledge,
}

/// The fact `me` would tell `you` (whose ties are `ties`) now, if any: the
/// most important, then the newest. Nobody within `earshot` (sorted) but the
/// speaker is talked about: 「别看苏文平时那样…」 is not said with 苏文 there.
pub fn news_for(
    me: Side,
    (you, ties): (Side, &Relationships),
    now: GameTime,
    gatherings: &[Gathering],
    earshot: &[RosterIdx],
) -> Option<Fact> {
    let overheard = |f: &Fact| {
        f.about
            .people()
            .iter()
            .any(|&p| p != me.idx && earshot.binary_search(&p).is_ok())
    };
    me.knows
        .facts()
        .iter()
        .filter(|f| worth_telling(f, me, (you, ties), now, gatherings) && !overheard(f))
        .max_by_key(|f| (f.importance, f.learned))
        .copied()
}

fn worth_telling(
    f: &Fact,
    me: Side,
    (you, ties): (Side, &Relationships),
    now: GameTime,
    gatherings: &[Gathering],
) -> bool {
    if you.knows.knows(&f.about) {
        return false;
    }
    let people = f.about.people();
    if people.contains(&you.idx) {
        return false;
    }
    let recent = f
        .about
        .day()
        .is_none_or(|d| now.day_number() - d <= NEWS_DAYS);
    // The listener cares about people it knows.
    let cares = people
        .iter()
        .any(|&p| p == me.idx || ties.by_idx(p).is_some());
    match f.about {
        About::Gathering { gathering } => {
            gatherings.get(gathering.i()).is_some_and(|g| g.ends > now)
        }
        // The host who saw a date keeps it to itself: a matchmaker does not
        // gossip about the pairs it hosts.
        About::Date { .. } => recent && cares && f.source != Source::Saw,
        About::Quarrel { .. } => recent && cares,
        // One who waited tells of it; others pass it on.
        About::StoodUp { absent, .. } => recent && cares && absent != me.idx,
        // Not gossip about one's own family, whom one would not name so.
        About::Hobby { who, .. } => {
            let kin = me.knows.knows(&About::Family { who, of: me.idx });
            who != me.idx && cares && !kin && f.source != Source::Lived
        }
        _ => false,
    }
}

/// What two lived together lately, or one did to the other, that `me`
/// would bring up on meeting `you`: the kind of opening and the fact it is
/// about (noted as raised once said).
pub fn shared_with(
    me: Side,
    you: Side,
    now: GameTime,
    gatherings: &[Gathering],
    organiser: impl Fn(&Gathering) -> Option<RosterIdx>,
) -> Option<(SharedKind, About)> {
    let fresh = |about: &About| !me.knows.raised_with(about, you.idx);
    // A meeting the other did not come to, first; or one the speaker did
    // not come to: it says sorry before anything.
    let missed = |by_me: bool| {
        let (who_absent, who_waiting) = if by_me { (me, you) } else { (you, me) };
        me.knows.facts().iter().find_map(|f| match f.about {
            About::StoodUp {
                absent,
                waiting,
                day,
                ..
            } if absent == who_absent.idx
                && waiting == who_waiting.idx
                && now.day_number() - i64::from(day) <= GRUDGE_DAYS
                && fresh(&f.about) =>
            {
                let kind = if by_me {
                    SharedKind::Absent
                } else {
                    SharedKind::StoodUp
                };
                Some((kind, f.about))
            }
            _ => None,
        })
    };
    if let Some(missed) = missed(false).or_else(|| missed(true)) {
        return Some(missed);
    }
    let dated = me.knows.facts().iter().find(|f| {
        matches!(f.about, About::Date { a, b, day, .. }
            if (a, b) == (me.idx.min(you.idx), me.idx.max(you.idx))
                && now.day_number() - i64::from(day) <= NEWS_DAYS)
    });
    if let Some(f) = dated.filter(|f| fresh(&f.about)) {
        let kind = match f.about {
            About::Date { went, .. } if went.awkward() => SharedKind::DateAwkward,
            _ => SharedKind::Date,
        };
        return Some((kind, f.about));
    }
    for g in gatherings.iter().rev() {
        let ended = g.ends <= now && g.ends.plus_minutes(FRESH_HOURS * 60) > now;
        let gathering = g.id;
        let went = About::Attended {
            gathering,
            who: me.idx,
        };
        if !ended || !me.knows.knows(&went) {
            continue;
        }
        let them = About::Attended {
            gathering,
            who: you.idx,
        };
        if !fresh(&them) {
            continue;
        }
        let host = organiser(g);
        // Whether they went, as they know it (one notices who came and who did not).
        let went_too = you.knows.knows(&them);
        let kind = if went_too && host == Some(you.idx) {
            SharedKind::Hosted
        } else if went_too && host == Some(me.idx) {
            SharedKind::Guest
        } else if went_too {
            SharedKind::Gathering
        } else if you.knows.knows(&About::Gathering { gathering }) {
            // The other knew of it and did not come.
            SharedKind::MissedGathering
        } else {
            continue;
        };
        return Some((kind, them));
    }
    None
}
