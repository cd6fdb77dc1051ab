//! The built-in brain: no network, deterministic given the seed.
//! Plans come from utility scores (needs, time, work, home, persona, goals,
//! notices, friends' whereabouts); words come from Chinese templates.

mod address;
pub mod interview;
mod planner;
mod speech;
mod talk;

use std::sync::Arc;

use bevy::prelude::App;
use rand_chacha::ChaCha8Rng;

use crate::sim::brain::{ActiveBrain, Brain, LineContext, Plan, PlanContext, Said, SummaryContext};

/// Makes the built-in brain the active one (an LLM brain, attached later,
/// takes over the residents it drives and falls back to this one).
pub fn plugin(app: &mut App) {
    app.insert_resource(ActiveBrain(Arc::new(BuiltinBrain)));
}

/// The offline brain: utility plans and Chinese templates.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltinBrain;

impl Brain for BuiltinBrain {
    fn name(&self) -> &str {
        "builtin"
    }

    fn plan(&self, cx: &PlanContext<'_>, rng: &mut ChaCha8Rng) -> Plan {
        planner::plan(cx, rng)
    }

    fn line(&self, cx: &LineContext<'_>) -> Said {
        talk::conversation_line(cx)
    }

    fn summarise(&self, cx: &SummaryContext<'_>) -> String {
        speech::summary(cx)
    }
}

/// A stable pseudo-random number in [0, 1) from a few integers: the same resident,
/// day and purpose always give the same roll, whatever else happened.
pub(crate) fn roll(seed: u64, id: &str, day: i64, salt: u64) -> f32 {
    let mut h =
        crate::sim::residents::resident_seed(seed ^ salt.wrapping_mul(0xA24B_AED4_963E_E407), id);
    h ^= (day as u64).wrapping_mul(0x9FB2_1C65_1E98_DF25);
    // SplitMix64 finaliser.
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    (h >> 40) as f32 / (1u64 << 24) as f32
}
