//! `heartvale`: the command line (see [`heartvale::cli`]); errors are printed
//! once, here, and exit 1.

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_broken_pipe();
    no_huge_pages();
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

/// mimalloc asks for transparent huge pages over its whole arena; a big
/// town's heap is spread thinly over it, so each 2 MiB page mostly held
/// nothing and a 100,000-resident town's peak RSS was 50 MB higher. The
/// step's time did not change measurably without them.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: a plain prctl on this process with integer arguments; it only
    // turns transparent huge pages off for it (and what it runs).
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
