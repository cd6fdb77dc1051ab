//! The HEART RULE sets a resident runs: `counsel:` (with the player) and
//! `converse:` (skills in its own conversations), loaded and checked with
//! the scenario.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde_saphyr::Spanned;

use super::Ctx;
use crate::base::closest;
use crate::scenario::spec;
use crate::scenario::{CONVERSE_FIELDS, Converse, ConverseSkill, Counsel, LoadedSet};
use crate::script::check::referenced_vars;
use crate::script::engine::Script;

/// A script folder named in `residents.yaml`, resolved against the scenario
/// folder; an error at the entry when it is not there, or not inside the
/// scenario folder (a shared scenario must not reach into the user's files).
fn script_dir(
    cx: &mut Ctx,
    file: &Path,
    scripts: &Spanned<String>,
    field: String,
) -> Option<PathBuf> {
    let rel = Path::new(&scripts.value);
    if rel.is_absolute() || rel.components().any(|c| matches!(c, Component::ParentDir)) {
        let msg = format!(
            "script folder `{}` is outside the scenario folder",
            crate::base::shortened(&scripts.value, 120)
        );
        let hint = "name a folder inside it, e.g. `scripts/guardian`; to use a set kept \
                    elsewhere, link it into the scenario folder (`ln -s`)";
        cx.err(file, scripts, field, msg, Some(hint.into()));
        return None;
    }
    let dir = file.parent().unwrap_or(Path::new(".")).join(&scripts.value);
    if dir.is_dir() {
        return Some(dir);
    }
    cx.err(
        file,
        scripts,
        field,
        format!("script folder `{}` not found", scripts.value),
        Some("the path is relative to the scenario folder, e.g. `scripts/guardian`".into()),
    );
    None
}

/// A script set named in `residents.yaml`, in its folder and loaded without
/// errors; else an error at the entry with the set's first problems.
fn load_set(
    cx: &mut Ctx,
    file: &Path,
    scripts: &Spanned<String>,
    field: String,
) -> Option<(PathBuf, Script)> {
    let dir = script_dir(cx, file, scripts, field.clone())?;
    match Script::load_clean(&dir) {
        Ok(script) => Some((dir, script)),
        Err(errors) => {
            // The first few go along, so the window's reload message shows them.
            let mut hint = errors.iter().take(3).cloned().collect::<Vec<_>>();
            hint.push(format!("run `heartvale check {}` for all", dir.display()));
            let msg = format!(
                "script set `{}` has {} error(s)",
                scripts.value,
                errors.len()
            );
            cx.err(file, scripts, field, msg, Some(hint.join("; ")));
            None
        }
    }
}

/// A resident's `counsel:`: the script set loads without errors and has the
/// session named (or any session, when none is).
pub(super) fn counsel(
    cx: &mut Ctx,
    file: &Path,
    p: &str,
    c: &spec::CounselSpec,
) -> Option<Counsel> {
    let (dir, script) = load_set(cx, file, &c.scripts, format!("{p}.counsel.scripts"))?;
    let names = || script.sessions.iter().map(|s| s.session.value.as_str());
    let missing = match &c.session {
        Some(name) => !names().any(|n| n == name),
        None => names().next().is_none(),
    };
    if missing {
        let wanted = c.session.as_deref().unwrap_or("");
        let msg = match &c.session {
            Some(name) => format!("no session `{name}` in `{}`", c.scripts.value),
            None => format!("script set `{}` has no session to play", c.scripts.value),
        };
        let hint = match closest(wanted, names()) {
            Some(n) if c.session.is_some() => format!("did you mean `{n}`?"),
            _ => format!("its sessions: {}", names().collect::<Vec<_>>().join(", ")),
        };
        cx.err(
            file,
            &c.scripts,
            format!("{p}.counsel.session"),
            msg,
            Some(hint),
        );
        return None;
    }
    if let Some(next) = &c.next
        && !names().any(|n| n == next.value)
    {
        let hint = match closest(&next.value, names()) {
            Some(n) => format!("did you mean `{n}`?"),
            None => format!("its sessions: {}", names().collect::<Vec<_>>().join(", ")),
        };
        let msg = format!("no session `{}` in `{}`", next.value, c.scripts.value);
        cx.err(file, next, format!("{p}.counsel.next"), msg, Some(hint));
        return None;
    }
    Some(Counsel {
        dir,
        script: LoadedSet(Arc::new(script)),
        session: c.session.clone(),
        next: c.next.as_ref().map(|n| n.value.clone()),
    })
}

