//! Memory retrieval over 10,000 memories of one resident: the shipped bench's
//! texts, repeated across 30 days × 22 to make a long life, searched with the
//! bench's queries. Offline (words) and with 384-dimension vectors (the size
//! of multilingual-e5-small; random values: this measures speed, not quality).
//! Criterion reports medians; the p95 of single searches is printed first.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use heartvale::base::time::GameTime;
use heartvale::headless::default_scenario;
use heartvale::recall::{DocMeta, Index, Query, RecallTuning, Segmenter};
use rand::{RngExt, SeedableRng};
use serde_json::Value;

const MEMORIES: usize = 10_000;
const DIM: usize = 384;

struct Setup<'a> {
    seg: &'a Segmenter,
    index: Index,
    queries: Vec<String>,
    vectors: Vec<Vec<f32>>,
    now: GameTime,
}

/// The bench file's memory and query texts.
fn bench_texts() -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/memory-bench.jsonl"),
    )
    .expect("the bench file");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |kind: &str| {
        lines
            .iter()
            .filter(|l| l["kind"] == kind)
            .filter_map(|l| l["text"].as_str().map(str::to_string))
            .collect()
    };
    (of("memory"), of("query"))
}

fn setup<'a>(
    seg: &'a Segmenter,
    texts: &[String],
    queries: &[String],
    with_vectors: bool,
) -> Setup<'a> {
    let start = GameTime::parse("2026-04-06 06:00").unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut index = Index::default();
    for i in 0..MEMORIES {
        let time = start.plus_minutes(i as i64 * 6);
        let meta = DocMeta {
            time,
            importance: (i % 97) as u8,
            last_access: time,
        };
        let doc = index.add(seg, &texts[i % texts.len()], meta);
        if with_vectors {
            index.set_vector(doc, random_vector(&mut rng));
        }
    }
    let vectors = (0..64).map(|_| random_vector(&mut rng)).collect();
    Setup {
        seg,
        index,
        queries: queries.to_vec(),
        vectors,
        now: start.plus_minutes(MEMORIES as i64 * 6),
    }
}

fn random_vector(rng: &mut rand_chacha::ChaCha8Rng) -> Vec<f32> {
    (0..DIM).map(|_| rng.random_range(-1.0..1.0)).collect()
}

impl Setup<'_> {
    fn query(&self, i: usize, semantic: bool) -> Query<'_> {
        Query {
            text: &self.queries[i % self.queries.len()],
            now: self.now,
            as_of: None,
            vector: semantic.then(|| &self.vectors[i % self.vectors.len()][..]),
            k: 10,
        }
    }

    /// The 95th percentile of single searches, over every query several times.
    fn p95(&self, semantic: bool, tuning: &RecallTuning) -> Duration {
        let mut times: Vec<Duration> = (0..self.queries.len() * 5)
            .map(|i| {
                let q = self.query(i, semantic);
                let t = Instant::now();
                std::hint::black_box(self.index.search(self.seg, &q, tuning));
                t.elapsed()
            })
            .collect();
        times.sort();
        times[times.len() * 95 / 100]
    }
}

fn retrieval(c: &mut Criterion) {
    let tuning = RecallTuning::default();
    let seg = Segmenter::new(default_scenario().names().iter().map(String::as_str));
    let (texts, queries) = bench_texts();
    let offline = setup(&seg, &texts, &queries, false);
    let semantic = setup(&seg, &texts, &queries, true);
    println!(
        "recall/p95 over {MEMORIES} memories: offline {:?}, with {DIM}-d vectors {:?}",
        offline.p95(false, &tuning),
        semantic.p95(true, &tuning)
    );
    let mut group = c.benchmark_group("recall");
    let mut i = 0;
    group.bench_function("search_10k_offline", |b| {
        b.iter(|| {
            i += 1;
            offline
                .index
                .search(offline.seg, &offline.query(i, false), &tuning)
        })
    });
    group.bench_function("search_10k_with_vectors", |b| {
        b.iter(|| {
            i += 1;
            semantic
                .index
                .search(semantic.seg, &semantic.query(i, true), &tuning)
        })
    });
    group.sample_size(10);
    group.bench_function("index_10k", |b| {
        b.iter(|| setup(&seg, &texts, &queries, false).index.len())
    });
    group.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, retrieval);
criterion_main!(benches);
