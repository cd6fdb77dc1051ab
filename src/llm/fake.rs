//! A small fake of the OpenAI API over real HTTP/1.1 on 127.0.0.1, for tests and
//! benchmarks: each request goes to a handler that decides the answer (a JSON
//! body, an SSE stream, an error status with headers, a hang, a delay).
//! [`town_handler`] plays a well-behaved model for the default town.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the fake saw it.
#[derive(Debug, Clone)]
pub struct FakeRequest {
    /// 0-based, in arrival order.
    pub n: usize,
    /// `GET`, `POST` …
    pub method: String,
    /// The request path (`/v1/chat/completions`).
    pub path: String,
    /// The headers, as sent.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`null` when it is not).
    pub body: Value,
    /// The body as sent.
    pub raw: String,
}

impl FakeRequest {
    /// The value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `response_format.type`, if any.
    pub fn format(&self) -> Option<&str> {
        self.body["response_format"]["type"].as_str()
    }

    /// All message contents joined.
    pub fn prompt(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|m| m["content"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }
}

/// What the fake answers.
#[derive(Debug, Clone)]
pub enum FakeReply {
    /// A JSON answer with this status and these headers.
    Json {
        /// The HTTP status.
        status: u16,
        /// Extra headers (`Retry-After` …).
        headers: Vec<(String, String)>,
        /// The body.
        body: Value,
    },
    /// `text/event-stream` with these `data:` payloads, then `[DONE]`.
    Stream(Vec<Value>),
    /// Never answers.
    Hang,
    /// A chat answer whose content is `bytes` of `x` (`u64::MAX`: endless),
    /// written piece by piece so the fake itself holds little; as one JSON
    /// document, or as an SSE stream of pieces.
    Flood {
        /// The content's length.
        bytes: u64,
        /// Stream it over SSE.
        stream: bool,
    },
    /// Answers after a pause.
    Delay(Duration, Box<FakeReply>),
}

/// Decides the answer to each request.
pub type Handler = Arc<dyn Fn(&FakeRequest) -> FakeReply + Send + Sync>;

/// A chat completion whose message is `content`, with a `usage` block.
pub fn chat(content: &str) -> FakeReply {
    chat_with_usage(content, 321, 45)
}

/// A chat completion with the given token counts.
pub fn chat_with_usage(content: &str, prompt_tokens: u32, completion_tokens: u32) -> FakeReply {
    FakeReply::Json {
        status: 200,
        headers: vec![],
        body: json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens
            }
        }),
    }
}

/// An error status with a JSON error body.
pub fn status(code: u16, headers: Vec<(String, String)>, message: &str) -> FakeReply {
    FakeReply::Json {
        status: code,
        headers,
        body: json!({ "error": { "message": message, "code": code } }),
    }
}

/// The same content streamed in pieces of a few characters.
pub fn stream(content: &str) -> FakeReply {
    let chars: Vec<char> = content.chars().collect();
    let mut chunks: Vec<Value> = chars
        .chunks(3)
        .map(|c| {
            json!({ "choices": [{ "index": 0, "delta": { "content": c.iter().collect::<String>() } }] })
        })
        .collect();
    chunks.push(json!({ "choices": [], "usage": { "prompt_tokens": 100, "completion_tokens": chars.len() } }));
    FakeReply::Stream(chunks)
}

/// A fake OpenAI-compatible server on a free local port, on its own runtime.
pub struct FakeServer {
    /// Base URL to give the client: `http://127.0.0.1:PORT/v1`.
    pub url: String,
    seen: Arc<Mutex<Vec<FakeRequest>>>,
    count: Arc<AtomicUsize>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl FakeServer {
    /// Starts serving on a free port of 127.0.0.1; `handler` answers every request.
    pub fn start(handler: Handler) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("fake-openai")
            .enable_all()
            .build()
            .expect("a tokio runtime for the fake server");
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("bound").port();
        let seen: Arc<Mutex<Vec<FakeRequest>>> = Arc::default();
        let count = Arc::new(AtomicUsize::new(0));
        let (s, c) = (seen.clone(), count.clone());
        runtime.spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let _ = sock.set_nodelay(true);
                let (h, s, c) = (handler.clone(), s.clone(), c.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, h, s, c).await;
                });
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}/v1"),
            seen,
            count,
            runtime: Some(runtime),
        }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<FakeRequest> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Requests received so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// Serves one connection: requests in turn (keep-alive) until the client
/// closes it, a stream ends it, or the handler hangs.
async fn serve(
    mut sock: TcpStream,
    handler: Handler,
    seen: Arc<Mutex<Vec<FakeRequest>>>,
    count: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(req) = read_request(&mut sock, &mut buf, &count).await? {
        seen.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(req.clone());
        let mut reply = handler(&req);
        while let FakeReply::Delay(d, inner) = reply {
            tokio::time::sleep(d).await;
            reply = *inner;
        }
        if !write_reply(&mut sock, reply).await? {
            return Ok(());
        }
    }
    Ok(())
}

