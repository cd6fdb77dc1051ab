//! Where LLM settings come from, strongest first: command-line flags, the
//! environment (`HEARTVALE_LLM_*`, then `OPENAI_*`), the scenario's `llm:` block,
//! and per resident a `brain:` override. No endpoint anywhere → the built-in brain.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::cassette::{Cassette, CassetteMode};
use super::client::{ApiKey, DEFAULT_MAX_BODY};
use super::pool::{Member, Pool};
use crate::scenario::{LlmSpec, Profile, Urls, key_name_allowed};

/// LLM flags shared by `heartvale` and `heartvale sim`.
#[derive(Args, Debug, Default, Clone)]
pub struct LlmArgs {
    /// OpenAI-compatible base URL, e.g. `http://127.0.0.1:8089/v1` (env
    /// HEARTVALE_LLM_BASE_URL). Several servers make a pool: repeat the flag or
    /// separate with commas; `URL#weight=N` gives a bigger server more calls.
    #[arg(long, value_name = "URL", value_delimiter = ',')]
    pub(crate) llm: Vec<String>,
    /// Model name sent to the server (env HEARTVALE_LLM_MODEL).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// Seconds one call may take, retries included (default 60).
    #[arg(long, value_name = "SECS")]
    pub(crate) llm_timeout: Option<f64>,
    /// Calls in flight at once per server, times its weight (default 4).
    #[arg(long, value_name = "N")]
    pub(crate) llm_concurrency: Option<usize>,
    /// The largest answer read from a server, in KiB (default 1024); a longer
    /// one is cut off and counts as a failed call.
    #[arg(long, value_name = "KIB")]
    pub(crate) llm_max_body_kib: Option<usize>,
    /// At most this many LLM calls per game day; then the built-in brain answers.
    #[arg(long, value_name = "N")]
    pub(crate) max_llm_calls_per_day: Option<u32>,
    /// Record every LLM call (request and answer, never a key) into this folder.
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub(crate) record: Option<PathBuf>,
    /// Answer LLM calls from a recorded folder, with no network; a miss fails the run.
    #[arg(long, value_name = "DIR")]
    pub(crate) replay: Option<PathBuf>,
    /// Ignore every endpoint setting and use the built-in brain.
    #[arg(long)]
    pub(crate) no_llm: bool,
    /// Send API keys to endpoints named in the scenario's files too (by
    /// default only to the endpoints given by flags or environment; env
    /// HEARTVALE_LLM_TRUSTED_HOSTS trusts chosen hosts, comma-separated).
    #[arg(long)]
    pub(crate) trust_scenario_endpoints: bool,
}

/// Seconds a call may take when nobody says.
const DEFAULT_TIMEOUT_SECS: f64 = 60.0;
/// The longest a call may be given (an hour): beyond it a deadline is no
/// deadline, and a huge one would overflow the clock.
const MAX_TIMEOUT_SECS: f64 = 3600.0;
/// The largest answer cap a user may set (256 MiB).
const MAX_BODY_KIB: usize = 256 * 1024;

/// Which endpoints named in a scenario file may receive the user's keys:
/// none, unless the user says so (scenarios are shared files).
#[derive(Debug, Clone, Default)]
struct Trust {
    all: bool,
    hosts: Vec<String>,
}

impl Trust {
    fn from(args: &LlmArgs, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let hosts = env("HEARTVALE_LLM_TRUSTED_HOSTS")
            .unwrap_or_default()
            .split(',')
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        Self {
            all: args.trust_scenario_endpoints,
            hosts,
        }
    }

    /// Whether `url` (from a scenario file) is trusted: its host, or host:port, listed.
    fn allows(&self, url: &str) -> bool {
        let (host, with_port) = host_of(url);
        self.all || self.hosts.iter().any(|t| *t == host || *t == with_port)
    }
}

/// A URL's host and host:port, lowercase, as the request will be sent: read
/// by the parser reqwest connects with, so a trick (a backslash, user info)
/// cannot show one host to the check and connect to another. Empty when it
/// does not read (trusted by nothing).
fn host_of(url: &str) -> (String, String) {
    let Ok(parsed) = crate::scenario::urls::check_url(url) else {
        return (String::new(), String::new());
    };
    let host = parsed.host_str().unwrap_or_default().to_ascii_lowercase();
    let with_port = match parsed.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.clone(),
    };
    (host, with_port)
}

