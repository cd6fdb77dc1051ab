//! A town date from booking to its end: the player's requests booked, each
//! side sent off when free, the start when both are there, a step every few
//! game minutes, and the end's ties, key memories and log lines.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::model::{Back, ModelDates, send_step};
use super::{
    Cupid, DateRequests, PlayedBy, ROUNDS, STEP_MINUTES, TownDate, TownDates, WAIT_MINUTES,
};
use super::{book, id_of};
use crate::cupid::{Avatar, Band, EndReason, Message as Line};
use crate::scenario::Town;
use crate::sim::RunSettings;
use crate::sim::brain::Plan;
use crate::sim::clock::Clock;
use crate::sim::event_log::dates::{
    DateChoice, DateEnded, DateOutcome, DateRoundPlayed, DateStarted,
};
use crate::sim::event_log::events::{EventBody, SimEvent};
use crate::sim::event_log::ties::{ConversationMemory, RelationshipDelta};
use crate::sim::planning::{PlanReady, RequestCounter};
use crate::sim::residents::census::Census;
use crate::sim::residents::roster::{Roster, RosterIdx};
use crate::sim::residents::{Activity, ActivityKind, Persona, Relationships, Thinking};
use crate::sim::social::SocialState;
use crate::sim::social::analysis;
use crate::sim::town::ActiveTuning;

/// A key memory: what a night's summary and a prompt's recall pick first.
const DATE_IMPORTANCE: u32 = 90;
/// Tie points per point of final score above (or below) the start's 25.
const TIE_PER_POINT: f32 = 0.8;
/// At most this many tie points from one date.
const MAX_TIE_CHANGE: f32 = 20.0;

/// The player's requests, booked (ids unknown, the host, someone already
/// dating: dropped — the inspector offers only what can be booked).
pub(super) fn take_requests(
    clock: Res<Clock>,
    settings: Res<RunSettings>,
    roster: Res<Roster>,
    cupid: Res<Cupid>,
    mut requests: ResMut<DateRequests>,
    mut dates: ResMut<TownDates>,
    people: Query<(&Relationships, &crate::sim::residents::Persona)>,
) {
    for (a, b) in std::mem::take(&mut requests.0) {
        let (Some(ia), Some(ib)) = (roster.idx(&a), roster.idx(&b)) else {
            continue;
        };
        let persona = |i: RosterIdx| people.get(roster.entity_of(i)).ok().map(|(_, p)| p);
        // Minors and family never date, whoever asks.
        if let (Some(pa), Some(pb)) = (persona(ia), persona(ib))
            && crate::cupid::refusal(&pa.0, &pb.0).is_some()
        {
            continue;
        }
        let tie = |me: RosterIdx, other: RosterIdx| {
            people
                .get(roster.entity_of(me))
                .ok()
                .and_then(|(r, _)| r.by_idx(other))
                .map(|r| (r.kind, r.strength))
        };
        let t = [tie(ia, ib), tie(ib, ia)];
        book(
            &mut dates,
            &cupid,
            ((ia, ib), None),
            t,
            (clock.now, settings.seed),
            true,
        );
    }
}

