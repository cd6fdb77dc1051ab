//! The built-in brain's conversation lines: a small dialogue model over the
//! scenario's phrase bank (`dialogue.yaml`). Every line carries what it
//! does (its [`Cue`]); the next speaker answers that — a greeting is
//! answered, a question gets one of its own answers, an order the serve
//! that fits it, news a reaction, a grumble comfort or an argument (by the
//! listener's temper), a sharp word a soothing one or a walk-out. A line's
//! conditions keep it true of whoever says it (a flute player speaks of the
//! flute, only the hungry grumble of hunger, 「好久不见」 only after days
//! apart), and what the speaker knows gives it something to say: news the
//! listener has not heard, an evening both were at, a meeting the other
//! missed. Forms of address follow the tie and age (爸, 月月, 钟叔), and
//! nobody says the same line twice in a day when the bank has another.

mod answer;
mod facts;
mod open;
mod pick;

use crate::scenario::dialogue::{ExchangeList, ExchangeRef};
use crate::scenario::{RelationKind, WorkRole};
use crate::sim::brain::{LineContext, Said};
use crate::sim::knowledge::news::{Side, news_for};
use crate::sim::social::spoken::line_hash;
use crate::sim::social::{Cue, Trigger};
use pick::Speaker;

/// A tie this strong lets close topics (心里话) come up.
const CLOSE_TIE: f32 = 60.0;
/// A tie this strong says goodbye as friends do.
const FRIENDLY_TIE: f32 = 45.0;
/// A tie this strong hears one's troubles.
const ACQUAINTED: f32 = 20.0;
/// The chance a new subject begins by calling the other by name.
const CALL_BY_NAME: f32 = 0.3;
/// Below this neuroticism one sighs over nothing only when worn out.
const SIGHING_NEUROTICISM: f32 = 40.0;
/// A topic carries on for at most this many exchanges in a row.
const TOPIC_RUN: usize = 2;
/// The chance that one going to a gathering brings it up in a new line.
const GOING_CHANCE: f32 = 0.3;
/// The chance that one with news tells it in a new line (more for the
/// sociable and the well-informed).
const NEWS_CHANCE: f32 = 0.3;
/// How much likelier one tells of one's own date than of other news.
const OWN_DATE_EAGERNESS: f32 = 0.35;

/// One line of a conversation. A closing line ends with `[END]`.
pub(super) fn conversation_line(cx: &LineContext<'_>) -> Said {
    // An invitation waits for its answer before anyone says goodbye, and
    // everyone who joined says something (not goodbye) before the talk ends.
    let mut heard: Vec<_> = cx.history.iter().map(|m| m.speaker).collect();
    let joined_now = cx.turn >= 2 && !heard.contains(&cx.speaker_idx);
    heard.push(cx.speaker_idx);
    heard.sort_unstable();
    heard.dedup();
    let all_heard = heard.len() >= 2 + cx.others.len();
    let closing = cx.turn >= 1
        && cx.turn + 1 >= cx.lines
        && cx.inviting.is_none()
        && all_heard
        && !joined_now;
    let speaker = Speaker::new(cx);
    let mut said = speaker.compose(closing);
    // One who has just joined says so first.
    if joined_now && let Some(hello) = speaker.pick(&speaker.bank().greetings.join.value, 21, &[]) {
        said.text = format!("{hello}{}", said.text);
    }
    if let Some(who) = cx.mention
        && !said.text.contains('@')
    {
        said.text = format!("@{who} {}", said.text);
    }
    if closing && !said.text.ends_with("[END]") {
        said.text.push_str("[END]");
    }
    said
}

/// A line and what it does.
fn said(text: String, cue: Cue) -> Said {
    Said {
        text,
        cue: Some(cue),
        teaches: None,
    }
}

impl Speaker<'_, '_> {
    /// The line for this turn.
    fn compose(&self, closing: bool) -> Said {
        if let Some(line) = self.storyline() {
            return line;
        }
        if self.cx.turn == 0 {
            return self.opening();
        }
        let heard = self.cx.history.last().and_then(|m| m.cue);
        let answer = heard.and_then(|cue| self.answer(cue));
        // A sharp word is not followed by a polite goodbye.
        let sharp = answer
            .as_ref()
            .is_some_and(|a| matches!(a.cue, Some(Cue::Argue | Cue::StormOff)));
        // A question is not followed by a goodbye: the other answers first.
        let asks = answer
            .as_ref()
            .is_some_and(|a| a.text.trim_end().ends_with(['？', '?']));
        match (answer, closing) {
            (Some(a), false) => a,
            (Some(a), true) if sharp || asks => a,
            (Some(mut a), true) => {
                a.text.push_str(&self.goodbye().text);
                a
            }
            (None, true) => self.goodbye(),
            (None, false) => self.new_line(),
        }
    }

