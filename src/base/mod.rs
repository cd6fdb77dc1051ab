//! What every layer shares, depending on nothing else in the crate: game
//! time, YAML parsing with `file:line:col` diagnostics and "did you mean"
//! hints, and the repair of JSON that models write.

mod diagnostic;
pub(crate) mod json;
pub(crate) mod pairs;
pub mod time;
mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics, closest};
pub use yaml::parse_yaml;
