//! The OpenAI wire format: the JSON body of a chat request at each format
//! level, and the two shapes of answer (one JSON document, or an SSE stream).

use serde::Deserialize;
use serde_json::{Value, json};

use super::{ChatReply, ChatRequest, Endpoint, Format, FormatLevel, LlmError, Pieces, Usage};

/// The JSON body of a chat request at a given format level.
pub fn request_body(ep: &Endpoint, req: &ChatRequest, level: Option<FormatLevel>) -> Value {
    let mut messages = req.messages.clone();
    let mut body = json!({
        "model": ep.model,
        "temperature": req.temperature,
        "max_tokens": req.max_tokens,
    });
    if let Some(seed) = req.seed {
        body["seed"] = json!(seed);
    }
    if let (Format::Json { name, schema }, Some(level)) = (&req.format, level) {
        match level {
            FormatLevel::JsonSchema => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": { "name": name, "strict": true, "schema": schema },
                });
            }
            FormatLevel::JsonObject => {
                body["response_format"] = json!({ "type": "json_object" });
            }
            FormatLevel::Plain => {
                // No server-side help: spell the schema out in the prompt.
                if let Some(last) = messages.last_mut() {
                    last.content.push_str(&format!(
                        "\n\n只输出一个 JSON 对象，符合这个 JSON Schema：\n{schema}"
                    ));
                }
            }
        }
    }
    body["messages"] = serde_json::to_value(&messages).unwrap_or_default();
    if req.stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({ "include_usage": true });
    }
    body
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u32,
    #[serde(default)]
    completion_tokens: u32,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Self {
        Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
        }
    }
}

/// The whole body, or [`LlmError::TooLarge`] as soon as it passes `limit`
/// bytes (read chunk by chunk: an endless body never fills memory).
pub(super) async fn read_capped(
    mut resp: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, LlmError> {
    if resp.content_length().is_some_and(|n| n > limit as u64) {
        return Err(LlmError::TooLarge { limit });
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(read_error)? {
        if body.len() + chunk.len() > limit {
            return Err(LlmError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn read_error(e: reqwest::Error) -> LlmError {
    if e.is_timeout() {
        LlmError::Timeout
    } else {
        LlmError::Decode(e.to_string())
    }
}

pub(super) async fn read_plain(
    resp: reqwest::Response,
    limit: usize,
) -> Result<ChatReply, LlmError> {
    #[derive(Deserialize)]
    struct Msg {
        content: Option<String>,
        /// Reasoning models (DeepSeek-R1, Qwen3) may put text here too.
        reasoning_content: Option<String>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: Msg,
    }
    #[derive(Deserialize)]
    struct Answer {
        choices: Vec<Choice>,
        usage: Option<WireUsage>,
    }
    let body = read_capped(resp, limit).await?;
    let answer: Answer = serde_json::from_slice(&body).map_err(|e| {
        let text = String::from_utf8_lossy(&body[..body.len().min(480)]);
        let text = crate::base::printable(&text);
        LlmError::Decode(format!("{e}: {}", crate::base::shortened(&text, 120)))
    })?;
    let choice = answer
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| LlmError::Decode("no choices".into()))?;
    let content = choice
        .message
        .content
        .filter(|c| !c.trim().is_empty())
        .or(choice.message.reasoning_content)
        .unwrap_or_default();
    Ok(ChatReply {
        content,
        usage: answer.usage.map(Usage::from),
        format: None,
        attempts: 1,
    })
}

/// Reads a `text/event-stream` answer: `data: {chunk}` lines until `data:
/// [DONE]`, at most `limit` bytes in all.
/// Each piece of the answer also goes to `pieces` as it comes, when given.
pub(super) async fn read_stream(
    mut resp: reqwest::Response,
    limit: usize,
    pieces: Option<&Pieces>,
) -> Result<ChatReply, LlmError> {
    let mut buf: Vec<u8> = Vec::new();
    let mut content = String::new();
    let mut usage = None;
    let mut done = false;
    let mut read = 0usize;
    while !done {
        let Some(chunk) = resp.chunk().await.map_err(read_error)? else {
            break;
        };
        read += chunk.len();
        if read > limit {
            return Err(LlmError::TooLarge { limit });
        }
        buf.extend_from_slice(&chunk);
        while let Some(end) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let Some(data) = line.trim().strip_prefix("data:") else {
                continue;
            };
            let data = data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            let v: Value = serde_json::from_str(data)
                .map_err(|e| LlmError::Decode(format!("bad stream chunk: {e}")))?;
            if let Some(piece) = v["choices"][0]["delta"]["content"].as_str() {
                content.push_str(piece);
                if let Some(to) = pieces.filter(|_| !piece.is_empty()) {
                    // Nobody watching any more is no reason to stop reading.
                    let _ = to.send(crate::base::printable(piece).into_owned());
                }
            }
            if let Some(u) = v.get("usage").filter(|u| !u.is_null())
                && let Ok(u) = serde_json::from_value::<WireUsage>(u.clone())
            {
                usage = Some(Usage::from(u));
            }
        }
    }
    Ok(ChatReply {
        content,
        usage,
        format: None,
        attempts: 1,
    })
}
