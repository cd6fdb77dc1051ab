//! What the command-line tests share: running the binary from the crate's
//! folder with no LLM or embeddings endpoint in its environment.

use std::process::{Command, Output};

/// `heartvale ARGS…`, run to completion.
pub(crate) fn heartvale(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heartvale"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HEARTVALE_LLM_BASE_URL")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("HEARTVALE_EMBED_URL")
        .output()
        .expect("the binary runs")
}
