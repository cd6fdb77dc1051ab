//! Cupid, the dating host (the design's `cupid-dating-host.md`): a host and
//! two residents through up to 10 multiple-choice scenes, a 0–50
//! compatibility score, every choice explained.
//!
//! No Bevy here: [`Date`] is a resumable state machine the CLI, the window
//! and tests drive one round at a time. Who writes the scenes and the choices
//! is a [`Minds`] (the offline host and avatars in `offline`); the rules hold
//! whatever a mind says: the score stays in 0–50, a round moves it at most
//! ±10, an answer is one of the options offered, the timeline never goes
//! back, and the date ends by the design's conditions.
//!
//! - `scenes`: the offline host's scene bank (`cupid/scenes.yaml`);
//! - `offline`: the host and avatars without a model (seeded);
//! - `rules`: the timeline, the bands, the end conditions;
//! - `summary`: what a date showed of each side ("know later").

mod offline;
mod recorded;
mod rules;
pub mod scenes;
mod summary;

pub use offline::{OfflineMinds, stage_of};
pub use recorded::{Answer, Recording, Replaying};
pub use rules::{ADULT_AGE, Band, EndReason, Timeline, refusal};
pub use scenes::{SceneBank, Stage, Trait};
pub use summary::Summary;

use serde::{Deserialize, Serialize};

use crate::scenario::{BigFive, Profile, RelationKind, ResidentId};

/// Where the score starts: neutral.
pub const START_SCORE: i32 = 25;
/// The most rounds a date has.
pub const MAX_ROUNDS: u32 = 10;
/// The most one round moves the score (the design's examples: +7, −6).
pub const MAX_STEP: i32 = 10;

/// A resident as an avatar: its persona and its tie to the other.
#[derive(Debug, Clone)]
pub struct Avatar {
    /// Its id.
    pub id: ResidentId,
    /// Its name.
    pub name: String,
    /// As the scenario writes it.
    pub gender: String,
    /// Age in years.
    pub age: u32,
    /// Its job.
    pub occupation: String,
    /// Big Five.
    pub personality: BigFive,
    /// Its words about itself.
    pub traits: Vec<String>,
    /// What it likes to talk about.
    pub interests: Vec<String>,
    /// In its own voice.
    pub quote: String,
    /// What it wants.
    pub goals: Vec<String>,
    /// What it remembers.
    pub memories: Vec<String>,
    /// Its tie to the other at the start (kind, strength 0–100).
    pub tie: Option<(RelationKind, f32)>,
}

impl Avatar {
    /// `me` as it goes on a date with `other`.
    pub fn new(me: &Profile, other: &Profile) -> Self {
        let tie = me
            .relationships
            .iter()
            .find(|r| r.with == other.id)
            .map(|r| (r.kind, r.strength));
        Self {
            id: me.id.clone(),
            name: me.name.clone(),
            gender: me.gender.clone(),
            age: me.age,
            occupation: me.occupation.clone(),
            personality: me.personality,
            traits: me.traits.clone(),
            interests: me.topics.clone(),
            quote: me.quote.clone(),
            goals: me.goals.iter().map(|g| g.text.clone()).collect(),
            memories: me.memories.clone(),
            tie,
        }
    }
}

/// The host's turn, exactly the design's JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostTurn {
    /// The scene and question, and whom it is put to.
    pub action: HostAction,
    /// `"Day 1, Morning"`: never earlier than the turn before.
    pub time: String,
    /// The score so far, as the design writes it (text).
    pub cumulative_rate: String,
    /// Why this scene.
    pub rationale: String,
}

/// What the host puts to a side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostAction {
    /// `predict`: a side is asked to choose.
    #[serde(rename = "type")]
    pub kind: String,
    /// The resident asked first (the other answers the same scene after it).
    pub object: ResidentId,
    /// The scene and the question.
    pub question: String,
    /// `"A. … B. … C. …"`.
    pub answers: String,
}

/// A side's choice, exactly the design's JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AvatarTurn {
    /// As the scenario writes it.
    pub gender: String,
    /// The option and what the side does.
    pub decision: Decision,
    /// Why, in its own words.
    pub rationale: String,
}

/// One option chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// `A`…`D`: always one of the options offered.
    pub option: String,
    /// What the side does.
    pub content: String,
}

/// A scene as put to both sides.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Posed {
    /// The host's turn.
    pub host: HostTurn,
    /// The story stage.
    pub stage: Stage,
    /// Each option's text.
    pub options: Vec<String>,
    /// Each option's traits, when the scene comes from the bank.
    pub traits: Vec<Vec<Trait>>,
    /// Where it happens, when the bank says (empty for a model's scene):
    /// rationales recall rounds by place (「上次在柳溪河畔」).
    #[serde(default)]
    pub place: String,
}

impl Posed {
    /// The letter of option `i`.
    pub fn letter(i: usize) -> String {
        char::from(b'A' + i as u8).to_string()
    }

