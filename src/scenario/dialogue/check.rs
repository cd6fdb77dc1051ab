//! The bank's checks (empty lists, unknown slots, fields in the wrong
//! place, conditions that can never hold), and the one walk over every list
//! they and a borrowed bank's trimming share.

use std::path::Path;

use serde_saphyr::Spanned;

use super::{Cond, Exchanges, Line, Lines, MoodExchange, PhraseBank, SLOTS};
use crate::base::{Diagnostic, Diagnostics};

/// What a walk over the bank is given, one call per list.
pub(super) struct Walk<'f> {
    /// A list of lines, with its field path.
    pub(super) lines: &'f mut dyn FnMut(&str, &mut Lines),
    /// A list of exchanges (their replies are walked as lines too).
    pub(super) exchanges: &'f mut dyn FnMut(&str, &mut Exchanges),
    /// A list of grumbles or sighs (their answers are walked as lines too).
    pub(super) moods: &'f mut dyn FnMut(&str, &mut Spanned<Vec<MoodExchange>>),
}

/// Calls the walk's functions on every list of the bank, in file order.
pub(super) fn walk(b: &mut PhraseBank, w: &mut Walk<'_>) {
    walk_greetings(&mut b.greetings, w);
    walk_staff(&mut b.staff, w);
    for (i, t) in b.topics.iter_mut().enumerate() {
        exchanges(w, &format!("topics[{i}].exchanges"), &mut t.exchanges);
    }
    walk_moods(&mut b.moods, w);
    walk_news(&mut b.news, w);
    walk_closings(&mut b.closings, w);
    walk_storylines(&mut b.storylines, w);
    walk_interview(&mut b.interview, w);
    for (name, l) in b.plans.lists() {
        (w.lines)(&format!("plans.{name}"), l);
    }
}

fn walk_greetings(g: &mut super::Greetings, w: &mut Walk<'_>) {
    for (name, l) in [
        ("first", &mut g.first),
        ("first_back", &mut g.first_back),
        ("stranger", &mut g.stranger),
        ("acquaintance", &mut g.acquaintance),
        ("friend", &mut g.friend),
    ] {
        (w.lines)(&format!("greetings.{name}"), l);
    }
    exchanges(w, "greetings.ask", &mut g.ask);
    exchanges(w, "greetings.family", &mut g.family);
    for (name, l) in [
        ("chance", &mut g.chance),
        ("appointment", &mut g.appointment),
        ("appointment_back", &mut g.appointment_back),
        ("join", &mut g.join),
        ("back", &mut g.back),
        ("recall.argued", &mut g.recall.argued),
        ("recall.down", &mut g.recall.down),
        ("recall.warm", &mut g.recall.warm),
        ("recall.plain", &mut g.recall.plain),
        ("recall_back.argued", &mut g.recall_back.argued),
        ("recall_back.argued_cold", &mut g.recall_back.argued_cold),
        ("recall_back.down", &mut g.recall_back.down),
        ("recall_back.warm", &mut g.recall_back.warm),
        ("recall_back.plain", &mut g.recall_back.plain),
    ] {
        (w.lines)(&format!("greetings.{name}"), l);
    }
    let s = &mut g.shared;
    for (name, x) in [
        ("gathering", &mut s.gathering),
        ("hosted", &mut s.hosted),
        ("guest", &mut s.guest),
        ("missed_gathering", &mut s.missed_gathering),
        ("stood_up", &mut s.stood_up),
        ("absent", &mut s.absent),
        ("date", &mut s.date),
    ] {
        exchanges(w, &format!("greetings.shared.{name}"), x);
    }
    if let Some(x) = &mut s.date_awkward {
        exchanges(w, "greetings.shared.date_awkward", x);
    }
}

fn walk_staff(st: &mut super::Staff, w: &mut Walk<'_>) {
    for (role, r) in [
        ("waiter", &mut st.waiter),
        ("teacher", &mut st.teacher),
        ("seller", &mut st.seller),
    ] {
        (w.lines)(&format!("staff.{role}.greet"), &mut r.greet);
        exchanges(w, &format!("staff.{role}.orders"), &mut r.orders);
        if let Some(u) = &mut r.usual {
            (w.lines)(&format!("staff.{role}.usual.say"), &mut u.say);
            (w.lines)(&format!("staff.{role}.usual.replies"), &mut u.replies);
            (w.lines)(&format!("staff.{role}.usual.serve"), &mut u.serve);
            (w.lines)(&format!("staff.{role}.usual.decline"), &mut u.decline);
        }
    }
}

