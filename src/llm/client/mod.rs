//! An async client for OpenAI-compatible servers (llama.cpp server, Ollama, vLLM,
//! OpenAI, DeepSeek): chat completions, plain and SSE-streamed, and embeddings.
//! Retries 429/5xx with exponential backoff and jitter (honouring `Retry-After`),
//! and falls back from `json_schema` to `json_object` to plain text per endpoint
//! when a server refuses a response format.

mod wire;

pub use wire::request_body;
use wire::{read_capped, read_plain, read_stream};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::RngExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// An API key. Never printed: `Debug` shows `***`, and there is no `Display`
/// or `Serialize`, so it cannot reach a log, a save or a recording.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key from its text; `None` when blank.
    pub fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into();
        (!key.trim().is_empty()).then(|| Self(key.trim().to_string()))
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Where one resident's mind lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// e.g. `http://127.0.0.1:8089/v1`
    pub base_url: String,
    /// The model to ask for.
    pub model: String,
    /// Sent as a bearer token when present.
    pub api_key: Option<ApiKey>,
}

impl Endpoint {
    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }

    /// The URL as printed or stored: without its user info (a password).
    pub fn shown_url(&self) -> String {
        match user_info(&self.base_url) {
            Some(info) => self.base_url.replacen(&format!("{info}@"), "", 1),
            None => self.base_url.clone(),
        }
    }

    /// A failed status, its body redacted.
    fn status_error(&self, code: u16, body: String) -> LlmError {
        LlmError::Status {
            code,
            body: self.redact(body),
        }
    }

    /// `text` (a server's error body, an error chain) with the key and the
    /// URL's user info blanked out: servers echo what they were sent.
    fn redact(&self, text: String) -> String {
        let mut text = crate::base::printable(&text).into_owned();
        if let Some(key) = &self.api_key {
            text = text.replace(&key.0, "***");
        }
        if let Some(info) = user_info(&self.base_url) {
            text = text.replace(info, "***");
        }
        text
    }
}

/// A URL's authority split: its `user:password` part, if any, and `host[:port]`.
pub(crate) fn authority(url: &str) -> (Option<&str>, &str) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    // A backslash ends the authority as the URL parser reads it.
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
    match authority.rsplit_once('@') {
        Some((info, host)) => (Some(info), host),
        None => (None, authority),
    }
}

/// The `user:password` part of a URL, if any.
fn user_info(url: &str) -> Option<&str> {
    authority(url).0
}

/// Who says a message of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The instructions.
    System,
    /// The asker.
    User,
    /// The model.
    Assistant,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub(crate) role: Role,
    /// What it says.
    pub(crate) content: String,
}

impl Message {
    /// Instructions.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }
    /// The asker's message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
    /// The model's message (an earlier answer, quoted back).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// What shape of answer to ask for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Format {
    /// Plain text.
    Text,
    /// JSON matching this schema (`response_format: json_schema`).
    Json {
        /// The schema's name.
        name: String,
        /// The JSON schema.
        schema: Value,
    },
}

/// How a server was actually asked, after any fallback (the log's vocabulary).
pub use crate::sim::event_log::FormatLevel;

impl FormatLevel {
    fn next(self) -> Option<Self> {
        match self {
            Self::JsonSchema => Some(Self::JsonObject),
            Self::JsonObject => Some(Self::Plain),
            Self::Plain => None,
        }
    }
}

/// A `Retry-After` header in seconds, if the server sent a usable one, at
/// most [`MAX_RETRY_AFTER`] (a server's `1e20` is no reason to wait forever,
/// nor to overflow the clock; the call's deadline cuts it shorter still).
fn retry_after(resp: &reqwest::Response) -> Option<Duration> {
    let header = resp.headers().get(reqwest::header::RETRY_AFTER)?;
    read_retry_after(header.to_str().ok()?)
}

/// The longest wait a `Retry-After` header is taken for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

