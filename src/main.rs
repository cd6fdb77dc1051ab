use clap::Parser;

fn main() {
    let cli = heartvale::cli::Cli::parse();
    std::process::exit(heartvale::cli::run(cli));
}
