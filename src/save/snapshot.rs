//! A town's whole state as plain data, taken from a world between two steps
//! and put back into a freshly built one: what makes a resumed run the same
//! run.

use bevy::prelude::*;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::base::time::GameTime;
use crate::scenario::{LocIdx, Tuning};
use crate::sim::clock::Clock;
use crate::sim::companion::{Companions, CounselCourses};
use crate::sim::knowledge::{Fact, FactWords, Knowledge};
use crate::sim::memory::{Memories, Memory};
use crate::sim::notice_board::NoticeBoard;
use crate::sim::residents::{
    Activity, Agenda, Census, MapPosition, Needs, NightState, Relationship, Relationships,
    Resident, ResidentRng, Roster, RosterIdx, Tally, Thinking, Walking, Whereabouts,
};
use crate::sim::social::meetings::{Meeting, Meetings};
use crate::sim::social::{Conversation, SocialRng, SocialState, Talking};
use crate::sim::town::ActiveTuning;
use crate::sim::{LoadedScenario, RunSettings};

/// A random stream's exact position: its key, stream and word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RngState {
    seed: [u8; 32],
    stream: u64,
    /// As text: JSON numbers do not carry 128 bits everywhere.
    word_pos: String,
}

impl RngState {
    fn of(rng: &ChaCha8Rng) -> Self {
        Self {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: rng.get_word_pos().to_string(),
        }
    }

    fn rng(&self) -> Result<ChaCha8Rng, String> {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        let pos = self
            .word_pos
            .parse()
            .map_err(|_| format!("bad random stream position {:?}", self.word_pos))?;
        rng.set_word_pos(pos);
        Ok(rng)
    }
}

/// What a resident is doing and carries, beside its needs, ties and memories.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ResidentState {
    pub(crate) activity: Option<Activity>,
    pub(crate) walking: Option<Walking>,
    pub(crate) talking: bool,
    pub(crate) agenda: Agenda,
    pub(crate) tally: Tally,
    pub(crate) night: NightState,
    pub(crate) rng: RngState,
    /// What it has brought up with whom (saves before it: nothing).
    #[serde(default)]
    pub(crate) raised: Vec<(crate::sim::knowledge::About, RosterIdx)>,
}

/// One resident.
#[derive(Debug, Clone)]
pub(crate) struct ResidentSnap {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) needs: Needs,
    pub(crate) at: LocIdx,
    pub(crate) pos: Vec2,
    pub(crate) state: ResidentState,
    pub(crate) ties: Vec<Relationship>,
    pub(crate) memories: Vec<Memory>,
    /// What it knows, each fact with its words (read back: words left
    /// empty); `None` from a save older than knowledge.
    pub(crate) facts: Option<Vec<(Fact, String)>>,
}

/// The engine's own bookkeeping between steps (kept as JSON in `sim_state`).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Bookkeeping {
    pub(crate) social: SocialState,
    pub(crate) social_rng: RngState,
    pub(crate) census: Census,
    pub(crate) plan_requests: u64,
    pub(crate) next_appointment: u32,
    pub(crate) tuning: Tuning,
    /// Cupid's dates booked or under way (saves before them have none).
    #[serde(default)]
    pub(crate) dates: crate::sim::dating::TownDates,
    /// What each resident has said today (saves before it have none).
    #[serde(default)]
    pub(crate) spoken: crate::sim::social::Spoken,
    /// Who has come to each gathering (saves before it have none).
    #[serde(default)]
    pub(crate) attendance: crate::sim::knowledge::Attendance,
}

/// A whole town between two steps.
#[derive(Debug)]
pub struct TownSnapshot {
    pub(crate) seed: u64,
    /// The run's length in days, and whether it had ended.
    pub(crate) days: u32,
    pub(crate) ended: bool,
    pub(crate) now: GameTime,
    pub(crate) steps: u64,
    pub(crate) residents: Vec<ResidentSnap>,
    pub(crate) notices: NoticeBoard,
    pub(crate) appointments: Vec<Meeting>,
    pub(crate) conversations: Vec<Conversation>,
    pub(crate) books: Bookkeeping,
    /// The player's chats, by resident id.
    pub(crate) companions: Vec<(String, crate::companion::CompanionState)>,
    /// The player's counselling courses, by counsellor id.
    pub(crate) courses: Vec<(String, crate::script::engine::Course)>,
}

impl TownSnapshot {
    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The saved run's length in days.
    pub fn days(&self) -> u32 {
        self.days
    }

