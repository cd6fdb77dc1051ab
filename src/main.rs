//! `heartvale`: the command line (see [`heartvale::cli`]); errors are printed
//! once, here, and exit 1.

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_broken_pipe();
    let cli = heartvale::cli::Cli::parse();
    match heartvale::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Rust ignores SIGPIPE, so printing to a closed pipe panics; a command-line
/// tool read through `head` should just stop.
fn quiet_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; it only
    // restores the signal's default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
