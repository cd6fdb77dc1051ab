//! The LLM brain: an OpenAI-compatible client on its own tokio runtime, bridged
//! to Bevy over crossbeam channels; prompts, structured output and repair;
//! scheduling (concurrency cap, priorities, level of detail, budget, circuit
//! breaker); accounting; record and replay. No endpoint → the built-in brain.

pub mod accounting;
pub mod bridge;
pub mod calls;
pub mod cassette;
pub mod client;
pub mod companion;
pub(crate) mod config;
pub mod cupid;
pub mod embed;
pub mod fake;
pub mod interview;
mod mind;
pub(crate) mod parse;
pub mod pool;
pub(crate) mod prompts;
pub(crate) mod schema;
pub(crate) mod script;

pub use config::{LlmArgs, LlmSettings};
pub use mind::{LlmBrain, LlmFocus, attach, plugin, wait_if_gated};
