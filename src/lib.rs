//! Heartvale: a generative-agent town on Bevy.
//!
//! - [`scenario`]: scenario folders (YAML) → a validated [`scenario::Scenario`].
//! - [`sim`]: the render-free simulation plugins (clock, residents, needs,
//!   planning, actions, notices, memory, social life, end, event log).
//! - [`brain`]: the interface minds implement, and the built-in offline brain.
//! - [`llm`]: the LLM brain (OpenAI-compatible client, bridge, prompts, record/replay).
//! - [`script`]: HEART RULE conversation scripts (conditions so far).
//! - [`window`]: the animated 2D town with egui panels, hot reload and tuning.
//! - [`cli`]: `heartvale sim | check | replay | script | window`.

pub mod base;
pub mod brain;
pub mod cli;
pub mod headless;
pub mod llm;
pub mod scenario;
pub mod script;
pub mod sim;
pub(crate) mod window;
