//! BM25 over pre-segmented terms, in memory. A resident's memories number in
//! the hundreds to tens of thousands and are searched many times a game hour,
//! so postings live in plain vectors and a query touches only its own terms.

use std::collections::HashMap;

/// BM25's usual constants: term-frequency saturation and length normalisation.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// One document's place in the index.
pub type DocId = u32;

/// An inverted index of documents added in order (ids 0, 1, 2 …).
#[derive(Debug, Clone, Default)]
pub(crate) struct Lexical {
    vocab: HashMap<String, u32>,
    /// Per term: (document, term frequency), documents ascending.
    postings: Vec<Vec<(DocId, u16)>>,
    doc_len: Vec<u32>,
    total_len: u64,
}

impl Lexical {
    /// Adds the next document; returns its id.
    pub(crate) fn add(&mut self, terms: &[String]) -> DocId {
        let doc = self.doc_len.len() as DocId;
        let mut counts: Vec<(u32, u16)> = Vec::with_capacity(terms.len());
        for t in terms {
            let next = self.vocab.len() as u32;
            let id = *self.vocab.entry(t.clone()).or_insert(next);
            if id == next {
                self.postings.push(Vec::new());
            }
            match counts.iter_mut().find(|(i, _)| *i == id) {
                Some((_, n)) => *n = n.saturating_add(1),
                None => counts.push((id, 1)),
            }
        }
        for (id, n) in counts {
            self.postings[id as usize].push((doc, n));
        }
        self.doc_len.push(terms.len() as u32);
        self.total_len += terms.len() as u64;
        doc
    }

    /// The `n` best documents for `terms` among those `allowed`, best first
    /// (ties: the newer document first).
    pub(crate) fn search(
        &self,
        terms: &[String],
        allowed: impl Fn(DocId) -> bool,
        n: usize,
    ) -> Vec<(DocId, f32)> {
        let docs = self.doc_len.len();
        if docs == 0 || n == 0 {
            return Vec::new();
        }
        let avg = self.total_len as f32 / docs as f32;
        let mut scores: HashMap<DocId, f32> = HashMap::new();
        let mut seen: Vec<u32> = Vec::with_capacity(terms.len());
        for t in terms {
            let Some(&id) = self.vocab.get(t) else {
                continue;
            };
            // A term repeated in the query counts once.
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let list = &self.postings[id as usize];
            let df = list.len() as f32;
            let idf = ((docs as f32 - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                if !allowed(doc) {
                    continue;
                }
                let tf = f32::from(tf);
                let len = self.doc_len[doc as usize] as f32;
                let norm = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg.max(1.0)));
                *scores.entry(doc).or_default() += idf * norm;
            }
        }
        let mut ranked: Vec<(DocId, f32)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        ranked.truncate(n);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn rare_terms_outrank_common_ones_and_filters_apply() {
        let mut ix = Lexical::default();
        ix.add(&terms("面包 早饭"));
        ix.add(&terms("面包 早饭 血压"));
        ix.add(&terms("早饭 散步"));
        let hits = ix.search(&terms("血压 早饭"), |_| true, 10);
        assert_eq!(hits[0].0, 1, "{hits:?}");
        assert_eq!(hits.len(), 3);
        let hits = ix.search(&terms("血压"), |d| d != 1, 10);
        assert!(hits.is_empty(), "a filtered-out document is never returned");
        assert_eq!(ix.search(&terms("没有"), |_| true, 10), vec![]);
    }
}