    /// Whether the saved run had ended (its last day done).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The game time of the snapshot.
    pub fn now(&self) -> GameTime {
        self.now
    }

    /// Full game days elapsed since the run's start at `start`.
    pub fn days_elapsed(&self, start: GameTime) -> u32 {
        ((self.now.0 - start.0).max(0) / 86_400) as u32
    }
}

/// Reads a town's state out of `world` (between two steps).
pub fn take(world: &mut World) -> TownSnapshot {
    let clock = world.resource::<Clock>().clone();
    let settings = world.resource::<RunSettings>().clone();
    let residents = take_residents(world);
    let mut conversations: Vec<Conversation> = world
        .query::<&Conversation>()
        .iter(world)
        .cloned()
        .collect();
    conversations.sort_by_key(Conversation::id);
    let meetings = world.resource::<Meetings>();
    let (appointments, next_appointment) = (meetings.list.clone(), meetings.next_id());
    let books = Bookkeeping {
        social: clone_json(world.resource::<SocialState>()),
        social_rng: RngState::of(&world.resource::<SocialRng>().0),
        census: world.resource::<Census>().clone(),
        plan_requests: crate::sim::planning::requests_made(world),
        next_appointment,
        tuning: world.resource::<ActiveTuning>().0.clone(),
        dates: clone_json(world.resource::<crate::sim::dating::TownDates>()),
        spoken: world.resource::<crate::sim::social::Spoken>().clone(),
        attendance: world
            .resource::<crate::sim::knowledge::Attendance>()
            .clone(),
    };
    TownSnapshot {
        seed: settings.seed,
        days: settings.days,
        ended: world.resource::<crate::sim::outcome::SimOutcome>().ended(),
        now: clock.now,
        steps: clock.steps,
        residents,
        notices: world.resource::<NoticeBoard>().clone(),
        appointments,
        conversations,
        books,
        companions: by_id(world.get_resource::<Companions>().map(|c| &c.0)),
        courses: by_id(world.get_resource::<CounselCourses>().map(|c| &c.0)),
    }
}

/// The player's records with each resident, by id (none: nothing yet).
fn by_id<T: Clone>(
    map: Option<&std::collections::BTreeMap<crate::scenario::ResidentId, T>>,
) -> Vec<(String, T)> {
    map.into_iter()
        .flatten()
        .map(|(id, v)| (id.to_string(), v.clone()))
        .collect()
}

/// [`by_id`] read back.
fn from_ids<T>(
    items: Vec<(String, T)>,
) -> std::collections::BTreeMap<crate::scenario::ResidentId, T> {
    items
        .into_iter()
        .map(|(id, v)| (crate::scenario::ResidentId::new(&id), v))
        .collect()
}

/// `SocialState` is not `Clone` (it owns entity handles); a save copies it
/// through its serde form, which leaves the entities out.
fn clone_json<T: Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    serde_json::from_value(serde_json::to_value(v).expect("plain data serializes"))
        .expect("plain data reads back")
}

type ResidentView<'a> = (
    &'a Resident,
    &'a Needs,
    &'a Whereabouts,
    &'a MapPosition,
    (Option<&'a Activity>, Option<&'a Walking>, Has<Talking>),
    (&'a Agenda, &'a Tally, &'a NightState, &'a ResidentRng),
    (&'a Relationships, &'a Memories, &'a Knowledge),
);

fn take_residents(world: &mut World) -> Vec<ResidentSnap> {
    let roster = world.resource::<Roster>().clone();
    let town = world.resource::<crate::scenario::Town>().clone();
    let gatherings = world.resource::<crate::sim::town::Gatherings>().0.clone();
    let scenario = world.resource::<LoadedScenario>().0.clone();
    let words = FactWords {
        roster: &roster,
        town: &town,
        gatherings: &gatherings,
        residents: &scenario.residents,
    };
    let mut q = world.query::<ResidentView>();
    (0..roster.len())
        .map(|i| {
            let idx = RosterIdx(i as u32);
            let (
                r,
                needs,
                at,
                pos,
                (activity, walking, talking),
                (agenda, tally, night, rng),
                (ties, memories, knowledge),
            ) = q
                .get(world, roster.entity_of(idx))
                .expect("every roster entry is a resident");
            let facts = knowledge
                .facts()
                .iter()
                .map(|f| (*f, words.fact(&f.about)))
                .collect();
            ResidentSnap {
                id: r.id.to_string(),
                name: roster.names()[i].clone(),
                needs: *needs,
                at: at.0,
                pos: pos.0,
                state: ResidentState {
                    activity: activity.cloned(),
                    walking: walking.cloned(),
                    talking,
                    agenda: agenda.clone(),
                    tally: tally.clone(),
                    night: night.clone(),
                    rng: RngState::of(&rng.rng()),
                    raised: knowledge.raised().to_vec(),
                },
                ties: ties.as_slice().to_vec(),
                memories: memories.entries().to_vec(),
                facts: Some(facts),
            }
        })
        .collect()
}