fn walk_moods(m: &mut super::Moods, w: &mut Walk<'_>) {
    for (name, list) in [("grumble", &mut m.grumble), ("sad", &mut m.sad)] {
        (w.moods)(&format!("moods.{name}"), list);
        for (j, x) in list.value.iter_mut().enumerate() {
            (w.lines)(&format!("moods.{name}[{j}].comfort"), &mut x.comfort);
            if let Some(argue) = &mut x.argue {
                (w.lines)(&format!("moods.{name}[{j}].argue"), argue);
            }
        }
    }
    (w.lines)("moods.soothe", &mut m.soothe);
    (w.lines)("moods.storm_off", &mut m.storm_off);
}

fn walk_news(n: &mut super::News, w: &mut Walk<'_>) {
    let badly = n.date_badly.as_mut().map(|k| ("date_badly", k));
    let seldom = n.hobby_seldom.as_mut().map(|k| ("hobby_seldom", k));
    for (name, k) in [
        ("gathering", &mut n.gathering),
        ("quarrel", &mut n.quarrel),
        ("date", &mut n.date),
        ("stood_up", &mut n.stood_up),
        ("hobby", &mut n.hobby),
    ]
    .into_iter()
    .chain(badly)
    .chain(seldom)
    {
        (w.lines)(&format!("news.{name}.say"), &mut k.say);
        if let Some(first) = &mut k.first {
            (w.lines)(&format!("news.{name}.first.say"), &mut first.say);
            (w.lines)(&format!("news.{name}.first.replies"), &mut first.replies);
        }
        (w.lines)(&format!("news.{name}.replies"), &mut k.replies);
    }
}

fn walk_closings(c: &mut super::Closings, w: &mut Walk<'_>) {
    for (name, l) in [
        ("stranger", &mut c.stranger),
        ("friend", &mut c.friend),
        ("family", &mut c.family),
        ("staff", &mut c.staff),
        ("customer", &mut c.customer),
        ("answer", &mut c.answer),
    ] {
        (w.lines)(&format!("closings.{name}"), l);
    }
}

fn walk_storylines(st: &mut super::Storylines, w: &mut Walk<'_>) {
    let a = &mut st.answer_invite;
    let r = &mut st.going_replies;
    for (name, l) in [
        ("invite", &mut st.invite),
        ("answer_invite.friend", &mut a.friend),
        ("answer_invite.lively", &mut a.lively),
        ("answer_invite.keen", &mut a.keen),
        ("answer_invite.shift", &mut a.shift),
        ("answer_invite.crowds", &mut a.crowds),
        ("answer_invite.busy", &mut a.busy),
        ("propose", &mut st.propose),
        ("accept", &mut st.accept),
        ("welcome", &mut st.welcome),
        ("thank_host", &mut st.thank_host),
        ("going", &mut st.going),
        ("going_replies.going", &mut r.going),
        ("going_replies.not_going", &mut r.not_going),
        ("going_replies.new", &mut r.new),
        ("going_replies.host", &mut r.host),
        ("going_replies.asked_again", &mut r.asked_again),
    ] {
        (w.lines)(&format!("storylines.{name}"), l);
    }
}

