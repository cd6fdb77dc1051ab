//! HEART RULE speed: loading and checking a folder of 100 script files
//! (target < 100 ms), and stepping the engine through non-LLM actions
//! (`say` with interpolation, conditions, `scene`, `call`; target > 1 M/s).

use std::fmt::Write as _;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use heartvale::script::check::check_dir;
use heartvale::script::engine::{Engine, Input, Script, Wait};
use heartvale::script::load::{ScriptSources, load_text};

/// A session file of 4 stages × 5 goals × 6 actions, names made unique by `n`.
fn session_file(n: usize) -> String {
    let mut s = String::from("sessions:\n");
    let _ = writeln!(
        s,
        "- session: 会谈{n}\n  declare:\n  - var: 选择{n}\n    value: A\n  stages:"
    );
    for st in 0..4 {
        let _ = writeln!(s, "  - stage: 阶段{st}\n    steps:");
        for g in 0..5 {
            let _ = writeln!(
                s,
                "    - goal: 话题{st}_{g}\n      actions:\n      - say: 你好，这是第{g}个话题，你选了{{选择{n}}}\n      - user_option: 回答{n}_{st}_{g}\n        choices:\n        - A: 好\n        - B: 不好\n      - say: 很好\n        condition: \"{{回答{n}_{st}_{g}}}=='A' && {{选择{n}}}!=='B'\"\n      - ai_say: 根据{{选择{n}}}说一句鼓励的话\n        tone: 温暖\n      - scene: 咨询室\n        ai: 守望精灵\n      - call: 技能{n}\n        timing: AFTER_GOAL"
            );
        }
    }
    let _ = writeln!(
        s,
        "---\nskills:\n- goal: 技能{n}\n  declare:\n  - var: 输入{n}\n  actions:\n  - say: 技能里说一句\n---\nroles:\n- role: 守望精灵{n}\n  type: AI"
    );
    s
}

fn load_and_check(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..100 {
        std::fs::write(dir.path().join(format!("s{n:03}.yaml")), session_file(n)).unwrap();
    }
    std::fs::write(
        dir.path().join("roles.yaml"),
        "roles:\n- role: 守望精灵\n  type: AI\n- role: 心旅者\n  type: HUMAN\n",
    )
    .unwrap();
    let (src, diags) = check_dir(dir.path());
    assert!(
        diags
            .iter()
            .all(|d| d.severity != heartvale::script::diag::Severity::Error),
        "{}",
        diags[0]
    );
    let bytes: usize = src.texts.iter().map(|(_, t)| t.len()).sum();
    let lines: usize = src.texts.iter().map(|(_, t)| t.lines().count()).sum();
    eprintln!(
        "{} files, {} documents, {lines} lines, {bytes} bytes",
        src.texts.len(),
        src.docs.len()
    );
    c.bench_function("script/load_and_check_100_files", |b| {
        b.iter(|| check_dir(dir.path()))
    });
}

/// One goal of `n` actions that never wait: `say` with interpolation, a
/// condition, a scene change and a skill call, in turn.
fn stepping(c: &mut Criterion) {
    let n = 10_000;
    let mut y = String::from(
        "global:\n- var: 名\n  value: 小林\n---\nroles:\n- role: 守望精灵\n  type: AI\n---\nskills:\n- goal: 技能\n  actions:\n  - say: 技能\n---\nsessions:\n- session: s\n  stages:\n  - stage: t\n    steps:\n    - goal: g\n      actions:\n",
    );
    for i in 0..n / 4 {
        let _ = writeln!(
            y,
            "      - say: 你好{{名}}，第{i}句\n      - say: 条件\n        condition: \"{{名}}=='小林' && {i} >= 0\"\n      - scene: 室内\n        ai: 守望精灵\n      - call: 技能\n        timing: BEFORE_GOAL"
        );
    }
    let mut src = ScriptSources::default();
    let mut diags = Vec::new();
    load_text(Path::new("b.yaml"), &y, &mut src, &mut diags);
    assert!(diags.is_empty(), "{}", diags[0]);
    let script = Script::from_sources(&src);
    let engine = Engine {
        script: &script,
        now: String::new(),
        budgeting: Default::default(),
    };
    let mut g = c.benchmark_group("script");
    // Each `call` adds the skill's own `say`: 5 actions per 4 written.
    g.throughput(Throughput::Elements((n + n / 4) as u64));
    g.sample_size(20);
    g.bench_function("step_non_llm_actions", |b| {
        b.iter(|| {
            let mut st = engine.start("s").unwrap();
            let fx = engine.resume(&mut st, Input::Start).unwrap();
            assert_eq!(st.wait, Wait::Done);
            fx.len()
        })
    });
    g.finish();
}

// The same allocator as the `heartvale` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

criterion_group!(benches, load_and_check, stepping);
criterion_main!(benches);