/// Why the LLM flags, environment and scenario do not make settings.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A server URL (or a pool member's weight) that does not read.
    #[error("{0}")]
    Urls(String),
    /// `--replay` with nothing saying which servers were recorded.
    #[error("--replay {}: no endpoint is configured and the cassette has no meta.json", .0.display())]
    ReplayWithoutEndpoint(std::path::PathBuf),
    /// `--llm-timeout` out of range.
    #[error("--llm-timeout must be more than 0 and at most {MAX_TIMEOUT_SECS} seconds, not {0}")]
    Timeout(f64),
    /// The scenario's `llm.timeout_secs` out of range.
    #[error("llm.timeout_secs must be more than 0, not {0}")]
    ScenarioTimeout(f64),
    /// `--llm-max-body-kib` out of range.
    #[error("--llm-max-body-kib must be from 1 to {MAX_BODY_KIB}, not {0}")]
    MaxBody(usize),
}

/// The resolved settings of the LLM brain.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    /// The servers residents use unless their own `brain:` says otherwise.
    pub(crate) default: Option<Pool>,
    /// Time a call may take, retries included.
    pub timeout: Duration,
    /// Calls in flight at once per server (times its weight).
    pub concurrency: usize,
    /// The largest answer read, in bytes.
    pub max_body: usize,
    /// Calls a game day may make (no limit when `None`).
    pub max_calls_per_day: Option<u32>,
    /// Sampling temperature.
    pub(crate) temperature: f32,
    /// Stream conversation lines over SSE.
    pub stream_lines: bool,
    /// Only these residents use the LLM (all when `None`).
    pub only: Option<Vec<String>>,
    /// Record every call, or replay a recorded run.
    pub cassette: Option<CassetteMode>,
    /// That cassette once open, shared by every clone of these settings.
    pub(crate) tape: super::calls::Tape,
    /// Queued calls beyond which residents nobody is watching use the built-in
    /// brain instead of waiting (the "AI level of detail").
    pub lod_queue: usize,
    /// Consecutive failures that open an endpoint's circuit breaker.
    pub breaker_failures: u32,
    /// Game minutes an open breaker waits before letting one probe through.
    pub(crate) breaker_cooldown_minutes: u32,
    /// Keys from the environment by variable name, for per-resident `api_key_env`.
    env_keys: Vec<(String, ApiKey)>,
    /// Scenario endpoints that may receive keys.
    trust: Trust,
    /// The default endpoint may receive keys (the user's, or trusted).
    default_trusted: bool,
    /// What the run should say once: endpoints from the scenario left without a key.
    pub notes: Vec<String>,
}

impl LlmSettings {
    /// Settings with one endpoint (or a comma-separated pool, which must read)
    /// and the defaults: for tests and benches.
    pub fn for_endpoint(base_url: &str, model: &str) -> Self {
        let members = Urls::One(base_url.to_string())
            .members()
            .unwrap_or_default();
        Self {
            default: Pool::new(
                members
                    .into_iter()
                    .map(|(base_url, weight)| Member::new(base_url, model, None, weight))
                    .collect(),
            ),
            timeout: Duration::from_secs(60),
            concurrency: 4,
            max_body: DEFAULT_MAX_BODY,
            max_calls_per_day: None,
            temperature: 0.7,
            stream_lines: false,
            only: None,
            cassette: None,
            tape: super::calls::Tape::default(),
            lod_queue: 64,
            breaker_failures: 5,
            breaker_cooldown_minutes: 30,
            env_keys: Vec::new(),
            trust: Trust::default(),
            default_trusted: true,
            notes: Vec::new(),
        }
    }

    /// The servers residents use unless their own `brain:` says otherwise.
    pub fn default_pool(&self) -> Option<&Pool> {
        self.default.as_ref()
    }

