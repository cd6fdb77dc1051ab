//! The built-in brain's conversation lines: a small dialogue model over the
//! scenario's phrase bank (`dialogue.yaml`). What was just said decides what
//! comes next — a greeting is answered, a question gets an answer, news a
//! reaction, a grumble comfort or an argument (by the listener's temper), a
//! sharp word a soothing one or a walk-out — a topic carries on for a couple
//! of exchanges, and openings and goodbyes fit the tie, the place and the
//! occasion. Forms of address follow the tie and age (爸, 月月, 钟叔), and
//! nobody says the same line twice in a day when the bank has another.

use super::address::address;
use crate::scenario::dialogue::{
    Exchange, InviteAnswers, Lines, MoodExchange, Recall, fits, without_mention,
};
use crate::scenario::{PhraseBank, Profile, RelationKind, WorkRole};
use crate::sim::brain::LineContext;
use crate::sim::residents::TalkOutcome;
use crate::sim::social::spoken::line_hash;
use crate::sim::social::{InviteReason, Trigger};

/// A tie this strong lets close topics (心里话) come up.
const CLOSE_TIE: f32 = 60.0;
/// A tie this strong says goodbye as friends do.
const FRIENDLY_TIE: f32 = 45.0;
/// A topic carries on for at most this many exchanges in a row.
const TOPIC_RUN: usize = 2;
/// The chance that one going to a gathering brings it up in a new line.
const NEWS_CHANCE: f32 = 0.3;
/// The chance an opening brings up the last talk (on an earlier day)…
const RECALL_CHANCE: f32 = 0.4;
/// …and after a quarrel.
const RECALL_QUARREL_CHANCE: f32 = 0.7;

/// One line of a conversation. A closing line ends with `[END]`.
pub(super) fn conversation_line(cx: &LineContext<'_>) -> String {
    // An invitation waits for its answer before anyone says goodbye.
    let closing = cx.turn >= 1 && cx.turn + 1 >= cx.lines && cx.inviting.is_none();
    let speaker = Speaker { cx };
    let mut line = speaker.compose(closing);
    if let Some(who) = cx.mention
        && !line.contains('@')
    {
        line = format!("@{who} {line}");
    }
    if closing && !line.ends_with("[END]") {
        line.push_str("[END]");
    }
    line
}

