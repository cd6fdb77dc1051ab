//! Prompt assembly: a companion-sized prompt's six layers (a persona of about
//! 1,000 tokens, a stage, a profile, 10 key moments, 50 lines of dialogue and
//! 100 retrieved memories: over the 12,000-token budget on purpose, so the
//! cutting runs) counted and cut, with OpenAI's o200k tokenizer and with the
//! per-script estimate. Criterion reports medians; p95 is printed first.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use heartvale::context::PromptBudget;
use heartvale::context::{Layer, PromptLayers, TokenCounter};
use serde_json::Value;

fn texts() -> Vec<String> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/memory-bench.jsonl"),
    )
    .expect("the bench file");
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["text"].as_str().map(str::to_string))
        .collect()
}

fn layers(t: &[String]) -> PromptLayers {
    let mut p = PromptLayers::default();
    let line = |i: usize| t[i % t.len()].clone();
    p.extend(Layer::Persona, (0..60).map(line))
        .extend(Layer::Stage, (60..80).map(line))
        .extend(Layer::Profile, (80..100).map(line))
        .extend(Layer::KeyMoments, (100..110).map(|i| line(i).repeat(10)))
        .extend(Layer::Dialogue, (110..160).map(|i| line(i).repeat(15)))
        .extend(Layer::Retrieved, (160..260).map(|i| line(i).repeat(8)));
    p
}

fn p95(material: &PromptLayers, budget: &PromptBudget, counter: &TokenCounter) -> Duration {
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let m = material.clone();
            let t = Instant::now();
            std::hint::black_box(m.assemble(budget, counter));
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() * 95 / 100]
}

fn assembly(c: &mut Criterion) {
    let t = texts();
    let budget = PromptBudget::default();
    let material = layers(&t);
    let o200k = TokenCounter::for_model("gpt-4o", &budget);
    let estimate = TokenCounter::estimate(&budget);
    let a = material.clone().assemble(&budget, &o200k);
    let kept: usize = Layer::ALL.iter().map(|&l| a.tokens(l)).sum();
    println!(
        "prompt/p95: o200k {:?}, estimate {:?} ({kept} tokens kept, {} items cut)",
        p95(&material, &budget, &o200k),
        p95(&material, &budget, &estimate),
        a.layer_tokens().cut
    );
    let mut group = c.benchmark_group("prompt");
    group.bench_function("assemble_o200k", |b| {
        b.iter(|| material.clone().assemble(&budget, &o200k))
    });
    group.bench_function("assemble_estimate", |b| {
        b.iter(|| material.clone().assemble(&budget, &estimate))
    });
    group.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, assembly);
criterion_main!(benches);
