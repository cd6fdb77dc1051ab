//! `heartvale memory bench`: retrieval measured on a JSONL file of memories
//! and queries with the memories each query should find.
//!
//! ```text
//! {"kind":"memory","id":"m1","resident":"he_qing","time":"2026-04-06 09:00","text":"…","importance":7}
//! {"kind":"query","id":"q1","resident":"he_qing","time":"2026-04-20 20:00","text":"…","expect":["m1"]}
//! ```
//!
//! A query searches only its resident's memories as of its time.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{DocId, DocMeta, Index, Query, RecallTuning, Segmenter};
use crate::base::time::GameTime;

/// One line of a bench file.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BenchLine {
    /// A memory (importance 1–10, as in *Generative Agents*).
    Memory {
        /// Unique in the file.
        id: String,
        /// Whose memory.
        resident: String,
        /// `YYYY-MM-DD HH:MM`.
        time: String,
        /// What is remembered.
        text: String,
        /// 1–10.
        importance: u8,
    },
    /// A query and the memories it should find.
    Query {
        /// Unique in the file.
        id: String,
        /// Whose memories it searches.
        resident: String,
        /// `YYYY-MM-DD HH:MM`: memories after it are not searched.
        time: String,
        /// The question.
        text: String,
        /// The ids of the memories that answer it.
        expect: Vec<String>,
    },
}

/// A bench file, read and checked.
#[derive(Debug, Clone, Default)]
pub struct BenchSet {
    memories: Vec<BenchMemory>,
    queries: Vec<BenchQuery>,
}

#[derive(Debug, Clone)]
struct BenchMemory {
    id: String,
    resident: String,
    time: GameTime,
    text: String,
    importance: u8,
}

#[derive(Debug, Clone)]
struct BenchQuery {
    id: String,
    resident: String,
    time: GameTime,
    text: String,
    expect: Vec<String>,
}

/// The figures `heartvale memory bench` prints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BenchReport {
    /// How many queries were asked.
    pub queries: usize,
    /// Mean share of each query's expected memories in its top 3 (what a
    /// chat reply draws on first).
    #[serde(rename = "recall@3")]
    pub recall_at_3: f64,
    /// Mean share of each query's expected memories in its top 5.
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    /// … in its top 10.
    #[serde(rename = "recall@10")]
    pub recall_at_10: f64,
    /// Mean normalised discounted cumulative gain of the top 10 (binary relevance).
    #[serde(rename = "ndcg@10")]
    pub ndcg_at_10: f64,
    /// Mean reciprocal rank of the first expected memory (0 when none in the top 10).
    pub mrr: f64,
}

/// A query that missed some of its expected memories in the top 5.
#[derive(Debug, Clone, Serialize)]
pub struct Miss {
    /// The query's id.
    pub id: String,
    /// The question.
    pub text: String,
    /// Expected ids not in the top 5.
    pub missing: Vec<String>,
    /// The top 5 as found.
    pub found: Vec<String>,
}

/// Embeds texts as queries (`true`) or as passages (`false`), in order.
pub type Embedder<'a> = dyn FnMut(&[String], bool) -> Result<Vec<Vec<f32>>, String> + 'a;

