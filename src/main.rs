//! `heartvale`: the command line (see [`heartvale::cli`]); errors are printed
//! once, here, and exit 1.

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = heartvale::cli::Cli::parse();
    match heartvale::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