    /// The answer to the last line, when its cue is one `wanted` answered
    /// before a storyline's own words; else nothing.
    fn answer_first(&self, wanted: impl Fn(&Cue) -> bool) -> String {
        self.cx
            .history
            .last()
            .and_then(|m| m.cue)
            .filter(wanted)
            .and_then(|c| self.answer(c))
            .map_or(String::new(), |a| a.text)
    }

    /// An invitation and its answer (yes or no, with the reason), a proposal
    /// to meet, its acceptance; a host's welcome and a guest's thanks.
    fn storyline(&self) -> Option<Said> {
        let (cx, st) = (self.cx, &self.bank().storylines);
        if let (Some(g), Some(place)) = (cx.inviting, cx.inviting_place) {
            let when = crate::sim::social::meetings::when_text(cx.now, g.starts);
            let slots = [
                ("when", when.as_str()),
                ("place", place),
                ("title", &g.title),
            ];
            let text = self.pick(&st.invite.value, 1, &slots)?;
            // What was asked is answered first (an order served), then the invitation.
            let first = self.answer_first(|c| c.awaits_answer() && cx.turn > 0);
            return Some(said(format!("{first}{text}"), Cue::Invite));
        }
        if let Some(reason) = cx.answering_invite {
            let list = answer::invite_answers(&st.answer_invite, reason);
            return Some(said(self.pick(&list.value, 1, &[])?, Cue::InviteAnswer));
        }
        if let Some((place, when)) = cx.proposing {
            let text = self.pick(&st.propose.value, 1, &[("place", place), ("when", when)])?;
            // 「挺好的，你呢？」 is answered before the proposal.
            let first = self.answer_first(|c| matches!(c, Cue::Replied { .. }));
            return Some(said(format!("{first}{text}"), Cue::Propose));
        }
        if let Some((place, when)) = cx.accepting {
            let text = self.pick(&st.accept.value, 1, &[("place", place), ("when", when)])?;
            return Some(said(text, Cue::Accept));
        }
        let g = cx.hosting?;
        let slots = [
            ("title", g.title.as_str()),
            ("place", cx.place.name.as_str()),
        ];
        if cx.turn == 0 {
            return Some(said(self.pick(&st.welcome.value, 1, &slots)?, Cue::Welcome));
        }
        let first_answer = cx.turn <= cx.others.len() as u32 + 1;
        let thanks = cx.listener.id == g.organiser && cx.speaker.id != g.organiser && first_answer;
        thanks
            .then(|| self.pick(&st.thank_host.value, 1, &slots))
            .flatten()
            .map(|t| said(t, Cue::ThankHost))
    }

    /// A new line: a mood, news, a gathering one is going to, else a topic
    /// (carried on, or a new one). Bad moods come from somewhere: low
    /// agreeableness, tiredness and hunger, a cool tie; sighs from neuroticism.
    fn new_line(&self) -> Said {
        let (cx, m) = (self.cx, &self.bank().moods);
        let me = &cx.speaker.personality;
        let worn = cx.needs.is_some_and(|n| n.energy < 35.0 || n.hunger < 30.0);
        let cool = cx.relation.is_none_or(|r| r.strength < 30.0);
        let temper = (100.0 - me.agreeableness) / 100.0
            * (0.35 + if worn { 0.45 } else { 0.0 } + if cool { 0.15 } else { 0.0 });
        // One does not pour out one's troubles to a stranger.
        let known = cx.relation.is_some_and(|r| r.strength >= ACQUAINTED);
        let mood = self.roll(4);
        if known
            && mood < temper
            && let Some((i, text)) = self.pick_mood(&m.grumble.value, 5)
        {
            return said(text, Cue::Grumble { i: i as u16 });
        }
        // The even-tempered sigh only when worn out.
        let sighs = worn || me.neuroticism >= SIGHING_NEUROTICISM;
        if known
            && sighs
            && mood > 1.0 - me.neuroticism / 100.0 * 0.25
            && let Some((i, text)) = self.pick_mood(&m.sad.value, 5)
        {
            return said(text, Cue::Sigh { i: i as u16 });
        }
        if let Some(line) = self.news() {
            return line;
        }
        if let Some(line) = self.going() {
            return line;
        }
        self.topic_line()
    }

