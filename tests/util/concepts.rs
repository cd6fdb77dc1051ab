//! A tiny fake embedding model for tests: texts about the same concept get
//! close vectors even when they share no word.

use std::sync::Arc;

use serde_json::{Value, json};

use heartvale::llm::fake::{FakeReply, FakeRequest, FakeServer};

/// Concepts a tiny fake model knows: texts about the same thing get close
/// vectors even when they share no word.
const CONCEPTS: [&[&str]; 5] = [
    &["身体", "血压", "医生", "健康", "药"],
    &["妈妈", "母亲", "姐姐", "家人"],
    &["面包", "吃", "饭", "菜"],
    &["雨", "天气", "晴"],
    // 钟大川's home and what he keeps there, for the town test.
    &["钟家", "摇椅", "炉火"],
];

fn concept_vector(text: &str) -> Vec<f32> {
    let mut v: Vec<f32> = CONCEPTS
        .iter()
        .map(|words| words.iter().filter(|w| text.contains(*w)).count() as f32)
        .collect();
    v.push(0.1);
    v
}

/// A server whose `/embeddings` knows the concepts; its chat completions
/// answer one fixed line.
pub(crate) fn embedding_server() -> FakeServer {
    FakeServer::start(Arc::new(|req: &FakeRequest| {
        if req.path.ends_with("/embeddings") {
            embeddings(req)
        } else {
            heartvale::llm::fake::chat("嗯，我记着呢。")
        }
    }))
}

/// A server whose `/embeddings` knows the concepts and whose chat
/// completions are the fake town model's (valid plans, Chinese lines).
#[allow(dead_code)]
pub(crate) fn town_server() -> FakeServer {
    let town = heartvale::llm::fake::town_handler();
    FakeServer::start(Arc::new(move |req: &FakeRequest| {
        if req.path.ends_with("/embeddings") {
            embeddings(req)
        } else {
            town(req)
        }
    }))
}

/// The `/embeddings` answer: one concept vector per input.
fn embeddings(req: &FakeRequest) -> FakeReply {
    let data: Vec<Value> = req.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| json!({ "index": i, "embedding": concept_vector(t.as_str().unwrap_or("")) }))
        .collect();
    FakeReply::Json {
        status: 200,
        headers: vec![],
        body: json!({ "data": data }),
    }
}
