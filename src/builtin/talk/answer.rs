//! Answers: what the line before does decides the reply — one of its own
//! answers for a question, the serve that fits an order, a reaction for
//! news, comfort or an argument for a grumble, what one knows of a
//! gathering when asked whether one goes.

use super::{Speaker, orders, said};
use crate::scenario::WorkRole;
use crate::scenario::dialogue::{ExchangeList, ExchangeRef, Feeling, InviteAnswers, Lines, Recall};
use crate::scenario::{GatheringIdx, RelationKind};
use crate::sim::brain::Said;
use crate::sim::knowledge::About;
use crate::sim::residents::{ActivityKind, TalkOutcome};
use crate::sim::social::{Cue, InviteReason, Trigger};

/// A speaker this agreeable soothes a sharp word rather than walking off.
const SOOTHING: f32 = 70.0;
/// How much of one's temper is shown to family and close friends.
const DEAR_TEMPER: f32 = 0.15;

impl Speaker<'_, '_> {
    /// The answer `heard` calls for, if it calls for one.
    pub(super) fn answer(&self, heard: Cue) -> Option<Said> {
        let (cx, bank) = (self.cx, self.bank());
        let g = &bank.greetings;
        match heard {
            Cue::Greeting => self.answer_greeting(),
            Cue::Asked { x } => self.reply(x),
            Cue::Replied { x } if asks_back(cx.previous) => self.reply_back(x),
            Cue::StaffGreeting { role } => self.order(role),
            Cue::Usual { role } => self.take_usual(role),
            Cue::UsualTaken { role } => {
                let u = bank.staff.role(role).usual.as_ref()?;
                let dish = cx.listener.food.first()?;
                Some(said(
                    self.pick(&u.serve.value, 2, &[("dish", dish)])?,
                    Cue::Served,
                ))
            }
            Cue::Grumble { i } => self.meet_grumble(i as usize),
            Cue::Sigh { i } => self.meet_mood(bank.moods.sad.value.get(i as usize)?),
            Cue::Argue if cx.speaker.personality.agreeableness < SOOTHING => {
                let text = self.pick(&bank.moods.storm_off.value, 2, &[])?;
                Some(said(format!("{text}[END]"), Cue::StormOff))
            }
            Cue::Argue => Some(said(
                self.pick(&bank.moods.soothe.value, 2, &[])?,
                Cue::Soothe,
            )),
            Cue::News { about, first } => self.hear(&about, first),
            Cue::Shared { x, about } => {
                let e = bank.exchange(x)?;
                let slots = self.fact_slots(&about, cx.listener_idx);
                let slots: Vec<(&str, &str)> = slots
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                let text = self.pick(&e.replies.value, 2, &slots)?;
                Some(said(text, Cue::SharedBack { about }))
            }
            Cue::Recall { how } => {
                let b = &g.recall_back;
                let list = match how {
                    TalkOutcome::Argued if self.prickly() => &b.argued_cold,
                    TalkOutcome::Argued => &b.argued,
                    TalkOutcome::Down => &b.down,
                    TalkOutcome::Warm => &b.warm,
                    TalkOutcome::Plain => &b.plain,
                };
                Some(said(self.pick(&list.value, 2, &[])?, Cue::RecallBack))
            }
            Cue::Going { gathering } => self.going_reply(gathering),
            _ => None,
        }
    }

    /// Answering a greeting: as agreed at a meeting kept, with one's trade
    /// to one met for the first time, else in kind.
    fn answer_greeting(&self) -> Option<Said> {
        let (cx, g) = (self.cx, &self.bank().greetings);
        if cx.trigger == Trigger::Appointment {
            return self
                .pick(&g.appointment_back.value, 2, &[])
                .or_else(|| self.pick(&g.back.value, 2, &[]))
                .map(|text| said(text, Cue::Answer));
        }
        let introduced = cx.relation.is_none_or(|r| r.interactions == 0)
            && cx.relation.is_none_or(|r| r.kind == RelationKind::Stranger);
        if introduced && let Some(text) = self.pick(&g.first_back.value, 2, &[]) {
            let mut s = said(text, Cue::Answer);
            s.teaches = Some(About::Job {
                who: cx.speaker_idx,
            });
            return Some(s);
        }
        let met_today = cx
            .relation
            .and_then(|r| r.last_interaction.get())
            .is_some_and(|t| t.day_number() == cx.now.day_number());
        let again = met_today
            .then(|| self.pick(&g.again_back.value, 2, &[]))
            .flatten();
        Some(said(
            again.or_else(|| self.pick(&g.back.value, 2, &[]))?,
            Cue::Answer,
        ))
    }