    /// The options as the design writes them: `"A. … B. …"`.
    pub fn answers(options: &[String]) -> String {
        let parts: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, o)| format!("{}. {o}", Posed::letter(i)))
            .collect();
        parts.join(" ")
    }
}

/// A round played: the scene, both choices (first side first), the score's move.
#[derive(Debug, Clone)]
pub struct Round {
    /// The scene.
    pub posed: Posed,
    /// Who answered, and how, in order.
    pub choices: Vec<(ResidentId, AvatarTurn, usize)>,
    /// The score before and after.
    pub before: i32,
    /// After the round.
    pub after: i32,
}

/// The host's judgement of a round, before the rules bound it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Judgement {
    /// How much the round moves the score.
    pub delta: i32,
    /// Why, in Chinese.
    pub reason: String,
    /// Whether the host ends the date here.
    pub end: bool,
}

/// What a date is told so far: its minds read it.
#[derive(Debug)]
pub struct DateView<'a> {
    /// The two sides.
    pub avatars: &'a [Avatar; 2],
    /// The rounds played.
    pub rounds: &'a [Round],
    /// The score now.
    pub score: i32,
    /// The date's length.
    pub max_rounds: u32,
    /// The timeline so far.
    pub timeline: Timeline,
}

/// Who writes the scenes, the choices and the judgements.
pub trait Minds {
    /// The next scene, for the round after `view.rounds`.
    fn pose(&mut self, view: &DateView<'_>) -> Posed;
    /// `who` chooses; `first` is the other side's choice, when it went first.
    fn choose(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        who: Side,
        first: Option<&AvatarTurn>,
    ) -> AvatarTurn;
    /// The host judges the two choices of a round.
    fn judge(
        &mut self,
        view: &DateView<'_>,
        posed: &Posed,
        choices: &[(Side, usize); 2],
    ) -> Judgement;
    /// A scene already written for the next round (a model's host writes it
    /// with its judgement), to carry across a save.
    fn upcoming(&self) -> Option<Posed> {
        None
    }
    /// Gives back a scene [`Minds::upcoming`] returned, after a load.
    fn set_upcoming(&mut self, _posed: Posed) {}
    /// What went wrong since the last call (a model's repairs and fallbacks).
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// One line of a date as it happens (and of its transcript).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// The host's turn.
    Host(HostTurn),
    /// A side's choice.
    Avatar {
        /// Whose.
        resident: ResidentId,
        /// The design's avatar JSON.
        #[serde(flatten)]
        turn: AvatarTurn,
    },
    /// The score moved.
    Score {
        /// Which round.
        round: u32,
        /// Before it.
        before: i32,
        /// After it.
        after: i32,
        /// The host's reasons.
        reason: String,
    },
    /// The date is over.
    End {
        /// Why.
        reason: EndReason,
        /// The final score.
        score: i32,
        /// Rounds played.
        rounds: u32,
        /// The design's band for the score.
        band: Band,
    },
}

/// One of the two on a date, as a date holds its avatars: the first (who
/// asked for the date) or the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `avatars[0]`.
    First,
    /// `avatars[1]`.
    Second,
}

impl Side {
    /// Its place among the avatars.
    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    /// The other one.
    pub fn other(self) -> Self {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

impl<T> std::ops::Index<Side> for [T; 2] {
    type Output = T;

    fn index(&self, side: Side) -> &T {
        &self[side.index()]
    }
}

/// Whose answer a date's next step waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// The host: a scene, or its judgement of the round.
    Host,
    /// A side choosing.
    Avatar(Side),
}

/// A date between two residents, round by round.
#[derive(Debug, Clone)]
pub struct Date {
    avatars: [Avatar; 2],
    rounds: Vec<Round>,
    score: i32,
    max_rounds: u32,
    timeline: Timeline,
    ended: Option<EndReason>,
    /// The round under way: its scene and the choices made so far.
    pending: Option<Pending>,
}

/// A round between its scene and its judgement.
#[derive(Debug, Clone)]
struct Pending {
    posed: Posed,
    choices: Vec<(Side, AvatarTurn, usize)>,
}

impl Date {
    /// A date of at most `max_rounds` (capped at [`MAX_ROUNDS`]).
    pub fn new(a: Avatar, b: Avatar, max_rounds: u32) -> Self {
        Self {
            avatars: [a, b],
            rounds: Vec::new(),
            score: START_SCORE,
            max_rounds: max_rounds.clamp(1, MAX_ROUNDS),
            timeline: Timeline::default(),
            ended: None,
            pending: None,
        }
    }

    /// The score now.
    pub fn score(&self) -> i32 {
        self.score
    }

    /// Why it ended, once it has.
    pub fn ended(&self) -> Option<EndReason> {
        self.ended
    }

    /// The rounds played.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// The two sides.
    pub fn avatars(&self) -> &[Avatar; 2] {
        &self.avatars
    }

    fn view(&self) -> DateView<'_> {
        DateView {
            avatars: &self.avatars,
            rounds: &self.rounds,
            score: self.score,
            max_rounds: self.max_rounds,
            timeline: self.timeline,
        }
    }

