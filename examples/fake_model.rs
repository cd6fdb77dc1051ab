//! A stand-in model server on loopback, for trying `--llm` with no model at
//! hand and for measuring how a run keeps a slow server busy: it answers
//! plans, lines and summaries as `heartvale::llm::fake::town_handler` does,
//! each after a fixed delay.
//!
//! ```text
//! cargo run --release --example fake_model -- 200      # answers after 200 ms
//! heartvale sim --generate 40 --days 1 --llm http://127.0.0.1:PORT/v1 --llm-concurrency 4
//! ```

use std::sync::Arc;
use std::time::Duration;

use heartvale::llm::fake::{FakeReply, FakeServer, town_handler};

fn main() {
    let millis: u64 = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 200,
        Some(Ok(ms)) => ms,
        Some(Err(_)) => {
            eprintln!("usage: fake_model [DELAY_MS]   (default 200)");
            std::process::exit(2);
        }
    };
    let answer = town_handler();
    let delay = Duration::from_millis(millis);
    let server = FakeServer::start(Arc::new(move |req| {
        FakeReply::Delay(delay, Box::new(answer(req)))
    }));
    println!("{}", server.url);
    eprintln!("answering after {millis} ms; Ctrl-C to stop");
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
