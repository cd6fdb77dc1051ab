//! `script run|play --course FILE`: a player's course of sessions kept in a
//! JSON file between runs (the window keeps the player's courses in the town
//! save instead). The file is read as the session starts — a missing one is
//! a first session — and rewritten with the session's record once it ends
//! (written beside and renamed into place; the previous version is kept as
//! `FILE.bak`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::CliError;
use crate::base::files::{MAX_FILE, read_text, replace_keeping_previous};
use crate::script::engine::{Course, SessionRecord};

/// The file format's version: a newer file is refused, untouched.
const VERSION: u32 = 1;

/// The file as written.
#[derive(Serialize, Deserialize)]
struct CourseFile {
    /// The format's version.
    heartvale_course: u32,
    /// The sessions played, oldest first.
    #[serde(flatten)]
    course: Course,
}

/// The course in `path` (empty when there is no such file yet).
pub(super) fn read(path: &Path) -> Result<Course, CliError> {
    if !path.exists() {
        return Ok(Course::default());
    }
    let failed = |e: &dyn std::fmt::Display| {
        CliError::failed(format!("{}: not a course file: {e}", path.display()))
    };
    let text = read_text(path, MAX_FILE).map_err(|e| failed(&e))?;
    let file: CourseFile = serde_json::from_str(&text).map_err(|e| failed(&e))?;
    if file.heartvale_course > VERSION {
        return Err(failed(&format!(
            "written by a newer Heartvale (format {}, this one reads {VERSION})",
            file.heartvale_course
        )));
    }
    Ok(file.course)
}

/// Appends `record` to the course and writes it back to `path`.
pub(super) fn append(
    path: &Path,
    mut course: Course,
    record: SessionRecord,
) -> Result<usize, CliError> {
    course.sessions.push(record);
    let file = CourseFile {
        heartvale_course: VERSION,
        course,
    };
    let text = serde_json::to_string_pretty(&file).expect("a course is plain data");
    replace_keeping_previous(path, &format!("{text}\n"))
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    Ok(file.course.sessions.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(session: &str) -> SessionRecord {
        SessionRecord {
            session: session.into(),
            started: "2026-11-26 10:00:00 UTC".into(),
            ended: "2026-11-26 10:30:00 UTC".into(),
            summary: "聊了睡眠。".into(),
            forms: Default::default(),
            persisted: [(
                "心旅者名".to_string(),
                crate::script::engine::Var::Text("小林".into()),
            )]
            .into(),
        }
    }

    #[test]
    fn a_course_file_grows_by_one_session_each_run_and_keeps_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("小林.course.json");
        assert_eq!(read(&path).unwrap(), Course::default());
        assert_eq!(
            append(&path, read(&path).unwrap(), record("初次会谈")).unwrap(),
            1
        );
        assert_eq!(
            append(&path, read(&path).unwrap(), record("再次会谈")).unwrap(),
            2
        );
        let course = read(&path).unwrap();
        let names: Vec<&str> = course.sessions.iter().map(|s| s.session.as_str()).collect();
        assert_eq!(names, ["初次会谈", "再次会谈"]);
        let backup = crate::base::files::backup_path(&path);
        assert_eq!(read(&backup).unwrap().sessions.len(), 1);
    }

    #[test]
    fn a_file_that_is_not_a_course_or_is_newer_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, "{\"sessions\": 3}").unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("c.json: not a course file"), "{e}");
        std::fs::write(&path, "{\"heartvale_course\": 9, \"sessions\": []}").unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("newer Heartvale"), "{e}");
        assert!(std::fs::read_to_string(&path).unwrap().contains("9"));
    }
}