    /// Plays one round; returns its messages (the last an `End` when it ends
    /// the date). Nothing once the date has ended.
    pub fn play_round(&mut self, minds: &mut dyn Minds) -> Vec<Message> {
        let mut out = self.step(minds);
        while self.pending.is_some() {
            out.extend(self.step(minds));
        }
        out
    }

    /// The next single step, so each line can be shown as it is produced:
    /// the host poses a scene, the side asked chooses, the other chooses, the
    /// host judges (a `Score`, and an `End` when the date ends). Nothing once
    /// the date has ended.
    pub fn step(&mut self, minds: &mut dyn Minds) -> Vec<Message> {
        if self.ended.is_some() {
            return Vec::new();
        }
        let Some(pending) = self.pending.take() else {
            let mut posed = minds.pose(&self.view());
            self.bound_host(&mut posed);
            let host = Message::Host(posed.host.clone());
            self.pending = Some(Pending {
                posed,
                choices: Vec::new(),
            });
            return vec![host];
        };
        if pending.choices.len() < 2 {
            let mut pending = pending;
            let (who, turn, index) = self.choose(minds, &pending);
            let message = Message::Avatar {
                resident: self.avatars[who].id.clone(),
                turn: turn.clone(),
            };
            pending.choices.push((who, turn, index));
            self.pending = Some(pending);
            return vec![message];
        }
        let Pending { posed, choices } = pending;
        let picked = [(choices[0].0, choices[0].2), (choices[1].0, choices[1].2)];
        let judgement = minds.judge(&self.view(), &posed, &picked);
        self.settle(posed, choices, judgement)
    }

    /// Whose answer the next step waits for (`None` once the date is over).
    pub fn next_turn(&self) -> Option<Turn> {
        if self.ended.is_some() {
            return None;
        }
        Some(match &self.pending {
            Some(p) if p.choices.len() < 2 => Turn::Avatar(self.side_to_choose(p)),
            _ => Turn::Host,
        })
    }

    /// Who answers next: the side asked first, then the other.
    fn side_to_choose(&self, pending: &Pending) -> Side {
        let first = match pending.posed.host.action.object == self.avatars[0].id {
            true => Side::First,
            false => Side::Second,
        };
        if pending.choices.is_empty() {
            first
        } else {
            first.other()
        }
    }

    /// The next side's choice, bounded to the options offered: (side, turn,
    /// option index).
    fn choose(&self, minds: &mut dyn Minds, pending: &Pending) -> (Side, AvatarTurn, usize) {
        let who = self.side_to_choose(pending);
        let earlier = pending.choices.first().map(|(_, t, _)| t);
        let turn = minds.choose(&self.view(), &pending.posed, who, earlier);
        let (turn, index) = rules::bound_choice(turn, &pending.posed, &self.avatars[who]);
        (who, turn, index)
    }

    /// The scene being played, once posed and until judged.
    pub fn posed(&self) -> Option<&Posed> {
        self.pending.as_ref().map(|p| &p.posed)
    }

    /// The host's turn within the rules: a known side asked, the time never
    /// earlier than before, the score as it stands.
    fn bound_host(&mut self, posed: &mut Posed) {
        let host = &mut posed.host;
        if !self.avatars.iter().any(|a| a.id == host.action.object) {
            host.action.object = self.avatars[self.rounds.len() % 2].id.clone();
        }
        self.timeline = self.timeline.after(&host.time);
        host.time = self.timeline.to_string();
        host.cumulative_rate = self.score.to_string();
        host.action.answers = Posed::answers(&posed.options);
    }

    /// Moves the score by the bounded judgement, records the round, ends the
    /// date when a condition holds.
    fn settle(
        &mut self,
        posed: Posed,
        choices: Vec<(Side, AvatarTurn, usize)>,
        judgement: Judgement,
    ) -> Vec<Message> {
        let before = self.score;
        let after = (before + judgement.delta.clamp(-MAX_STEP, MAX_STEP)).clamp(0, 50);
        self.score = after;
        let round = self.rounds.len() as u32 + 1;
        self.rounds.push(Round {
            posed,
            choices: choices
                .into_iter()
                .map(|(who, turn, index)| (self.avatars[who].id.clone(), turn, index))
                .collect(),
            before,
            after,
        });
        let mut out = vec![Message::Score {
            round,
            before,
            after,
            reason: judgement.reason,
        }];
        if let Some(reason) =
            rules::end_reason((before, after), round, self.max_rounds, judgement.end)
        {
            self.ended = Some(reason);
            out.push(Message::End {
                reason,
                score: after,
                rounds: round,
                band: Band::of(after),
            });
        }
        out
    }

    /// Plays to the end; returns every message.
    pub fn play(&mut self, minds: &mut dyn Minds) -> Vec<Message> {
        let mut out = Vec::new();
        while self.ended.is_none() {
            out.extend(self.play_round(minds));
        }
        out
    }
}

#[cfg(test)]
mod tests;
