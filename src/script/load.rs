//! Reading a script set: every `*.yaml`/`*.yml` file of a folder, each split
//! into its YAML documents (`---`), each document recognised by its top-level
//! keys. Parse errors are collected, not fatal: the rest still loads.

use std::path::{Path, PathBuf};

use super::diag::ScriptDiagnostic;
use super::format::Document;
use crate::base::parse_yaml;

/// One document and where it starts in its file.
#[derive(Debug, Clone)]
pub struct LoadedDoc {
    /// The file it is in.
    pub(crate) file: PathBuf,
    /// Lines before the document in its file (add to a span's line).
    pub(crate) line_offset: u64,
    /// The document.
    pub(crate) doc: Document,
}

/// Everything a folder holds, in file order.
#[derive(Debug, Clone, Default)]
pub struct ScriptSources {
    /// Every document, in file order.
    pub docs: Vec<LoadedDoc>,
    /// Each file's text, for diagnostics that quote a line.
    pub texts: Vec<(PathBuf, String)>,
}

/// Splits YAML text at document markers (`---` at the start of a line);
/// returns each document with the number of lines before it.
pub fn split_documents(text: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0u64;
    for (i, line) in text.lines().enumerate() {
        let marker =
            line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        if marker {
            out.push((start, std::mem::take(&mut current)));
            // `--- value` puts content on the marker line itself.
            let rest = line[3..].trim();
            if rest.is_empty() {
                start = i as u64 + 1;
            } else {
                start = i as u64;
                current.push_str(rest);
                current.push('\n');
            }
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    out.push((start, current));
    out.retain(|(_, d)| {
        d.lines()
            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    });
    out
}

/// Loads every YAML file of `dir` (sorted by name).
pub fn load_dir(dir: &Path) -> (ScriptSources, Vec<ScriptDiagnostic>) {
    let mut sources = ScriptSources::default();
    let mut diags = Vec::new();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| is_yaml(p))
            .collect(),
        Err(e) => {
            diags.push(ScriptDiagnostic::error(
                dir,
                (1, 1),
                "E001",
                format!("cannot read the script folder: {e}"),
            ));
            return (sources, diags);
        }
    };
    files.sort();
    // Files parse independently: spread them over the cores (YAML parsing is
    // most of the time), then merge in name order so the result is the same.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().div_ceil(8))
        .max(1);
    let chunk = files.len().div_ceil(threads).max(1);
    let parts: Vec<(ScriptSources, Vec<ScriptDiagnostic>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| scope.spawn(move || load_files(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    for (part, part_diags) in parts {
        sources.docs.extend(part.docs);
        sources.texts.extend(part.texts);
        diags.extend(part_diags);
    }
    (sources, diags)
}

/// Whether a path names a YAML file (`.yaml` or `.yml`).
pub(super) fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "yaml" || x == "yml")
}

/// Reads and parses some files, in order.
fn load_files(files: &[PathBuf]) -> (ScriptSources, Vec<ScriptDiagnostic>) {
    let mut sources = ScriptSources::default();
    let mut diags = Vec::new();
    for path in files {
        let text = match crate::base::files::read_text(path, crate::base::files::MAX_FILE) {
            Ok(t) => t,
            Err(e) => {
                diags.push(ScriptDiagnostic::error(
                    path,
                    (1, 1),
                    "E001",
                    format!("cannot read: {e}"),
                ));
                continue;
            }
        };
        load_text(path, &text, &mut sources, &mut diags);
        sources.texts.push((path.clone(), text));
    }
    (sources, diags)
}

/// Parses one file's text into documents.
pub fn load_text(
    path: &Path,
    text: &str,
    sources: &mut ScriptSources,
    diags: &mut Vec<ScriptDiagnostic>,
) {
    for (offset, doc_text) in split_documents(text) {
        match parse_yaml::<Document>(&doc_text) {
            Ok(doc) => {
                let empty = doc.sessions.is_none()
                    && doc.global.is_none()
                    && doc.roles.is_none()
                    && doc.skills.is_none()
                    && doc.forms.is_none()
                    && doc.rules.is_none();
                if empty {
                    diags.push(
                        ScriptDiagnostic::error(
                            path,
                            (offset + 1, 1),
                            "E110",
                            "a document with none of the script keys".into(),
                        )
                        .help(
                            "start it with `sessions:`, `global:`, `roles:`, `skills:`, `forms:` or `rules:`",
                        ),
                    );
                }
                sources.docs.push(LoadedDoc {
                    file: path.to_path_buf(),
                    line_offset: offset,
                    doc,
                });
            }
            Err(d) => diags.push(ScriptDiagnostic::from_yaml(path, text, &d, offset)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::format::{ActionKind, RoleType};

    /// The design's hello.yaml, unchanged: a session, then the roles as a second document.
    const HELLO: &str = r#"sessions:
- session: 首次会谈
  stages:
  - stage: 进入心谷大门
    steps:
    - goal: 询问名称
      actions:
        - say: "欢迎来到游心谷，我是心谷的守望精灵。"
        - user_option: 用户选择
          choices:
          - A: "心谷是什么地方?"
          - B: "我要进入心谷"
        - say: "心谷是你的内心世界，你可以看到你的各种念头、想法、情绪，你要进去看看吗？"
          condition: "{用户选择}=='A'"
        - user_say: 是的，我想进去
          condition: "{用户选择}=='A'"
        - say: 进去前，需要先收集你一些信息
        - user_say: 没问题，你问吧
        - ai_ask: 向心旅者询问名字。
              询问策略：
              1、先简单问一句名称，例如：我该怎么称呼你
              2、当从心旅者的回复发现他有顾虑时，再追问提示他可以用网名，小名都可以，不一定用真名。
          output:
          - get: 心旅者名
            define: 心旅者给出的名称
        - ai_say: 根据心旅者给的名称{心旅者名}，进行一句简短的赞美

---
roles:
- role: 守望精灵
  define: 心谷向导（心理咨询师）的助手，心旅者的心情陪伴者
  type: AI
  name: 喵喵

- role: 心谷向导
  define: 心谷向导，用于模拟心谷向导
  type: AI
  name: 萌加加
  
- role: 心旅者
  define: 进入到心谷，被现实困住的人
  type: HUMAN
  name: "迷路者"
"#;

    #[test]
    fn the_designs_hello_yaml_loads_as_two_documents() {
        let mut src = ScriptSources::default();
        let mut diags = Vec::new();
        load_text(Path::new("hello.yaml"), HELLO, &mut src, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(src.docs.len(), 2);
        let sessions = src.docs[0].doc.sessions.as_ref().unwrap();
        let goal = &sessions[0].stages[0].steps[0];
        assert_eq!(goal.goal.value, "询问名称");
        let kinds: Vec<ActionKind> = goal.actions.iter().flat_map(|a| a.kinds()).collect();
        use ActionKind::*;
        assert_eq!(
            kinds,
            [Say, UserOption, Say, UserSay, Say, UserSay, AiAsk, AiSay]
        );
        // The folded multi-line prompt is one string.
        let ask = goal.actions[6].ai_ask.as_ref().unwrap();
        assert!(
            ask.value.starts_with("向心旅者询问名字。 询问策略："),
            "{}",
            ask.value
        );
        let roles = src.docs[1].doc.roles.as_ref().unwrap();
        assert_eq!(roles.len(), 3);
        assert_eq!(roles[2].kind, RoleType::Human);
        // The roles document starts after line 27 of the file.
        assert_eq!(src.docs[1].line_offset, 28);
        assert_eq!(
            roles[0].role.referenced.line() + src.docs[1].line_offset,
            30
        );
    }

    #[test]
    fn errors_name_file_line_column_and_code() {
        let mut src = ScriptSources::default();
        let mut diags = Vec::new();
        let text = "sessions:\n- session: s\n  stages:\n  - stage: t\n    steps:\n    - goal: g\n      actions:\n      - say: hi\n        conditon: \"{a}=='b'\"\n---\nroles:\n- role: r\n  type: ROBOT\n";
        load_text(Path::new("bad.yaml"), text, &mut src, &mut diags);
        let shown: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown[0].starts_with(
                "bad.yaml:9:9: error[E101]: unknown field `conditon`, expected one of"
            ),
            "{}",
            shown[0]
        );
        assert!(
            shown[0]
                .contains(", condition (at `sessions[0].stages[0].steps[0].actions[0].conditon`)"),
            "the valid keys and the path are listed: {}",
            shown[0]
        );
        assert!(
            shown[1].starts_with("bad.yaml:13:9: error[E103]: unknown variant `ROBOT`"),
            "{}",
            shown[1]
        );
    }

    #[test]
    fn a_full_width_colon_gets_its_own_help() {
        let mut src = ScriptSources::default();
        let mut diags = Vec::new();
        let text = "global:\n- var： 心旅者名\n  define: 称呼\n";
        load_text(Path::new("global.yaml"), text, &mut src, &mut diags);
        assert_eq!(diags.len(), 1);
        let d = diags[0].to_string();
        assert!(d.starts_with("global.yaml:2:"), "{d}");
        assert!(d.contains("full-width colon"), "{d}");
    }

    #[test]
    fn documents_split_at_markers_only() {
        let docs = split_documents(
            "a: 1\n---\nb: |\n  text --- here\n--- \n# only a comment\n---\nc: 3\n",
        );
        let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["a: 1\n", "b: |\n  text --- here\n", "c: 3\n"]);
        assert_eq!(docs[2].0, 7);
    }

    /// Property: a script file edited anywhere loads and is checked, or is
    /// refused with diagnostics inside the file; never a panic.
    #[test]
    fn fuzzed_script_files_load_and_check_without_panics() {
        use crate::base::fuzz::{Bounds, fuzz};
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/heartvale/scripts/guardian");
        let files = [
            "first-day.yaml",
            "global.yaml",
            "roles.yaml",
            "skills.yaml",
            "forms.yaml",
        ];
        let texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
            .collect();
        let corpus: Vec<&str> = texts.iter().map(String::as_str).chain([HELLO]).collect();
        let vocabulary = [
            "- say: ",
            "- ai_say: ",
            "- user_option: x\n",
            "- call: ",
            "{",
            "}",
            "｛",
            "condition: ",
            "timing: BEFORE_GOAL",
            "---\n",
            "&a ",
            "*a",
            "- ",
            ": ",
            "\n      ",
            "max_rounds: -1",
        ];
        fuzz(51, &corpus, &vocabulary, Bounds::cases(1_500), |text| {
            let path = Path::new("fuzz.yaml");
            let mut sources = ScriptSources::default();
            let mut diags = Vec::new();
            load_text(path, text, &mut sources, &mut diags);
            sources.texts.push((path.to_path_buf(), text.to_string()));
            diags.extend(crate::script::check::check(&sources));
            for d in &diags {
                d.to_string();
            }
        });
    }
}