/// What sending residents off to their dates reads and writes.
#[derive(SystemParam)]
pub(super) struct Sending<'w, 's> {
    commands: Commands<'w, 's>,
    clock: Res<'w, Clock>,
    town: Res<'w, Town>,
    roster: Res<'w, Roster>,
    census: Res<'w, Census>,
    social: Res<'w, SocialState>,
    counter: ResMut<'w, RequestCounter>,
    dates: ResMut<'w, TownDates>,
    plans: MessageWriter<'w, PlanReady>,
    people: Query<'w, 's, (Option<&'static Activity>, Has<Thinking>)>,
}

/// Each side of a booked date, when free (awake, standing, not talking or
/// thinking, its action done), gets the plan to go to the place.
pub(super) fn send_off(mut s: Sending) {
    let Sending {
        commands,
        clock,
        town,
        roster,
        census,
        social,
        counter,
        dates,
        plans,
        people,
    } = &mut s;
    let now = clock.now;
    for d in dates.active.iter_mut().filter(|d| d.started.is_none()) {
        for k in 0..2 {
            let me = d.pair[k];
            let entity = roster.entity_of(me);
            let Ok((activity, thinking)) = people.get(entity) else {
                continue;
            };
            let free = !d.sent[k]
                && !thinking
                && !census.asleep(me)
                && !census.entries.get(me.i()).is_some_and(|e| e.walking)
                && social.talking_in(me).is_none()
                && activity.is_none_or(|a| a.busy_until <= now);
            if !free {
                continue;
            }
            d.sent[k] = true;
            let request = counter.next();
            commands.entity(entity).insert(Thinking { request });
            let other = roster.name_of(d.pair[1 - k]);
            let place = town.name(d.place);
            let wait = (WAIT_MINUTES - d.booked.minutes_until(now)).max(STEP_MINUTES);
            let host = roster.name_of(d.host);
            // A date at an eatery is a meal together: it feeds them too.
            let eatery = town.get(d.place).has(crate::scenario::Service::Food);
            let (activity, what) = match eatery {
                true => (ActivityKind::Eat, "一起吃顿饭"),
                false => (ActivityKind::Socialise, "见面"),
            };
            let plan = Plan {
                action: format!("Meet {other} for a date at {}", town.id(d.place).as_str()),
                target_location: town.id(d.place).as_str().to_owned(),
                dialogue: format!("{host}约我和{other}在{place}{what}，有点紧张。"),
                emoji: "💘".into(),
                duration: wait,
                activity: Some(activity),
                with: Some(roster.id_of(d.pair[1 - k]).to_string()),
            };
            plans.write(PlanReady {
                entity,
                request,
                plan,
            });
        }
    }
}

/// What starting, playing and ending a date read and write.
#[derive(SystemParam)]
pub(super) struct Dating<'w, 's> {
    clock: Res<'w, Clock>,
    town: Res<'w, Town>,
    roster: Res<'w, Roster>,
    census: Res<'w, Census>,
    cupid: Res<'w, Cupid>,
    tuning: Res<'w, ActiveTuning>,
    model: Option<Res<'w, ModelDates>>,
    dates: ResMut<'w, TownDates>,
    social: ResMut<'w, SocialState>,
    learn: MessageWriter<'w, crate::sim::knowledge::facts::Learn>,
    events: MessageWriter<'w, SimEvent>,
    people: Query<
        'w,
        's,
        (
            &'static Persona,
            &'static mut Relationships,
            Option<&'static mut Activity>,
        ),
    >,
}

/// A date starts when both stand at the place; it ends unplayed when one
/// has not come in time.
pub(super) fn start(mut cx: Dating) {
    let now = cx.clock.now;
    let mut dates = std::mem::take(&mut cx.dates.active);
    for d in dates.iter_mut().filter(|d| d.started.is_none()) {
        let here = |i: RosterIdx| {
            cx.census
                .entries
                .get(i.i())
                .is_some_and(|e| e.at == d.place && !e.walking && !cx.census.asleep(i))
        };
        // Whoever is there waits for the other out of the room's talk, and
        // the date begins once neither is still finishing a conversation.
        for &i in d.pair.iter().filter(|&&i| here(i)) {
            cx.social.engage(i, now.plus_minutes(STEP_MINUTES));
        }
        let free = |i: RosterIdx| cx.social.done_talking(i, now);
        if here(d.pair[0]) && here(d.pair[1]) && free(d.pair[0]) && free(d.pair[1]) {
            d.started = Some(now);
            let length = i64::from(ROUNDS) * 4 * STEP_MINUTES + STEP_MINUTES;
            cx.hold(d, now.plus_minutes(length));
            cx.events.write(SimEvent {
                time: now,
                body: EventBody::DateStart(DateStarted {
                    date: d.id,
                    residents: d.pair.iter().map(|&i| id_of(&cx.roster, i)).collect(),
                    host: id_of(&cx.roster, d.host),
                    location: cx.town.id(d.place).clone(),
                    requested: d.requested,
                }),
            });
        }
    }
    cx.dates.active = dates;
}

/// Every date under way takes the steps that are due (a model's step back
/// from its thread first; one of its steps away at a time).
pub(super) fn play(mut cx: Dating) {
    let now = cx.clock.now;
    let mut dates = std::mem::take(&mut cx.dates.active);
    for d in dates.iter_mut() {
        let Some(started) = d.started else {
            continue;
        };
        if let Some(back) = d.live.as_mut().and_then(|l| l.back.take()) {
            cx.took_back(d, back);
        }
        let due = |d: &TownDate| {
            started.plus_minutes(i64::from(d.steps + 1) * STEP_MINUTES) <= now
                && d.live.as_ref().is_none_or(|l| l.date.ended().is_none())
        };
        while due(d) && cx.step(d) {}
    }
    cx.dates.active = dates;
}

/// Ended dates (played out, or not begun in time) leave the town's books.
pub(super) fn finish(mut cx: Dating) {
    let now = cx.clock.now;
    let dates = std::mem::take(&mut cx.dates.active);
    let mut still = Vec::with_capacity(dates.len());
    for mut d in dates {
        let played = d.live.as_ref().and_then(|l| l.date.ended());
        let late = d.started.is_none() && d.booked.minutes_until(now) > WAIT_MINUTES;
        match (played, late) {
            (Some(end), _) => cx.conclude(&mut d, end),
            (None, true) => cx.stood_up(&d),
            (None, false) => {
                still.push(d);
                continue;
            }
        }
        cx.hold(&d, now);
        cx.dates.past.push((d.pair, now.day_number()));
        let lines = d.live.take().map(|l| l.lines).unwrap_or_default();
        cx.dates.last = Some((d.pair, lines));
    }
    cx.dates.active = still;
}

impl Dating<'_, '_> {
    /// Both sides stay at the date, out of every other conversation, until
    /// `until` (or leave now).
    fn hold(&mut self, d: &TownDate, until: crate::base::time::GameTime) {
        for &i in &d.pair {
            self.social.engage(i, until);
            if let Ok((_, _, Some(mut a))) = self.people.get_mut(self.roster.entity_of(i))
                && a.target == d.place
            {
                a.busy_until = until;
            }
        }
    }

