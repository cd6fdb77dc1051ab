//! Endpoint pools: several servers answering for one model (Ollama or
//! llama.cpp servers side by side, a vLLM deployment, a hosted API with a local
//! fallback). The bridge spreads a pool's calls over its members with a
//! `Router`; a sequential caller (a terminal chat) keeps to the first member
//! that answers and fails over in order.
//! Members are written as [`crate::scenario::Urls`] reads them.

mod router;

pub(crate) use router::{Outcome, Pick, Router};

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::client::{ApiKey, ChatReply, ChatRequest, Client, Endpoint, LlmError};

/// One server of a pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Where it is, which model, its key.
    pub endpoint: Endpoint,
    /// Its share of the calls and of the concurrency (1 unless written `#weight=N`).
    pub weight: u32,
}

impl Member {
    /// The server at `base_url`, asked for `model`, with its key and weight.
    pub fn new(base_url: String, model: &str, api_key: Option<ApiKey>, weight: u32) -> Self {
        Self {
            endpoint: Endpoint {
                base_url,
                model: model.to_string(),
                api_key,
            },
            weight,
        }
    }
}

/// The servers that answer for one model: never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    members: Vec<Member>,
}

impl Pool {
    /// A pool of these members; `None` when there are none.
    pub fn new(members: Vec<Member>) -> Option<Self> {
        (!members.is_empty()).then_some(Self { members })
    }

    /// A pool of one server.
    pub fn single(endpoint: Endpoint) -> Self {
        Self {
            members: vec![Member {
                endpoint,
                weight: 1,
            }],
        }
    }

    /// Its members, in the order given.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The first member's endpoint (the one a sequential caller tries first).
    pub fn first(&self) -> &Endpoint {
        &self.members[0].endpoint
    }

    /// The members' weights summed: the pool's slots per unit of concurrency.
    pub fn total_weight(&self) -> usize {
        self.members.iter().map(|m| m.weight as usize).sum()
    }

    /// The model every member is asked for.
    pub fn model(&self) -> &str {
        &self.first().model
    }

    /// The members as printed or stored: URLs without user info, weights kept,
    /// comma-separated (what `--llm` reads back).
    pub fn shown(&self) -> String {
        let shown: Vec<String> = self
            .members
            .iter()
            .map(|m| match m.weight {
                1 => m.endpoint.shown_url(),
                w => format!("{}#weight={w}", m.endpoint.shown_url()),
            })
            .collect();
        shown.join(",")
    }

    /// What tells two pools apart in a bridge's queues.
    pub(crate) fn key(&self) -> String {
        let urls: Vec<String> = self
            .members
            .iter()
            .map(|m| format!("{}#{}", m.endpoint.base_url, m.weight))
            .collect();
        format!("{}|{}", self.model(), urls.join(","))
    }

    /// One chat call for a sequential caller: the members in order, the next
    /// one only when the last failed, all within `timeout`.
    pub async fn chat(
        &self,
        client: &Client,
        req: &ChatRequest,
        timeout: Duration,
    ) -> Result<ChatReply, LlmError> {
        let deadline = Instant::now() + timeout;
        let mut last = LlmError::Timeout;
        for member in &self.members {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match client.chat(&member.endpoint, req, left).await {
                Ok(reply) => return Ok(reply),
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

/// One request to one member of a pool, as booked per member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Try {
    /// The member's URL, as shown (no user info).
    pub member: String,
    /// Whether it answered.
    pub ok: bool,
    /// Wall-clock milliseconds it took.
    pub latency_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(url: &str) -> Endpoint {
        Endpoint {
            base_url: url.into(),
            model: "m".into(),
            api_key: None,
        }
    }

    #[test]
    fn a_pool_is_shown_without_passwords_and_reads_back() {
        let pool = Pool::new(vec![
            Member {
                endpoint: ep("http://u:secret@a/v1"),
                weight: 1,
            },
            Member {
                endpoint: ep("http://b/v1"),
                weight: 2,
            },
        ])
        .unwrap();
        assert_eq!(pool.shown(), "http://a/v1,http://b/v1#weight=2");
        let back = crate::scenario::Urls::One(pool.shown()).members().unwrap();
        assert_eq!(back[1], ("http://b/v1".into(), 2));
        assert!(Pool::new(Vec::new()).is_none());
    }
}