    /// Resolves flags, environment and scenario. `Ok(None)`: no LLM at all.
    pub fn resolve(
        args: &LlmArgs,
        env: &dyn Fn(&str) -> Option<String>,
        spec: Option<&LlmSpec>,
        residents: &[std::sync::Arc<Profile>],
    ) -> Result<Option<Self>, SettingsError> {
        if args.no_llm {
            return Ok(None);
        }
        let env_nonempty = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        let trust = Trust::from(args, &env_nonempty);
        let mut notes = Vec::new();
        let (default, default_trusted) =
            default_endpoint(args, &env_nonempty, spec, (&trust, &mut notes))?;
        let mut env_keys = Vec::new();
        for p in residents {
            if let Some(name) = p.brain.as_ref().and_then(|b| b.api_key_env.clone())
                && key_name_allowed(&name)
                && let Some(key) = env_nonempty(&name).and_then(ApiKey::new)
            {
                env_keys.push((name, key));
            }
        }
        let any_override = residents.iter().any(|p| {
            p.brain
                .as_ref()
                .is_some_and(|b| !b.builtin && b.endpoint.is_some())
        });
        if default.is_none() && !any_override {
            // Nothing left to call (a file named only servers not trusted): say why.
            for note in &notes {
                eprintln!("note: {note}");
            }
            if let Some(dir) = &args.replay {
                return Err(SettingsError::ReplayWithoutEndpoint(dir.clone()));
            }
            return Ok(None);
        }
        let mut s = Self::for_endpoint("", "");
        s.default = default;
        s.env_keys = env_keys;
        s.trust = trust;
        s.default_trusted = default_trusted;
        s.notes = notes;
        s.note_untrusted(residents);
        if let Some(note) = args.replay.as_deref().and_then(Cassette::damaged_tail) {
            s.notes.push(note);
        }
        s.tune(args, spec)?;
        Ok(Some(s))
    }

    /// One note per host of a resident's `brain.endpoint` that gets no key.
    fn note_untrusted(&mut self, residents: &[std::sync::Arc<Profile>]) {
        let key_wanted = self
            .default
            .as_ref()
            .is_some_and(|d| d.members().iter().any(|m| m.endpoint.api_key.is_some()))
            || !self.env_keys.is_empty();
        for p in residents {
            let Some(urls) = p.brain.as_ref().and_then(|b| b.endpoint.as_ref()) else {
                continue;
            };
            for url in urls.items() {
                if !self.trust.allows(url) && !is_loopback(url) {
                    let note = not_contacted_note(url);
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                } else if key_wanted && !self.trust.allows(url) {
                    let note = untrusted_note(url);
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                }
            }
        }
    }

    /// Timeout, concurrency, budget, sampling and cassette: flags first, then
    /// the scenario's `llm:`, then the defaults.
    fn tune(&mut self, args: &LlmArgs, spec: Option<&LlmSpec>) -> Result<(), SettingsError> {
        // The user's limit (flag or default); a scenario, a shared file, may
        // only lower it.
        let users_timeout = args.llm_timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if !(users_timeout > 0.0 && users_timeout <= MAX_TIMEOUT_SECS) {
            return Err(SettingsError::Timeout(users_timeout));
        }
        let timeout = match spec.and_then(|s| s.timeout_secs) {
            Some(t) if t > 0.0 && t.is_finite() => t.min(users_timeout),
            Some(t) => return Err(SettingsError::ScenarioTimeout(t)),
            None => users_timeout,
        };
        self.timeout = Duration::from_secs_f64(timeout);
        self.concurrency = args
            .llm_concurrency
            .or_else(|| spec.and_then(|s| s.concurrency))
            .unwrap_or(4)
            .max(1);
        let users_kib = args.llm_max_body_kib.unwrap_or(DEFAULT_MAX_BODY / 1024);
        if !(1..=MAX_BODY_KIB).contains(&users_kib) {
            return Err(SettingsError::MaxBody(users_kib));
        }
        // A scenario may lower the answer cap, never raise it.
        let kib = spec
            .and_then(|s| s.max_body_kib)
            .map_or(users_kib, |k| k.clamp(1, users_kib));
        self.max_body = kib.saturating_mul(1024);
        self.max_calls_per_day = args
            .max_llm_calls_per_day
            .or_else(|| spec.and_then(|s| s.max_calls_per_day));
        self.temperature = spec.and_then(|s| s.temperature).unwrap_or(0.7);
        self.stream_lines = spec.and_then(|s| s.stream).unwrap_or(false);
        self.only = spec.and_then(|s| s.residents.clone());
        // Sixteen waiting calls per slot of the default pool.
        let slots = self.default.as_ref().map_or(1, Pool::total_weight) * self.concurrency;
        self.lod_queue = spec.and_then(|s| s.lod_queue).unwrap_or(16 * slots);
        self.cassette = match (&args.record, &args.replay) {
            (Some(d), _) => Some(CassetteMode::Record(d.clone())),
            (_, Some(d)) => Some(CassetteMode::Replay(d.clone())),
            _ => None,
        };
        Ok(())
    }

