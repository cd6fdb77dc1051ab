//! One companion's relationship with the player: affection, the moments
//! that happened, the player's profile, the conversation so far; and a turn
//! of chat — the player's message in, the companion's reply out, with every
//! change it brought.

use serde::{Deserialize, Serialize};

use super::bank::ChatBank;
use super::facts::{Learnt, PlayerFact, PlayerFacts};
use super::moments::{self, KeyMomentSpec, MomentStatus, Situation};
use super::said::{self, Said, Stated};
use super::{Affection, AffectionChange, CompanionSpec, PlayerProfile, Stage, profile};
use crate::base::time::GameTime;

/// Rewrite the player's profile every this many messages (and on a stage change).
pub const PROFILE_EVERY: u32 = 20;
/// Key moments a prompt carries, verbatim (the newest).
pub const KEY_MOMENTS_KEPT: usize = 10;

/// Who spoke a chat line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// The player.
    Player,
    /// The companion.
    Companion,
}

/// One line of the chat, as `conversations` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Who said it.
    pub speaker: Speaker,
    /// What was said.
    pub content: String,
    /// Affection gained by it (the player's lines).
    pub affection_delta: i32,
    /// The key moment it belongs to, if any.
    pub key_moment: Option<String>,
    /// When.
    pub time: GameTime,
}

/// A key moment that happened, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MomentRecord {
    /// Its id.
    pub id: String,
    /// Its chapter.
    pub chapter: u8,
    /// Its name.
    pub name: String,
    /// When.
    pub time: GameTime,
    /// What the player said.
    pub user: String,
    /// What the companion answered.
    pub reply: String,
    /// Affection it gave.
    pub gained: i32,
    /// How it went (triggered or failed).
    #[serde(default = "triggered")]
    pub status: MomentStatus,
}

fn triggered() -> MomentStatus {
    MomentStatus::Triggered
}

/// The relationship with the player, as saved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompanionState {
    /// Affection and its streak.
    pub affection: Affection,
    /// Key moments that happened, oldest first.
    pub moments: Vec<MomentRecord>,
    /// The player's profile.
    pub profile: PlayerProfile,
    /// Every chat line, oldest first.
    pub lines: Vec<ChatLine>,
    /// Messages from the player so far.
    pub messages: u32,
    /// When the chat began.
    pub started: Option<GameTime>,
    /// Every affection change, oldest first (`affection_logs`).
    pub log: Vec<(GameTime, AffectionChange)>,
    /// What the player stated about themselves.
    pub facts: PlayerFacts,
    /// Key moments that became possible and are not decided yet.
    pub pending: Vec<String>,
    /// Every profile written before the current one, oldest first.
    pub past_profiles: Vec<PlayerProfile>,
}

/// What one turn brought.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The reply, marks removed.
    pub reply: String,
    /// Affection changes, in order.
    pub changes: Vec<AffectionChange>,
    /// The stage before and after the turn.
    pub stages: (Stage, Stage),
    /// Key moments that happened.
    pub moments: Vec<MomentRecord>,
    /// The profile, when it was rewritten this turn.
    pub profile: Option<PlayerProfile>,
    /// Facts the message stated, and what learning each did.
    pub learnt: Vec<(PlayerFact, Learnt)>,
}

/// A turn taken in and not yet answered: what the message said and did to
/// the state, kept so that the reply is written from it and the turn ended
/// with it, each once.
#[derive(Debug, Clone)]
pub struct Opened {
    message: String,
    before: Stage,
    apart: Option<i64>,
    said: Said,
    learnt: Vec<(PlayerFact, Learnt)>,
    changes: Vec<AffectionChange>,
    /// The key moments the message may decide, by position in the spec.
    candidates: Vec<usize>,
}

impl Opened {
    /// What the player said.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the message was read to say and do.
    pub fn said(&self) -> &Said {
        &self.said
    }

    /// The key moments this message may decide, from `spec` (the one the
    /// turn was opened with).
    pub fn candidates<'s>(&self, spec: &'s CompanionSpec) -> Vec<&'s KeyMomentSpec> {
        self.candidates
            .iter()
            .filter_map(|&i| spec.key_moments.get(i))
            .collect()
    }

    /// What the reply is written from: `state` is the one this turn was
    /// opened on, `candidates` what [`Opened::candidates`] gave.
    pub fn context<'a>(
        &'a self,
        at: &Setting<'a>,
        state: &'a CompanionState,
        candidates: &'a [&'a KeyMomentSpec],
        recalled: &'a [String],
    ) -> ReplyContext<'a> {
        ReplyContext {
            spec: at.spec,
            bank: at.bank,
            speaker: at.speaker,
            state,
            message: &self.message,
            said: &self.said,
            learnt: &self.learnt,
            candidates,
            recalled,
            now: at.now,
            apart: self.apart,
            people: at.people,
        }
    }
}

