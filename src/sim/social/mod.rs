//! Social life: who starts talking to whom (proximity, loneliness, work roles,
//! appointments), turn-by-turn conversations as entities with a state machine,
//! group chats, and what a conversation leaves behind (relationships, memories,
//! appointments). The rules themselves are plain functions in [`analysis`].

pub mod analysis;
mod conclude;
pub(crate) mod cue;
pub mod emotion;
mod fade;
mod keywords;
pub use cue::Cue;
pub(crate) mod invites;
pub use invites::attendance_chance;
pub(crate) use invites::{InviteAnswer, InviteReason};
pub(crate) mod lines;
pub mod meetings;
pub mod message;
pub mod scripted;
pub mod spoken;
pub(crate) mod talk;
pub mod triggers;

use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::brain::ActiveBrain;
use super::clock::Clock;
use super::residents::roster::{Roster, RosterIdx};
use super::residents::{Activity, Agenda, Needs, Persona, Relationships, Resident};
use super::town::Gatherings;
use super::{RunSettings, SimSet, SimStep};
use crate::base::time::GameTime;
use crate::scenario::{GatheringIdx, LocIdx, Town, WorkRole};
use crate::sim::brain::Topic;

pub use analysis::{Stage, topic_zh};
pub use emotion::Emotion;
pub use lines::{builtin_line, deliver, with_line_context};
pub use message::{
    ChatMessage, ConversationState, Delivered, EndCause, Proposal, Talking, Trigger, Turn,
    split_end,
};
pub use scripted::ScriptedTalk;
pub use spoken::Spoken;

/// Where each resident stands socially this step, indexed by roster idx.
#[derive(Resource, Debug, Default, Serialize, Deserialize)]
pub struct SocialState {
    /// The conversation each resident is in.
    talking: Vec<Option<u64>>,
    /// No new conversation before this (a breather after the last one).
    pause_until: Vec<GameTime>,
    /// Where and since when each resident has stood still (None while walking).
    stood: Vec<Option<(LocIdx, GameTime)>>,
    /// When each pair (lower idx first) may talk again.
    #[serde(with = "crate::base::pairs")]
    pair_ready: HashMap<(RosterIdx, RosterIdx), GameTime>,
    /// When a customer was last greeted by the staff of a place: one greeting per visit.
    #[serde(with = "crate::base::pairs")]
    greeted: HashMap<(RosterIdx, LocIdx), GameTime>,
    /// Open conversations by id (ordered, so every pass visits them in the same order).
    /// Not saved: a loaded town spawns its conversations anew (`SocialState::reopen`).
    #[serde(skip)]
    open: std::collections::BTreeMap<u64, Entity>,
    /// Conversations started on the current day, for the window's top bar.
    started_today: u32,
    /// Skills each resident has run with each partner: (runner, partner, skill).
    #[serde(with = "crate::base::pairs::set")]
    skills_done: std::collections::HashSet<(RosterIdx, RosterIdx, String)>,
    today: i64,
    next_id: u64,
    /// Gatherings (index) whose organiser has addressed the guests.
    #[serde(default)]
    addressed: std::collections::BTreeSet<GatheringIdx>,
    /// The last day (as residents count days) ties faded on, and the
    /// run's first.
    #[serde(default)]
    faded_day: i64,
    #[serde(default)]
    first_day: i64,
    /// Kept out of every conversation until then: on a date, the two are
    /// with each other, not chatting with the room (or "meeting by chance").
    #[serde(default)]
    engaged_until: Vec<GameTime>,
}

impl SocialState {
    fn resize(&mut self, n: usize) {
        self.talking.resize(n, None);
        // The epoch: long before any town's start (and a time a save can write).
        self.pause_until.resize(n, GameTime(0));
        self.stood.resize(n, None);
        self.engaged_until.resize(n, GameTime(0));
    }