    /// A grumble or sigh whose conditions hold: its index and its line.
    fn pick_mood(
        &self,
        list: &[crate::scenario::dialogue::MoodExchange],
        salt: u64,
    ) -> Option<(usize, String)> {
        // A sigh said lately (or in this talk) is not sighed again: 「唉，天一黑
        // 心里就没着没落的」 twice in an evening sounds like a machine — nor,
        // while another fits, one the town has heard today from someone else.
        let town = &self.cx.town_spoken;
        let lines = |unheard: bool| -> Vec<crate::scenario::dialogue::Line> {
            list.iter()
                .filter(|x| !self.used(&x.say.value))
                .filter(|x| !unheard || town.heard_today(line_hash(&x.say.value)) == 0)
                .map(|x| crate::scenario::dialogue::Line {
                    text: x.say.value.clone(),
                    cond: x.cond.clone(),
                })
                .collect()
        };
        let text =
            (self.pick(&lines(true), salt, &[])).or_else(|| self.pick(&lines(false), salt, &[]))?;
        let i = list.iter().position(|x| x.say.value == text)?;
        Some((i, text))
    }

    /// News the listener has not heard, now and then.
    fn news(&self) -> Option<Said> {
        let cx = self.cx;
        let me = Side {
            idx: cx.speaker_idx,
            knows: cx.knows,
        };
        let you = Side {
            idx: cx.listener_idx,
            knows: cx.listener_knows,
        };
        let fact = news_for(
            me,
            (you, cx.listener_ties),
            cx.now,
            cx.words.gatherings,
            cx.earshot,
        )?;
        // One piece of trivia about someone's habits a talk: three in a row
        // (石松 picks mushrooms, sharpens axes, brings herbs) is a recital.
        let hobby = |a: &crate::sim::knowledge::About| {
            matches!(a, crate::sim::knowledge::About::Hobby { .. })
        };
        let trivia_told = cx
            .history
            .iter()
            .any(|m| matches!(&m.cue, Some(Cue::News { about, .. }) if hobby(about)));
        if trivia_told && hobby(&fact.about) {
            return None;
        }
        let chatty = (cx.speaker.personality.extraversion / 100.0) * 0.2
            + if cx.speaker.has_word("消息灵通") {
                0.3
            } else {
                0.0
            };
        // One's own date is on one's mind for a day or two: told readily.
        let own_date = matches!(fact.about, crate::sim::knowledge::About::Date { .. })
            && fact.about.people().contains(&cx.speaker_idx);
        let eager = if own_date { OWN_DATE_EAGERNESS } else { 0.0 };
        if self.roll(12) >= NEWS_CHANCE + chatty + eager {
            return None;
        }
        self.tell(&fact.about)
    }

    /// The gathering one is going to, told once per conversation, now and then,
    /// and not to one it was talked over with already.
    fn going(&self) -> Option<Said> {
        let cx = self.cx;
        let (g, place) = cx.upcoming.filter(|(g, _)| g.organiser != cx.listener.id)?;
        let about = crate::sim::knowledge::About::Gathering { gathering: g.id };
        // Not asked of the one who told the speaker of it: they are going.
        let told_by_them = cx.knows.get(&about).is_some_and(|f| {
            matches!(f.source, crate::sim::knowledge::Source::Told { by, .. } if by == cx.listener_idx)
        });
        if told_by_them || cx.knows.raised_with(&about, cx.listener_idx) {
            return None;
        }
        let told = cx
            .history
            .iter()
            .any(|m| matches!(m.cue, Some(Cue::Going { .. } | Cue::News { .. })));
        if told || self.roll(9) >= GOING_CHANCE {
            return None;
        }
        let when = crate::sim::social::meetings::when_text(cx.now, g.starts);
        let slots = [
            ("when", when.as_str()),
            ("place", place),
            ("title", &g.title),
        ];
        let text = self.pick(&self.bank().storylines.going.value, 9, &slots)?;
        Some(said(text, Cue::Going { gathering: g.id }))
    }

    /// A topic's line: the one under way while it has run for fewer than
    /// [`TOPIC_RUN`] exchanges, else one that fits the two and the place.
    fn topic_line(&self) -> Said {
        let current = self.current_topic().0;
        for t in self.topic_order() {
            let list = &self.bank().topics[t].exchanges.value;
            let label: &str = &self.bank().topics[t].label;
            let fresh = |x: &crate::scenario::dialogue::Exchange| !self.used(&x.say.value);
            if let Some((i, text)) = self.pick_exchange(list, 6, &[("topic", label)], fresh) {
                let x = ExchangeRef {
                    list: ExchangeList::Topic(t as u16),
                    i: i as u16,
                };
                let text = match Some(t) == current {
                    true => text,
                    false => self.turning_to(text),
                };
                return said(text, Cue::Asked { x });
            }
        }
        // Everything fitting said today: a goodbye rather than a repeat.
        self.goodbye()
    }

