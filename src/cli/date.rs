//! `heartvale date A B`: Cupid's date between two residents in the terminal —
//! each scene, both decisions with their reasons, the score as it moves —
//! with a JSON Lines transcript; `--repeat N` measures how consistent the
//! scores are.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use super::{CliError, DateArgs};
use crate::base::closest;
use crate::cupid::{Avatar, Date, Message, OfflineMinds, SceneBank, Summary, Timeline};
use crate::scenario::{Profile, Scenario};

/// Runs the date (or `--repeat` dates); exit 0 when it was played.
pub(super) fn date(args: DateArgs) -> Result<ExitCode, CliError> {
    let dir = super::locate(&args.scenario);
    let town = Scenario::load(&dir).map_err(CliError::Scenario)?;
    let a = resident(&town, &args.a, &dir)?;
    let b = resident(&town, &args.b, &dir)?;
    if a.id == b.id {
        return Err(CliError::failed(format!(
            "{} cannot date themself: name two residents",
            a.name
        )));
    }
    let bank =
        SceneBank::load(&dir.join("cupid").join("scenes.yaml")).map_err(CliError::Scenario)?;
    let bank = Arc::new(bank);
    let seed = args.seed.unwrap_or(town.seed);
    if let Some(n) = args.repeat {
        return repeat(a, b, &bank, seed, n, args.rounds);
    }
    let mut out = match &args.transcript {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| CliError::failed(format!("cannot create {}: {e}", path.display())))?,
        ),
        None => None,
    };
    println!("💘 约会：{} × {}（种子 {seed}）", a.name, b.name);
    let mut date = Date::new(Avatar::new(a, b), Avatar::new(b, a), args.rounds);
    let mut minds = OfflineMinds::new(bank, seed);
    while date.ended().is_none() {
        let messages = date.step(&mut minds);
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
    Ok(ExitCode::SUCCESS)
}

/// A resident by id or name; unknown → an error with a suggestion.
fn resident<'t>(town: &'t Scenario, who: &str, dir: &Path) -> Result<&'t Profile, CliError> {
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
            let when = Timeline::parse(&h.time).map_or(h.time.clone(), |t| {
                format!("第{}天{}", t.day, t.part.label())
            });
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
    bank: &Arc<SceneBank>,
    seed: u64,
    n: u32,
    rounds: u32,
) -> Result<ExitCode, CliError> {
    let scores = |first: &Profile, second: &Profile| -> Vec<f64> {
        (0..n as u64)
            .map(|i| {
                let mut date = Date::new(
                    Avatar::new(first, second),
                    Avatar::new(second, first),
                    rounds,
                );
                date.play(&mut OfflineMinds::new(bank.clone(), seed + i));
                f64::from(date.score())
            })
            .collect()
    };
    let (ab, ba) = (scores(a, b), scores(b, a));
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
    Ok(ExitCode::SUCCESS)
}

fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}