/// Puts a snapshot into a world freshly built from the same scenario and seed
/// (`sim::setup_world`): every resident's state, the conversations under way,
/// the boards and the engine's bookkeeping. The run's length is the world's
/// own (`RunSettings`).
pub fn restore(world: &mut World, snap: TownSnapshot) -> Result<(), String> {
    check_roster(world, &snap)?;
    {
        let mut clock = world.resource_mut::<Clock>();
        clock.now = snap.now;
        clock.steps = snap.steps;
    }
    let roster = world.resource::<Roster>().clone();
    for (i, r) in snap.residents.into_iter().enumerate() {
        restore_resident(world, &roster, RosterIdx(i as u32), r)?;
    }
    world.insert_resource(snap.notices);
    world.insert_resource(Meetings::restored(
        snap.appointments,
        snap.books.next_appointment,
    ));
    world.insert_resource(SocialRng(snap.books.social_rng.rng()?));
    world.resource_mut::<Census>().restore(snap.books.census);
    crate::sim::planning::set_requests_made(world, snap.books.plan_requests);
    world.resource_mut::<ActiveTuning>().0 = snap.books.tuning;
    world.insert_resource(snap.books.dates);
    world.insert_resource(snap.books.spoken);
    world.insert_resource(snap.books.attendance);
    let mut social = snap.books.social;
    reopen_conversations(world, &mut social, snap.conversations);
    world.insert_resource(social);
    world.insert_resource(Companions(from_ids(snap.companions)));
    world.insert_resource(CounselCourses(from_ids(snap.courses)));
    crate::sim::event_log::mark_resumed(world);
    Ok(())
}

fn check_roster(world: &World, snap: &TownSnapshot) -> Result<(), String> {
    let ids = world.resource::<Roster>().ids();
    let same = ids.len() == snap.residents.len()
        && ids
            .iter()
            .zip(&snap.residents)
            .all(|(a, b)| a.as_str() == b.id);
    if same {
        Ok(())
    } else {
        Err(format!(
            "the save's residents ({}) are not the scenario's ({})",
            snap.residents.len(),
            ids.len()
        ))
    }
}

fn restore_resident(
    world: &mut World,
    roster: &Roster,
    idx: RosterIdx,
    r: ResidentSnap,
) -> Result<(), String> {
    let mut ties = r.ties;
    for t in &mut ties {
        t.with_idx = roster
            .idx(&t.with)
            .ok_or_else(|| format!("{} knows an unknown resident {}", r.id, t.with))?;
        // The roster's own id: lookups by pointer stay fast.
        t.with = roster.id_of(t.with_idx).clone();
    }
    let s = r.state;
    let mut e = world.entity_mut(roster.entity_of(idx));
    // A save older than knowledge keeps what the scenario gave at spawn.
    if let Some(facts) = r.facts {
        let facts = facts.into_iter().map(|(f, _)| f).collect();
        e.insert(Knowledge::restored(facts, s.raised));
    }
    e.insert((
        r.needs,
        Whereabouts(r.at),
        MapPosition(r.pos),
        s.agenda,
        s.tally,
        s.night,
        ResidentRng::new(&s.rng.rng()?),
        Relationships::new(ties),
        Memories::from_entries(r.memories),
    ));
    e.remove::<Thinking>();
    match s.activity {
        Some(a) => e.insert(a),
        None => e.remove::<Activity>(),
    };
    match s.walking {
        Some(w) => e.insert(w),
        None => e.remove::<Walking>(),
    };
    if s.talking {
        e.insert(Talking);
    } else {
        e.remove::<Talking>();
    }
    Ok(())
}

fn reopen_conversations(world: &mut World, social: &mut SocialState, list: Vec<Conversation>) {
    let scenario = world.resource::<LoadedScenario>().0.clone();
    for mut c in list {
        c.reattach(|ai| {
            scenario.residents[ai.i()]
                .converse
                .as_ref()
                .map(|set| std::sync::Arc::clone(&set.script))
        });
        let id = c.id();
        let entity = world.spawn(c).id();
        social.reopen(id, entity);
    }
}