    /// A new subject now and then begins by calling the other by name (老李，…),
    /// among people who know each other.
    fn turning_to(&self, text: String) -> String {
        let cx = self.cx;
        let known = cx.relation.is_some_and(|r| r.strength >= ACQUAINTED);
        if !known || cx.mention.is_some() || self.roll(20) >= CALL_BY_NAME {
            return text;
        }
        let you = crate::builtin::address::address(&self.bank().address, cx);
        if text.starts_with(you.as_str()) {
            return text;
        }
        format!("{you}，{text}")
    }

    /// Topics in the order to try: the one under way (while it runs), then
    /// the fitting ones by a weighted draw, then the rest.
    fn topic_order(&self) -> Vec<usize> {
        let (cx, bank) = (self.cx, self.bank());
        let (current, run) = self.current_topic();
        let mut scored: Vec<(f32, usize)> = Vec::new();
        for (i, t) in bank.topics.iter().enumerate() {
            let closed = t.close && cx.relation.is_none_or(|r| r.strength < CLOSE_TIE);
            if closed || !(t.cond.is_always() || self.holds(&t.cond)) {
                continue;
            }
            let mine = t.interests.iter().any(|x| cx.speaker.topics.contains(x));
            let theirs = t.interests.iter().any(|x| cx.listener.topics.contains(x));
            let here = t.places.contains(&cx.place.kind);
            let anywhere = t.interests.is_empty() && t.places.is_empty();
            let weight = 3.0 * f32::from(u8::from(mine && theirs))
                + 2.0 * f32::from(u8::from(mine))
                + 1.5 * f32::from(u8::from(here))
                + f32::from(u8::from(anywhere || theirs));
            if Some(i) == current && run < TOPIC_RUN {
                scored.push((f32::MAX, i));
            } else if Some(i) != current {
                // A weighted draw: the larger the weight, the likelier first;
                // topics of no weight come last, in bank order.
                let draw = if weight > 0.0 {
                    self.roll(10 + i as u64).max(1e-6).powf(1.0 / weight)
                } else {
                    -1.0
                };
                scored.push((draw, i));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, i)| i).collect()
    }

    /// The topic of the latest topic line in this conversation, and how many
    /// of its exchanges have been opened in a row; an opening that brought
    /// up the last talk starts its subject.
    fn current_topic(&self) -> (Option<usize>, usize) {
        let topic_of = |cue: Option<Cue>| match cue {
            Some(Cue::Asked { x }) => match x.list {
                ExchangeList::Topic(t) => Some(t as usize),
                _ => None,
            },
            _ => None,
        };
        let mut current = None;
        let mut run = 0;
        for m in self.cx.history.iter().rev() {
            match (topic_of(m.cue), current) {
                (Some(t), None) => {
                    current = Some(t);
                    run = 1;
                }
                (Some(t), Some(c)) if t == c => run += 1,
                (Some(_), Some(_)) => break,
                (None, _) => {}
            }
        }
        if current.is_none() {
            let recalled = matches!(
                self.cx.history.first().and_then(|m| m.cue),
                Some(Cue::Recall { .. })
            );
            let last = self.cx.relation.and_then(|r| r.last_talk.as_deref());
            if let Some(last) = last.filter(|_| recalled) {
                current = self
                    .bank()
                    .topics
                    .iter()
                    .position(|t| t.label == last.subject);
            }
        }
        (current, run)
    }

    /// A goodbye that fits: staff, family, friends, everyone else.
    fn goodbye(&self) -> Said {
        let (cx, c) = (self.cx, &self.bank().closings);
        let kind = cx.relation.map_or(RelationKind::Stranger, |r| r.kind);
        // Whether one works where they talk, and in a role that greets: a
        // smith served at the tavern is a customer there, and staff do not
        // see a colleague off as a customer.
        let here = |p: &crate::scenario::Profile| {
            p.work
                .as_ref()
                .filter(|w| cx.words.town.id(w.place) == &cx.place.id)
                .map(|w| w.role.is_some())
        };
        let (mine, theirs) = (here(cx.speaker), here(cx.listener));
        let work = cx.trigger == Trigger::Work;
        let staff_here = work && mine == Some(true) && theirs.is_none();
        // Served, a customer stays to eat or read: no hurrying off.
        let customer = work && mine.is_none() && !c.customer.value.is_empty();
        let list = if staff_here {
            &c.staff
        } else if customer {
            &c.customer
        } else if kind == RelationKind::Family {
            &c.family
        } else if cx.relation.is_some_and(|r| r.strength >= FRIENDLY_TIE) {
            &c.friend
        } else {
            &c.stranger
        };
        let text = self
            .pick(&list.value, 8, &[])
            .or_else(|| self.pick(&c.answer.value, 8, &[]))
            .unwrap_or_default();
        said(text, Cue::Goodbye)
    }
}

/// The staff exchange of a role, by its cue's role.
fn orders(role: WorkRole) -> ExchangeList {
    ExchangeList::Orders(role)
}