/// What a reply is written from.
#[derive(Debug, Clone, Copy)]
pub struct ReplyContext<'a> {
    /// The companion's spec.
    pub spec: &'a CompanionSpec,
    /// The chat phrase bank (the built-in brain's lines).
    pub bank: &'a ChatBank,
    /// Who answers (its name).
    pub speaker: &'a str,
    /// Its state: the message's facts learnt, the message not yet recorded.
    pub state: &'a CompanionState,
    /// What the player just said.
    pub message: &'a str,
    /// What the message does.
    pub said: &'a Said,
    /// The facts it stated, and what learning each did.
    pub learnt: &'a [(PlayerFact, Learnt)],
    /// Key moments this message may decide.
    pub candidates: &'a [&'a KeyMomentSpec],
    /// Memories recalled for the message, best first.
    pub recalled: &'a [String],
    /// The moment of the message.
    pub now: GameTime,
    /// Whole days since the player's previous message (none: the first).
    pub apart: Option<i64>,
    /// The people of its town, as it knows them.
    pub people: &'a [Acquaintance],
}

/// Someone in the companion's town, as it knows them: what the player may
/// ask it about (「你觉得钟大川人怎么样？」).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Acquaintance {
    /// Their name.
    pub name: String,
    /// Their trade.
    pub trade: String,
    /// What it thinks of them (empty: they have never been more than a face).
    pub impression: String,
}

impl ReplyContext<'_> {
    /// The facts a recall question asks for (none asked: none).
    pub fn asked_facts(&self) -> Vec<&PlayerFact> {
        let Some(kinds) = self.said.recall_kinds() else {
            return Vec::new();
        };
        let facts = &self.state.facts;
        // 「你还记得豆豆是谁吗？」: what it knows of the one the question names
        // (a pet's name, a relative), not the name and job.
        let names = |f: &&PlayerFact| {
            let key = match f.kind {
                super::FactKind::Pet => f.value.as_str(),
                super::FactKind::Family | super::FactKind::Person => f.about.as_str(),
                _ => "",
            };
            key.chars().count() >= 2 && self.message.contains(key)
        };
        if kinds.is_empty()
            && let Some(f) = facts.0.iter().rev().find(names)
        {
            return vec![f];
        }
        if kinds.is_empty() {
            // 「你还记得我吗」: the name first, then what matters most.
            return super::FactKind::ALL
                .iter()
                .filter_map(|k| facts.first(*k))
                .take(3)
                .collect();
        }
        // 「我儿子叫什么」: the son, not the newest relative told of.
        let named = |f: &&PlayerFact| {
            (!f.about.is_empty() && self.message.contains(f.about.as_str()))
                || (!f.value.is_empty() && self.message.contains(f.value.as_str()))
        };
        // The first kind asked is the one answered (「我不爱吃什么」 is not 爱吃).
        kinds
            .iter()
            .take(1)
            .flat_map(|k| {
                let of: Vec<&PlayerFact> = facts.of(*k).collect();
                let mut first: Vec<&PlayerFact> = of.iter().copied().filter(named).collect();
                // 「我孙子上几年级」: of what is known of him, what the question
                // speaks of (上小学), not his birthday told last.
                // 「我男朋友是做什么的」: of him, what tells his trade.
                let trade = kinds.contains(&super::FactKind::Job);
                let fits = |f: &&PlayerFact| {
                    let job = trade && said::tells_trade(&f.value);
                    (job, shared_chars(&f.value, self.message))
                };
                first.sort_by_key(|f| std::cmp::Reverse(fits(f)));
                if first.is_empty() {
                    // 「我下个月要干什么」: the plan that shares its words.
                    let mut of = of;
                    of.sort_by_key(|f| std::cmp::Reverse(fits(f)));
                    of.into_iter().take(2).collect::<Vec<_>>()
                } else {
                    first
                }
            })
            .collect()
    }
}

/// How many of `value`'s characters (not 的, 了, 是) `message` has.
fn shared_chars(value: &str, message: &str) -> usize {
    value
        .chars()
        .filter(|c| !"的了是你我".contains(*c) && message.contains(*c))
        .count()
}