/// The next request on the connection (`None` once the client closed it).
async fn read_request(
    sock: &mut TcpStream,
    buf: &mut Vec<u8>,
    count: &AtomicUsize,
) -> std::io::Result<Option<FakeRequest>> {
    let header_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        if !read_more(sock, buf).await? {
            return Ok(None);
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let body_start = header_end + 4;
    while buf.len() < body_start + len {
        if !read_more(sock, buf).await? {
            return Ok(None);
        }
    }
    let raw = String::from_utf8_lossy(&buf[body_start..body_start + len]).to_string();
    buf.drain(..body_start + len);
    Ok(Some(FakeRequest {
        n: count.fetch_add(1, Ordering::SeqCst),
        method,
        path,
        headers,
        body: serde_json::from_str(&raw).unwrap_or(Value::Null),
        raw,
    }))
}

/// Reads what the client sent next; false when it closed the connection.
async fn read_more(sock: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut chunk = [0u8; 8192];
    let n = sock.read(&mut chunk).await?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n > 0)
}

/// Writes one reply; false when the connection is done with (a stream, a hang).
async fn write_reply(sock: &mut TcpStream, reply: FakeReply) -> std::io::Result<bool> {
    match reply {
        FakeReply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(false)
        }
        FakeReply::Json {
            status,
            headers,
            body,
        } => {
            let body = body.to_string();
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                reason(status),
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            // One write: a split head and body would meet Nagle and delayed ACKs (40 ms).
            head.push_str(&body);
            sock.write_all(head.as_bytes()).await?;
            Ok(true)
        }
        FakeReply::Stream(chunks) => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
            )
            .await?;
            for c in chunks {
                sock.write_all(format!("data: {c}\n\n").as_bytes()).await?;
                sock.flush().await?;
            }
            sock.write_all(b"data: [DONE]\n\n").await?;
            sock.shutdown().await?;
            Ok(false)
        }
        FakeReply::Flood { bytes, stream } => {
            flood(sock, bytes, stream).await?;
            Ok(false)
        }
        FakeReply::Delay(..) => unreachable!("delays were unwrapped"),
    }
}

