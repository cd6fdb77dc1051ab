//! What every layer shares, depending on nothing else in the crate: game
//! time, YAML parsing with `file:line:col` diagnostics and "did you mean"
//! hints, and the repair of JSON that models write.

pub mod diagnostic;
pub mod json;
pub mod time;
pub mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics, closest};
pub use yaml::parse_yaml;
