//! How a run ends, as the rest of the town sees it: whether it has, why, and
//! the messages that ask it to stop. The systems that decide it are in `end`.

use bevy::prelude::*;

use super::event_log::events::EndReason;

/// Whether (and why) the run has ended.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct SimOutcome(pub Option<EndReason>);

impl SimOutcome {
    /// Whether the run has ended.
    pub fn ended(&self) -> bool {
        self.0.is_some()
    }
}

/// Ask the simulation to stop at the end of the current step.
#[derive(Message, Debug, Clone, Copy)]
pub struct StopSim;

/// The run cannot go on (e.g. a replay has no recorded answer); it ends this step.
#[derive(Message, Debug, Clone)]
pub struct FailSim(pub String);

/// Why the run failed, when it did.
#[derive(Resource, Debug, Clone, Default)]
pub struct SimFailure(pub Option<String>);
