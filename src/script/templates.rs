//! Templates per problem type — the design: 系统会预设好不同心理问题的模板，
//! 以便新入的咨询师复制使用. Each is a whole script set (roles, shared
//! variables, crisis and pause skills, rules, one evaluation session and its
//! counselling note) that `heartvale script new DIR --template NAME` copies
//! into a folder of the counsellor's own, to edit from there.

use std::path::{Path, PathBuf};

use crate::base::closest;

/// A template set.
pub struct Template {
    /// Its id (`anxiety` …).
    pub id: &'static str,
    /// The problem it is for, in Chinese (also accepted as its name).
    pub problem: &'static str,
    /// The session it holds, in a line.
    pub about: &'static str,
    /// Its own file: the session and its form.
    session: &'static str,
}

/// The files every template shares.
const SHARED: [(&str, &str); 4] = [
    ("roles.yaml", include_str!("templates/roles.yaml")),
    ("global.yaml", include_str!("templates/global.yaml")),
    ("skills.yaml", include_str!("templates/skills.yaml")),
    ("rules.yaml", include_str!("templates/rules.yaml")),
];

/// Every template, in the order `script new` lists them.
pub const TEMPLATES: [Template; 3] = [
    Template {
        id: "anxiety",
        problem: "焦虑",
        about: "焦虑评估性会谈：主诉、焦虑打分、焦虑时的自动思维和身体反应，记录作业",
        session: include_str!("templates/anxiety.yaml"),
    },
    Template {
        id: "low-mood",
        problem: "情绪低落",
        about: "情绪低落评估性会谈：主诉、心情打分、兴趣和精力、好一点的时候，行为激活作业",
        session: include_str!("templates/low-mood.yaml"),
    },
    Template {
        id: "insomnia",
        problem: "失眠",
        about: "失眠评估性会谈：主诉、入睡时间、睡前习惯和床上的念头，睡眠日记作业",
        session: include_str!("templates/insomnia.yaml"),
    },
];

impl Template {
    /// The template named `name` (its id or its problem), or what to say.
    pub fn find(name: &str) -> Result<&'static Template, String> {
        if let Some(t) = TEMPLATES.iter().find(|t| t.id == name || t.problem == name) {
            return Ok(t);
        }
        let names = TEMPLATES.iter().flat_map(|t| [t.id, t.problem]);
        let hint = closest(name, names).map_or(String::new(), |c| format!("; did you mean `{c}`?"));
        Err(format!(
            "no template `{name}`{hint} — the templates are:\n{}",
            list()
        ))
    }

    /// The set's files: (file name, text).
    pub fn files(&self) -> Vec<(&'static str, &'static str)> {
        let mut files = SHARED.to_vec();
        files.push(("session.yaml", self.session));
        files
    }

    /// Writes the set into `dir` (created if need be; one that holds anything
    /// is refused, nothing overwritten), with its `yaml_schema.json`.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let shown = dir.display();
        let occupied = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
        if occupied {
            return Err(format!("{shown} is not empty; pick a new folder"));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{shown}: {e}"))?;
        let schema = crate::script::schema::json_schema_text();
        let mut written = Vec::new();
        let files = self
            .files()
            .into_iter()
            .chain([("yaml_schema.json", schema.as_str())]);
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            written.push(path);
        }
        Ok(written)
    }
}

/// One line per template: id, problem, what it holds.
pub fn list() -> String {
    let lines = TEMPLATES
        .iter()
        .map(|t| format!("  {:<9} {}  {}", t.id, t.problem, t.about));
    lines.collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::engine::{
        Course, Effect, Engine, Input, Script, SessionRecord, Wait, offline_reply,
    };

    /// The set's session runs offline to its end as the next of `course`,
    /// every answer "我叫小林" (a name, whatever is asked); returns its lines
    /// and its record.
    fn plays_to_the_end(script: &Script, course: &Course) -> (Vec<String>, SessionRecord) {
        let engine = Engine {
            script,
            now: "2026-04-06 10:00:00".into(),
            budgeting: Default::default(),
        };
        let session = script.sessions[0].session.value.clone();
        let mut st = engine.start_course(&session, course).unwrap();
        let (mut lines, mut record) = (Vec::new(), None);
        let mut input = Input::Start;
        for _ in 0..200 {
            for e in engine.resume(&mut st, input).unwrap() {
                match e {
                    Effect::Line { text, .. } => lines.push(text),
                    Effect::SessionRecorded { record: r } => record = Some(r),
                    _ => {}
                }
            }
            input = match &st.wait {
                Wait::Done => return (lines, record.expect("a course session's record")),
                Wait::Llm { .. } => {
                    let req = st.pending.clone().unwrap();
                    let text = offline_reply(&st, &req);
                    Input::LlmReply { id: req.id, text }
                }
                Wait::Text => Input::Text {
                    text: "我叫小林".into(),
                },
                Wait::Choice { keys, .. } => Input::Choose {
                    key: keys[0].clone(),
                },
                Wait::Continue => Input::Continue,
                Wait::Start => Input::Start,
            };
        }
        panic!("{session} never ended");
    }

    /// A client's second session: greeted by name, not asked it again.
    fn plays_a_course(script: &Script, id: &str) {
        let (first, record) = plays_to_the_end(script, &Course::default());
        assert!(
            first.iter().any(|l| l == "我该怎么称呼你？"),
            "{id}: {first:?}"
        );
        assert_eq!(record.persisted["来访者称呼"].text(), "小林", "{id}");
        let course = Course {
            sessions: vec![record],
        };
        let (second, _) = plays_to_the_end(script, &course);
        assert_eq!(
            second[0], "小林，欢迎回来。上次聊过的事我都记着，我们接着来。",
            "{id}"
        );
        assert!(!second.iter().any(|l| l == "我该怎么称呼你？"), "{id}");
    }

    #[test]
    fn every_template_checks_clean_and_plays_offline() {
        for t in &TEMPLATES {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join(t.id);
            let written = t.write(&out).unwrap();
            assert_eq!(written.len(), 6);
            let (_, diags) = crate::script::check::check_dir(&out);
            assert!(diags.is_empty(), "{}: {diags:?}", t.id);
            let script = crate::script::engine::Script::load_clean(&out).unwrap();
            assert!(script.sessions.len() == 1, "{}", t.id);
            plays_a_course(&script, t.id);
            // A second write into the same folder is refused.
            assert!(t.write(&out).unwrap_err().contains("not empty"));
        }
        assert_eq!(Template::find("失眠").unwrap().id, "insomnia");
        let err = Template::find("焦滤").err().unwrap();
        assert!(err.contains("did you mean `焦虑`?"), "{err}");
    }
}
