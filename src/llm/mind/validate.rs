//! What makes a model's answer unusable: a plan to nowhere or out of
//! bounds, or one that copies the instructions; a line that is not Chinese,
//! too short, copied from the prompt, or noise.

use crate::base::quoted as quote;
use crate::scenario::{LocIdx, Town, Tuning};
use crate::sim::brain::Plan;

/// What is wrong with a model's plan for this resident, if anything.
pub(crate) fn plan_problem(
    plan: &Plan,
    at: LocIdx,
    town: &Town,
    tuning: &Tuning,
) -> Option<String> {
    let wanted = plan.target_location.trim();
    let target = town
        .find(wanted)
        .or_else(|| town.indices().find(|&l| town.name(l) == wanted));
    match target {
        None => return Some(format!("`{}` is not a place id", quote(wanted))),
        Some(t) if !town.reachable(at, t) => {
            return Some(format!(
                "`{}` cannot be reached from `{}`",
                quote(wanted),
                town.id(at)
            ));
        }
        _ => {}
    }
    let d = &tuning.durations;
    if plan.duration < d.min as i64 || plan.duration > d.max as i64 {
        return Some(format!(
            "duration {} is outside {}–{}",
            plan.duration, d.min, d.max
        ));
    }
    if !plan.action.chars().any(|c| c.is_ascii_alphabetic()) {
        return Some(format!(
            "action `{}` is not an English verb phrase",
            quote(&plan.action)
        ));
    }
    // Small models copy the field descriptions instead of answering.
    for (field, text) in [
        ("action", &plan.action),
        ("dialogue", &plan.dialogue),
        ("emoji", &plan.emoji),
    ] {
        if ["英文", "中文的一句话", "一个表情", "动词短语"]
            .iter()
            .any(|p| text.contains(p))
        {
            return Some(format!(
                "`{field}` copies the instructions: `{}`",
                quote(text)
            ));
        }
    }
    None
}

/// What is wrong with a model's conversation line, if anything: not Chinese,
/// too short or long, copied from the prompt (a small model's favourite), or noise.
pub(crate) fn line_problem(line: &str, prompt: &str) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let line = &quote(line);
    if !has_cjk(line) {
        return Some(format!("not a Chinese line: {line:?}"));
    }
    if chars.len() < 4 {
        return Some(format!("too short: {line:?}"));
    }
    // Eight characters in a row straight from the prompt: an echo, not an answer.
    let copied = chars.windows(8).any(|w| {
        let s: String = w.iter().collect();
        prompt.contains(&s)
    });
    if copied {
        return Some(format!("copies the prompt: {line:?}"));
    }
    let repeats = chars.windows(4).any(|w| w.iter().all(|&c| c == w[0]));
    if repeats {
        return Some(format!("repeats itself: {line:?}"));
    }
    None
}

/// Whether `s` has a Chinese character.
pub(super) fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;

    #[test]
    fn copied_or_noisy_lines_are_rejected() {
        let prompt = "你是钟大川，准备和石松打招呼。\n## 你的背景";
        assert!(line_problem("你是钟大川，准备和石松打招呼。", prompt).is_some());
        assert!(line_problem("Hello there, friend!", prompt).is_some());
        assert!(line_problem("好", prompt).is_some());
        assert!(line_problem("石松！；；；；；；；", prompt).is_some());
        assert_eq!(
            line_problem("石松，今天怎么有空进镇啦？来碗炖菜！", prompt),
            None
        );
    }

    #[test]
    fn reasons_quote_a_huge_answer_briefly() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let plan = Plan {
            action: "Go".into(),
            target_location: "x".repeat(20_000_000),
            dialogue: String::new(),
            emoji: String::new(),
            duration: 60,
            activity: None,
            with: None,
        };
        let why = plan_problem(&plan, home, &s.town, &s.tuning).unwrap();
        assert!(why.chars().count() < 200, "{} characters", why.len());
        let why = line_problem(&"好".repeat(1_000_000), "").unwrap();
        assert!(why.chars().count() < 200, "{} characters", why.len());
    }

    #[test]
    fn plans_that_copy_the_instructions_are_rejected() {
        let s = default_scenario();
        let home = s.town.find("home_zhong").unwrap();
        let mut p = Plan {
            action: "Serve breakfast".into(),
            target_location: "tavern".into(),
            dialogue: "早！".into(),
            emoji: "🍲".into(),
            duration: 60,
            activity: None,
            with: None,
        };
        assert_eq!(plan_problem(&p, home, &s.town, &s.tuning), None);
        p.dialogue = "中文的一句话".into();
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("copies")
        );
        p.dialogue = "早！".into();
        p.action = "英文行为".into();
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("English")
        );
        p.action = "Serve".into();
        p.duration = 5;
        assert!(
            plan_problem(&p, home, &s.town, &s.tuning)
                .unwrap()
                .contains("duration")
        );
    }
}
