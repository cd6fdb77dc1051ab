//! What the command line takes.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::llm::LlmArgs;

/// `heartvale`: the arguments.
#[derive(Parser, Debug)]
#[command(
    name = "heartvale",
    version,
    about = "Heartvale — a generative-agent town. Without a subcommand, opens the window on the default town (headless `sim` when there is no display)."
)]
pub struct Cli {
    /// What to do (none: the window, or `sim` without a display).
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// LLM flags for the default command.
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a town headless, as fast as possible, and print a summary.
    Sim(SimArgs),
    /// Validate scenario folders and HEART RULE script folders; prints one
    /// `file:line:col: …` line per problem (exit 1 if any error).
    Check {
        /// Scenario folders (with town.yaml) or script folders (YAML with `sessions:`, `skills:` …).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// HEART RULE conversation scripts: play a session, or play-test it with a persona.
    Script {
        /// What to do with the script set.
        #[command(subcommand)]
        command: ScriptCommand,
    },
    /// Open the window on a town: the animated map and the panels (the
    /// default when a display is available).
    Window(WindowArgs),
    /// Talk with a resident in the terminal, one line of input per message
    /// (`/wait N`: N game days pass in town; `/quit`).
    Chat(ChatArgs),
    /// Cupid, the dating host: two residents through up to 10
    /// multiple-choice scenes, a 0–50 compatibility score, every choice explained.
    Date(DateArgs),
    /// Memory retrieval: measure it on a bench file, or search a resident's
    /// memories in a save.
    Memory {
        /// What to do.
        #[command(subcommand)]
        command: MemoryCommand,
    },
    /// Ask a resident something, frozen in time and without side effects:
    /// answered from what it knows (with a model, through its prompt).
    Interview(InterviewArgs),
    /// Print a readable timeline of an event log (JSON Lines).
    Replay {
        /// The event log.
        file: PathBuf,
        /// Only events of these kinds (comma-separated, e.g. `plan,message`).
        #[arg(long, value_delimiter = ',')]
        kind: Vec<String>,
        /// Only events about this resident id.
        #[arg(long)]
        resident: Option<String>,
    },
}

/// `heartvale date`.
#[derive(Args, Debug, Clone)]
pub struct DateArgs {
    /// One resident (id or name).
    pub(crate) a: String,
    /// The other.
    pub(crate) b: String,
    /// The town they live in (its `cupid/scenes.yaml` is the host's scene bank).
    #[arg(long, default_value = "scenarios/heartvale")]
    pub(crate) scenario: PathBuf,
    /// Random seed (default: the scenario's): the same seed, the same date.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// At most this many rounds, 1–10.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub(crate) rounds: u32,
    /// Write every message here, one JSON object per line (host, avatar, score, end).
    #[arg(long, value_name = "OUT.jsonl")]
    pub(crate) transcript: Option<PathBuf>,
    /// Run N dates (seeds S, S+1, …) and print the scores' mean and standard
    /// deviation, and the same with the two residents' roles swapped.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) repeat: Option<u32>,
    /// The host and both avatars ask this model (else the built-in ones answer).
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
}

/// `heartvale interview`.
#[derive(Args, Debug, Clone)]
pub struct InterviewArgs {
    /// The resident's id or name.
    pub(crate) resident: String,
    /// The question, in Chinese (「你昨天都和谁聊过天？」).
    pub(crate) question: String,
    /// The town: a save (`--load`, as it was then), a scenario at its start,
    /// or a generated town.
    #[command(flatten)]
    pub(crate) town: TownArgs,
    /// Print one JSON object: the answer, what the question was read as
    /// asking, the facts (with their sources) and memories it used.
    #[arg(long)]
    pub(crate) json: bool,
    /// The resident's model (without one, the built-in brain answers).
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
}

/// `heartvale chat`.
#[derive(Args, Debug, Clone)]
pub struct ChatArgs {
    /// The resident's id or name.
    pub(crate) resident: String,
    /// The town (a scenario, a generated town or a save).
    #[command(flatten)]
    pub(crate) town: TownArgs,
    /// Save the town, with the chat, to this SQLite file at the end.
    #[arg(long, value_name = "FILE")]
    pub(crate) save: Option<PathBuf>,
    /// Read the player's lines from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// Write every message (with affection and stage), affection change, key
    /// moment and profile update here, one JSON object per line.
    #[arg(long, value_name = "OUT.jsonl")]
    pub(crate) transcript: Option<PathBuf>,
    /// The companion's model (without one, the built-in brain answers).
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
    /// Embeddings for what the resident recalls (its memories are embedded
    /// once, kept in the save; each message is embedded as a query).
    #[command(flatten)]
    pub(crate) embed: crate::llm::embed::EmbedArgs,
}

/// `heartvale memory …`
#[derive(Subcommand, Debug)]
pub enum MemoryCommand {
    /// Evaluate retrieval on a JSONL file of memories and queries; prints
    /// `{"queries","recall@5","recall@10","ndcg@10","mrr"}` as one JSON object.
    Bench {
        /// Lines `{"kind":"memory",…}` and `{"kind":"query",…,"expect":[ids]}`.
        file: PathBuf,
        /// The town the memories are about: its names are kept whole as words,
        /// and its `tuning.yaml` gives the weights.
        #[arg(long, default_value = "scenarios/heartvale")]
        scenario: PathBuf,
        /// Also print each query that missed an expected memory in its top 5
        /// (JSON Lines on stderr).
        #[arg(long)]
        misses: bool,
        /// Semantic search too.
        #[command(flatten)]
        embed: crate::llm::embed::EmbedArgs,
    },
    /// Print a resident's top memories for a query, with their scores, as of
    /// the save's time (vectors computed for it are kept in the save).
    Search {
        /// The save.
        #[arg(long, value_name = "FILE")]
        load: PathBuf,
        /// The resident's id or name.
        resident: String,
        /// What to look for.
        query: String,
        /// How many memories to print.
        #[arg(short = 'k', default_value_t = 10)]
        k: usize,
        /// Semantic search too.
        #[command(flatten)]
        embed: crate::llm::embed::EmbedArgs,
    },
}

/// What a run is of: the town, its seed and length, where its log goes.
#[derive(Args, Debug, Clone)]
pub struct TownArgs {
    /// Scenario folder.
    #[arg(long, default_value = "scenarios/heartvale")]
    pub(crate) scenario: PathBuf,
    /// Days to run, at least 1 (default: the scenario's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) days: Option<u32>,
    /// Random seed (default: the scenario's).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Write the event log (JSON Lines) here.
    #[arg(long)]
    pub(crate) log: Option<PathBuf>,
    /// Instead of a scenario, run a generated town of N residents (1 to
    /// 100000: the largest size benchmarked, just under 1 GiB at its peak).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::scenario::generate::MAX_GENERATED as u64))]
    pub(crate) generate: Option<usize>,
    /// Go on from a save (its scenario and seed; `--days` more days, by
    /// default the rest of the saved run).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["generate", "seed"])]
    pub(crate) load: Option<PathBuf>,
    /// Book Cupid's date between these two residents (ids or names, `A,B`)
    /// at the start, as the inspector's "💘 约会" does.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub(crate) date: Option<Vec<String>>,
}

impl Default for TownArgs {
    fn default() -> Self {
        Self {
            scenario: PathBuf::from("scenarios/heartvale"),
            days: None,
            seed: None,
            log: None,
            generate: None,
            load: None,
            date: None,
        }
    }
}

/// `heartvale sim`.
#[derive(Args, Debug, Default, Clone)]
pub struct SimArgs {
    /// The town.
    #[command(flatten)]
    pub(crate) town: TownArgs,
    /// No progress bar and no summary table.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Time each phase of the step and print where the time went (also with -q).
    #[arg(long)]
    pub(crate) timings: bool,
    /// Threads the step's parallel parts run on (default: all cores). The
    /// log is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub(crate) threads: Option<usize>,
    /// Save the town to this SQLite file at the end, and at every game midnight.
    #[arg(long, value_name = "FILE")]
    pub(crate) save: Option<PathBuf>,
    /// Stop at this game time ("YYYY-MM-DD HH:MM") instead of the run's end,
    /// without ending the run: with `--save`, the window's `--load` goes on
    /// from there (a designer runs to the party and looks).
    #[arg(long, value_name = "TIME", value_parser = parse_until)]
    pub(crate) until: Option<crate::base::time::GameTime>,
    /// Who thinks with a model.
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
    /// Embeddings: every memory gets a vector (kept by `--save`), and a
    /// model's prompts recall by meaning too.
    #[command(flatten)]
    pub(crate) embed: crate::llm::embed::EmbedArgs,
}

/// `heartvale window`.
#[derive(Args, Debug, Default, Clone)]
pub struct WindowArgs {
    /// The scenario folder is watched: edits apply live (not for `--generate`).
    #[command(flatten)]
    pub(crate) town: TownArgs,
    /// Starting speed multiplier (1, 5, 20, 60, 300 are the keys' speeds).
    #[arg(long)]
    pub(crate) speed: Option<f32>,
    /// Threads the step's parallel parts run on (default: all cores). The
    /// log is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub(crate) threads: Option<usize>,
    /// Start with this resident (id) selected, in the inspector, followed.
    #[arg(long, value_name = "ID")]
    pub(crate) select: Option<String>,
    /// Start with the chat ("💬 聊天") open with this resident (id).
    #[arg(long, value_name = "ID")]
    pub(crate) chat: Option<String>,
    /// Start with the counselling talk ("💬 交谈") under way with this
    /// resident (id): the next session of the player's course with it.
    #[arg(long, value_name = "ID")]
    pub(crate) counsel: Option<String>,
    /// Start with only these panels open: inspector, events, news, relations,
    /// notices, tuning, help, dates (comma-separated; default: inspector,events);
    /// `none`: no panel and no top bar, for clean screenshots.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub(crate) panels: Option<Vec<String>>,
    /// Demo mode: a director camera glides from scene to scene (arguments,
    /// dates, gatherings, notices, conversations) with captions, panels
    /// hidden; M toggles it in the window.
    #[arg(long)]
    pub(crate) demo: bool,
    /// Save a screenshot this many real seconds after the start.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) screenshot_after: Option<f32>,
    /// Where the screenshot goes.
    #[arg(long, default_value = "screenshot.png")]
    pub(crate) screenshot: PathBuf,
    /// Quit once the screenshot is saved.
    #[arg(long)]
    pub(crate) exit: bool,
    /// Measure frame times for this many seconds (after 3 s of warm-up),
    /// print median and 99th percentile, and quit.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) frame_stats: Option<f32>,
    /// Autosave the town to this SQLite file every game hour and on exit
    /// (default with `--load`: the file loaded).
    #[arg(long, value_name = "FILE")]
    pub(crate) save: Option<PathBuf>,
    /// Who thinks with a model.
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
    /// Embeddings: every memory gets a vector (kept in the save), and a
    /// model's prompts recall by meaning too.
    #[command(flatten)]
    pub(crate) embed: crate::llm::embed::EmbedArgs,
}

/// `heartvale script …`.
#[derive(Subcommand, Debug)]
pub enum ScriptCommand {
    /// Play a session in the terminal: roles named, options numbered; replies from
    /// stdin or `--input` (one per line: an option's key or number, or free text;
    /// `user_say` lines are clicked automatically).
    Run {
        /// The session.
        #[command(flatten)]
        session: SessionArgs,
        /// Read the human's replies from this file instead of stdin.
        #[arg(long)]
        input: Option<PathBuf>,
    },
    /// Let a persona play the HUMAN role (an automatic playtest): the LLM, when
    /// one is configured, else the built-in playtester answering with the
    /// persona's own sentences; prints the final variables and forms.
    #[command(group(clap::ArgGroup::new("who").required(true).args(["persona", "resident"])))]
    Play {
        /// The session.
        #[command(flatten)]
        session: SessionArgs,
        /// A text file describing who the human is.
        #[arg(long)]
        persona: Option<PathBuf>,
        /// Or a resident of a town plays the human, as its persona describes it.
        #[arg(long)]
        resident: Option<String>,
        /// The town of `--resident`.
        #[arg(long, default_value = "scenarios/heartvale")]
        scenario: PathBuf,
    },
    /// Run a transcript's recorded inputs through the engine again and compare
    /// every effect: exit 0 when the run is the same, 1 with the first difference.
    Replay {
        /// The script folder.
        dir: PathBuf,
        /// A transcript written by `script run|play --transcript`.
        transcript: PathBuf,
    },
    /// Print the JSON Schema (draft-07) of script files, for editors:
    /// `heartvale script schema > DIR/yaml_schema.json`.
    Schema,
    /// Start a script set of your own from a template per problem type
    /// (anxiety 焦虑, low-mood 情绪低落, insomnia 失眠); without `--template`,
    /// list them.
    New {
        /// The new folder (created; it must be empty).
        dir: Option<PathBuf>,
        /// The template: its id or its problem (焦虑 …).
        #[arg(long)]
        template: Option<String>,
    },
}

/// What `script run` and `script play` share.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// The script folder.
    pub(crate) dir: PathBuf,
    /// Session to play (default: the first; with `--course`, the first the
    /// course has not played yet, once all have been the last again).
    #[arg(long)]
    pub(crate) session: Option<String>,
    /// The player's course of sessions, kept in this JSON file between runs
    /// (created by the first): the session starts with what the past ones
    /// left (`persist: true` globals, forms, summaries, `{history}`), and its
    /// record is added when it ends.
    #[arg(long, value_name = "FILE")]
    pub(crate) course: Option<PathBuf>,
    /// Write every shown line, input and effect here (JSON Lines).
    #[arg(long)]
    pub(crate) transcript: Option<PathBuf>,
    /// The model for the AI steps.
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
}

/// `--until`: a game time as the scenario's `start` is written.
fn parse_until(text: &str) -> Result<crate::base::time::GameTime, String> {
    crate::base::time::GameTime::parse(text)
        .ok_or_else(|| format!("`{text}` is not a time like \"2026-04-08 18:40\""))
}
