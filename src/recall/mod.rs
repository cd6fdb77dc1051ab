//! Memory retrieval that works in Chinese: a lexical search (jieba words plus
//! character bigrams, BM25) and, when an embeddings endpoint is configured, a
//! semantic one (cosine over stored vectors), merged by reciprocal rank and
//! scored as in *Generative Agents*: relevance + importance + recency (decaying
//! per game hour since the memory was last recalled), weights in
//! `tuning.yaml` (`memory:`).
//!
//! Knows nothing of Bevy or the network: the town, the save and
//! `heartvale memory` feed it text, times and vectors.

pub mod bench;
mod lexical;
mod segment;
mod tuning;

pub use lexical::DocId;
pub use segment::Segmenter;
pub use tuning::RecallTuning;

use crate::base::time::GameTime;
use lexical::Lexical;

/// What retrieval weighs besides the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocMeta {
    /// When it happened.
    pub time: GameTime,
    /// 0–100.
    pub importance: u8,
    /// When it was last recalled (or made).
    pub last_access: GameTime,
}

/// One search.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// What to look for.
    pub text: &'a str,
    /// The moment of the search: recency counts from it.
    pub now: GameTime,
    /// Only memories up to this time (a bench query "as of" its time); all when `None`.
    pub as_of: Option<GameTime>,
    /// The query's embedding, when the documents have theirs.
    pub vector: Option<&'a [f32]>,
    /// How many to return.
    pub k: usize,
}

/// A retrieved document and why it ranks where it does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Which document.
    pub doc: DocId,
    /// The weighted total.
    pub score: f32,
    /// Reciprocal-rank relevance, scaled so the best document has 1.
    pub relevance: f32,
    /// importance / 100.
    pub importance: f32,
    /// decay ^ game hours since last access.
    pub recency: f32,
}

/// One resident's memories, searchable. Documents are added in order; their
/// ids are their positions.
#[derive(Debug, Clone, Default)]
pub struct Index {
    lexical: Lexical,
    meta: Vec<DocMeta>,
    vectors: Vec<Option<Vec<f32>>>,
}

impl Index {
    /// Adds a document; returns its id.
    pub fn add(&mut self, seg: &Segmenter, text: &str, meta: DocMeta) -> DocId {
        let id = self.lexical.add(&seg.terms(text));
        self.meta.push(meta);
        self.vectors.push(None);
        id
    }

    /// How many documents there are.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Gives a document its embedding (kept at unit length: a search is
    /// then one dot product per document).
    pub fn set_vector(&mut self, doc: DocId, mut vector: Vec<f32>) {
        let n = norm(&vector).max(f32::EPSILON);
        vector.iter_mut().for_each(|x| *x /= n);
        if let Some(v) = self.vectors.get_mut(doc as usize) {
            *v = Some(vector);
        }
    }

    /// Notes that a document was recalled at `now` (its recency restarts).
    pub fn touch(&mut self, doc: DocId, now: GameTime) {
        if let Some(m) = self.meta.get_mut(doc as usize) {
            m.last_access = m.last_access.max(now);
        }
    }

    /// The `q.k` best documents at `q.now`, best first.
    pub fn search(&self, seg: &Segmenter, q: &Query<'_>, tuning: &RecallTuning) -> Vec<Hit> {
        let visible = |d: DocId| q.as_of.is_none_or(|t| self.meta[d as usize].time <= t);
        let n = tuning.candidates;
        let lexical = self.lexical.search(&seg.terms(q.text), visible, n);
        let semantic = q
            .vector
            .map(|v| self.nearest(v, visible, n, tuning.semantic_sigma))
            .unwrap_or_default();
        let mut relevance = vec![0f32; self.meta.len()];
        for list in [&lexical, &semantic] {
            for (rank, (doc, _)) in list.iter().enumerate() {
                relevance[*doc as usize] += 1.0 / (tuning.rrf_k + rank as f32 + 1.0);
            }
        }
        let best = relevance.iter().copied().fold(0f32, f32::max);
        let mut hits: Vec<Hit> = (0..self.meta.len() as DocId)
            .filter(|&d| visible(d))
            .map(|d| {
                let rel = if best > 0.0 {
                    relevance[d as usize] / best
                } else {
                    0.0
                };
                self.score(d, rel, q.now, tuning)
            })
            .collect();
        let k = q.k.min(hits.len());
        if k == 0 {
            return Vec::new();
        }
        let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(b.doc.cmp(&a.doc));
        hits.select_nth_unstable_by(k - 1, order);
        hits.truncate(k);
        hits.sort_by(order);
        hits
    }