fn read_retry_after(value: &str) -> Option<Duration> {
    let secs = value.trim().parse::<f64>().ok()?;
    let wait = Duration::try_from_secs_f64(secs).unwrap_or(MAX_RETRY_AFTER);
    (secs >= 0.0).then(|| wait.min(MAX_RETRY_AFTER))
}

/// Where a streamed answer's pieces go as they come.
pub type Pieces = crossbeam_channel::Sender<String>;

/// One chat completion to ask for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The chat so far.
    pub messages: Vec<Message>,
    /// Sampling temperature.
    pub temperature: f32,
    /// The longest answer, in tokens.
    pub max_tokens: u32,
    /// Sampling seed, for servers that honour it (llama.cpp, vLLM, OpenAI).
    pub seed: Option<u64>,
    /// What shape of answer to ask for.
    pub format: Format,
    /// Stream the answer over SSE.
    pub stream: bool,
}

/// Token counts a server reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub(crate) prompt_tokens: u32,
    /// Tokens in the answer.
    pub(crate) completion_tokens: u32,
}

/// A server's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatReply {
    /// The answer's text.
    pub content: String,
    /// From the server's `usage`, if it sent one.
    pub(crate) usage: Option<Usage>,
    /// `None` when no structured format was asked for.
    pub(crate) format: Option<FormatLevel>,
    /// Requests it took (retries included).
    pub(crate) attempts: u32,
}

/// Why a call brought no answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LlmError {
    /// No answer within the per-request timeout.
    Timeout,
    /// Could not connect (refused, DNS, reset).
    Connect(String),
    /// The server answered with an error status.
    Status {
        /// The HTTP status.
        code: u16,
        /// What the server said.
        body: String,
    },
    /// The answer was not the OpenAI shape.
    Decode(String),
    /// `--replay` has no recorded answer for this request.
    CassetteMiss {
        /// The request's cassette key.
        key: String,
    },
    /// The answer ran past the size limit and was cut off.
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Every server of the endpoint's pool is out of service for now.
    PoolOut,
}

impl std::error::Error for LlmError {}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Timeout => write!(f, "timed out"),
            Self::Connect(e) => write!(f, "cannot connect: {e}"),
            Self::Status { code, body } => {
                let body: String = body.chars().take(200).collect();
                write!(f, "HTTP {code}: {body}")
            }
            Self::Decode(e) => write!(f, "bad response: {e}"),
            Self::CassetteMiss { key } => write!(f, "no recorded answer (cassette key {key})"),
            Self::TooLarge { limit } => write!(f, "answer over {limit} bytes, cut off"),
            Self::PoolOut => write!(f, "every server of the pool is out of service for now"),
        }
    }
}

/// Retry policy for one logical call.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Extra attempts after the first, on 429/5xx/connection errors.
    pub(crate) max_retries: u32,
    /// The first wait; each retry doubles it (with jitter).
    pub(crate) backoff_base: Duration,
    /// The longest wait.
    pub(crate) backoff_max: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(20),
        }
    }
}

/// The largest answer read by default: far beyond any plan, line or summary,
/// small enough that a hostile server cannot fill memory or a cassette.
pub const DEFAULT_MAX_BODY: usize = 1024 * 1024;

/// The largest error body kept (for its message; the rest is dropped).
const MAX_ERROR_BODY: usize = 16 * 1024;

/// The largest embeddings answer: a batch of large vectors as JSON text.
const MAX_EMBED_BODY: usize = 64 * 1024 * 1024;

/// The HTTP client plus what it learnt about each endpoint's response formats.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    formats: Arc<Mutex<HashMap<String, FormatLevel>>>,
    /// When and how often to retry.
    pub(crate) retry: RetryPolicy,
    /// The largest chat answer read, in bytes (a stream's lines included).
    max_body: usize,
}

impl Default for Client {
    fn default() -> Self {
        Self::new(RetryPolicy::default())
    }
}