impl BenchSet {
    /// Parses a JSONL bench file; errors name the line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut set = BenchSet::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed: BenchLine =
                serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
            set.push(parsed)
                .map_err(|e| format!("line {}: {e}", i + 1))?;
        }
        set.check()?;
        Ok(set)
    }

    fn push(&mut self, line: BenchLine) -> Result<(), String> {
        let when = |t: &str| GameTime::parse(t).ok_or(format!("bad time {t:?} (YYYY-MM-DD HH:MM)"));
        match line {
            BenchLine::Memory {
                id,
                resident,
                time,
                text,
                importance,
            } => {
                if !(1..=10).contains(&importance) {
                    return Err(format!("importance {importance} is not 1–10"));
                }
                self.memories.push(BenchMemory {
                    time: when(&time)?,
                    id,
                    resident,
                    text,
                    importance,
                });
            }
            BenchLine::Query {
                id,
                resident,
                time,
                text,
                expect,
            } => self.queries.push(BenchQuery {
                time: when(&time)?,
                id,
                resident,
                text,
                expect,
            }),
        }
        Ok(())
    }

    /// Every expected id is a memory of the query's resident, from before the query.
    fn check(&self) -> Result<(), String> {
        let by_id: HashMap<&str, &BenchMemory> =
            self.memories.iter().map(|m| (m.id.as_str(), m)).collect();
        if by_id.len() != self.memories.len() {
            return Err("memory ids are not unique".into());
        }
        for q in &self.queries {
            if q.expect.is_empty() {
                return Err(format!("query {} expects nothing", q.id));
            }
            for e in &q.expect {
                let m = by_id
                    .get(e.as_str())
                    .ok_or(format!("query {} expects unknown memory {e}", q.id))?;
                if m.resident != q.resident || m.time > q.time {
                    return Err(format!(
                        "query {} expects {e}, which is not {}'s memory before {}",
                        q.id,
                        q.resident,
                        q.time.stamp()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Runs every query, its text as `search_text` makes it (what the
    /// town searches with); returns the figures and the queries that missed.
    pub fn run(
        &self,
        seg: &Segmenter,
        tuning: &RecallTuning,
        embed: Option<&mut Embedder<'_>>,
        search_text: &dyn Fn(&str) -> String,
    ) -> Result<(BenchReport, Vec<Miss>), String> {
        let mut indexes: HashMap<&str, (Index, Vec<&str>)> = HashMap::new();
        for m in &self.memories {
            let (ix, ids) = indexes.entry(m.resident.as_str()).or_default();
            let meta = DocMeta {
                time: m.time,
                importance: m.importance * 10,
                last_access: m.time,
            };
            ix.add(seg, &m.text, meta);
            ids.push(&m.id);
        }
        let query_vectors = match embed {
            Some(embed) => Some(self.embed_all(embed, &mut indexes)?),
            None => None,
        };
        let mut totals = Totals::default();
        let mut misses = Vec::new();
        for (i, q) in self.queries.iter().enumerate() {
            let found: Vec<&str> = match indexes.get(q.resident.as_str()) {
                Some((ix, ids)) => {
                    let text = search_text(&q.text);
                    let query = Query {
                        text: &text,
                        now: q.time,
                        as_of: Some(q.time),
                        vector: query_vectors.as_ref().map(|v: &Vec<Vec<f32>>| &v[i][..]),
                        k: 10,
                    };
                    let hits = ix.search(seg, &query, tuning);
                    hits.iter().map(|h| ids[h.doc as usize]).collect()
                }
                None => Vec::new(),
            };
            if let Some(miss) = totals.add(q, &found) {
                misses.push(miss);
            }
        }
        Ok((totals.report(), misses))
    }

    /// Embeds every memory into its index and returns the queries' vectors.
    fn embed_all(
        &self,
        embed: &mut Embedder<'_>,
        indexes: &mut HashMap<&str, (Index, Vec<&str>)>,
    ) -> Result<Vec<Vec<f32>>, String> {
        let texts: Vec<String> = self.memories.iter().map(|m| m.text.clone()).collect();
        let mut next: HashMap<&str, DocId> = HashMap::new();
        for (m, v) in self.memories.iter().zip(embed(&texts, false)?) {
            let doc = next.entry(m.resident.as_str()).or_default();
            if let Some((ix, _)) = indexes.get_mut(m.resident.as_str()) {
                ix.set_vector(*doc, v);
            }
            *doc += 1;
        }
        let texts: Vec<String> = self.queries.iter().map(|q| q.text.clone()).collect();
        embed(&texts, true)
    }
}

#[derive(Default)]
struct Totals {
    n: usize,
    recall3: f64,
    recall5: f64,
    recall10: f64,
    ndcg: f64,
    mrr: f64,
}

impl Totals {
    fn add(&mut self, q: &BenchQuery, found: &[&str]) -> Option<Miss> {
        let expected = |id: &&str| q.expect.iter().any(|e| e == id);
        let within = |k: usize| found.iter().take(k).filter(|f| expected(f)).count();
        let want = q.expect.len() as f64;
        self.n += 1;
        self.recall3 += within(3) as f64 / want;
        self.recall5 += within(5) as f64 / want;
        self.recall10 += within(10) as f64 / want;
        let dcg: f64 = found
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, f)| expected(f))
            .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        let ideal: f64 = (0..q.expect.len().min(10))
            .map(|i| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        self.ndcg += dcg / ideal;
        if let Some(r) = found.iter().take(10).position(expected) {
            self.mrr += 1.0 / (r as f64 + 1.0);
        }
        let missing: Vec<String> = q
            .expect
            .iter()
            .filter(|e| !found.iter().take(5).any(|f| f == e))
            .cloned()
            .collect();
        (!missing.is_empty()).then(|| Miss {
            id: q.id.clone(),
            text: q.text.clone(),
            missing,
            found: found.iter().take(5).map(|s| s.to_string()).collect(),
        })
    }

    fn report(&self) -> BenchReport {
        let n = self.n.max(1) as f64;
        BenchReport {
            queries: self.n,
            recall_at_3: self.recall3 / n,
            recall_at_5: self.recall5 / n,
            recall_at_10: self.recall10 / n,
            ndcg_at_10: self.ndcg / n,
            mrr: self.mrr / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
{"kind":"memory","id":"m1","resident":"a","time":"2026-04-01 09:00","text":"医生说我血压高，要少吃咸的","importance":8}
{"kind":"memory","id":"m2","resident":"a","time":"2026-04-02 09:00","text":"在面包店买了红豆面包","importance":3}
{"kind":"memory","id":"m3","resident":"b","time":"2026-04-02 09:00","text":"血压计坏了","importance":3}
{"kind":"query","id":"q1","resident":"a","time":"2026-04-03 09:00","text":"血压怎么样","expect":["m1"]}
{"kind":"query","id":"q2","resident":"a","time":"2026-04-03 09:00","text":"红豆面包在哪买的","expect":["m2"]}
"#;

    #[test]
    fn metrics_count_ranks_and_stay_within_the_resident() {
        let set = BenchSet::parse(FILE).unwrap();
        let seg = Segmenter::new([]);
        let (r, misses) = set
            .run(&seg, &RecallTuning::default(), None, &str::to_string)
            .unwrap();
        assert_eq!(r.queries, 2);
        assert_eq!(r.recall_at_5, 1.0);
        assert_eq!(r.mrr, 1.0);
        assert!(misses.is_empty());
    }

    #[test]
    fn bad_lines_are_named() {
        let err = BenchSet::parse("{\"kind\":\"memory\"}\n").unwrap_err();
        assert!(err.starts_with("line 1:"), "{err}");
        let bad = FILE.replace("\"expect\":[\"m2\"]", "\"expect\":[\"m3\"]");
        let err = BenchSet::parse(&bad).unwrap_err();
        assert!(err.contains("q2 expects m3"), "{err}");
    }
}
