//! The context a conversation line is written from, for the built-in brain
//! and async minds alike, and the hand-in of an async mind's line.

use bevy::prelude::*;

use super::invites::InviteReason;
use super::message::split_end;
use super::message::{Delivered, Proposal};
use super::{Conversation, LineInputs, SocialState, TalkerView, meetings};
use crate::base::time::GameTime;
use crate::scenario::{LocIdx, Profile};
use crate::sim::brain::LineContext;
use crate::sim::residents::roster::RosterIdx;
use crate::sim::residents::{Activity, ActivityKind};

/// An async mind hands in the line a conversation waits for.
pub fn deliver(
    state: &SocialState,
    conversations: &mut Query<&mut Conversation>,
    conversation: u64,
    line: Delivered,
) {
    if let Some(e) = state.conversation(conversation)
        && let Ok(mut c) = conversations.get_mut(e)
    {
        c.hand_in(line);
    }
}

/// Minutes one's action must still run after a line for one to be staying on.
const STAYS_ON: i64 = 10;

/// What one does at `place`: its action under way, or come for and about
/// to begin (one greeted on arriving is here for it).
fn doing_here(action: Option<&Activity>, place: LocIdx) -> Option<ActivityKind> {
    action
        .filter(|a| a.underway || a.target == place)
        .map(|a| a.kind)
}

/// Whether one is at work at `place`: it is its workplace and it is on
/// shift or at its work there. A student reading in her library after
/// hours is a customer there, not staff: she does not say 「你坐着，有事喊我一声」.
fn on_duty(p: &Profile, action: Option<&Activity>, place: LocIdx, now: GameTime) -> bool {
    p.work.as_ref().is_some_and(|w| {
        w.place == place
            && (w.covers(now.weekday_index(), now.minute_of_day())
                || doing_here(action, place) == Some(ActivityKind::Work))
    })
}

/// Whether one's action keeps it at `place` a while after `now`.
fn stays_on(action: Option<&Activity>, place: LocIdx, now: GameTime) -> bool {
    action.is_some_and(|a| {
        let left = if a.underway {
            now.minutes_until(a.busy_until)
        } else {
            // Just arrived: the whole action is still to come.
            a.duration as i64
        };
        a.target == place && left > STAYS_ON
    })
}

/// Minutes after coming somewhere that one has "just arrived" (「出门就踩了
/// 一脚泥」 is not said after twenty-seven minutes by the campfire).
const JUST_ARRIVED: i64 = 15;

/// Whether one walked to `place` for its action and came within the last
/// [`JUST_ARRIVED`] minutes (or is only now arriving).
fn arrived(action: Option<&Activity>, place: LocIdx, now: GameTime) -> bool {
    action.is_some_and(|a| {
        let began = a.busy_until.plus_minutes(-(a.duration as i64));
        let recently = !a.underway || began.minutes_until(now) <= JUST_ARRIVED;
        a.target == place && a.walked && recently
    })
}

