//! The roster: every resident's strong id, name and entity by dense index.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::scenario::ResidentId;

/// Dense index of a resident in the [`Roster`]; never logged or saved (use
/// [`ResidentId`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct RosterIdx(pub u32);

impl RosterIdx {
    /// As an index into the per-resident arrays.
    pub fn i(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for RosterIdx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// All residents by strong id, in scenario order.
#[derive(Resource, Debug, Clone, Default)]
pub struct Roster {
    ids: Vec<ResidentId>,
    names: Vec<String>,
    entities: Vec<Entity>,
    /// Each index by its id's address: ids are interned, so a lookup hashes
    /// a number, not a string.
    by_address: HashMap<usize, RosterIdx>,
}

impl Roster {
    /// Adds a resident at the next index and returns it.
    pub fn push(&mut self, id: ResidentId, name: String, entity: Entity) -> RosterIdx {
        let i = RosterIdx(self.ids.len() as u32);
        self.by_address.insert(id.address(), i);
        self.ids.push(id);
        self.names.push(name);
        self.entities.push(entity);
        i
    }

    /// Gives the resident at `i` a new display name (a hot-reloaded persona).
    pub fn rename(&mut self, i: RosterIdx, name: String) {
        self.names[i.i()] = name;
    }

    /// The index of resident `id`.
    pub fn idx(&self, id: &ResidentId) -> Option<RosterIdx> {
        self.by_address.get(&id.address()).copied()
    }

    /// Resident `id`'s entity.
    pub fn entity(&self, id: &ResidentId) -> Option<Entity> {
        self.idx(id).map(|i| self.entities[i.i()])
    }

    /// Resident `id`'s name (its id if it is not on the roster).
    pub fn name<'a>(&'a self, id: &'a ResidentId) -> &'a str {
        self.idx(id).map_or(id.as_str(), |i| &self.names[i.i()])
    }

    /// The strong id at `i`.
    pub fn id_of(&self, i: RosterIdx) -> &ResidentId {
        &self.ids[i.i()]
    }

    /// The name at `i`.
    pub fn name_of(&self, i: RosterIdx) -> &str {
        &self.names[i.i()]
    }

    /// The entity at `i`.
    pub fn entity_of(&self, i: RosterIdx) -> Entity {
        self.entities[i.i()]
    }

    /// Every index, in roster order.
    pub fn indices(&self) -> impl Iterator<Item = RosterIdx> + use<> {
        (0..self.ids.len() as u32).map(RosterIdx)
    }

    /// Every id, in roster order.
    pub fn ids(&self) -> &[ResidentId] {
        &self.ids
    }

    /// Every name, in roster order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Every entity, in roster order.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// How many residents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}