fn walk_interview(i: &mut super::InterviewLines, w: &mut Walk<'_>) {
    let (h, o) = (&mut i.heard, &mut i.opinion);
    for (name, l) in [
        ("talked", &mut i.talked),
        ("talked_none", &mut i.talked_none),
        ("heard.organised", &mut h.organised),
        ("heard.notice", &mut h.notice),
        ("heard.told", &mut h.told),
        ("heard.saw", &mut h.saw),
        ("heard.lived", &mut h.lived),
        ("heard.known", &mut h.known),
        ("unknown", &mut i.unknown),
        ("dont_know", &mut i.dont_know),
        ("knows", &mut i.knows),
        ("knows_mine", &mut i.knows_mine),
        ("opinion.family", &mut o.family),
        ("opinion.close", &mut o.close),
        ("opinion.friend", &mut o.friend),
        ("opinion.acquaintance", &mut o.acquaintance),
        ("opinion.stranger", &mut o.stranger),
        ("opinion.quarrel", &mut o.quarrel),
        ("day", &mut i.day),
        ("day_none", &mut i.day_none),
        ("mood", &mut i.mood),
    ] {
        (w.lines)(&format!("interview.{name}"), l);
    }
    for (who, a) in [("person", &mut i.person), ("me", &mut i.me)] {
        for (name, l) in [
            ("job", &mut a.job),
            ("hobby", &mut a.hobby),
            ("food", &mut a.food),
            ("family", &mut a.family),
        ] {
            (w.lines)(&format!("interview.{who}.{name}"), l);
        }
    }
}

/// An exchange list, then each exchange's replies as lines.
fn exchanges(w: &mut Walk<'_>, field: &str, x: &mut Exchanges) {
    (w.exchanges)(field, x);
    for (j, e) in x.value.iter_mut().enumerate() {
        (w.lines)(&format!("{field}[{j}].replies"), &mut e.replies);
    }
}

/// Calls `f` with every line's field path and words (exchanges' and moods'
/// own lines included).
#[cfg(test)]
pub(super) fn each_line(bank: &PhraseBank, mut f: impl FnMut(&str, &str)) {
    let mut copy = bank.clone();
    let f = std::cell::RefCell::new(&mut f);
    walk(
        &mut copy,
        &mut Walk {
            lines: &mut |field, l| {
                for (k, line) in l.value.iter().enumerate() {
                    (f.borrow_mut())(&format!("{field}[{k}]"), &line.text);
                }
            },
            exchanges: &mut |field, x| {
                for (k, e) in x.value.iter().enumerate() {
                    (f.borrow_mut())(&format!("{field}[{k}].say"), &e.say.value);
                }
            },
            moods: &mut |field, x| {
                for (k, e) in x.value.iter().enumerate() {
                    (f.borrow_mut())(&format!("{field}[{k}].say"), &e.say.value);
                }
            },
        },
    );
}

/// Keeps the lines whose words pass `keep`; an exchange or a mood whose own
/// line fails goes with its answers.
pub(super) fn retain_lines(bank: &mut PhraseBank, keep: impl Fn(&str) -> bool) {
    walk(
        bank,
        &mut Walk {
            lines: &mut |_, l| l.value.retain(|x| keep(&x.text)),
            exchanges: &mut |_, x| x.value.retain(|e| keep(&e.say.value)),
            moods: &mut |_, x| x.value.retain(|e| keep(&e.say.value)),
        },
    );
    // An exchange left with no answer cannot be said.
    walk(
        bank,
        &mut Walk {
            lines: &mut |_, _| {},
            exchanges: &mut |_, x| x.value.retain(|e| !e.replies.value.is_empty()),
            moods: &mut |_, x| x.value.retain(|e| !e.comfort.value.is_empty()),
        },
    );
}

impl PhraseBank {
    pub(super) fn problems(&self, path: &Path) -> Diagnostics {
        let out = std::cell::RefCell::new(Diagnostics::default());
        let push = |d: Diagnostic| out.borrow_mut().push(d);
        let mut copy = self.clone();
        walk(
            &mut copy,
            &mut Walk {
                lines: &mut |field, l| {
                    // An argument may be left out, and so may a mood's opening.
                    let optional = field.ends_with(".argue") || field.starts_with("plans.moods.");
                    if l.value.is_empty() && !optional {
                        let mut d = Diagnostic::at(path, l, field, "the list is empty".into());
                        d.hint = Some("give it at least one line".into());
                        push(d);
                    }
                    for (k, line) in l.value.iter().enumerate() {
                        line_problems(path, l, &format!("{field}[{k}]"), line, &push);
                    }
                },
                exchanges: &mut |field, x| exchange_problems(path, field, x, &push),
                moods: &mut |field, x| {
                    for (k, e) in x.value.iter().enumerate() {
                        let line = Line {
                            text: e.say.value.clone(),
                            cond: e.cond.clone(),
                        };
                        line_problems(path, &e.say, &format!("{field}[{k}].say"), &line, &push);
                    }
                },
            },
        );
        let mut out = out.into_inner();
        self.topic_problems(path, &mut out);
        out
    }

