use clap::Parser;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = heartvale::cli::Cli::parse();
    std::process::exit(heartvale::cli::run(cli));
}