    /// This resident's servers, or `None` for the built-in brain.
    pub fn endpoint_for(&self, p: &Profile) -> Option<Pool> {
        let o = p.brain.as_ref();
        if o.is_some_and(|o| o.builtin) {
            return None;
        }
        let has_own = o.is_some_and(|o| o.endpoint.is_some() || o.model.is_some());
        if !has_own
            && let Some(only) = &self.only
            && !only.iter().any(|id| id == p.id.as_str())
        {
            return None;
        }
        let default = self.default.as_ref();
        let model = o
            .and_then(|o| o.model.clone())
            .or_else(|| default.map(|d| d.model().to_string()))
            .unwrap_or_else(|| "default".into());
        let key_env = o.and_then(|o| o.api_key_env.as_deref());
        let own_key = key_env.and_then(|name| {
            let found = self.env_keys.iter().find(|(n, _)| n == name);
            found.map(|(_, k)| k.clone())
        });
        let default_key = default.and_then(|d| d.first().api_key.clone());
        let member = |base_url: String, weight: u32, api_key: Option<ApiKey>| {
            Member::new(base_url, &model, api_key, weight)
        };
        // A key goes to the resident's own servers only when the user trusts
        // them; the default servers' keys were settled when they were resolved.
        let members = match o.and_then(|o| o.endpoint.as_ref()) {
            Some(urls) => urls
                .members()
                .ok()?
                .into_iter()
                // An untrusted remote server is never contacted.
                .filter(|(url, _)| self.trust.allows(url) || is_loopback(url))
                .map(|(url, weight)| {
                    let key = match key_env {
                        _ if !self.trust.allows(&url) => None,
                        Some(_) => own_key.clone(),
                        None => default_key.clone(),
                    };
                    member(url, weight, key)
                })
                .collect(),
            None => default?
                .members()
                .iter()
                .map(|m| {
                    let key = match key_env {
                        _ if !self.default_trusted => None,
                        Some(_) => own_key.clone(),
                        None => m.endpoint.api_key.clone(),
                    };
                    member(m.endpoint.base_url.clone(), m.weight, key)
                })
                .collect(),
        };
        Pool::new(members)
    }
}

/// Whether `url` names this machine (localhost, 127.0.0.0/8, ::1): a
/// server there may be used when a file names it.
fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = crate::scenario::urls::check_url(url) else {
        return false;
    };
    match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// What the run says about a remote endpoint a file names and the user has
/// not trusted: it is never contacted.
fn not_contacted_note(url: &str) -> String {
    let (host, _) = host_of(url);
    format!(
        "the scenario (or save) names the LLM endpoint {host}; nothing is sent to it and          the built-in brain answers instead, unless you trust it          (--trust-scenario-endpoints, or HEARTVALE_LLM_TRUSTED_HOSTS={host})"
    )
}

/// What the run says about a scenario's endpoint left without a key.
fn untrusted_note(url: &str) -> String {
    let (host, _) = host_of(url);
    format!(
        "the scenario names the LLM endpoint {host}; it gets no API key unless you trust it \
         (--trust-scenario-endpoints, or HEARTVALE_LLM_TRUSTED_HOSTS={host})"
    )
}

