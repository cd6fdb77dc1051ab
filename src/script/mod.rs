//! HEART RULE, the YAML conversation-script engine (plain Rust, no Bevy).
//! Built across sessions: the condition language, the file format and the
//! loader are here; the checker, engine and runners follow.

pub mod check;
pub(crate) mod condition;
pub mod diag;
pub mod engine;
pub mod format;
pub mod host;
pub mod load;
pub(crate) mod runner;
pub mod schema;
pub mod templates;