    fn avatars(&self, pair: [RosterIdx; 2]) -> [Avatar; 2] {
        let profile = |i: RosterIdx| {
            self.people
                .get(self.roster.entity_of(i))
                .map(|p| p.0.0.clone())
                .expect("a date's residents are in the world")
        };
        let (a, b) = (profile(pair[0]), profile(pair[1]));
        [Avatar::new(&a, &b), Avatar::new(&b, &a)]
    }

    /// One step of the date: played now by the offline minds (true), or
    /// sent to its thread when a model plays it (false: it comes back later).
    fn step(&mut self, d: &mut TownDate) -> bool {
        let (pair, bank) = (d.pair, self.cupid.bank.clone());
        let live = d.live(|| self.avatars(pair), &bank, self.model.as_deref());
        let lines = match &mut live.minds {
            PlayedBy::Offline(minds) => live.date.step(minds.as_mut()),
            PlayedBy::Model(minds) => {
                if let Some(minds) = minds.take() {
                    live.written.clear();
                    live.away = Some(send_step(&live.date, minds));
                }
                return false;
            }
        };
        self.took(d, lines);
        true
    }

    /// A model's step back: the date as it left it, and what it answered.
    fn took_back(&mut self, d: &mut TownDate, back: Back) {
        let Some(live) = d.live.as_mut() else {
            return;
        };
        live.date = back.date;
        live.minds = PlayedBy::Model(Some(back.minds));
        d.answers.extend(back.answers);
        d.upcoming = back.upcoming;
        d.notes.extend(back.notes);
        // A slow model's date runs late: both stay until its steps are done.
        let left = i64::from(ROUNDS * 4).saturating_sub(i64::from(d.steps) + 1);
        let until = self.clock.now.plus_minutes((left + 1) * STEP_MINUTES);
        self.hold(d, until);
        self.took(d, back.lines);
    }

