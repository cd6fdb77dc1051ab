//! The town as resources: the map, the tuning values, the planned gatherings.

use bevy::prelude::*;

use crate::scenario::{Gathering, GatheringIdx, Scenario, Tuning};

/// The scenario's tuning values; the window's sliders change them live.
#[derive(Resource, Debug, Clone, Deref, DerefMut)]
pub struct ActiveTuning(pub Tuning);

/// Get-togethers residents organise (from their goals).
#[derive(Resource, Debug, Clone, Default, Deref)]
pub struct Gatherings(pub Vec<Gathering>);

impl Gatherings {
    /// Gathering `g`, if there is one.
    pub fn at(&self, g: GatheringIdx) -> Option<&Gathering> {
        self.0.get(g.i())
    }
}

impl std::ops::Index<GatheringIdx> for Gatherings {
    type Output = Gathering;

    fn index(&self, g: GatheringIdx) -> &Gathering {
        &self.0[g.i()]
    }
}

pub(super) fn setup(world: &mut World, scenario: &Scenario) {
    // The route table is built once, here, not by the first step that walks.
    scenario.town.prepare_routes();
    world.insert_resource(scenario.town.clone());
    world.insert_resource(ActiveTuning(scenario.tuning.clone()));
    world.insert_resource(Gatherings(scenario.gatherings.clone()));
}