    /// A regular offered its usual takes it, unless it has just eaten and
    /// the usual is a dish: then it declines and orders what fits.
    fn take_usual(&self, role: WorkRole) -> Option<Said> {
        let (cx, bank) = (self.cx, self.bank());
        let u = bank.staff.role(role).usual.as_ref()?;
        // A usual that fits now (tea after a meal) is taken.
        let usual = cx.speaker.food.first();
        let fits_now = bank
            .exchanges(orders(role))
            .iter()
            .any(|x| x.dish.as_ref() == usual && self.holds(&x.cond));
        if !fits_now
            && self.feels(Feeling::Full)
            && let Some(no) = self.pick(&u.decline.value, 2, &[])
            && let Some(mut instead) = self.order(role)
        {
            instead.text = format!("{no}{}", instead.text);
            return Some(instead);
        }
        Some(said(
            self.pick(&u.replies.value, 2, &[])?,
            Cue::UsualTaken { role },
        ))
    }

    /// One of the asked exchange's own answers.
    fn reply(&self, x: ExchangeRef) -> Option<Said> {
        let e = self.bank().exchange(x)?;
        let text = self.pick(&e.replies.value, 2, &[])?;
        let cue = match x.list {
            ExchangeList::Orders(_) => Cue::Served,
            _ => Cue::Replied { x },
        };
        let mut s = said(text, cue);
        // Naming one's favourite dish in talk tells the other one's taste.
        let dish = self.cx.speaker.food.first();
        let talk = matches!(x.list, ExchangeList::Topic(_));
        if talk && dish.is_some_and(|d| s.text.contains(d.as_str())) {
            s.teaches = Some(About::Food {
                who: self.cx.speaker_idx,
            });
        }
        Some(s)
    }

    /// The answer to a question asked back (「还行，你呢？」): a reply of the
    /// same exchange that fits the speaker, asking nothing more.
    fn reply_back(&self, x: ExchangeRef) -> Option<Said> {
        let e = self.bank().exchange(x)?;
        let text = self.pick(&e.replies.value, 2, &[])?;
        let text = match text.trim_end().strip_suffix("你呢？") {
            Some(rest) => format!("{}。", rest.trim_end_matches(['，', ','])),
            None => text,
        };
        Some(said(text, Cue::Answer))
    }

    /// A customer's answer to a staff greeting: one's favourite dish by
    /// name when the bank has it, else any order that fits.
    fn order(&self, role: WorkRole) -> Option<Said> {
        let cx = self.cx;
        let list = orders(role);
        let all = self.bank().exchanges(list);
        let mine = |x: &crate::scenario::dialogue::Exchange| {
            x.dish.as_ref().is_some_and(|d| cx.speaker.food.contains(d))
        };
        let favourite = all.iter().any(mine) && self.roll(19) < 0.7;
        // One come for a meal orders a dish, not just a drink.
        let dining = cx.doing == Some(ActivityKind::Eat);
        let dish = |x: &crate::scenario::dialogue::Exchange| {
            !dining || matches!(x.cond.feels, Some(Feeling::Appetite | Feeling::Hungry))
        };
        // A favourite that does not fit now (a dish after a meal) gives way.
        let (i, text) = favourite
            .then(|| self.pick_exchange(all, 2, &[], |x| mine(x) && dish(x)))
            .flatten()
            .or_else(|| self.pick_exchange(all, 2, &[], dish))
            .or_else(|| self.pick_exchange(all, 2, &[], |_| true))?;
        let x = ExchangeRef { list, i: i as u16 };
        let mut s = said(text, Cue::Asked { x });
        if all.get(i).is_some_and(mine) {
            s.teaches = Some(About::Food {
                who: cx.speaker_idx,
            });
        }
        Some(s)
    }