    fn topic_problems(&self, path: &Path, out: &mut Diagnostics) {
        let mut ids = std::collections::HashSet::new();
        for (i, t) in self.topics.iter().enumerate() {
            if !ids.insert(t.id.value.as_str()) {
                let msg = format!("topic id `{}` is used twice", t.id.value);
                out.push(Diagnostic::at(path, &t.id, &format!("topics[{i}].id"), msg));
            }
            if let Some(d) = never_holds(path, &t.id, &format!("topics[{i}]"), &t.cond) {
                out.push(d);
            }
        }
        if self.topics.is_empty() {
            out.push(Diagnostic::file(
                path,
                "no topics",
                Some("add `topics:` with at least one `{id, label, exchanges}`"),
            ));
        }
    }
}

/// An exchange list: not empty, each line's slots and conditions, `gist:`
/// only in topics and `dish:` only in staff orders.
fn exchange_problems(path: &Path, field: &str, x: &Exchanges, push: &dyn Fn(Diagnostic)) {
    if x.value.is_empty() {
        let mut d = Diagnostic::at(path, x, field, "no exchanges".into());
        d.hint = Some("add `- {say: …, replies: [ … ]}`".into());
        push(d);
    }
    let topic = field.starts_with("topics[");
    let orders = field.ends_with(".orders");
    for (k, e) in x.value.iter().enumerate() {
        let at = format!("{field}[{k}]");
        let line = Line {
            text: e.say.value.clone(),
            cond: e.cond.clone(),
        };
        line_problems(path, &e.say, &format!("{at}.say"), &line, push);
        for (name, given, allowed, hint) in [
            (
                "gist",
                e.gist.is_some(),
                topic,
                "`gist:` names what a topic's line was about",
            ),
            (
                "dish",
                e.dish.is_some(),
                orders,
                "`dish:` names what a staff order asks for",
            ),
        ] {
            if given && !allowed {
                let mut d = Diagnostic::at(
                    path,
                    &e.say,
                    &format!("{at}.{name}"),
                    format!("`{name}:` has no use here"),
                );
                d.hint = Some(hint.into());
                push(d);
            }
        }
    }
}

/// One line: its slots known, its conditions able to hold.
fn line_problems<T>(
    path: &Path,
    at: &Spanned<T>,
    field: &str,
    line: &Line,
    push: &dyn Fn(Diagnostic),
) {
    if let Some(slot) = unknown_slot(&line.text) {
        let msg = format!("unknown slot `{{{slot}}}`");
        let mut d = Diagnostic::at(path, at, field, msg);
        d.hint = Some(format!(
            "slots are {}",
            SLOTS.map(|s| format!("{{{s}}}")).join(" ")
        ));
        push(d);
    }
    if let Some(d) = never_holds(path, at, field, &line.cond) {
        push(d);
    }
}

/// Conditions that can never hold: a range written backwards.
fn never_holds<T>(path: &Path, at: &Spanned<T>, field: &str, c: &Cond) -> Option<Diagnostic> {
    let backwards =
        c.age.is_some_and(|[lo, hi]| lo > hi) || c.extraversion.is_some_and(|[lo, hi]| lo > hi);
    backwards.then(|| {
        let mut d = Diagnostic::at(
            path,
            at,
            &format!("{field}.if"),
            "a range whose least is above its most: it is never said".into(),
        );
        d.hint = Some("write ranges as [least, most]".into());
        d
    })
}

/// The first `{slot}` in `line` that is not one of [`SLOTS`].
fn unknown_slot(line: &str) -> Option<String> {
    let mut rest = line;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let slot = &after[..close];
        if !SLOTS.contains(&slot) {
            return Some(slot.to_string());
        }
        rest = &after[close + 1..];
    }
    None
}