/// What the line before was, as the bank knows it.
#[derive(Debug, Clone, Copy)]
enum Heard<'b> {
    /// The conversation's opening greeting.
    Greeting,
    /// A staff member's greeting in this role…
    StaffGreeting(WorkRole),
    /// …and the customer's answer to it.
    Order(WorkRole),
    /// A topic's line, awaiting its replies.
    Said(&'b Exchange),
    /// A reply in a topic.
    Replied,
    /// A grumble or a sigh.
    Mood(&'b MoodExchange, bool),
    /// A sharp answer to a grumble: an argument.
    Sharp,
    /// News of a gathering the other is going to.
    Going,
    /// An opening that brought up the last talk, which went this way.
    Recalled(TalkOutcome),
    /// Anything else (a model's line, a closing, a soothing word).
    Other,
}

struct Speaker<'a, 'c> {
    cx: &'a LineContext<'c>,
}

impl Speaker<'_, '_> {
    fn bank(&self) -> &PhraseBank {
        self.cx.phrases
    }

    /// A deterministic draw in 0..1 for this speaker, moment, turn and purpose.
    fn roll(&self, salt: u64) -> f32 {
        let cx = self.cx;
        super::roll(
            cx.seed,
            cx.speaker.id.as_str(),
            cx.now.0,
            cx.turn as u64 * 64 + salt,
        )
    }

    /// The line for this turn.
    fn compose(&self, closing: bool) -> String {
        if let Some(line) = self.storyline() {
            return line;
        }
        if self.cx.turn == 0 {
            return self.opening();
        }
        let heard = self.heard();
        let answer = self.answer(heard);
        // A sharp word is not followed by a polite goodbye.
        let sharp = matches!(heard, Heard::Sharp)
            || matches!(heard, Heard::Mood(x, true) if answer.as_ref().is_some_and(|a| x.argue.contains(a)));
        match (answer, closing) {
            (Some(a), false) => a,
            (Some(a), true) if sharp => a,
            (Some(a), true) => format!("{a}{}", self.goodbye()),
            (None, true) => self.goodbye(),
            (None, false) => self.new_line(),
        }
    }

    /// An invitation and its answer (yes or no, with the reason), a proposal
    /// to meet, its acceptance; a host's welcome and a guest's thanks.
    fn storyline(&self) -> Option<String> {
        let (cx, st) = (self.cx, &self.bank().storylines);
        if let (Some(g), Some(place)) = (cx.inviting, cx.inviting_place) {
            let when = crate::sim::social::meetings::when_text(cx.now, g.starts);
            let slots = [
                ("when", when.as_str()),
                ("place", place),
                ("title", &g.title),
            ];
            return Some(self.pick(&st.invite, 1, &slots));
        }
        if let Some(reason) = cx.answering_invite {
            return Some(self.pick(answer_lines(&st.answer_invite, reason), 1, &[]));
        }
        if let Some((place, when)) = cx.proposing {
            return Some(self.pick(&st.propose, 1, &[("place", place), ("when", when)]));
        }
        if let Some((place, when)) = cx.accepting {
            return Some(self.pick(&st.accept, 1, &[("place", place), ("when", when)]));
        }
        let g = cx.hosting?;
        let slots = [
            ("title", g.title.as_str()),
            ("place", cx.place.name.as_str()),
        ];
        if cx.turn == 0 {
            return Some(self.pick(&st.welcome, 1, &slots));
        }
        let first_answer = cx.turn <= cx.others.len() as u32 + 1;
        (cx.listener.id == g.organiser && first_answer)
            .then(|| self.pick(&st.thank_host, 1, &slots))
    }

    /// The first line: staff greet in their role; meetings as agreed,
    /// family, first meetings, chance meetings and the rest by the tie.
    fn opening(&self) -> String {
        let (cx, g) = (self.cx, &self.bank().greetings);
        if let Some(role) = cx.role {
            return self.pick(&staff(self.bank(), role).greet, 1, &[]);
        }
        let kind = cx.relation.map_or(RelationKind::Stranger, |r| r.kind);
        let strength = cx.relation.map_or(0.0, |r| r.strength);
        let met_today = cx
            .relation
            .and_then(|r| r.last_interaction)
            .is_some_and(|t| t.day_number() == cx.now.day_number());
        let chance = cx.trigger == Trigger::Proximity && !met_today && !cx.at_work;
        if cx.trigger != Trigger::Appointment
            && let Some(line) = self.recall()
        {
            return line;
        }
        let list = match kind {
            _ if cx.trigger == Trigger::Appointment => &g.appointment,
            RelationKind::Family => &g.family,
            RelationKind::Stranger if cx.relation.is_none_or(|r| r.interactions == 0) => &g.first,
            _ if chance && self.roll(7) < 0.5 => &g.chance,
            RelationKind::Stranger => &g.stranger,
            _ if strength >= FRIENDLY_TIE => &g.friend,
            _ => &g.acquaintance,
        };
        self.pick(list, 1, &[])
    }

    /// Now and then, an opening that brings up the last talk, when it was
    /// on an earlier day (a quarrel more often: one wants to make up).
    fn recall(&self) -> Option<String> {
        let cx = self.cx;
        let r = cx.relation?;
        let last = r.last_talk.as_ref()?;
        let earlier = r
            .last_interaction
            .is_some_and(|t| t.day_number() < cx.now.day_number());
        let chance = match last.outcome {
            TalkOutcome::Argued => RECALL_QUARREL_CHANCE,
            _ => RECALL_CHANCE,
        };
        if !earlier || self.roll(11) >= chance {
            return None;
        }
        let list = recall_lines(&self.bank().greetings.recall, last.outcome);
        Some(self.pick(list, 1, &[("topic", last.subject.as_str())]))
    }

    /// What the line before was.
    fn heard(&self) -> Heard<'_> {
        let cx = self.cx;
        let prev = without_mention(cx.previous);
        let bank = self.bank();
        if cx.trigger == Trigger::Work && cx.turn <= 2 {
            let role = |p: &Profile| p.work.as_ref().and_then(|w| w.role);
            match cx.turn {
                1 => return role(cx.listener).map_or(Heard::Greeting, Heard::StaffGreeting),
                _ => {
                    if let Some(r) = role(cx.speaker) {
                        return Heard::Order(r);
                    }
                }
            }
        }
        if cx.turn == 1 && cx.hosting.is_none() {
            return self.recalled(prev).unwrap_or(Heard::Greeting);
        }
        for t in &bank.topics {
            for x in &t.exchanges.value {
                if x.say.value == prev {
                    return Heard::Said(x);
                }
                if x.replies.value.iter().any(|r| r == prev) {
                    return Heard::Replied;
                }
            }
        }
        let m = &bank.moods;
        for (list, grumble) in [(&m.grumble, true), (&m.sad, false)] {
            if let Some(x) = list.value.iter().find(|x| x.say.value == prev) {
                return Heard::Mood(x, grumble);
            }
        }
        if m.grumble
            .value
            .iter()
            .any(|x| x.argue.iter().any(|a| a == prev))
        {
            return Heard::Sharp;
        }
        if bank.storylines.going.value.iter().any(|t| fits(t, prev)) {
            return Heard::Going;
        }
        Heard::Other
    }

    /// The opening `prev` brought up the last talk: how it went.
    fn recalled(&self, prev: &str) -> Option<Heard<'_>> {
        let r = &self.bank().greetings.recall;
        [
            TalkOutcome::Argued,
            TalkOutcome::Down,
            TalkOutcome::Warm,
            TalkOutcome::Plain,
        ]
        .into_iter()
        .find(|&how| recall_lines(r, how).value.iter().any(|t| fits(t, prev)))
        .map(Heard::Recalled)
    }

    /// The answer the line before calls for, if it calls for one.
    fn answer(&self, heard: Heard) -> Option<String> {
        let (cx, bank) = (self.cx, self.bank());
        let me = &cx.speaker.personality;
        Some(match heard {
            Heard::Greeting if cx.relation.is_some_and(|r| r.kind == RelationKind::Family) => {
                self.pick(&bank.greetings.back_family, 2, &[])
            }
            Heard::Greeting => self.pick(&bank.greetings.back, 2, &[]),
            Heard::StaffGreeting(role) => self.pick(&staff(bank, role).reply, 2, &[]),
            Heard::Order(role) => self.pick(&staff(bank, role).serve, 2, &[]),
            Heard::Said(x) => self.pick(&x.replies, 2, &[]),
            Heard::Mood(x, true) if self.prickly() && !x.argue.is_empty() => {
                let i = ((self.roll(2) * x.argue.len() as f32) as usize).min(x.argue.len() - 1);
                x.argue[i].clone()
            }
            Heard::Mood(x, _) => self.pick(&x.comfort, 2, &[]),
            Heard::Sharp if me.agreeableness < 70.0 => {
                format!("{}[END]", self.pick(&bank.moods.storm_off, 2, &[]))
            }
            Heard::Sharp => self.pick(&bank.moods.soothe, 2, &[]),
            Heard::Going => self.pick(&bank.storylines.going_replies, 2, &[]),
            Heard::Recalled(how) => {
                let b = &bank.greetings.recall_back;
                let list = match how {
                    TalkOutcome::Argued if self.prickly() => &b.argued_cold,
                    TalkOutcome::Argued => &b.argued,
                    TalkOutcome::Down => &b.down,
                    TalkOutcome::Warm => &b.warm,
                    TalkOutcome::Plain => &b.plain,
                };
                self.pick(list, 2, &[])
            }
            Heard::Replied | Heard::Other => return None,
        })
    }

    /// Short-tempered now: low agreeableness, more so when worn out or
    /// among people one hardly knows.
    fn prickly(&self) -> bool {
        let cx = self.cx;
        let worn = cx.needs.is_some_and(|n| n.energy < 35.0 || n.hunger < 30.0);
        let cool = cx.relation.is_none_or(|r| r.strength < 20.0);
        let temper = (100.0 - cx.speaker.personality.agreeableness) / 100.0
            * (0.8 + if worn { 0.5 } else { 0.0 } + if cool { 0.3 } else { 0.0 });
        self.roll(3) < temper
    }

    /// A new line: a mood, else the topic carried on, else a new one. Bad
    /// moods come from somewhere: low agreeableness, tiredness and hunger,
    /// a tie that is cool; sighs from neuroticism.
    fn new_line(&self) -> String {
        let (cx, m) = (self.cx, &self.bank().moods);
        let me = &cx.speaker.personality;
        let worn = cx.needs.is_some_and(|n| n.energy < 35.0 || n.hunger < 30.0);
        let cool = cx.relation.is_none_or(|r| r.strength < 30.0);
        let temper = (100.0 - me.agreeableness) / 100.0
            * (0.5 + if worn { 0.5 } else { 0.0 } + if cool { 0.2 } else { 0.0 });
        let mood = self.roll(4);
        if mood < temper {
            return self.pick_mood(&m.grumble.value, 5);
        }
        if mood > 1.0 - me.neuroticism / 100.0 * 0.25 {
            return self.pick_mood(&m.sad.value, 5);
        }
        if let Some(line) = self.news_of_gathering() {
            return line;
        }
        self.topic_line()
    }

    /// The gathering one is going to, told once per conversation, now and then.
    fn news_of_gathering(&self) -> Option<String> {
        let (cx, going) = (self.cx, &self.bank().storylines.going);
        let (g, place) = cx.upcoming.filter(|(g, _)| g.organiser != cx.listener.id)?;
        let told = cx.history.iter().any(|m| {
            going
                .value
                .iter()
                .any(|t| fits(t, without_mention(&m.text)))
        });
        if told || self.roll(9) >= NEWS_CHANCE {
            return None;
        }
        let when = crate::sim::social::meetings::when_text(cx.now, g.starts);
        let slots = [
            ("when", when.as_str()),
            ("place", place),
            ("title", &g.title),
        ];
        Some(self.pick(going, 9, &slots))
    }

    fn pick_mood(&self, list: &[MoodExchange], salt: u64) -> String {
        let says: Vec<String> = list.iter().map(|x| x.say.value.clone()).collect();
        self.fresh(&says, salt, &[])
    }

    /// A topic's line: the one under way while it has run for fewer than
    /// [`TOPIC_RUN`] exchanges, else one that fits the two and the place.
    fn topic_line(&self) -> String {
        let bank = self.bank();
        let order = self.topic_order();
        for t in order {
            let says: Vec<String> = bank.topics[t]
                .exchanges
                .value
                .iter()
                .map(|x| x.say.value.clone())
                .filter(|s| !self.used(s))
                .collect();
            if !says.is_empty() {
                let label = bank.topics[t].label.as_str();
                return self.fresh(&says, 6, &[("topic", label)]);
            }
        }
        // Everything said today: the first fitting topic's lines again.
        let t = self.topic_order().first().copied().unwrap_or(0);
        let says: Vec<String> = bank.topics[t]
            .exchanges
            .value
            .iter()
            .map(|x| x.say.value.clone())
            .collect();
        self.fresh(&says, 6, &[])
    }

    /// Topics in the order to try: the one under way (while it runs), then
    /// the fitting ones by a weighted draw, then the rest.
    fn topic_order(&self) -> Vec<usize> {
        let (cx, bank) = (self.cx, self.bank());
        let (current, run) = self.current_topic();
        let mut scored: Vec<(f32, usize)> = Vec::new();
        for (i, t) in bank.topics.iter().enumerate() {
            if t.close && cx.relation.is_none_or(|r| r.strength < CLOSE_TIE) {
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
            } else if weight > 0.0 && Some(i) != current {
                // A weighted draw: the larger the weight, the likelier first.
                let draw = self.roll(10 + i as u64).max(1e-6).powf(1.0 / weight);
                scored.push((draw, i));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, i)| i).collect()
    }

    /// The topic of the latest topic line in this conversation, and how many
    /// of its exchanges have been opened in a row.
    fn current_topic(&self) -> (Option<usize>, usize) {
        let bank = self.bank();
        let topic_of = |text: &str| {
            let text = without_mention(text);
            bank.topics
                .iter()
                .position(|t| t.exchanges.value.iter().any(|x| x.say.value == text))
        };
        let mut current = None;
        let mut run = 0;
        for m in self.cx.history.iter().rev() {
            match (topic_of(&m.text), current) {
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
            // An opening that brought up the last talk takes up its subject.
            let opening = self.cx.history.first().map(|m| without_mention(&m.text));
            let recalled = opening.is_some_and(|o| self.recalled(o).is_some());
            let subject = self.cx.relation.and_then(|r| r.last_talk.as_ref());
            if let Some(last) = subject.filter(|_| recalled) {
                current = bank.topics.iter().position(|t| t.label == last.subject);
            }
        }
        (current, run)
    }

    /// A goodbye that fits: staff, family, friends, everyone else.
    fn goodbye(&self) -> String {
        let (cx, c) = (self.cx, &self.bank().closings);
        let kind = cx.relation.map_or(RelationKind::Stranger, |r| r.kind);
        let staff_here = cx.trigger == Trigger::Work
            && cx.speaker.work.as_ref().is_some_and(|w| w.role.is_some());
        let list = if staff_here {
            &c.staff
        } else if kind == RelationKind::Family {
            &c.family
        } else if cx.relation.is_some_and(|r| r.strength >= FRIENDLY_TIE) {
            &c.friend
        } else {
            &c.stranger
        };
        self.pick(list, 8, &[])
    }

    /// A line of `list`, its slots filled, one not said today if there is one.
    fn pick(&self, list: &Lines, salt: u64, extra: &[(&str, &str)]) -> String {
        self.fresh(&list.value, salt, extra)
    }

    fn fresh(&self, templates: &[String], salt: u64, extra: &[(&str, &str)]) -> String {
        // A line that names one of the two speaks of them in the third person
        // ("八成是林小溪……"): not to their face, unless nothing else is left.
        let (me, you) = (&self.cx.speaker.name, &self.cx.listener.name);
        let aside = |t: &&String| !t.contains(me.as_str()) && !t.contains(you.as_str());
        let fitting: Vec<&String> = templates.iter().filter(aside).collect();
        let templates: Vec<&String> = if fitting.is_empty() {
            templates.iter().collect()
        } else {
            fitting
        };
        let filled: Vec<String> = templates.iter().map(|t| self.fill(t, extra)).collect();
        let unused: Vec<&String> = filled.iter().filter(|l| !self.used(l)).collect();
        let from: Vec<&String> = if unused.is_empty() {
            filled.iter().collect()
        } else {
            unused
        };
        if from.is_empty() {
            return String::new();
        }
        let i = ((self.roll(salt) * from.len() as f32) as usize).min(from.len() - 1);
        from[i].clone()
    }

    /// Said already: lately by the speaker, or by anyone in this conversation.
    fn used(&self, line: &str) -> bool {
        let cx = self.cx;
        let hash = line_hash(line);
        cx.spoken.iter().any(|&(_, h)| h == hash)
            || cx.history.iter().any(|m| without_mention(&m.text) == line)
    }

    fn fill(&self, template: &str, extra: &[(&str, &str)]) -> String {
        let cx = self.cx;
        let you = address(&self.bank().address, cx);
        // The line's own values first: the first match fills a slot (an
        // invitation's place is the gathering's, not where they talk).
        let mut slots = extra.to_vec();
        slots.extend_from_slice(&[
            ("you", you.as_str()),
            ("me", cx.speaker.name.as_str()),
            ("place", cx.place.name.as_str()),
            ("period", cx.now.period()),
            ("job", cx.speaker.occupation.as_str()),
        ]);
        super::speech::fill(template, &slots)
    }
}