/// Who writes the companion's side: the reply always; a model may also read
/// the message's facts and write the profile (the built-in brain does both
/// when it does not).
pub trait Voice {
    /// The reply, marked for the key moments it decides.
    fn reply(&mut self, cx: &ReplyContext<'_>) -> String;

    /// The facts the message states, as a model reads them (`None`: the
    /// built-in reading stands).
    fn read_facts(&mut self, _message: &str, _state: &CompanionState) -> Option<Vec<Stated>> {
        None
    }

    /// The profile, as a model writes it (`None`: the built-in brain writes it).
    fn write_profile(&mut self, _state: &CompanionState) -> Option<PlayerProfile> {
        None
    }
}

impl<F: FnMut(&ReplyContext<'_>) -> String> Voice for F {
    fn reply(&mut self, cx: &ReplyContext<'_>) -> String {
        self(cx)
    }
}

/// Where a turn happens: who answers, with which bank, when.
#[derive(Debug, Clone, Copy)]
pub struct Setting<'a> {
    /// The companion's spec.
    pub spec: &'a CompanionSpec,
    /// The chat phrase bank.
    pub bank: &'a ChatBank,
    /// Who answers.
    pub speaker: &'a str,
    /// The moment of the message.
    pub now: GameTime,
    /// The people of its town, as it knows them.
    pub people: &'a [Acquaintance],
}

impl CompanionState {
    /// The stage it is in.
    pub fn stage(&self) -> Stage {
        self.affection.stage()
    }

    /// Ids of the moments already decided (triggered or failed).
    pub fn happened(&self) -> Vec<String> {
        self.moments.iter().map(|m| m.id.clone()).collect()
    }

    /// The player's previous message, if any.
    fn last_message_time(&self) -> Option<GameTime> {
        self.lines
            .iter()
            .rev()
            .find(|l| l.speaker == Speaker::Player)
            .map(|l| l.time)
    }

    /// The companion's previous reply, if any.
    fn last_reply(&self) -> Option<&str> {
        self.lines
            .iter()
            .rev()
            .find(|l| l.speaker == Speaker::Companion)
            .map(|l| l.content.as_str())
    }

    /// One turn: the player's `message`; the facts it states are learnt,
    /// `voice` writes the answer (marked for the key moments it decides),
    /// and every 20 messages the profile is rewritten.
    pub fn turn(
        &mut self,
        at: &Setting<'_>,
        message: &str,
        recalled: &[String],
        voice: &mut dyn Voice,
    ) -> Turn {
        let opened = self.open(at, message, voice);
        let candidates = opened.candidates(at.spec);
        let raw = voice.reply(&opened.context(at, self, &candidates, recalled));
        self.close(at, opened, &raw, voice)
    }

    /// Takes the player's message in: its facts learnt, affection for it
    /// booked; the reply is still to be written (from [`Opened::context`])
    /// and handed to [`CompanionState::close`].
    pub fn open(&mut self, at: &Setting<'_>, message: &str, voice: &mut dyn Voice) -> Opened {
        let now = at.now;
        let before = self.stage();
        let apart = self
            .last_message_time()
            .map(|t| now.day_number() - t.day_number());
        self.started.get_or_insert(now);
        self.messages += 1;
        let said = said::read_after(message, self.told_of_last());
        let mut stated = voice
            .read_facts(message, self)
            .unwrap_or_else(|| said.facts.clone());
        // 「养狗」 then 「叫旺财」: the dog told of a moment ago gets its name.
        if stated.is_empty()
            && let (Some(name), Some(pet)) = (said::bare_name(message), self.facts.0.last())
            && pet.kind == super::FactKind::Pet
            && pet.value.is_empty()
        {
            stated.push(Stated {
                kind: pet.kind,
                about: pet.about.clone(),
                value: name,
            });
        }
        let learnt = self.learn(stated, (&said.retracts, &said.wrong), message, now);
        let changes = self.affection.on_message(now.day_number());
        let decided = self.happened();
        let situation = Situation {
            affection: self.affection.value(),
            decided: &decided,
            message,
            said: &said,
            last_reply: self.last_reply(),
        };
        let candidates = moments::candidates(&at.spec.key_moments, &situation)
            .iter()
            .filter_map(|c| at.spec.key_moments.iter().position(|m| std::ptr::eq(m, *c)))
            .collect();
        Opened {
            message: message.to_string(),
            before,
            apart,
            said,
            learnt,
            changes,
            candidates,
        }
    }

    /// The relative or friend the player's last message told of
    /// (「我男朋友下周来看我」), whom a 「他……」 now goes on about.
    fn told_of_last(&self) -> Option<&str> {
        let last = self
            .lines
            .iter()
            .rev()
            .find(|l| l.speaker == Speaker::Player)?;
        self.facts
            .0
            .iter()
            .rev()
            .find(|f| {
                matches!(f.kind, super::FactKind::Family | super::FactKind::Person)
                    && f.said == last.content
            })
            .map(|f| f.about.as_str())
    }