    /// Keeps `idx` out of conversations until `until` (a date under way);
    /// a conversation it is in ends at the next step.
    pub(crate) fn engage(&mut self, idx: RosterIdx, until: GameTime) {
        if self.engaged_until.len() <= idx.i() {
            self.engaged_until.resize(idx.i() + 1, GameTime(0));
        }
        self.engaged_until[idx.i()] = until;
    }

    /// Not in a conversation nor just out of one (whatever its engagements).
    pub fn done_talking(&self, idx: RosterIdx, now: GameTime) -> bool {
        let i = idx.i();
        self.talking.get(i).is_none_or(Option::is_none)
            && self.pause_until.get(i).is_none_or(|&t| t <= now)
    }

    /// Whether `idx` is kept out of conversations now.
    pub fn engaged(&self, idx: RosterIdx, now: GameTime) -> bool {
        self.engaged_until.get(idx.i()).is_some_and(|&t| t > now)
    }

    /// Free for a new conversation: not in one and not resting after one.
    pub fn free(&self, idx: RosterIdx, now: GameTime) -> bool {
        // Someone the state does not know yet is not free.
        idx.i() < self.talking.len() && self.done_talking(idx, now) && !self.engaged(idx, now)
    }

    /// Whether the pair's cooldown after their last talk is over.
    pub fn pair_ready(&self, a: RosterIdx, b: RosterIdx, now: GameTime) -> bool {
        self.pair_ready
            .get(&(a.min(b), a.max(b)))
            .is_none_or(|&t| t <= now)
    }

    /// The conversation resident `idx` is in.
    pub fn talking_in(&self, idx: RosterIdx) -> Option<u64> {
        self.talking.get(idx.i()).copied().flatten()
    }

    /// The entity of open conversation `id`.
    pub fn conversation(&self, id: u64) -> Option<Entity> {
        self.open.get(&id).copied()
    }

    /// Registers a loaded conversation's entity (a save does not keep entities).
    pub(crate) fn reopen(&mut self, id: u64, entity: Entity) {
        self.open.insert(id, entity);
    }

    /// Conversations started today.
    pub fn started_today(&self) -> u32 {
        self.started_today
    }
}

/// The shared random stream for encounters, joins and skills begun (drawn
/// from one conversation after another); a conversation's turns draw from
/// a stream of their own, so conversations can take them side by side.
#[derive(Resource, Debug, Deref, DerefMut)]
pub struct SocialRng(pub ChaCha8Rng);

/// Pairs to bring together at the next step, whatever the odds: for the
/// window ("make these two talk"), scripts and tests. A pair is dropped if the
/// two are not standing awake at the same place, or either is already talking.
#[derive(Resource, Debug, Default)]
pub struct ForcedEncounters(pub Vec<(crate::scenario::ResidentId, crate::scenario::ResidentId)>);

/// A conversation: an entity while it runs.
#[derive(Component, Debug, Clone, Serialize, Deserialize)]
pub struct Conversation {
    id: u64,
    /// Roster indices; the first opened it.
    participants: Vec<RosterIdx>,
    place: LocIdx,
    state: ConversationState,
    trigger: Trigger,
    /// What the built-in brain steers towards.
    subject: Topic,
    /// The topic so far, by the keyword tables (`casual` until one matches).
    topic: String,
    messages: Vec<ChatMessage>,
    started: GameTime,
    /// Messages a built-in speaker aims for before closing.
    planned: u32,
    /// When the next turn is due (turns are `turn_seconds` apart).
    next_turn: GameTime,
    next: Option<Turn>,
    /// An async mind was asked for the next line at this time.
    awaiting: Option<GameTime>,
    /// The line an async mind handed in.
    delivered: Option<Delivered>,
    /// A gathering (index) the organiser invites the other to…
    invite: Option<GatheringIdx>,
    /// …and the guest's answer, decided when the talk opened.
    #[serde(default)]
    invite_answer: Option<InviteAnswer>,
    /// The gathering (index) whose organiser opens this talk addressing the guests.
    #[serde(default)]
    hosting: Option<GatheringIdx>,
    proposal: Option<Proposal>,
    /// The opener greets as staff.
    role: Option<WorkRole>,
    end: Option<EndCause>,
    /// The step (clock.steps) a bystander last had the chance to join.
    join_checked: u64,
    /// A HEART RULE skill one participant runs in this conversation.
    script: Option<Box<ScriptedTalk>>,
    /// Whether a skill was considered (once, before the first line).
    script_checked: bool,
    /// What this step's turns said, until it is sent (empty between steps).
    #[serde(skip)]
    said: talk::Said,
    /// Bystanders who could join at this step, found before the turns.
    #[serde(skip)]
    could_join: Vec<talk::Candidate>,
    /// Someone in it is too tired to go on: found before this step's turns.
    #[serde(skip)]
    tired: bool,
    /// The topic keywords its lines hold (rebuilt from the lines after a load).
    #[serde(skip)]
    topic_words: keywords::TopicWords,
}