/// The openings for a last talk that went `how`.
fn recall_lines(r: &Recall, how: TalkOutcome) -> &Lines {
    match how {
        TalkOutcome::Argued => &r.argued,
        TalkOutcome::Down => &r.down,
        TalkOutcome::Warm => &r.warm,
        TalkOutcome::Plain => &r.plain,
    }
}

/// The answers to an invitation given for `reason`.
fn answer_lines(a: &InviteAnswers, reason: InviteReason) -> &Lines {
    match reason {
        InviteReason::Friend => &a.friend,
        InviteReason::Lively => &a.lively,
        InviteReason::Keen => &a.keen,
        InviteReason::Shift => &a.shift,
        InviteReason::Crowds => &a.crowds,
        InviteReason::Busy => &a.busy,
    }
}

/// The staff exchange of a role.
fn staff(bank: &PhraseBank, role: WorkRole) -> &crate::scenario::dialogue::StaffRole {
    match role {
        WorkRole::Waiter => &bank.staff.waiter,
        WorkRole::Teacher => &bank.staff.teacher,
        WorkRole::Seller => &bank.staff.seller,
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::dialogue::{fits, without_mention};
    // Both live with the phrase bank; tested here, where they are used.

    #[test]
    fn a_filled_line_fits_its_template() {
        let t = "{title}就在{when}，我打算去凑个热闹，你呢？";
        assert!(fits(
            t,
            "心谷联谊会就在后天傍晚六点，我打算去凑个热闹，你呢？"
        ));
        assert!(!fits(t, "心谷联谊会就在后天傍晚六点。"));
        assert!(fits("看到告示了吗？{when}", "看到告示了吗？明天"));
        assert!(
            !fits("{you}", "anything"),
            "a template of slots only fits nothing"
        );
        assert_eq!(without_mention("@阿朵 早！"), "早！");
        assert_eq!(without_mention("早！"), "早！");
    }
}