/// Reads the process environment (the CLI's source).
pub(crate) fn process_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// The servers residents use unless their own `brain:` says otherwise: the
/// URLs from the flags, the environment, the scenario, or a replayed
/// cassette's record of them; the key from the environment. Also whether all
/// of them may receive the key.
fn default_endpoint(
    args: &LlmArgs,
    env_nonempty: &dyn Fn(&str) -> Option<String>,
    spec: Option<&LlmSpec>,
    (trust, notes): (&Trust, &mut Vec<String>),
) -> Result<(Option<Pool>, bool), SettingsError> {
    let replay_meta = args.replay.as_deref().and_then(Cassette::meta);
    let users = (!args.llm.is_empty())
        .then(|| Urls::Many(args.llm.clone()))
        .or_else(|| env_nonempty("HEARTVALE_LLM_BASE_URL").map(Urls::One))
        .or_else(|| env_nonempty("OPENAI_BASE_URL").map(Urls::One));
    let scenarios = spec.and_then(|s| s.base_url.clone());
    let from_scenario = users.is_none() && scenarios.is_some();
    let Some(urls) = users
        .or(scenarios)
        .or_else(|| replay_meta.as_ref().map(|m| Urls::One(m.base_url.clone())))
    else {
        return Ok((None, true));
    };
    let model = args
        .model
        .clone()
        .or_else(|| env_nonempty("HEARTVALE_LLM_MODEL"))
        .or_else(|| spec.and_then(|s| s.model.clone()))
        .or_else(|| replay_meta.as_ref().map(|m| m.model.clone()))
        .unwrap_or_else(|| "default".into());
    let key_env = spec
        .and_then(|s| s.api_key_env.clone())
        .filter(|n| key_name_allowed(n));
    let api_key = env_nonempty("HEARTVALE_LLM_API_KEY")
        .or_else(|| key_env.as_deref().and_then(env_nonempty))
        .or_else(|| env_nonempty("OPENAI_API_KEY"))
        .and_then(ApiKey::new);
    let mut all_trusted = true;
    let mut members = Vec::new();
    for (base_url, weight) in urls.members().map_err(SettingsError::Urls)? {
        let trusted = !from_scenario || trust.allows(&base_url);
        all_trusted &= trusted;
        // A remote server a shared file names is not sent the town's prompts
        // (or the player's words) unless the user trusts it; a loopback one
        // is, without a key.
        let note = match is_loopback(&base_url) {
            false => not_contacted_note(&base_url),
            true => untrusted_note(&base_url),
        };
        if !trusted && (api_key.is_some() || !is_loopback(&base_url)) && !notes.contains(&note) {
            notes.push(note);
        }
        if !trusted && !is_loopback(&base_url) {
            continue;
        }
        let key = api_key.clone().filter(|_| trusted);
        members.push(Member::new(base_url, &model, key, weight));
    }
    Ok((Pool::new(members), all_trusted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;
    use crate::scenario::BrainOverride;
    use std::sync::Arc;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn nothing_configured_means_the_builtin_brain() {
        let s = default_scenario();
        let r = LlmSettings::resolve(&LlmArgs::default(), &env(&[]), None, &s.residents);
        assert!(r.unwrap().is_none());
        // A key alone is not an endpoint.
        let r = LlmSettings::resolve(
            &LlmArgs::default(),
            &env(&[("OPENAI_API_KEY", "k")]),
            None,
            &s.residents,
        );
        assert!(r.unwrap().is_none());
    }

    #[test]
    fn flags_beat_environment_beat_scenario() {
        let s = default_scenario();
        let spec = LlmSpec {
            base_url: Some("http://scenario/v1".into()),
            model: Some("scenario-model".into()),
            timeout_secs: Some(5.0),
            ..LlmSpec::default()
        };
        let e = env(&[
            ("OPENAI_BASE_URL", "http://openai-env/v1"),
            ("HEARTVALE_LLM_MODEL", "env-model"),
        ]);
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, Some(&spec), &s.residents)
            .unwrap()
            .unwrap();
        let d = r.default.as_ref().unwrap();
        assert_eq!(
            (d.first().base_url.as_str(), d.model()),
            ("http://openai-env/v1", "env-model")
        );
        assert_eq!(r.timeout, Duration::from_secs(5));
        let args = LlmArgs {
            llm: vec!["http://flag/v1".into()],
            llm_timeout: Some(2.5),
            ..LlmArgs::default()
        };
        let r = LlmSettings::resolve(&args, &e, Some(&spec), &s.residents)
            .unwrap()
            .unwrap();
        assert_eq!(
            r.default.as_ref().unwrap().first().base_url,
            "http://flag/v1"
        );
        assert_eq!(r.timeout, Duration::from_millis(2500));
        let off = LlmArgs {
            no_llm: true,
            ..args
        };
        assert!(
            LlmSettings::resolve(&off, &e, Some(&spec), &s.residents)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn keys_come_from_the_environment_and_residents_may_differ() {
        let mut residents = default_scenario().residents.clone();
        let mut p0 = (*residents[0]).clone();
        p0.brain = Some(BrainOverride {
            endpoint: Some("https://api.deepseek.com/v1".into()),
            model: Some("deepseek-chat".into()),
            api_key_env: Some("DEEPSEEK_API_KEY".into()),
            builtin: false,
        });
        let mut p1 = (*residents[1]).clone();
        p1.brain = Some(BrainOverride {
            endpoint: None,
            model: None,
            api_key_env: None,
            builtin: true,
        });
        residents[0] = std::sync::Arc::new(p0);
        residents[1] = std::sync::Arc::new(p1);
        let e = env(&[
            ("HEARTVALE_LLM_BASE_URL", "http://127.0.0.1:8089/v1"),
            ("HEARTVALE_LLM_API_KEY", "local-key"),
            ("DEEPSEEK_API_KEY", "ds-key"),
        ]);
        let trusting = LlmArgs {
            trust_scenario_endpoints: true,
            ..LlmArgs::default()
        };
        let r = LlmSettings::resolve(&trusting, &e, None, &residents)
            .unwrap()
            .unwrap();
        let own = r.endpoint_for(&residents[0]).unwrap();
        assert_eq!(
            (own.first().base_url.as_str(), own.model()),
            ("https://api.deepseek.com/v1", "deepseek-chat")
        );
        assert_eq!(own.first().api_key, ApiKey::new("ds-key"));
        assert!(r.endpoint_for(&residents[1]).is_none(), "builtin: true");
        let shared = r.endpoint_for(&residents[2]).unwrap();
        assert_eq!(shared.first().api_key, ApiKey::new("local-key"));
        assert_eq!(format!("{:?}", shared.first().api_key), "Some(ApiKey(***))");
    }

    /// A resident whose scenario names its own endpoint and key variable.
    fn with_own_endpoint(key_env: Option<&str>, url: Option<&str>) -> Vec<Arc<Profile>> {
        let mut residents = default_scenario().residents.clone();
        let mut p0 = (*residents[0]).clone();
        p0.brain = Some(BrainOverride {
            endpoint: url.map(Urls::from),
            model: Some("m".into()),
            api_key_env: key_env.map(String::from),
            builtin: false,
        });
        residents[0] = Arc::new(p0);
        residents
    }

    #[test]
    fn a_scenario_endpoint_gets_no_key_unless_the_user_trusts_it() {
        let residents = with_own_endpoint(
            Some("DEEPSEEK_API_KEY"),
            Some("https://evil.example:8443/v1"),
        );
        let e = env(&[
            ("HEARTVALE_LLM_BASE_URL", "http://127.0.0.1:8089/v1"),
            ("HEARTVALE_LLM_API_KEY", "local-key"),
            ("DEEPSEEK_API_KEY", "ds-key"),
        ]);
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, None, &residents)
            .unwrap()
            .unwrap();
        // Untrusted and remote: never contacted (the built-in brain answers).
        assert!(r.endpoint_for(&residents[0]).is_none());
        assert_eq!(r.notes.len(), 1, "said once: {:?}", r.notes);
        assert!(r.notes[0].contains("nothing is sent to it"));
        assert!(r.notes[0].contains("HEARTVALE_LLM_TRUSTED_HOSTS=evil.example"));
        // The user's own endpoint keeps its key.
        let shared = r.endpoint_for(&residents[2]).unwrap();
        assert_eq!(shared.first().api_key, ApiKey::new("local-key"));
        // Trusted by host (or host:port): the key goes.
        for hosts in ["evil.example", "other.org, EVIL.example:8443"] {
            let trusted = |k: &str| {
                if k == "HEARTVALE_LLM_TRUSTED_HOSTS" {
                    Some(hosts.to_string())
                } else {
                    e(k)
                }
            };
            let r = LlmSettings::resolve(&LlmArgs::default(), &trusted, None, &residents)
                .unwrap()
                .unwrap();
            assert_eq!(
                r.endpoint_for(&residents[0]).unwrap().first().api_key,
                ApiKey::new("ds-key")
            );
            assert!(r.notes.is_empty());
        }
        // A loopback server a file names is used, without the user's key.
        let residents = with_own_endpoint(None, Some("http://127.0.0.1:9/v1"));
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, None, &residents)
            .unwrap()
            .unwrap();
        assert_eq!(r.endpoint_for(&residents[0]).unwrap().first().api_key, None);
        // A backslash cannot show the check one host and connect to another.
        let tricked = with_own_endpoint(
            Some("DEEPSEEK_API_KEY"),
            Some("http://127.0.0.1:9\\@api.deepseek.com/v1"),
        );
        let trusting = |k: &str| match k {
            "HEARTVALE_LLM_TRUSTED_HOSTS" => Some("api.deepseek.com".to_string()),
            _ => e(k),
        };
        let r = LlmSettings::resolve(&LlmArgs::default(), &trusting, None, &tricked)
            .unwrap()
            .unwrap();
        assert!(r.endpoint_for(&tricked[0]).is_none());
    }

    #[test]
    fn the_towns_endpoint_gets_no_key_unless_trusted_and_only_api_keys_are_read() {
        let spec = LlmSpec {
            base_url: Some("http://evil.example/v1".into()),
            api_key_env: Some("GITHUB_TOKEN".into()),
            ..LlmSpec::default()
        };
        let e = env(&[
            ("OPENAI_API_KEY", "sk-user"),
            ("GITHUB_TOKEN", "ghp-secret"),
        ]);
        let residents = with_own_endpoint(Some("AWS_SECRET_ACCESS_KEY"), None);
        // Untrusted and remote: not contacted at all, so nothing is configured.
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, Some(&spec), &residents).unwrap();
        assert!(r.is_none());
        // A loopback one is used, without a key.
        let local = LlmSpec {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..spec.clone()
        };
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, Some(&local), &residents)
            .unwrap()
            .unwrap();
        assert_eq!(r.default.as_ref().unwrap().first().api_key, None);
        assert_eq!(r.notes.len(), 1);
        // A resident with only a key variable goes to the same untrusted endpoint: no key.
        assert_eq!(r.endpoint_for(&residents[0]).unwrap().first().api_key, None);
        // Trusted, the user's key goes — never GITHUB_TOKEN or AWS_SECRET_ACCESS_KEY.
        let trusting = LlmArgs {
            trust_scenario_endpoints: true,
            ..LlmArgs::default()
        };
        let r = LlmSettings::resolve(&trusting, &e, Some(&spec), &residents)
            .unwrap()
            .unwrap();
        assert_eq!(
            r.default.as_ref().unwrap().first().api_key,
            ApiKey::new("sk-user")
        );
        assert_eq!(r.endpoint_for(&residents[0]).unwrap().first().api_key, None);
        // The user's own URL (flag or environment) takes the key as before.
        let args = LlmArgs {
            llm: vec!["http://127.0.0.1:8089/v1".into()],
            ..LlmArgs::default()
        };
        let r = LlmSettings::resolve(&args, &e, Some(&spec), &residents)
            .unwrap()
            .unwrap();
        assert_eq!(
            r.default.as_ref().unwrap().first().api_key,
            ApiKey::new("sk-user")
        );
        assert!(r.notes.is_empty());
    }

    #[test]
    fn several_urls_make_a_pool_with_weights_and_keys() {
        let s = default_scenario();
        let args = LlmArgs {
            llm: vec!["http://a:1/v1".into(), "http://b:2/v1#weight=3".into()],
            ..LlmArgs::default()
        };
        let e = env(&[("HEARTVALE_LLM_API_KEY", "k")]);
        let r = LlmSettings::resolve(&args, &e, None, &s.residents)
            .unwrap()
            .unwrap();
        let pool = r.default_pool().unwrap();
        assert_eq!(pool.shown(), "http://a:1/v1,http://b:2/v1#weight=3");
        assert!(pool.members().iter().all(|m| m.endpoint.api_key.is_some()));
        assert_eq!(r.lod_queue, 16 * 4 * 4, "sixteen waiting calls per slot");
        // The same from the environment, comma-separated; a resident's own pool too.
        let e = env(&[("HEARTVALE_LLM_BASE_URL", "http://a:1/v1, http://b:2/v1")]);
        let mut residents = with_own_endpoint(None, None);
        let mut p0 = (*residents[0]).clone();
        p0.brain.as_mut().unwrap().endpoint = Some(Urls::Many(vec![
            "http://localhost:3/v1".into(),
            "http://127.0.0.2:4/v1#weight=2".into(),
        ]));
        residents[0] = Arc::new(p0);
        let r = LlmSettings::resolve(&LlmArgs::default(), &e, None, &residents)
            .unwrap()
            .unwrap();
        assert_eq!(r.default_pool().unwrap().members().len(), 2);
        let own = r.endpoint_for(&residents[0]).unwrap();
        assert_eq!(
            own.shown(),
            "http://localhost:3/v1,http://127.0.0.2:4/v1#weight=2"
        );
        assert_eq!(own.model(), "m");
        // A bad weight is refused with the form to use.
        let args = LlmArgs {
            llm: vec!["http://a/v1#weight=x".into()],
            ..LlmArgs::default()
        };
        let err = LlmSettings::resolve(&args, &env(&[]), None, &s.residents).unwrap_err();
        assert!(err.to_string().contains("#weight=N"), "{err}");
    }

    #[test]
    fn bad_urls_and_timeouts_are_errors() {
        let s = default_scenario();
        let args = LlmArgs {
            llm: vec!["127.0.0.1:8089".into()],
            ..LlmArgs::default()
        };
        let e = LlmSettings::resolve(&args, &env(&[]), None, &s.residents).unwrap_err();
        assert!(e.to_string().contains("http://"), "{e}");
        let args = LlmArgs {
            llm: vec!["http://x/v1".into()],
            llm_timeout: Some(0.0),
            ..LlmArgs::default()
        };
        assert!(LlmSettings::resolve(&args, &env(&[]), None, &s.residents).is_err());
        // A deadline past an hour would overflow the clock at 1e19: refused.
        for t in [1e19, f64::INFINITY, f64::NAN, 3601.0] {
            let args = LlmArgs {
                llm: vec!["http://x/v1".into()],
                llm_timeout: Some(t),
                ..LlmArgs::default()
            };
            let e = LlmSettings::resolve(&args, &env(&[]), None, &s.residents).unwrap_err();
            assert!(e.to_string().contains("at most 3600 seconds"), "{e}");
        }
    }

    /// A scenario (a shared file) lowers the user's limits, never raises them.
    #[test]
    fn a_scenario_cannot_raise_the_users_limits() {
        let s = default_scenario();
        let spec = LlmSpec {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            timeout_secs: Some(1e20),
            max_body_kib: Some(8 * 1024 * 1024),
            ..LlmSpec::default()
        };
        let r = LlmSettings::resolve(&LlmArgs::default(), &env(&[]), Some(&spec), &s.residents)
            .unwrap()
            .unwrap();
        assert_eq!(r.timeout, Duration::from_secs(60));
        assert_eq!(r.max_body, DEFAULT_MAX_BODY);
        let lower = LlmSpec {
            timeout_secs: Some(5.0),
            max_body_kib: Some(64),
            ..spec
        };
        let r = LlmSettings::resolve(&LlmArgs::default(), &env(&[]), Some(&lower), &s.residents)
            .unwrap()
            .unwrap();
        assert_eq!((r.timeout, r.max_body), (Duration::from_secs(5), 64 * 1024));
    }
}
