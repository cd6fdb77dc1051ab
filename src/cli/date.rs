//! `heartvale date A B`: Cupid's date between two residents in the terminal —
//! each scene, both decisions with their reasons, the score as it moves —
//! with a JSON Lines transcript; `--repeat N` measures how consistent the
//! scores are.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use super::typing::Typing;
use super::{CliError, DateArgs};
use crate::base::closest;
use crate::cupid::{Avatar, Date, Message, Minds, OfflineMinds, SceneBank, Summary, Timeline};
use crate::llm::LlmSettings;
use crate::llm::cupid::{DateCalls, LlmMinds};
use crate::scenario::{Profile, Scenario};

/// Runs the date (or `--repeat` dates); exit 0 when it was played.
pub(super) fn date(args: DateArgs) -> Result<ExitCode, CliError> {
    let dir = super::locate(&args.scenario);
    let town = Scenario::load(&dir).map_err(CliError::Scenario)?;
    let a = resident(&town, &args.a, &dir)?;
    let b = resident(&town, &args.b, &dir)?;
    if let Some(why) = crate::cupid::refusal(a, b) {
        return Err(CliError::failed(why));
    }
    let bank = SceneBank::load_for(&dir.join("cupid").join("scenes.yaml"), &town)
        .map_err(CliError::Scenario)?;
    let bank = Arc::new(bank);
    let settings = LlmSettings::resolve(
        &args.llm,
        &crate::llm::config::process_env,
        town.llm.as_ref(),
        &town.residents,
    )
    .map_err(CliError::failed)?;
    let seed = args.seed.unwrap_or(town.seed);
    let mut minds = DateMinds {
        settings,
        bank,
        calls: DateCalls::default(),
    };
    if let Some(n) = args.repeat {
        return repeat(a, b, &mut minds, seed, n, args.rounds);
    }
    let mut out = match &args.transcript {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| CliError::failed(format!("cannot create {}: {e}", path.display())))?,
        ),
        None => None,
    };
    println!("💘 约会：{} × {}（种子 {seed}）", a.name, b.name);
    // The town's own host never hosts its own date: the stand-in says so.
    if let Some(host) = [a, b]
        .into_iter()
        .find(|p| p.host == Some(crate::scenario::HostRole::Cupid))
    {
        println!(
            "（{}平时是镇上的约会主持人；这一次是自己赴约，由丘比特代为主持。）",
            host.name
        );
    }
    let mut date = Date::new(Avatar::new(a, b), Avatar::new(b, a), args.rounds);
    let mut mind = minds.start(seed)?;
    if let Some(m) = mind.llm() {
        println!("（主持人和两位居民的选择来自模型 {}）", m.model());
    }
    // With a model, at a terminal: each answer shown as it is written.
    let typing = match &mut mind {
        OneDate::Llm(m) => Typing::start().map(|(t, pieces)| {
            m.stream_to(pieces);
            t
        }),
        OneDate::Offline(_) => None,
    };
    while date.ended().is_none() {
        let messages = match (&typing, &mut mind) {
            (Some(t), OneDate::Llm(m)) => t.step(&mut date, m),
            _ => date.step(mind.as_minds()),
        };
        mind.report_notes();
        for m in &messages {
            println!("{}", told(m, &date));
            if let Some(file) = out.as_mut() {
                let line = serde_json::to_string(m).expect("plain data serializes");
                writeln!(file, "{line}")
                    .and_then(|()| file.flush())
                    .map_err(|e| CliError::failed(format!("cannot write the transcript: {e}")))?;
            }
        }
    }
    for line in Summary::of(&date).lines() {
        println!("  · {line}");
    }
    minds.add(&mind);
    minds.report();
    Ok(ExitCode::SUCCESS)
}

/// Where a date's minds come from: the model when one is configured, else
/// the offline host and avatars; what the model's calls came to.
struct DateMinds {
    settings: Option<LlmSettings>,
    bank: Arc<SceneBank>,
    calls: DateCalls,
}

/// One date's minds.
enum OneDate {
    Offline(Box<OfflineMinds>),
    Llm(Box<LlmMinds>),
}

impl DateMinds {
    fn start(&self, seed: u64) -> Result<OneDate, CliError> {
        match &self.settings {
            None => Ok(OneDate::Offline(Box::new(OfflineMinds::new(
                self.bank.clone(),
                seed,
            )))),
            Some(s) => match LlmMinds::new(s, self.bank.clone(), seed) {
                Some(m) => Ok(OneDate::Llm(Box::new(m.map_err(CliError::failed)?))),
                None => Ok(OneDate::Offline(Box::new(OfflineMinds::new(
                    self.bank.clone(),
                    seed,
                )))),
            },
        }
    }