/// A resident's `converse:`: the script set loads without errors, every skill
/// exists, and each input names a variable of its skill and only known fields.
pub(super) fn converse(
    cx: &mut Ctx,
    file: &Path,
    p: &str,
    c: &spec::ConverseSpec,
) -> Option<Converse> {
    let field = format!("{p}.converse.scripts");
    let (dir, script) = load_set(cx, file, &c.scripts, field)?;
    let mut ok = true;
    if !(0.0..=1.0).contains(&c.chance) {
        let msg = format!("chance {} is not between 0 and 1", c.chance);
        cx.err(file, &c.scripts, format!("{p}.converse.chance"), msg, None);
        ok = false;
    }
    if c.skills.is_empty() {
        cx.err(
            file,
            &c.scripts,
            format!("{p}.converse.skills"),
            "no skills listed".into(),
            Some("list at least one `- skill: NAME` from the set's skills.yaml".into()),
        );
        ok = false;
    }
    let mut skills = Vec::new();
    for (k, s) in c.skills.iter().enumerate() {
        let at = format!("{p}.converse.skills[{k}]");
        match skill(cx, file, (&script, &c.scripts.value), s, &at) {
            Some((skill, good)) => {
                ok &= good;
                skills.push(skill);
            }
            None => ok = false,
        }
    }
    ok.then(|| Converse {
        dir,
        script: LoadedSet(Arc::new(script)),
        chance: c.chance,
        with: c.with.clone(),
        skills,
    })
}

/// One skill of `converse:`: it exists in the set (else `None`), and each
/// input sets a declared variable from known fields (else `false` beside it).
fn skill(
    cx: &mut Ctx,
    file: &Path,
    (script, set): (&Script, &str),
    s: &spec::ConverseSkillSpec,
    at: &str,
) -> Option<(ConverseSkill, bool)> {
    let Some(goal) = script.skills.get(&s.skill.value) else {
        let hint = match closest(&s.skill.value, script.skills.keys().map(String::as_str)) {
            Some(n) => format!("did you mean `{n}`?"),
            None => format!(
                "the set's skills: {}",
                script.skills.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        };
        let msg = format!("no skill `{}` in `{set}`", s.skill.value);
        cx.err(file, &s.skill, format!("{at}.skill"), msg, Some(hint));
        return None;
    };
    let declared: Vec<&str> = goal.declared().collect();
    let mut ok = true;
    let mut input = Vec::new();
    for (var, template) in &s.input {
        if !declared.contains(&var.as_str()) {
            cx.err(
                file,
                template,
                format!("{at}.input.{var}"),
                format!("skill `{}` declares no variable `{var}`", s.skill.value),
                Some(format!("its variables: {}", declared.join(", "))),
            );
            ok = false;
        }
        for name in referenced_vars(&template.value) {
            if !CONVERSE_FIELDS.iter().any(|(f, _)| *f == name) {
                let fields: Vec<String> = CONVERSE_FIELDS
                    .iter()
                    .map(|(f, _)| format!("{{{f}}}"))
                    .collect();
                cx.err(
                    file,
                    template,
                    format!("{at}.input.{var}"),
                    format!("unknown field `{{{name}}}`"),
                    Some(format!("the fields: {}", fields.join(" "))),
                );
                ok = false;
            }
        }
        input.push((var.clone(), template.value.clone()));
    }
    let skill = ConverseSkill {
        skill: s.skill.value.clone(),
        input,
    };
    Some((skill, ok))
}
