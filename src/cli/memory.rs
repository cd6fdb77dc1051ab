//! `heartvale memory`: retrieval measured on a bench file, and a resident's
//! memories searched in a save (a designer's tool).

use std::path::Path;
use std::process::ExitCode;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};

use super::CliError;
use super::args::MemoryCommand;
use crate::llm::embed::{BlockingEmbedder, EmbedArgs};
use crate::recall::bench::BenchSet;
use crate::recall::{Query, Segmenter};
use crate::save::ResidentMemories;
use crate::scenario::Scenario;
use crate::sim::memory::{Memories, MemorySearch};

/// Runs a `heartvale memory` command.
pub(super) fn memory(command: MemoryCommand) -> Result<ExitCode, CliError> {
    match command {
        MemoryCommand::Bench {
            file,
            scenario,
            misses,
            embed,
        } => bench(&file, &scenario, misses, &embed),
        MemoryCommand::Search {
            load,
            resident,
            query,
            k,
            embed,
        } => search(&load, &resident, &query, k, &embed),
    }
}

fn embedder(args: &EmbedArgs) -> Result<Option<BlockingEmbedder>, CliError> {
    BlockingEmbedder::from_args(args).map_err(CliError::failed)
}

/// Prints the bench's figures as one JSON object (the misses on stderr).
fn bench(
    file: &Path,
    scenario: &Path,
    misses: bool,
    args: &EmbedArgs,
) -> Result<ExitCode, CliError> {
    let text = crate::base::files::read_text(file, crate::base::files::MAX_FILE)
        .map_err(|e| CliError::failed(format!("cannot read {}: {e}", file.display())))?;
    let set =
        BenchSet::parse(&text).map_err(|e| CliError::failed(format!("{}: {e}", file.display())))?;
    // The town's names segment as words (the bench is written about it); its
    // tuning gives the weights. Without the town, no names and the defaults.
    let town = match Scenario::load(super::locate(scenario)) {
        Ok(town) => Some(town),
        Err(problems) => {
            eprintln!(
                "note: the scenario {} has {} problem(s) (`heartvale check` lists them): no names, default weights",
                scenario.display(),
                problems.len()
            );
            None
        }
    };
    let names = town.as_ref().map(Scenario::names).unwrap_or_default();
    let seg = Segmenter::new(names.iter().map(String::as_str));
    let tuning = town.map(|s| s.tuning.memory).unwrap_or_default();
    let embedder = embedder(args)?;
    let mut embed = |texts: &[String], query: bool| match &embedder {
        Some(e) => e.embed(texts, query).map_err(|e| e.to_string()),
        None => Ok(Vec::new()),
    };
    let embed = embedder
        .is_some()
        .then_some(&mut embed as &mut crate::recall::bench::Embedder);
    // Queries searched as the town searches: a recall question with its labels.
    let text = crate::companion::said::search_text;
    let (report, missed) = set
        .run(&seg, &tuning, embed, &text)
        .map_err(CliError::Failed)?;
    if misses {
        for m in &missed {
            eprintln!(
                "{}",
                serde_json::to_string(m).expect("plain data serializes")
            );
        }
    }
    println!(
        "{}",
        serde_json::to_string(&report).expect("plain data serializes")
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints the resident's top memories for `query` with their scores.
fn search(
    save: &Path,
    resident: &str,
    query: &str,
    k: usize,
    args: &EmbedArgs,
) -> Result<ExitCode, CliError> {
    let fail = |e: crate::save::SaveError| CliError::failed(format!("{}: {e}", save.display()));
    let loaded = crate::save::load(save).map_err(fail)?;
    let found = ResidentMemories::find(&loaded, resident).ok_or_else(|| {
        CliError::failed(format!(
            "no resident {resident:?} in {} (give an id or a name)",
            save.display()
        ))
    })?;
    let now = loaded.snapshot.now();
    let mut memories = Memories::from_entries(found.memories.to_vec());
    let mut vector = None;
    if let Some(embedder) = embedder(args)? {
        let added = embedder
            .embed_missing(&mut memories)
            .map_err(CliError::failed)?;
        if !added.is_empty() {
            // Kept in the save: the next search (and the town) reuse them.
            crate::save::add_vectors(save, found.id, &added).map_err(fail)?;
        }
        vector = embedder
            .embed(&[query.to_string()], true)
            .map_err(CliError::failed)?
            .pop();
    }
    let search = MemorySearch::for_scenario(&loaded.scenario);
    // A recall question looks for the labels its facts are kept under too.
    let text = crate::companion::said::search_text(query);
    let q = Query {
        text: &text,
        now,
        as_of: None,
        vector: vector.as_deref(),
        k,
    };
    let hits = memories.search(search.segmenter(), &q, &loaded.scenario.tuning.memory);
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(["#", "得分", "相关", "重要", "近期", "时间", "记忆"]);
    for (rank, h) in hits.iter().enumerate() {
        let m = &memories.entries()[h.doc as usize];
        table.add_row([
            (rank + 1).to_string(),
            format!("{:.3}", h.score),
            format!("{:.2}", h.relevance),
            format!("{:.2}", h.importance),
            format!("{:.2}", h.recency),
            m.time.stamp(),
            crate::base::shortened(&m.text, 60),
        ]);
    }
    println!(
        "{}（{}）的记忆，共 {} 条；{} 时搜索「{query}」：",
        found.name,
        found.id,
        memories.entries().len(),
        now.stamp()
    );
    println!("{table}");
    Ok(ExitCode::SUCCESS)
}