impl Client {
    /// A client that retries by `retry`.
    pub fn new(retry: RetryPolicy) -> Self {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(16)
            .user_agent(concat!("heartvale/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the HTTP client builds with default settings");
        Self {
            http,
            formats: Arc::default(),
            retry,
            max_body: DEFAULT_MAX_BODY,
        }
    }

    /// The same client (connections, learnt formats) with another retry policy.
    pub fn with_retry(&self, retry: RetryPolicy) -> Self {
        Self {
            retry,
            ..self.clone()
        }
    }

    /// The same client reading chat answers of at most `bytes`.
    pub fn with_max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes.max(1024);
        self
    }

    /// The best format this endpoint has not refused yet.
    pub fn format_level(&self, ep: &Endpoint) -> FormatLevel {
        let formats = self.formats.lock().unwrap_or_else(|p| p.into_inner());
        formats
            .get(&ep.base_url)
            .copied()
            .unwrap_or(FormatLevel::JsonSchema)
    }

    fn downgrade(&self, ep: &Endpoint, from: FormatLevel) -> Option<FormatLevel> {
        let next = from.next()?;
        let mut formats = self.formats.lock().unwrap_or_else(|p| p.into_inner());
        let level = formats
            .entry(ep.base_url.clone())
            .or_insert(FormatLevel::JsonSchema);
        *level = (*level).max(next);
        Some(*level)
    }

    /// One logical chat call: retries, format fallback and streaming included,
    /// all within `timeout`.
    pub async fn chat(
        &self,
        ep: &Endpoint,
        req: &ChatRequest,
        timeout: Duration,
    ) -> Result<ChatReply, LlmError> {
        self.chat_streamed(ep, req, timeout, None).await
    }

    /// [`Client::chat`], and a streamed answer's pieces sent to `pieces` as
    /// they come (for a view that shows the answer being written).
    pub async fn chat_streamed(
        &self,
        ep: &Endpoint,
        req: &ChatRequest,
        timeout: Duration,
        pieces: Option<&Pieces>,
    ) -> Result<ChatReply, LlmError> {
        let deadline = Instant::now() + timeout;
        let call = self.chat_inner(ep, req, deadline, pieces);
        match tokio::time::timeout(timeout, call).await {
            Ok(r) => r,
            Err(_) => Err(LlmError::Timeout),
        }
    }