    fn score(&self, doc: DocId, relevance: f32, now: GameTime, t: &RecallTuning) -> Hit {
        let m = self.meta[doc as usize];
        let hours = (now.0 - m.last_access.0).max(0) as f64 / 3600.0;
        let recency = t.decay_per_hour.powf(hours) as f32;
        let importance = f32::from(m.importance.min(100)) / 100.0;
        Hit {
            doc,
            score: t.relevance * relevance + t.importance * importance + t.recency * recency,
            relevance,
            importance,
            recency,
        }
    }

    /// The `n` visible documents with vectors closest to `v` (cosine), among
    /// those `sigma` standard deviations above the mean similarity: what
    /// stands out, whatever the model's scale (e5's cosines all sit near 0.8).
    fn nearest(
        &self,
        v: &[f32],
        visible: impl Fn(DocId) -> bool,
        n: usize,
        sigma: f32,
    ) -> Vec<(DocId, f32)> {
        let qn = norm(v).max(f32::EPSILON);
        let mut scored: Vec<(DocId, f32)> = self
            .vectors
            .iter()
            .enumerate()
            .filter_map(|(d, dv)| Some((d as DocId, dv.as_deref()?)))
            .filter(|(d, dv)| visible(*d) && dv.len() == v.len())
            .map(|(d, dv)| (d, dot(v, dv) / qn))
            .collect();
        if scored.len() > 1 {
            let count = scored.len() as f32;
            let mean = scored.iter().map(|s| s.1).sum::<f32>() / count;
            let var = scored.iter().map(|s| (s.1 - mean).powi(2)).sum::<f32>() / count;
            let floor = mean + sigma * var.sqrt();
            scored.retain(|s| s.1 >= floor);
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        scored.truncate(n);
        scored
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f32]) -> f32 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> GameTime {
        GameTime::parse(s).unwrap()
    }

    fn meta(time: &str, importance: u8) -> DocMeta {
        DocMeta {
            time: at(time),
            importance,
            last_access: at(time),
        }
    }

    #[test]
    fn relevance_importance_and_recency_all_count() {
        let seg = Segmenter::new(["阿朵"]);
        let mut ix = Index::default();
        let t = RecallTuning::default();
        ix.add(&seg, "阿朵说她喜欢红豆面包", meta("2026-04-01 09:00", 30));
        ix.add(&seg, "下雨了，在家看书", meta("2026-04-02 09:00", 10));
        ix.add(&seg, "医生说我血压高", meta("2026-04-03 09:00", 90));
        let q = |text, now| Query {
            text,
            now: at(now),
            as_of: Some(at(now)),
            vector: None,
            k: 3,
        };
        let hits = ix.search(&seg, &q("阿朵喜欢吃什么面包", "2026-04-03 12:00"), &t);
        assert_eq!(hits[0].doc, 0, "the relevant memory first: {hits:?}");
        assert!(hits[0].relevance == 1.0 && hits[1].relevance == 0.0);
        // No word in common: importance and recency decide.
        let hits = ix.search(&seg, &q("今天怎么样", "2026-04-03 12:00"), &t);
        assert_eq!(hits[0].doc, 2, "{hits:?}");
        // The future is invisible.
        let hits = ix.search(&seg, &q("血压", "2026-04-02 12:00"), &t);
        assert!(hits.iter().all(|h| h.doc != 2), "{hits:?}");
        let yesterday = hits.iter().find(|h| h.doc == 1).unwrap();
        assert!(
            (yesterday.recency - 0.995f32.powi(3)).abs() < 1e-4,
            "{hits:?}"
        );
    }

    #[test]
    fn vectors_find_what_shares_no_word_and_touch_restarts_recency() {
        let seg = Segmenter::new([]);
        let mut ix = Index::default();
        let t = RecallTuning::default();
        let a = ix.add(&seg, "医生说我血压高", meta("2026-04-01 09:00", 50));
        let b = ix.add(&seg, "买了新的锄头", meta("2026-04-01 10:00", 50));
        ix.set_vector(a, vec![1.0, 0.0]);
        ix.set_vector(b, vec![0.0, 1.0]);
        let q = Query {
            text: "身体要注意什么",
            now: at("2026-04-02 10:00"),
            as_of: None,
            vector: Some(&[0.9, 0.1]),
            k: 2,
        };
        assert_eq!(ix.search(&seg, &q, &t)[0].doc, a);
        ix.touch(b, at("2026-04-02 10:00"));
        let hit = ix
            .search(&seg, &q, &t)
            .into_iter()
            .find(|h| h.doc == b)
            .unwrap();
        assert_eq!(hit.recency, 1.0);
    }
}
