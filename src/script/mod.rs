//! HEART RULE, the YAML conversation-script engine (plain Rust, no Bevy).
//! Work in progress across sessions: the condition language is done; the
//! script format, checker, engine and runners follow.

pub mod condition;