    async fn chat_inner(
        &self,
        ep: &Endpoint,
        req: &ChatRequest,
        deadline: Instant,
        pieces: Option<&Pieces>,
    ) -> Result<ChatReply, LlmError> {
        let mut attempts = 0u32;
        let mut retries = 0u32;
        loop {
            attempts += 1;
            let level = match req.format {
                Format::Text => None,
                Format::Json { .. } => Some(self.format_level(ep)),
            };
            let body = request_body(ep, req, level);
            let mut builder = self
                .http
                .post(ep.url("chat/completions"))
                .json(&body)
                .timeout(deadline.saturating_duration_since(Instant::now()));
            if let Some(key) = &ep.api_key {
                builder = builder.bearer_auth(&key.0);
            }
            let failure = match builder.send().await {
                Ok(resp) if resp.status().is_success() => {
                    let mut reply = if req.stream {
                        read_stream(resp, self.max_body, pieces).await?
                    } else {
                        read_plain(resp, self.max_body).await?
                    };
                    // What the model wrote is shown on terminals and kept in logs.
                    reply.content = crate::base::printable(&reply.content).into_owned();
                    reply.format = level;
                    reply.attempts = attempts;
                    return Ok(reply);
                }
                Ok(resp) => {
                    let code = resp.status().as_u16();
                    let retry_after = retry_after(&resp);
                    let body = error_body(resp).await;
                    // A server that cannot do this response format says so with a 400/422/501.
                    if matches!(code, 400 | 422 | 501)
                        && let Some(l) = level
                        && l != FormatLevel::Plain
                    {
                        self.downgrade(ep, l);
                        continue;
                    }
                    Failure {
                        error: ep.status_error(code, body),
                        retryable: code == 429 || code == 408 || code >= 500,
                        retry_after,
                    }
                }
                Err(e) if e.is_timeout() => return Err(LlmError::Timeout),
                Err(e) => Failure {
                    error: LlmError::Connect(ep.redact(error_chain(&e))),
                    // A refused connection is rarely a blip: one more try, not the full ladder.
                    retryable: retries == 0,
                    retry_after: None,
                },
            };
            if !failure.retryable || retries >= self.retry.max_retries {
                return Err(failure.error);
            }
            let wait = failure
                .retry_after
                .unwrap_or_else(|| backoff(&self.retry, retries));
            retries += 1;
            if Instant::now() + wait >= deadline {
                // Waiting would overrun the deadline: report the failure now.
                return Err(failure.error);
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// `POST {base}/embeddings` for a batch of texts.
    pub async fn embeddings(
        &self,
        ep: &Endpoint,
        input: &[String],
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        #[derive(Deserialize)]
        struct Item {
            index: Option<usize>,
            embedding: Vec<f32>,
        }
        #[derive(Deserialize)]
        struct Answer {
            data: Vec<Item>,
        }
        let mut builder = self
            .http
            .post(ep.url("embeddings"))
            .json(&json!({ "model": ep.model, "input": input }))
            .timeout(timeout);
        if let Some(key) = &ep.api_key {
            builder = builder.bearer_auth(&key.0);
        }
        let resp = builder.send().await.map_err(|e| {
            if e.is_timeout() {
                LlmError::Timeout
            } else {
                LlmError::Connect(ep.redact(error_chain(&e)))
            }
        })?;
        let code = resp.status().as_u16();
        if !resp.status().is_success() {
            return Err(ep.status_error(code, error_body(resp).await));
        }
        let body = read_capped(resp, MAX_EMBED_BODY).await?;
        let mut answer: Answer =
            serde_json::from_slice(&body).map_err(|e| LlmError::Decode(e.to_string()))?;
        answer.data.sort_by_key(|i| i.index.unwrap_or(0));
        if answer.data.len() != input.len() {
            return Err(LlmError::Decode(format!(
                "{} embeddings for {} inputs",
                answer.data.len(),
                input.len()
            )));
        }
        Ok(answer.data.into_iter().map(|i| i.embedding).collect())
    }
}

/// An error answer's body, its first [`MAX_ERROR_BODY`] bytes.
async fn error_body(resp: reqwest::Response) -> String {
    let mut resp = resp;
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY {
        match resp.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_BODY);
    String::from_utf8_lossy(&body).into_owned()
}

struct Failure {
    error: LlmError,
    retryable: bool,
    retry_after: Option<Duration>,
}

/// Exponential backoff with full jitter: a random wait in [base·2ⁿ/2, base·2ⁿ].
fn backoff(policy: &RetryPolicy, retry: u32) -> Duration {
    let cap = policy
        .backoff_base
        .saturating_mul(1 << retry.min(16))
        .min(policy.backoff_max);
    let half = cap / 2;
    let jitter = rand::rng().random_range(0.0..=1.0f64);
    half + half.mul_f64(jitter)
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A rough token count for text when the server reports no usage: about one
/// token per CJK character and one per four other characters.
pub fn estimate_tokens(text: &str) -> u32 {
    let rough = crate::context::TokenCounter::Estimate {
        cjk: 1.0,
        other: 0.25,
    };
    rough.count(text) as u32
}

#[cfg(test)]
mod tests {
    use super::{MAX_RETRY_AFTER, read_retry_after};
    use std::time::Duration;

    /// A server's `Retry-After: 1e20` once panicked the LLM thread (a
    /// Duration overflow) and hung the run: any number now waits at most
    /// five minutes, and the call's deadline cuts that shorter.
    #[test]
    fn retry_after_is_bounded() {
        assert_eq!(read_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(read_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        for huge in ["1e20", "inf", "99999999999"] {
            assert_eq!(read_retry_after(huge), Some(MAX_RETRY_AFTER), "{huge}");
        }
        for bad in ["-1", "NaN", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"] {
            assert_eq!(read_retry_after(bad), None, "{bad}");
        }
    }
}