impl Conversation {
    /// A conversation opening now: no messages yet, the first turn due now.
    pub(crate) fn new(
        id: u64,
        participants: Vec<RosterIdx>,
        place: LocIdx,
        trigger: Trigger,
        now: GameTime,
    ) -> Self {
        Self {
            id,
            participants,
            place,
            state: ConversationState::Init,
            trigger,
            subject: Topic::Town,
            topic: "casual".to_string(),
            messages: Vec::new(),
            started: now,
            planned: 0,
            next_turn: now,
            next: None,
            awaiting: None,
            delivered: None,
            invite: None,
            invite_answer: None,
            hosting: None,
            proposal: None,
            role: None,
            end: None,
            join_checked: 0,
            script: None,
            script_checked: false,
            said: talk::Said::default(),
            could_join: Vec::new(),
            tired: false,
            topic_words: Default::default(),
        }
    }

    /// Where the organiser's invitation stands among the messages: the
    /// organiser's first line after the opening (None: not said yet).
    pub(crate) fn invitation_at(&self, organiser: RosterIdx) -> Option<usize> {
        let mut later = self.messages.iter().enumerate().skip(1);
        later.find(|(_, m)| m.speaker == organiser).map(|(i, _)| i)
    }

    /// Its id (as in the log).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Who takes part, by roster index; the first opened it.
    pub fn participants(&self) -> &[RosterIdx] {
        &self.participants
    }

    /// Where it takes place.
    pub fn place(&self) -> LocIdx {
        self.place
    }

    /// Where its state machine is.
    pub fn state(&self) -> ConversationState {
        self.state
    }

    /// The messages so far.
    pub fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Whether it waits for an async mind's line (asked at this time).
    pub fn awaiting(&self) -> Option<GameTime> {
        self.awaiting
    }

    /// Why it ended (`None` while it runs).
    pub fn end(&self) -> Option<EndCause> {
        self.end
    }

    /// An async mind's line for the turn the conversation waits on.
    pub fn hand_in(&mut self, line: Delivered) {
        self.delivered = Some(line);
    }

    /// Gives a loaded conversation's skill its script set back: the runner's
    /// `converse:` set, found by `script_of`.
    pub(crate) fn reattach(
        &mut self,
        script_of: impl Fn(RosterIdx) -> Option<std::sync::Arc<crate::script::engine::Script>>,
    ) {
        if let Some(talk) = &mut self.script {
            match script_of(talk.ai) {
                Some(script) => talk.reattach(script),
                None => {
                    talk.error = Some("the loaded town has no script set for this skill".into())
                }
            }
        }
    }

    /// Its topic so far and when it started (for the save's readable columns).
    pub(crate) fn topic_and_start(&self) -> (&str, GameTime) {
        (&self.topic, self.started)
    }

    /// More than two take part.
    pub fn is_group(&self) -> bool {
        self.participants.len() > 2
    }
}