/// Runs `f` with the context for the turn `c` waits on.
pub fn with_line_context<R>(
    c: &Conversation,
    inputs: &LineInputs,
    q: &Query<TalkerView>,
    f: impl FnOnce(&LineContext<'_>, Entity, Entity) -> R,
) -> Option<R> {
    let turn = c.next?;
    let entity = |i: RosterIdx| inputs.roster.entities().get(i.i()).copied();
    let (es, el) = (entity(turn.speaker)?, entity(turn.listener)?);
    let (speaker, listener) = (q.get(es).ok()?, q.get(el).ok()?);
    let others: Vec<&crate::scenario::Profile> = c
        .participants
        .iter()
        .filter(|&&p| p != turn.speaker && p != turn.listener)
        .filter_map(|&p| q.get(entity(p)?).ok())
        .map(|v| &*v.1.0)
        .collect();
    let n = c.messages.len() as u32;
    let (inviting, answering_invite) = invitation(c, inputs, turn.speaker);
    let meeting = |p: &Proposal| {
        (
            inputs.town.name(p.place),
            meetings::when_text(inputs.clock.now, p.at),
        )
    };
    let proposing = c
        .proposal
        .filter(|p| p.turn == n && p.proposer == turn.speaker)
        .map(|p| meeting(&p));
    let accepting = c
        .proposal
        .filter(|p| p.turn + 1 == n && p.partner == turn.speaker)
        .map(|p| meeting(&p));
    let mention = turn
        .mention
        .and_then(|m| inputs.roster.names().get(m.i()))
        .map(String::as_str);
    let now = inputs.clock.now;
    let upcoming = speaker
        .4
        .appointments
        .iter()
        .filter(|a| a.will_attend)
        .filter_map(|a| inputs.gatherings.get(a.gathering.i()))
        .find(|g| g.organiser != speaker.0.id && g.starts > now)
        .map(|g| (g, inputs.town.name(g.location)));
    let cx = LineContext {
        now: c.next_turn.max(inputs.clock.now),
        speaker: speaker.1,
        listener: listener.1,
        relation: speaker.3.by_idx(turn.listener),
        needs: Some(speaker.5),
        doing: doing_here(speaker.2, c.place),
        stays: stays_on(speaker.2, c.place, now),
        arrived: arrived(speaker.2, c.place, now),
        listener_arrived: arrived(listener.2, c.place, now),
        place: inputs.town.get(c.place),
        topic: c.subject,
        turn: n,
        lines: c.planned,
        previous: c.messages.last().map_or("", |m| m.text.as_str()),
        others: &others,
        mention,
        role: c.role.filter(|_| n == 0),
        inviting,
        inviting_place: inviting.map(|g| inputs.town.name(g.location)),
        answering_invite,
        hosting: c.hosting.and_then(|g| inputs.gatherings.get(g.i())),
        phrases: &inputs.scenario.0.dialogue,
        spoken: inputs.spoken.of(turn.speaker),
        town_spoken: &inputs.spoken,
        history: &c.messages,
        trigger: c.trigger,
        at_work: [speaker.1, listener.1]
            .iter()
            .any(|p| p.work.as_ref().is_some_and(|w| w.place == c.place)),
        speaker_at_work: on_duty(speaker.1, speaker.2, c.place, now),
        listener_at_work: on_duty(listener.1, listener.2, c.place, now),
        upcoming,
        proposing: proposing.as_ref().map(|(p, w)| (*p, w.as_str())),
        accepting: accepting.as_ref().map(|(p, w)| (*p, w.as_str())),
        seed: inputs.settings.seed,
        sky: crate::base::weather::sky(inputs.settings.seed, now),
        speaker_idx: turn.speaker,
        listener_idx: turn.listener,
        knows: speaker.6,
        listener_knows: listener.6,
        listener_ties: listener.3,
        agenda: speaker.4,
        words: crate::sim::knowledge::words::FactWords {
            roster: &inputs.roster,
            town: &inputs.town,
            gatherings: &inputs.gatherings,
            residents: &inputs.scenario.0.residents,
        },
        earshot: inputs.census.standing_at(c.place),
    };
    Some(f(&cx, es, el))
}

/// The gathering `speaker` invites to in this line (the organiser's first
/// line after the opening), or the answer it gives to the invitation (the
/// guest's first line after it).
fn invitation<'a>(
    c: &Conversation,
    inputs: &'a LineInputs,
    speaker: RosterIdx,
) -> (Option<&'a crate::scenario::Gathering>, Option<InviteReason>) {
    let Some(g) = c.invite.and_then(|g| inputs.gatherings.get(g.i())) else {
        return (None, None);
    };
    let organiser = inputs.roster.idx(&g.organiser);
    let said_at = organiser.and_then(|o| c.invitation_at(o));
    let first_after_opening = !c.messages.is_empty() && said_at.is_none();
    let inviting = (organiser == Some(speaker) && first_after_opening).then_some(g);
    let answer = c
        .invite_answer
        .filter(|a| a.guest == speaker)
        .filter(|a| said_at.is_some_and(|i| !c.messages[i..].iter().any(|m| m.speaker == a.guest)))
        .map(|a| a.reason);
    (inviting, answer)
}

/// The built-in brain's line for the turn `c` waits on, `[END]` split off;
/// `None` when a speaker is gone.
pub fn builtin_line(
    c: &Conversation,
    inputs: &LineInputs,
    q: &Query<TalkerView>,
) -> Option<Delivered> {
    let brain = inputs.brain.0.clone();
    let said = with_line_context(c, inputs, q, |cx, _, _| brain.line(cx))?;
    let (line, ends) = split_end(&said.text);
    Some(Delivered {
        line,
        ends,
        emotion: None,
        cue: said.cue,
        teaches: said.teaches,
    })
}
