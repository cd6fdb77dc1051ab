//! `heartvale check` on HEART RULE script folders: the design's samples pass,
//! and a corpus of broken scripts gets exactly these messages.

use std::path::Path;

use heartvale::script::check::check_dir;

fn lines(dir: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (_, diags) = check_dir(&root.join(dir));
    diags
        .iter()
        .map(|d| d.to_string().replace(&format!("{}/", root.display()), ""))
        .collect()
}

#[test]
fn the_design_samples_pass() {
    for dir in [
        "scenarios/heartvale/scripts/hello",
        "scenarios/heartvale/scripts/guardian",
    ] {
        assert_eq!(lines(dir), Vec::<String>::new(), "{dir}");
    }
}

/// The design's samples (`tests/scripts/design/`, each as the design writes
/// it, in the fixture a fragment needs): clean, except the five the design's
/// own rules reject, each with the fix.
#[test]
fn every_design_sample_checks_clean_unless_the_design_says_why_not() {
    let rejected: [(&str, &str); 5] = [
        (
            "07-full-width-braces",
            "session.yaml:15:18: warning[W304]: full-width braces never fill in a variable",
        ),
        (
            "08-think-and-condition",
            "session.yaml:16:18: error[E100]: mapping values are not allowed in this context (at `sessions[0].stages[0].steps[0].actions[0].?`) (help: a `:` before a space or a line end inside unquoted text starts a key: write text of several lines as a block (`think: |`",
        ),
        (
            "16-user-say-unquoted",
            "session.yaml:17:19: error[E100]: expected string scalar (at `sessions[0].stages[0].steps[0].actions[1].user_say`) (help: text is expected here, and a value starting with `{` or `[` is read as a map or a list: quote the whole text",
        ),
        (
            "21-think-condition-in-words",
            "session.yaml:12:21: error[E270]: condition: bare word `这里可以设置某些条件`",
        ),
        (
            "22-condition-unbalanced-quote",
            "session.yaml:22:34: error[E100]: invalid trailing content after double-quoted scalar",
        ),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/design");
    let mut dirs: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| root.join(n).is_dir())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 24, "{dirs:?}");
    for name in &dirs {
        let got = lines(&format!("tests/scripts/design/{name}"));
        match rejected.iter().find(|(n, _)| n == name) {
            None => assert_eq!(got, Vec::<String>::new(), "{name}"),
            Some((_, want)) => {
                let want = format!("tests/scripts/design/{name}/{want}");
                assert_eq!(got.len(), 1, "{name}: {got:?}");
                assert!(got[0].starts_with(&want), "{name}:\n{}\n{want}", got[0]);
            }
        }
    }
}

/// Calls whose `timing_to` names a goal or stage already past where they
/// stand: one W306 each; naming the current goal or a later one is fine.
#[test]
fn calls_aimed_at_the_past_are_warned_once_each() {
    let got = lines("tests/scripts/probes/past-targets");
    let at = "tests/scripts/probes/past-targets/probe.yaml";
    assert_eq!(
        got,
        [
            format!(
                "{at}:21:20: warning[W306]: `timing_to: 乙` names a goal that has already ended by the time this call runs (help: the skill runs right after this goal instead; name this goal or a later one, or leave `timing_to` out)"
            ),
            format!(
                "{at}:24:20: warning[W306]: `timing_to: 乙` names a goal that has already ended by the time this call runs (help: the skill runs at once instead, then this goal goes on; name this goal or a later one, or leave `timing_to` out)"
            ),
            format!(
                "{at}:27:20: warning[W306]: `timing_to: 第一段` names a stage that has already ended by the time this call runs (help: the skill runs at the end of the current stage instead; name this stage or a later one, or leave `timing_to` out)"
            ),
        ]
    );
    assert_eq!(
        lines("tests/scripts/probes/nested-timing"),
        Vec::<String>::new()
    );
}

