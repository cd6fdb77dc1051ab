//! A tiny fake embedding model for tests: texts about the same concept get
//! close vectors even when they share no word.

use std::sync::Arc;

use serde_json::{Value, json};

use heartvale::llm::fake::{FakeReply, FakeRequest, FakeServer};

/// Concepts a tiny fake model knows: texts about the same thing get close
/// vectors even when they share no word.
const CONCEPTS: [&[&str]; 4] = [
    &["身体", "血压", "医生", "健康", "药"],
    &["妈妈", "母亲", "姐姐", "家人"],
    &["面包", "吃", "饭", "菜"],
    &["雨", "天气", "晴"],
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