    /// A step's lines: said over the residents' heads, a judged round logged.
    fn took(&mut self, d: &mut TownDate, lines: Vec<Line>) {
        let Some(live) = d.live.as_mut() else {
            return;
        };
        live.lines.extend(lines.iter().cloned());
        let (round, last) = (
            live.date.rounds().len() as u32,
            live.date.rounds().last().cloned(),
        );
        d.steps += 1;
        for line in &lines {
            match line {
                Line::Avatar { resident, turn } => self.say(resident, &turn.decision.content),
                Line::Score { reason, .. } => {
                    if let Some(r) = &last {
                        self.log_round(d, round, r, reason);
                    }
                }
                Line::Host(_) | Line::End { .. } => {}
            }
        }
    }

    /// The choice shows as the resident's line over its head.
    fn say(&mut self, who: &crate::scenario::ResidentId, text: &str) {
        let Some(entity) = self.roster.entity(who) else {
            return;
        };
        if let Ok((_, _, Some(mut a))) = self.people.get_mut(entity) {
            a.text.dialogue = text.to_owned();
        }
    }

    fn log_round(&mut self, d: &TownDate, round: u32, r: &crate::cupid::Round, reason: &str) {
        let choices = r
            .choices
            .iter()
            .map(|(id, turn, _)| DateChoice {
                resident: id.clone(),
                option: turn.decision.option.clone(),
                content: turn.decision.content.clone(),
                rationale: turn.rationale.clone(),
            })
            .collect();
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::DateRound(DateRoundPlayed {
                date: d.id,
                residents: d.pair.iter().map(|&i| id_of(&self.roster, i)).collect(),
                round,
                story_time: r.posed.host.time.clone(),
                question: r.posed.host.action.question.clone(),
                choices,
                before: r.before,
                after: r.after,
                reason: reason.to_owned(),
            }),
        });
    }

    /// The ties move with the final score; each keeps a key memory.
    fn conclude(&mut self, d: &mut TownDate, end: EndReason) {
        let Some(live) = d.live.as_ref() else {
            return;
        };
        let (score, rounds) = (live.date.score(), live.date.rounds().len() as u32);
        let points = ((score - crate::cupid::START_SCORE) as f32 * TIE_PER_POINT)
            .clamp(-MAX_TIE_CHANGE, MAX_TIE_CHANGE);
        let outcome = outcome_of(end);
        let why = format!(
            "约会（{rounds} 轮，{score} 分，{}）",
            Band::of(score).label()
        );
        let changes = [0, 1].map(|k| self.move_tie(d.pair[k], d.pair[1 - k], points, &why));
        // The host saw it all: it is no news to the host (the two learn it
        // from the `date_end` below).
        let now = self.clock.now;
        let went = crate::sim::knowledge::facts::DateWent::of(outcome, Band::of(score));
        self.learn.write(crate::sim::knowledge::facts::Learn {
            who: d.host,
            about: crate::sim::knowledge::facts::About::date(d.pair[0], d.pair[1], now, went),
            source: crate::sim::knowledge::facts::Source::Saw,
            time: now,
        });
        let memories = [0, 1]
            .map(|k| self.memory(d, k, (score, rounds), outcome))
            .to_vec();
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::DateEnd(DateEnded {
                date: d.id,
                residents: d.pair.iter().map(|&i| id_of(&self.roster, i)).collect(),
                reason: outcome,
                score,
                rounds,
                band: Band::of(score),
                changes: changes.into_iter().flatten().collect(),
                memories,
                model: self
                    .model
                    .as_ref()
                    .filter(|_| d.by_model)
                    .map(|m| m.model.clone()),
                notes: std::mem::take(&mut d.notes),
            }),
        });
    }

    /// One side's view of the other moves by `points`; logged.
    fn move_tie(
        &mut self,
        me: RosterIdx,
        other: RosterIdx,
        points: f32,
        why: &str,
    ) -> Option<RelationshipDelta> {
        let r = &self.tuning.social.relationship;
        let (me_id, other_id) = (id_of(&self.roster, me), id_of(&self.roster, other));
        let now = self.clock.now;
        let Ok((_, mut ties, _)) = self.people.get_mut(self.roster.entity_of(me)) else {
            return None;
        };
        let tie = ties.entry(&other_id, other);
        let (old, old_kind) = analysis::meet(tie, points, now, r);
        let (new, kind) = (tie.strength, tie.kind);
        self.events.write(SimEvent {
            time: now,
            body: EventBody::RelationshipChange {
                resident: me_id.clone(),
                other: other_id.clone(),
                old_strength: old,
                new_strength: new,
                previous_relation: (kind != old_kind).then_some(old_kind),
                relation: kind,
                reason: why.to_owned(),
            },
        });
        Some(RelationshipDelta {
            resident: me_id,
            other: other_id,
            old,
            new,
        })
    }

    /// What side `k` keeps of the date, in whole sentences a night's summary
    /// can quote: with whom, where, how it went, and the round that moved it
    /// most (what I did and what the other did).
    fn memory(
        &self,
        d: &TownDate,
        k: usize,
        (score, rounds): (i32, u32),
        outcome: DateOutcome,
    ) -> ConversationMemory {
        let other = self.roster.name_of(d.pair[1 - k]);
        let host = self.roster.name_of(d.host);
        let place = self.town.name(d.place);
        let went = match (outcome, Band::of(score)) {
            (DateOutcome::Established, _) => "我们确定了关系".to_string(),
            (DateOutcome::BrokeUp, _) | (_, Band::Discordant) => "处得很别扭，不欢而散".into(),
            (_, Band::Ideal) => "处得很投机，约好了还要再见".into(),
            (_, Band::Good) => "相处得不错，想再见面".into(),
            (_, Band::Fair) => "感觉平平，还说不准".into(),
        };
        let mut text = format!(
            "和{other}在{place}约会，{went}（{host}主持，{rounds} 轮，{score} 分，{}）。",
            Band::of(score).label()
        );
        let me = self.roster.id_of(d.pair[k]);
        let rounds_played = d.live.as_ref().map(|l| l.date.rounds()).unwrap_or(&[]);
        let biggest = rounds_played
            .iter()
            .max_by_key(|r| (r.after - r.before).abs());
        if let Some(r) = biggest {
            let did = |mine: bool| {
                r.choices
                    .iter()
                    .find(|(id, _, _)| (id == me) == mine)
                    .map(|(_, t, _)| {
                        t.decision
                            .content
                            .trim_end_matches(['。', '！'])
                            .to_string()
                    })
            };
            if let (Some(mine), Some(theirs)) = (did(true), did(false)) {
                let moved = if r.after >= r.before {
                    "心里一暖"
                } else {
                    "心里一沉"
                };
                text.push_str(&format!(
                    "有一幕我选了「{mine}」，{other}选了「{theirs}」，我{moved}。"
                ));
            }
        }
        ConversationMemory {
            resident: me.clone(),
            text,
            importance: DATE_IMPORTANCE,
        }
    }

    /// Booked but not begun in time: whoever came remembers waiting.
    fn stood_up(&mut self, d: &TownDate) {
        let came: Vec<usize> = (0..2)
            .filter(|&k| {
                self.census
                    .entries
                    .get(d.pair[k].i())
                    .is_some_and(|e| e.at == d.place && !e.walking)
            })
            .collect();
        let place = self.town.name(d.place);
        let memories = came
            .iter()
            .map(|&k| ConversationMemory {
                resident: id_of(&self.roster, d.pair[k]),
                text: format!(
                    "在{place}等{}约会，对方没有来。",
                    self.roster.name_of(d.pair[1 - k])
                ),
                importance: DATE_IMPORTANCE / 2,
            })
            .collect();
        self.events.write(SimEvent {
            time: self.clock.now,
            body: EventBody::DateEnd(DateEnded {
                date: d.id,
                residents: d.pair.iter().map(|&i| id_of(&self.roster, i)).collect(),
                reason: DateOutcome::StoodUp,
                score: crate::cupid::START_SCORE,
                rounds: 0,
                band: Band::of(crate::cupid::START_SCORE),
                changes: Vec::new(),
                memories,
                model: None,
                notes: Vec::new(),
            }),
        });
    }
}

fn outcome_of(end: EndReason) -> DateOutcome {
    match end {
        EndReason::Host => DateOutcome::Host,
        EndReason::Rounds => DateOutcome::Rounds,
        EndReason::BrokeUp => DateOutcome::BrokeUp,
        EndReason::Established => DateOutcome::Established,
    }
}