    fn add(&mut self, one: &OneDate) {
        if let Some(m) = one.llm() {
            let c = m.calls();
            let t = &mut self.calls;
            t.calls += c.calls;
            t.repairs += c.repairs;
            t.fallbacks += c.fallbacks;
            t.prompt_tokens += c.prompt_tokens;
            t.completion_tokens += c.completion_tokens;
        }
    }

    /// The model's bill, when there was one.
    fn report(&self) {
        if self.settings.is_none() {
            return;
        }
        let c = self.calls;
        println!(
            "  LLM：{} 次调用（其中修复 {} 次），{} 个回合由内置规则代答，提示 {} tokens，回答 {} tokens",
            c.calls, c.repairs, c.fallbacks, c.prompt_tokens, c.completion_tokens
        );
    }
}

impl OneDate {
    fn as_minds(&mut self) -> &mut dyn Minds {
        match self {
            OneDate::Offline(m) => m.as_mut(),
            OneDate::Llm(m) => m.as_mut(),
        }
    }

    fn llm(&self) -> Option<&LlmMinds> {
        match self {
            OneDate::Llm(m) => Some(m),
            OneDate::Offline(_) => None,
        }
    }

    /// What the model got wrong, on stderr as it happens.
    fn report_notes(&mut self) {
        if let OneDate::Llm(m) = self {
            for note in m.take_notes() {
                eprintln!("note: {note}");
            }
        }
    }
}

/// A resident by id or name; unknown → an error with a suggestion.
pub(super) fn resident<'t>(
    town: &'t Scenario,
    who: &str,
    dir: &Path,
) -> Result<&'t Profile, CliError> {
    if let Some(p) = town
        .residents
        .iter()
        .find(|p| p.id.as_str() == who || p.name == who)
    {
        return Ok(p);
    }
    let ids: Vec<&str> = town.residents.iter().map(|p| p.id.as_str()).collect();
    let hint = closest(who, ids.iter().copied())
        .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
    Err(CliError::failed(format!(
        "{}: no resident `{who}`{hint}; residents: {}",
        dir.display(),
        ids.join(", ")
    )))
}

/// One message as the player reads it.
fn told(m: &Message, date: &Date) -> String {
    let name = |id: &crate::scenario::ResidentId| {
        date.avatars()
            .iter()
            .find(|a| a.id == *id)
            .map_or(id.to_string(), |a| a.name.clone())
    };
    match m {
        Message::Host(h) => {
            // Told as it is posed: the round is under way, not yet played.
            let round = date.rounds().len() + 1;
            let stage = date.posed().map_or("", |p| p.stage.label());
            let when = Timeline::chinese(&h.time);
            format!(
                "\n第 {round} 轮 · {when} · {stage}\n  【场景】{}\n  先问{}：{}\n  （主持人：{}）",
                h.action.question,
                name(&h.action.object),
                h.action.answers,
                h.rationale
            )
        }
        Message::Avatar { resident, turn } => format!(
            "  {} 选 {}「{}」—— {}",
            name(resident),
            turn.decision.option,
            turn.decision.content,
            turn.rationale
        ),
        Message::Score {
            before,
            after,
            reason,
            ..
        } => format!("  💕 {before} → {after}（{:+}）{reason}", after - before),
        Message::End {
            reason,
            score,
            rounds,
            band,
        } => format!(
            "\n结局：{}。{rounds} 轮，{score} 分，{}。",
            reason.label(),
            band.label()
        ),
    }
}

/// `--repeat N`: N seeds, then the same with the roles swapped (the other
/// side is asked first at the start, and is the date's first avatar).
fn repeat(
    a: &Profile,
    b: &Profile,
    minds: &mut DateMinds,
    seed: u64,
    n: u32,
    rounds: u32,
) -> Result<ExitCode, CliError> {
    let mut scores = |first: &Profile, second: &Profile| -> Result<Vec<f64>, CliError> {
        let mut out = Vec::new();
        for i in 0..u64::from(n) {
            let mut date = Date::new(
                Avatar::new(first, second),
                Avatar::new(second, first),
                rounds,
            );
            let mut one = minds.start(seed + i)?;
            date.play(one.as_minds());
            one.report_notes();
            minds.add(&one);
            out.push(f64::from(date.score()));
        }
        Ok(out)
    };
    let (ab, ba) = (scores(a, b)?, scores(b, a)?);
    let (m1, s1) = mean_std(&ab);
    let (m2, s2) = mean_std(&ba);
    println!(
        "💘 {} × {}：{n} 次约会（种子 {seed}–{}）",
        a.name,
        b.name,
        seed + u64::from(n) - 1
    );
    println!("  平均 {m1:.1} 分，标准差 {s1:.1}");
    println!(
        "  角色对调（{} 在先）：平均 {m2:.1} 分，标准差 {s2:.1}",
        b.name
    );
    println!("  对调前后相差 {:.1} 分", (m1 - m2).abs());
    minds.report();
    Ok(ExitCode::SUCCESS)
}

fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}