#[test]
fn the_broken_corpus_gets_exact_messages() {
    let want = [
        "tests/scripts/broken/forms.yaml:5:10: warning[W302]: form `笔记` field `水果` is filled from `{喜欢的水杲}`, which is declared or produced nowhere (help: did you mean `喜欢的水果`?)",
        "tests/scripts/broken/forms.yaml:6:12: error[E210]: duplicate field name `水果` in this form (help: names must be unique; rename one of them)",
        "tests/scripts/broken/forms.yaml:6:12: warning[W302]: form `笔记` field `水果` is filled from `{水果}`, which is declared or produced nowhere (help: name the variable with `var:`)",
        "tests/scripts/broken/forms.yaml:7:9: error[E210]: duplicate form name `笔记` (help: names must be unique; rename one of them)",
        "tests/scripts/broken/roles.yaml:6:9: error[E210]: duplicate role name `守望精灵` (help: names must be unique; rename one of them)",
        "tests/scripts/broken/rules.yaml:4:9: error[E220]: unknown skill `换个话题` (help: skills are the goals under `skills:` in skills.yaml)",
        "tests/scripts/broken/rules.yaml:5:9: error[E210]: duplicate rule name `想停下来` (help: names must be unique; rename one of them)",
        "tests/scripts/broken/rules.yaml:6:23: error[E270]: condition: `=` assigns; conditions compare (help: use `==` or `===`)",
        "tests/scripts/broken/rules.yaml:11:14: error[E300]: `{心绪}` is declared or produced nowhere (help: did you mean `{心情}`?)",
        "tests/scripts/broken/session.yaml:13:20: error[E280]: `{用户选择}` is compared with 'C', which is not one of its choices (help: the choices are A, B)",
        "tests/scripts/broken/session.yaml:15:27: error[E270]: condition: `=` assigns; conditions compare (help: use `==` or `===`)",
        "tests/scripts/broken/session.yaml:17:21: error[E270]: condition: unexpected character `｛` (help: `｛` is full-width or typographic punctuation; type the ASCII `{`)",
        "tests/scripts/broken/session.yaml:18:14: error[E300]: `{名字}` is declared or produced nowhere (help: declare it (`declare:` or global.yaml) or produce it with an output `get:`)",
        "tests/scripts/broken/session.yaml:19:14: error[E201]: one action has several kinds: say, user_say (help: put each in its own `- ` list entry)",
        "tests/scripts/broken/session.yaml:21:14: error[E202]: `tone` does not belong to a `say` action (help: `say` takes only `condition`)",
        "tests/scripts/broken/session.yaml:24:21: error[E290]: max_rounds 12 is outside 1–10 (help: the default is 6)",
        "tests/scripts/broken/session.yaml:25:15: warning[W305]: `call: 甲乙` has no `timing`, so it is `NOW`: goal `选择` ends here and the 2 action(s) after it never run (help: to come back to this goal after the skill, add `timing: BEFORE_GOAL`; to mean `NOW`, write it or move the call last)",
        "tests/scripts/broken/session.yaml:25:15: error[E220]: unknown skill `甲乙` (help: did you mean `乙`?)",
        "tests/scripts/broken/session.yaml:28:20: error[E230]: `timing_to: 不存在` names no goal of this stage",
        "tests/scripts/broken/session.yaml:29:19: error[E260]: `fromlist: 用户选择` is never a list (help: make it a list with `tolist:` on an ai_ask or think, or declare it with a list value)",
        "tests/scripts/broken/session.yaml:31:16: error[E250]: skill `甲` declares no variable `名称` (help: inputs set variables the skill lists under `declare:`)",
        "tests/scripts/broken/session.yaml:34:13: error[E221]: `ai: 心旅者` names a HUMAN role",
        "tests/scripts/broken/session.yaml:35:13: error[E210]: duplicate goal name `选择` in this stage (help: names must be unique; rename one of them)",
        "tests/scripts/broken/session.yaml:45:14: warning[W303]: `{喜欢的水果}` is not visible here: it lives in goal `水果` (help: declare it in the stage's or session's `declare:` to share it between goals)",
        "tests/scripts/broken/session.yaml:46:20: warning[W303]: `{喜欢的水果}` is not visible here: it lives in goal `水果` (help: declare it in the stage's or session's `declare:` to share it between goals)",
        "tests/scripts/broken/skills.yaml:7:9: error[E240]: skills call each other in a cycle: 乙 → 甲 → 乙 (help: a skill may not lead back to itself; break the chain)",
        "tests/scripts/broken/stages.yaml:5:14: error[E291]: `minutes: 0` leaves the stage no time at all (help: give the stage's budget in whole minutes, 1 or more, or leave it out)",
        "tests/scripts/broken/stages.yaml:6:15: error[E220]: unknown skill `收屋` (help: skills are the goals under `skills:` in skills.yaml)",
        "tests/scripts/broken/stages.yaml:11:15: error[E222]: unknown form `笔迹` (help: did you mean `笔记`?)",
        "tests/scripts/broken/stages.yaml:13:18: error[E222]: form `笔记` has no field `水杲` (help: did you mean `水果`?)",
        "tests/scripts/broken/values.yaml:3:11: error[E312]: `update: autoo` on `心情` is neither `auto` nor `get` (help: did you mean `auto`?)",
        "tests/scripts/broken/values.yaml:11:17: warning[W304]: full-width braces never fill in a variable (help: type ASCII braces: `{用户名}`, not `｛用户名｝`)",
        "tests/scripts/broken/values.yaml:16:18: error[E311]: `value:` is a YAML map here, not text: YAML reads an unquoted `{…}` as a map (help: quote it: `value: \"{心情}\"`)",
        "tests/scripts/broken/values.yaml:19:15: warning[W305]: `call: 记录` has no `timing`, so it is `NOW`: goal `直接调用` ends here and the 1 action(s) after it never run (help: to come back to this goal after the skill, add `timing: BEFORE_GOAL`; to mean `NOW`, write it or move the call last)",
        "tests/scripts/broken/values.yaml:25:14: error[E313]: `persist: true` on `内容`, which is not a global variable: only globals are kept across sessions (help: declare it under `global:` (global.yaml) to keep it for the player's next session)",
    ];
    let got = lines("tests/scripts/broken");
    for (g, w) in got.iter().zip(want.iter()) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
}