/// A line is needed from an async mind.
#[derive(Message, Debug, Clone, Copy)]
pub struct LineRequest {
    /// The conversation.
    pub(crate) conversation: u64,
    /// Who speaks.
    pub(crate) speaker: Entity,
    /// To whom.
    pub(crate) listener: Entity,
}

/// A participant with an async mind may rewrite its built-in memory of a
/// conversation (`fallback`, stored at `time`) in its own words.
#[derive(Message, Debug, Clone)]
pub struct RecapRequest {
    /// Whose memory.
    pub(crate) entity: Entity,
    /// When it was stored (it is found by this).
    pub(crate) time: GameTime,
    /// The built-in memory.
    pub(crate) fallback: String,
    /// The resident's name.
    pub(crate) name: String,
    /// Where they talked.
    pub(crate) place: String,
    /// The others' names.
    pub(crate) others: String,
    /// (speaker name, line)
    pub(crate) transcript: Vec<(String, String)>,
}

/// What a line is written from.
pub type TalkerView<'a> = (
    &'a Resident,
    &'a Persona,
    Option<&'a Activity>,
    &'a Relationships,
    &'a Agenda,
    &'a Needs,
    &'a crate::sim::knowledge::facts::Knowledge,
);

/// What every line is written from.
#[derive(SystemParam)]
pub struct LineInputs<'w> {
    /// The game clock.
    pub(crate) clock: Res<'w, Clock>,
    /// The run's settings.
    pub(crate) settings: Res<'w, RunSettings>,
    /// The town map.
    pub(crate) town: Res<'w, Town>,
    /// Every resident.
    pub(crate) roster: Res<'w, Roster>,
    /// The gatherings.
    pub(crate) gatherings: Res<'w, Gatherings>,
    /// The brain that writes built-in lines.
    pub(crate) brain: Res<'w, ActiveBrain>,
    /// The scenario (its phrase bank).
    pub(crate) scenario: Res<'w, super::LoadedScenario>,
    /// What each resident has said today.
    pub(crate) spoken: Res<'w, Spoken>,
    /// Where everyone is (who is within earshot of a talk).
    pub(crate) census: Res<'w, crate::sim::residents::census::Census>,
}

/// The step's social phases, in order. Async minds deliver lines before
/// `Talk` and pick up line requests after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SocialSet {
    /// Who stands where since when; appointments' attendance.
    Presence,
    /// New conversations start.
    Triggers,
    /// Open conversations take their turns (and gain members).
    Talk,
    /// Finished conversations change ties, memories and agendas.
    Conclude,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SocialState>()
        .init_resource::<ForcedEncounters>()
        .init_resource::<meetings::Meetings>()
        .init_resource::<Spoken>()
        .add_message::<LineRequest>()
        .add_message::<RecapRequest>()
        .configure_sets(
            SimStep,
            (
                SocialSet::Presence,
                SocialSet::Triggers,
                SocialSet::Talk,
                SocialSet::Conclude,
            )
                .chain()
                .in_set(SimSet::Interactions),
        )
        .add_systems(
            SimStep,
            (
                (triggers::presence, meetings::attendance)
                    .chain()
                    .in_set(SocialSet::Presence),
                triggers::start_conversations.in_set(SocialSet::Triggers),
                (talk::step_out, talk::talk).chain().in_set(SocialSet::Talk),
                (
                    conclude::conclude,
                    meetings::resolve,
                    spoken::remember,
                    fade::fade_ties,
                )
                    .chain()
                    .in_set(SocialSet::Conclude),
            ),
        );
}

/// Sets up the per-resident state for `n` residents.
pub(super) fn setup(world: &mut World, n: usize, seed: u64) {
    let mut state = SocialState::default();
    state.resize(n);
    world.insert_resource(state);
    world.insert_resource(SocialRng(<ChaCha8Rng as rand::SeedableRng>::seed_from_u64(
        seed ^ 0x5EED,
    )));
}