    /// Ends the turn `opened` with the reply `raw` (still marked for the key
    /// moments it decides): the moments settled, the exchange recorded, the
    /// profile rewritten when it is due.
    pub fn close(
        &mut self,
        at: &Setting<'_>,
        opened: Opened,
        raw: &str,
        voice: &mut dyn Voice,
    ) -> Turn {
        let now = at.now;
        let Opened {
            message,
            before,
            learnt,
            mut changes,
            ..
        } = opened;
        let candidates: Vec<&KeyMomentSpec> = opened
            .candidates
            .iter()
            .filter_map(|&i| at.spec.key_moments.get(i))
            .collect();
        let (found, text) = moments::parse_reply(raw, &candidates);
        let records = self.settle(&candidates, found, (&message, &text, now), &mut changes);
        self.record(&message, &text, now, &changes, &records);
        let after = self.stage();
        let rewrite = self.messages.is_multiple_of(PROFILE_EVERY) || after != before;
        let profile = rewrite.then(|| self.rewrite_profile(voice));
        Turn {
            reply: text,
            changes,
            stages: (before, after),
            moments: records,
            profile,
            learnt,
        }
    }

    /// The moments the reply decided: their affection, their verbatim
    /// record; the candidates left undecided stay pending.
    fn settle(
        &mut self,
        candidates: &[&KeyMomentSpec],
        found: Vec<(&KeyMomentSpec, MomentStatus)>,
        (message, reply, now): (&str, &str, GameTime),
        changes: &mut Vec<AffectionChange>,
    ) -> Vec<MomentRecord> {
        let mut records = Vec::new();
        for (m, status) in found {
            let (gain, id) = match status {
                MomentStatus::Failed => (m.failed_gain, format!("{}:failed", m.id)),
                _ => (m.gain, m.id.clone()),
            };
            let change = self
                .affection
                .add(gain, super::ChangeReason::KeyMoment { id });
            records.push(MomentRecord {
                id: m.id.clone(),
                chapter: m.chapter,
                name: m.name.clone(),
                time: now,
                user: message.to_string(),
                reply: reply.to_string(),
                gained: change.as_ref().map_or(0, |c| c.delta),
                status,
            });
            changes.extend(change);
        }
        self.pending
            .retain(|id| !records.iter().any(|r| &r.id == id));
        for m in candidates {
            if !records.iter().any(|r| r.id == m.id) && !self.pending.contains(&m.id) {
                self.pending.push(m.id.clone());
            }
        }
        records
    }

    /// The next version of the profile (the model's, else the built-in
    /// brain's); the current one is kept among the past ones.
    fn rewrite_profile(&mut self, voice: &mut dyn Voice) -> PlayerProfile {
        let mut next = voice
            .write_profile(self)
            .unwrap_or_else(|| profile::rewrite(self));
        next.version = self.profile.version + 1;
        next.nickname = next
            .nickname
            .or_else(|| self.facts.name().map(str::to_string));
        let old = std::mem::replace(&mut self.profile, next);
        if old.version > 0 {
            self.past_profiles.push(old);
        }
        self.profile.clone()
    }

    /// Keeps what a message stated; a name given is used at once, not only
    /// at the next profile rewrite.
    fn learn(
        &mut self,
        stated: Vec<Stated>,
        (retracts, wrong): (&[String], &[Stated]),
        message: &str,
        now: GameTime,
    ) -> Vec<(PlayerFact, Learnt)> {
        let mut gone = self.facts.retract_names(retracts);
        gone.extend(self.facts.take_back(wrong));
        let mut out = Vec::new();
        for s in stated {
            let fact = PlayerFact {
                kind: s.kind,
                about: s.about,
                value: s.value,
                said: message.to_string(),
                time: now,
            };
            let was = gone.iter().find(|g| g.kind == fact.kind);
            let learnt = match (self.facts.learn(fact.clone()), was) {
                // 「我不叫小雨，我叫周雨」: a correction, though 周雨 was known.
                (Learnt::Known, Some(old)) if fact.kind == super::FactKind::Name => {
                    Learnt::Replaced(old.clone())
                }
                // 「年糕不是橘猫，是一只白猫」: what it was, now put right.
                (Learnt::New, Some(old)) => Learnt::Replaced(old.clone()),
                (learnt, _) => learnt,
            };
            out.push((fact, learnt));
        }
        self.profile.nickname = self.facts.name().map(str::to_string);
        out
    }

    fn record(
        &mut self,
        message: &str,
        reply: &str,
        now: GameTime,
        changes: &[AffectionChange],
        records: &[MomentRecord],
    ) {
        let moment = records.first().map(|m| m.id.clone());
        self.lines.push(ChatLine {
            speaker: Speaker::Player,
            content: message.to_string(),
            affection_delta: changes.iter().map(|c| c.delta).sum(),
            key_moment: moment.clone(),
            time: now,
        });
        self.lines.push(ChatLine {
            speaker: Speaker::Companion,
            content: reply.to_string(),
            affection_delta: 0,
            key_moment: moment,
            time: now,
        });
        self.log.extend(changes.iter().map(|c| (now, c.clone())));
        self.moments.extend(records.iter().cloned());
    }
}

#[cfg(test)]
mod tests;