    /// Comfort, or from the prickly an argument.
    fn meet_grumble(&self, i: usize) -> Option<Said> {
        self.meet_mood(self.bank().moods.grumble.value.get(i)?)
    }

    /// A grumble or a sigh met: comfort, or from the prickly an argument.
    fn meet_mood(&self, x: &crate::scenario::dialogue::MoodExchange) -> Option<Said> {
        if self.prickly()
            && let Some(argue) = &x.argue
            && let Some(text) = self.pick(&argue.value, 2, &[])
        {
            return Some(said(text, Cue::Argue));
        }
        Some(said(self.pick(&x.comfort.value, 2, &[])?, Cue::Comfort))
    }

    /// 「…你去不去？」 answered by what one knows of the gathering: its
    /// organiser as host, else going (asked by others already: saying so),
    /// staying away, or news to it.
    fn going_reply(&self, gathering: GatheringIdx) -> Option<Said> {
        let (cx, r) = (self.cx, &self.bank().storylines.going_replies);
        let g = cx.words.gatherings.get(gathering.i())?;
        let known = cx.agenda.appointments.iter().find(|a| a.gathering == g.id);
        let about = crate::sim::knowledge::About::Gathering { gathering };
        let asked_before =
            (cx.knows.raised().iter()).any(|&(a, with)| a == about && with != cx.listener_idx);
        let list = if g.organiser == cx.speaker.id {
            &r.host
        } else {
            match known {
                Some(a) if a.will_attend && asked_before && !r.asked_again.value.is_empty() => {
                    &r.asked_again
                }
                Some(a) if a.will_attend => &r.going,
                Some(_) => &r.not_going,
                None => &r.new,
            }
        };
        Some(said(self.pick(&list.value, 2, &[])?, Cue::GoingReply))
    }

    /// Short-tempered now: low agreeableness, more so when worn out or
    /// among people one hardly knows. Family and close friends see it only
    /// from one worn out, and seldom then (a caring mother does not snap at
    /// her daughter over a sigh; a father back from a rested morning does not
    /// call his daughter's sleepless night nitpicking).
    pub(super) fn prickly(&self) -> bool {
        /// Agreeableness from which one does not argue unless worn out.
        const GOOD_NATURED: f32 = 65.0;
        let cx = self.cx;
        let worn = cx.needs.is_some_and(|n| n.energy < 35.0 || n.hunger < 30.0);
        let cool = cx.relation.is_none_or(|r| r.strength < 20.0);
        let dear = cx
            .relation
            .is_some_and(|r| r.kind == RelationKind::Family || r.strength >= super::CLOSE_TIE);
        // 「宜人的听者安慰」: a good-natured one snaps only when worn out.
        if (dear || cx.speaker.personality.agreeableness >= GOOD_NATURED) && !worn {
            return false;
        }
        let temper = (100.0 - cx.speaker.personality.agreeableness) / 100.0
            * (0.8 + if worn { 0.5 } else { 0.0 } + if cool { 0.3 } else { 0.0 })
            * if dear { DEAR_TEMPER } else { 1.0 };
        self.roll(3) < temper
    }
}

/// The openings for a last talk that went `how`.
pub(super) fn recall_lines(r: &Recall, how: TalkOutcome) -> &Lines {
    match how {
        TalkOutcome::Argued => &r.argued,
        TalkOutcome::Down => &r.down,
        TalkOutcome::Warm => &r.warm,
        TalkOutcome::Plain => &r.plain,
    }
}

/// The answers to an invitation given for `reason`.
pub(super) fn invite_answers(a: &InviteAnswers, reason: InviteReason) -> &Lines {
    match reason {
        InviteReason::Friend => &a.friend,
        InviteReason::Lively => &a.lively,
        InviteReason::Keen => &a.keen,
        InviteReason::Shift => &a.shift,
        InviteReason::Crowds => &a.crowds,
        InviteReason::Busy => &a.busy,
    }
}

/// Whether a line asks the same back (「吃过了，你呢？」).
fn asks_back(line: &str) -> bool {
    line.trim_end().ends_with("你呢？")
}
