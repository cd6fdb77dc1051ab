//! The first line of a conversation: staff greet in their role (a regular
//! is offered its usual), meetings as agreed; otherwise what the two lived
//! lately comes first (a meeting the other missed, an evening both were
//! at), then the last talk, then a greeting by the tie — family and friends
//! may ask after each other.

use super::{Speaker, said};
use crate::scenario::RelationKind;
use crate::scenario::dialogue::{ExchangeList, ExchangeRef, SharedKind};
use crate::sim::brain::Said;
use crate::sim::knowledge::About;
use crate::sim::knowledge::news::{Side, shared_with};
use crate::sim::residents::TalkOutcome;
use crate::sim::social::{Cue, Trigger};

/// The chance an opening brings up the last talk (on an earlier day)…
const RECALL_CHANCE: f32 = 0.4;
/// …and after a quarrel.
const RECALL_QUARREL_CHANCE: f32 = 0.7;
/// The chance an opening brings up what the two lived lately…
const SHARED_CHANCE: f32 = 0.75;
/// …and a meeting the other did not come to.
const GRUDGE_CHANCE: f32 = 0.9;
/// The chance a staff member offers a regular the usual.
const USUAL_CHANCE: f32 = 0.6;
/// The chance acquaintances and friends open by asking after each other.
const ASK_CHANCE: f32 = 0.35;

impl Speaker<'_, '_> {
    /// The first line.
    pub(super) fn opening(&self) -> Said {
        let cx = self.cx;
        if let Some(role) = cx.role {
            return self.staff_greeting(role);
        }
        let g = &self.bank().greetings;
        if cx.trigger == Trigger::Appointment
            && let Some(text) = self.pick(&g.appointment.value, 1, &[])
        {
            return said(text, Cue::Greeting);
        }
        if let Some(line) = self.shared().or_else(|| self.recall()) {
            return line;
        }
        self.greeting()
    }

    /// A staff member's greeting: the usual, for a regular whose taste it knows.
    fn staff_greeting(&self, role: crate::scenario::WorkRole) -> Said {
        let cx = self.cx;
        let staff = self.bank().staff.role(role);
        let taste = About::Food {
            who: cx.listener_idx,
        };
        let dish = cx.listener.food.first().filter(|_| cx.knows.knows(&taste));
        if let (Some(usual), Some(dish)) = (&staff.usual, dish)
            && self.roll(15) < USUAL_CHANCE
            && let Some(text) = self.pick(&usual.say.value, 1, &[("dish", dish)])
        {
            return said(text, Cue::Usual { role });
        }
        let text = self.pick(&staff.greet.value, 1, &[]).unwrap_or_default();
        said(text, Cue::StaffGreeting { role })
    }

    /// An opening from what the two lived lately, or the other did.
    fn shared(&self) -> Option<Said> {
        let cx = self.cx;
        let me = Side {
            idx: cx.speaker_idx,
            knows: cx.knows,
        };
        let you = Side {
            idx: cx.listener_idx,
            knows: cx.listener_knows,
        };
        let organiser = |g: &crate::scenario::Gathering| cx.words.roster.idx(&g.organiser);
        let (kind, about) = shared_with(me, you, cx.now, cx.words.gatherings, organiser)?;
        let chance = if matches!(kind, SharedKind::StoodUp | SharedKind::Absent) {
            GRUDGE_CHANCE
        } else {
            SHARED_CHANCE
        };
        if self.roll(16) >= chance {
            return None;
        }
        let slots = self.fact_slots(&about, cx.speaker_idx);
        let slots: Vec<(&str, &str)> = slots
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let list = ExchangeList::Shared(kind);
        let (i, text) = self.pick_exchange(self.bank().exchanges(list), 17, &slots, |_| true)?;
        let x = ExchangeRef { list, i: i as u16 };
        Some(said(text, Cue::Shared { x, about }))
    }

    /// Now and then, an opening that brings up the last talk, when it was
    /// on an earlier day (a quarrel more often: one wants to make up).
    fn recall(&self) -> Option<Said> {
        let cx = self.cx;
        let r = cx.relation?;
        let last = r.last_talk.as_deref()?;
        let earlier = r
            .last_interaction
            .get()
            .is_some_and(|t| t.day_number() < cx.now.day_number());
        let chance = match last.outcome {
            TalkOutcome::Argued => RECALL_QUARREL_CHANCE,
            _ => RECALL_CHANCE,
        };
        if !earlier || self.roll(11) >= chance {
            return None;
        }
        let list = super::answer::recall_lines(&self.bank().greetings.recall, last.outcome);
        let gist = last.gist.as_deref().unwrap_or_default();
        let slots = [("topic", &*last.subject), ("gist", gist)];
        let text = self.pick(&list.value, 1, &slots)?;
        Some(said(text, Cue::Recall { how: last.outcome }))
    }

    /// A greeting by the tie: introductions to strangers, family and friends
    /// now and then asking after each other.
    fn greeting(&self) -> Said {
        let (cx, g) = (self.cx, &self.bank().greetings);
        let kind = cx.relation.map_or(RelationKind::Stranger, |r| r.kind);
        let strength = cx.relation.map_or(0.0, |r| r.strength);
        let met_today = cx
            .relation
            .and_then(|r| r.last_interaction.get())
            .is_some_and(|t| t.day_number() == cx.now.day_number());
        let chance = cx.trigger == Trigger::Proximity && !met_today && !cx.at_work;
        let first =
            kind == RelationKind::Stranger && cx.relation.is_none_or(|r| r.interactions == 0);
        if first && let Some(text) = self.pick(&g.first.value, 1, &[]) {
            let mut s = said(text, Cue::Greeting);
            s.teaches = Some(About::Job {
                who: cx.speaker_idx,
            });
            return s;
        }
        let ask = kind == RelationKind::Family
            || (kind != RelationKind::Stranger && !met_today && self.roll(18) < ASK_CHANCE);
        if ask && let Some(line) = self.ask(kind == RelationKind::Family) {
            return line;
        }
        // Talked already today: no second 「上午好」.
        if met_today && let Some(text) = self.pick(&g.again.value, 1, &[]) {
            return said(text, Cue::Greeting);
        }
        let list = match kind {
            _ if chance && self.roll(7) < 0.5 => &g.chance,
            RelationKind::Stranger => &g.stranger,
            _ if strength >= super::FRIENDLY_TIE => &g.friend,
            _ => &g.acquaintance,
        };
        let text = self
            .pick(&list.value, 1, &[])
            .or_else(|| self.pick(&g.acquaintance.value, 1, &[]))
            .unwrap_or_default();
        said(text, Cue::Greeting)
    }

    /// A greeting that asks after the other (family's, or friends').
    fn ask(&self, family: bool) -> Option<Said> {
        let list = if family {
            ExchangeList::Family
        } else {
            ExchangeList::Ask
        };
        let (i, text) = self.pick_exchange(self.bank().exchanges(list), 1, &[], |_| true)?;
        let x = ExchangeRef { list, i: i as u16 };
        Some(said(text, Cue::Asked { x }))
    }
}
