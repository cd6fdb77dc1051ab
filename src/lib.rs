//! Heartvale: a generative-agent town on Bevy.
//!
//! The modules form layers; each uses only the ones before it
//! (`ARCHITECTURE.md` gives the reasons and the order of a step):
//!
//! - [`base`]: game time, diagnostics that name `file:line:col`, YAML parsing.
//! - [`context`]: the memory design's context builder — prompt layers, their
//!   token budgets, tokens counted as the target model counts them.
//! - [`recall`]: memory retrieval for Chinese (jieba + bigrams BM25,
//!   embeddings, reciprocal-rank merge, relevance + importance + recency).
//! - [`companion`]: the player's companion — affection and its six stages,
//!   key moments, what `companion:` in a scenario defines.
//! - [`script`]: HEART RULE conversation scripts — format, loader, checker,
//!   condition language, the resumable engine and its hosts.
//! - [`scenario`]: scenario folders (YAML) → a validated [`scenario::Scenario`],
//!   and generated towns.
//! - [`cupid`]: the dating host — a resumable date of up to 10 scenes between
//!   two residents, its rules, the offline host and avatars, the scene bank.
//! - [`sim`]: the render-free simulation plugins (clock, residents, needs,
//!   planning, actions, notices, memory, social life, end, event log) and the
//!   [`sim::brain::Brain`] interface every mind implements.
//! - [`builtin`]: the built-in brain, offline (planner, lines, answers).
//! - [`llm`]: the LLM brain (OpenAI-compatible client, bridge, prompts, record/replay).
//! - [`save`]: a whole town in one SQLite file, resumed exactly.
//! - [`headless`]: apps without a window, for `heartvale sim`, tests and benchmarks.
//! - `window` (private): the animated 2D town with egui panels, hot reload and tuning.
//! - [`cli`]: `heartvale sim | check | replay | script | window | chat | date | memory`.

pub mod base;
pub mod builtin;
pub mod cli;
pub mod companion;
pub mod context;
pub mod cupid;
pub mod headless;
pub mod llm;
pub mod recall;
pub mod save;
pub mod scenario;
pub mod script;
pub mod sim;
pub(crate) mod window;