/// Writes a [`FakeReply::Flood`] and closes the connection (the body's end).
async fn flood(sock: &mut TcpStream, bytes: u64, stream: bool) -> std::io::Result<()> {
    const PIECE: usize = 64 * 1024;
    let kind = if stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\nconnection: close\r\n\r\n");
    sock.write_all(head.as_bytes()).await?;
    if !stream {
        sock.write_all(br#"{"choices":[{"message":{"content":""#)
            .await?;
    }
    let piece = "x".repeat(PIECE);
    let mut left = bytes;
    while left > 0 {
        let n = left.min(PIECE as u64) as usize;
        let text = &piece[..n];
        let chunk = if stream {
            format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n")
        } else {
            text.to_string()
        };
        sock.write_all(chunk.as_bytes()).await?;
        left -= n as u64;
    }
    let end: &[u8] = if stream {
        b"data: [DONE]\n\n"
    } else {
        br#""}}]}"#
    };
    sock.write_all(end).await?;
    sock.shutdown().await
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A deterministic, well-behaved model for the default town: valid plans (ids
/// from the schema's enum, home at night), Chinese lines, summaries,
/// embeddings, and the host's dates ([`cupid_handler`]).
pub fn town_handler() -> Handler {
    let cupid = cupid_handler();
    Arc::new(move |req: &FakeRequest| {
        let schema = req.body["response_format"]["json_schema"]["name"].as_str();
        if schema.is_some_and(|n| n.starts_with("cupid_")) {
            return cupid(req);
        }
        if req.path.ends_with("/embeddings") {
            let n = req.body["input"].as_array().map_or(1, Vec::len);
            let data: Vec<Value> = (0..n)
                .map(|i| json!({ "index": i, "embedding": [i as f32, 0.5, -0.5] }))
                .collect();
            return FakeReply::Json {
                status: 200,
                headers: vec![],
                body: json!({ "data": data }),
            };
        }
        let prompt = req.prompt();
        let h = fnv(&prompt);
        let content = if req.format().is_some() || prompt.contains("\"target_location\"") {
            town_plan(req, &prompt, h).to_string()
        } else if prompt.contains("日记式总结") {
            "今天过得很充实：和镇上的朋友聊了天，也把该做的事做完了。明天继续努力。".to_string()
        } else if prompt.contains("总结这段对话的要点") {
            "「聊得很开心，约好改天一起去酒馆坐坐。」".to_string()
        } else {
            const LINES: [&str; 4] = [
                "今天天气真不错，你最近在忙些什么呢？",
                "我刚从广场过来，那边可热闹了，你去看看吧。",
                "说得对，改天一起去酒馆坐坐吧，我请客。【开心】",
                "好啊，那我先去忙了，回头再聊！[END]",
            ];
            LINES[(h % 4) as usize].to_string()
        };
        // Token counts as a real tokenizer would roughly give them.
        chat_with_usage(
            &content,
            super::client::estimate_tokens(&prompt),
            super::client::estimate_tokens(&content),
        )
    })
}

fn town_plan(req: &FakeRequest, prompt: &str, h: u64) -> Value {
    let schema = &req.body["response_format"]["json_schema"]["schema"];
    let ids: Vec<&str> = schema["properties"]["target_location"]["enum"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let min = schema["properties"]["duration"]["minimum"]
        .as_i64()
        .unwrap_or(30);
    // "你在…。" with the time "HH:MM" right before it in the user prompt.
    let hour = prompt
        .find("现在是")
        .and_then(|i| prompt[i..].find(':').map(|j| i + j))
        .and_then(|j| prompt.get(j - 2..j))
        .and_then(|h| h.trim().parse::<u32>().ok())
        .unwrap_or(12);
    let home = prompt
        .find("- 家：")
        .and_then(|i| {
            let rest = &prompt[i..];
            Some(&rest[rest.find('[')? + 1..rest.find(']')?])
        })
        .unwrap_or("");
    if !(6..22).contains(&hour) && !home.is_empty() {
        return json!({ "action": "Sleep", "target_location": home, "dialogue": "该睡觉了。", "emoji": "😴", "duration": 420, "activity": "sleep" });
    }
    const ACTIONS: [(&str, &str, &str, &str); 5] = [
        ("Eat a meal", "有点饿了，去吃点东西。", "🍜", "eat"),
        ("Read a book", "找本书看看。", "📚", "leisure"),
        ("Chat with friends", "看看谁在附近。", "💬", "socialise"),
        ("Take a walk", "出去走走。", "🚶", "leisure"),
        ("Work on my goals", "今天要把事情做好。", "🛠", "work"),
    ];
    let (action, dialogue, emoji, activity) = ACTIONS[(h % 5) as usize];
    let target = if ids.is_empty() {
        "square"
    } else {
        ids[((h >> 8) % ids.len() as u64) as usize]
    };
    json!({
        "action": action,
        "target_location": target,
        "dialogue": dialogue,
        "emoji": emoji,
        "duration": (min + 60 + ((h >> 16) % 90) as i64),
        "activity": activity,
    })
}

fn fnv(s: &str) -> u64 {
    crate::base::hash::fnv1a(s)
}

/// A well-behaved model for Cupid: the host writes a scene of three options
/// for the side the hash picks, moves the score by −4…+6, and ends the date
/// when told it is the last round; an avatar picks an offered letter.
pub fn cupid_handler() -> Handler {
    Arc::new(|req: &FakeRequest| {
        let prompt = req.prompt();
        let h = fnv(&prompt);
        let format = &req.body["response_format"]["json_schema"];
        let content = match format["name"].as_str() {
            Some("cupid_avatar") => {
                let letters =
                    &format["schema"]["properties"]["decision"]["properties"]["option"]["enum"];
                let n = letters.as_array().map_or(1, Vec::len).max(1);
                let option = letters[(h as usize) % n]
                    .as_str()
                    .unwrap_or("A")
                    .to_string();
                json!({
                    "gender": "女",
                    "decision": { "option": option, "content": "照我的性子来" },
                    "rationale": "这样做最像我。"
                })
            }
            _ => cupid_host(format, &prompt, h),
        };
        chat_with_usage(
            &content.to_string(),
            super::client::estimate_tokens(&prompt),
            super::client::estimate_tokens(&content.to_string()),
        )
    })
}

fn cupid_host(format: &Value, prompt: &str, h: u64) -> Value {
    let ids = &format["schema"]["properties"]["action"]["properties"]["object"]["enum"];
    let after = |mark: &str| -> Option<i64> {
        let rest = &prompt[prompt.rfind(mark)? + mark.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    // A day a scene: the next day after the one the prompt says it is.
    let round = after("时间：Day ").map_or(1, |d| d + 1);
    let score = after("当前分数：").unwrap_or(25);
    let last = prompt.contains("这是最后一轮");
    json!({
        "action": {
            "type": if last { "end" } else { "predict" },
            "object": ids[(h % 2) as usize],
            "question": format!("第{round}幕：傍晚的广场上，你们又遇见了。你会怎么做？"),
            "answers": "A. 走过去打招呼 B. 远远地挥挥手 C. 假装没看见"
        },
        "time": format!("Day {round}, Evening"),
        "cumulative_rate": (score + (h % 11) as i64 - 4).clamp(0, 50).to_string(),
        "rationale": "✅ 两人都很自然。下一幕：换个地方，看看他们会不会更近一步。"
    })
}