#[test]
fn each_document_with_a_shape_mistake_is_reported() {
    let at = "tests/scripts/broken-keys/keys.yaml";
    let want = [
        format!(
            "{at}:11:9: error[E101]: unknown field `conditon`, expected one of say, user_say, user_option, ask, ai_say, ai_ask, think, call, scene, ai, fill, choices, tone, exit, max_rounds, tolist, output, timing, timing_to, fromlist, input, fields, condition (at `sessions[0].stages[0].steps[0].actions[0].conditon`) (help: remove the field or fix its spelling; the expected fields are listed)"
        ),
        format!(
            "{at}:21:21: error[E104]: expected a whole number here (at `sessions[0].stages[0].steps[0].actions[0].max_rounds`) (help: check the value's type (number, text, list))"
        ),
        format!(
            "{at}:27:13: error[E103]: unknown variant `LATER`, expected one of NOW, BEFORE_GOAL, AFTER_GOAL, AFTER_STAGE (at `skills[0].actions[0].timing`) (help: use one of the listed values)"
        ),
        format!(
            "{at}:34:9: error[E103]: unknown variant `ROBOT`, expected one of AI, ai, HUMAN, human (at `roles[0].type`) (help: use one of the listed values)"
        ),
        format!(
            "{at}:41:7: error[E102]: missing field `goal` (at `sessions[0].stages[0].steps[0]`) (help: add the field to this entry)"
        ),
        format!(
            "{at}:44:1: error[E101]: unknown field `session`, expected one of sessions, global, roles, skills, forms, rules (at `session`) (help: remove the field or fix its spelling; the expected fields are listed)"
        ),
    ];
    assert_eq!(lines("tests/scripts/broken-keys"), want);
}
