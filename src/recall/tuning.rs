//! `memory:` in `tuning.yaml`: how retrieval weighs what it finds.

use serde::{Deserialize, Serialize};

/// Retrieval weights. Each part of a memory's score is in 0–1 before weighting.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RecallTuning {
    /// Weight of relevance to the query (reciprocal-rank merge of the searches).
    pub relevance: f32,
    /// Weight of importance (the memory's 0–100, scaled to 0–1).
    pub importance: f32,
    /// Weight of recency.
    pub recency: f32,
    /// Recency factor per game hour since the memory was last recalled.
    pub decay_per_hour: f64,
    /// The reciprocal-rank constant: larger flattens the merge.
    pub rrf_k: f32,
    /// How many candidates each search (lexical, semantic) brings to the merge.
    pub candidates: usize,
    /// A semantic candidate's similarity must be this many standard
    /// deviations above the mean over the memories searched.
    pub semantic_sigma: f32,
}

impl Default for RecallTuning {
    fn default() -> Self {
        Self {
            relevance: 1.0,
            importance: 0.25,
            recency: 0.25,
            decay_per_hour: 0.995,
            rrf_k: 10.0,
            candidates: 50,
            semantic_sigma: 1.0,
        }
    }
}
