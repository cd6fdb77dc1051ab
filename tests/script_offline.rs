//! What a client reads from the built-in brain: every shipped set, template
//! and probe, played offline by town residents, never shows a value's
//! placeholder, half a bracket or an engine warning among its lines.

mod util;

use util::heartvale;

/// Text the client must never read.
const NEVER: &[&str] = &[
    "还不知道）",
    "：还不知道",
    "⚠",
    "⟨",
    "is not declared",
    "no value yet",
];

/// The lines of a played session (the variables and forms printed after
/// it are the writer's).
fn talk(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout).to_string();
    match text.split_once("\n== ") {
        Some((talk, _)) => talk.to_string(),
        None => text,
    }
}

fn check_played(args: &[&str]) {
    let out = heartvale(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let talk = talk(&out.stdout);
    for never in NEVER {
        assert!(!talk.contains(never), "{args:?} shows {never}:\n{talk}");
    }
    assert!(talk.contains("— 会谈结束 —"), "{args:?}:\n{talk}");
}

#[test]
fn no_offline_line_shows_a_placeholder_or_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut sets: Vec<(String, Option<&str>)> = vec![
        ("scenarios/heartvale/scripts/hello".into(), None),
        (
            "scenarios/heartvale/scripts/guardian".into(),
            Some("初次会谈"),
        ),
        (
            "scenarios/heartvale/scripts/guardian".into(),
            Some("再次会谈"),
        ),
        (
            "scenarios/heartvale/scripts/guardian".into(),
            Some("了解家庭"),
        ),
        ("tests/scripts/probes/unknown-values".into(), None),
        ("tests/scripts/probes/nested-timing".into(), None),
        ("tests/scripts/probes/past-targets".into(), None),
    ];
    for template in ["anxiety", "low-mood", "insomnia"] {
        let set = dir.path().join(template);
        let out = heartvale(&[
            "script",
            "new",
            set.to_str().unwrap(),
            "--template",
            template,
        ]);
        assert!(out.status.success(), "{template}");
        sets.push((set.to_str().unwrap().to_string(), None));
    }
    for (set, session) in &sets {
        for resident in ["xiaoxi", "ma", "guardian"] {
            let mut args = vec!["script", "play", "--no-llm", "--resident", resident, set];
            if let Some(s) = session {
                args.extend(["--session", s]);
            }
            check_played(&args);
        }
    }
}
