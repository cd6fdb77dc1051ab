//! The tuning sliders: which values of `tuning.yaml` they turn, applying them
//! to the running town at once, and writing them back into the file in place
//! (comments and layout kept; a full rewrite only when a key is missing).

use std::path::{Path, PathBuf};

use crate::scenario::Tuning;

/// One slider: its label, the key path in `tuning.yaml`, its range, and
/// whether the value is a whole number.
pub(crate) struct Slider {
    pub(crate) label: &'static str,
    pub(crate) path: &'static [&'static str],
    pub(crate) range: std::ops::RangeInclusive<f64>,
    pub(crate) whole: bool,
    pub(crate) get: fn(&Tuning) -> f64,
    pub(crate) set: fn(&mut Tuning, f64),
}

macro_rules! slider {
    ($label:expr, [$($key:literal),+], $range:expr, $whole:expr, $($field:ident).+) => {
        Slider {
            label: $label,
            path: &[$($key),+],
            range: $range,
            whole: $whole,
            get: |t| t.$($field).+ as f64,
            set: |t, v| t.$($field).+ = if $whole { v.round() as _ } else { v as _ },
        }
    };
}

/// The sliders, in panel order: need decay and restore rates, walking, when
/// conversations start, and the built-in planner's main weights.
pub(crate) const SLIDERS: &[Slider] = &[
    slider!(
        "精力衰减 /分钟",
        ["needs", "decay", "energy"],
        0.0..=1.0,
        false,
        needs.decay.energy
    ),
    slider!(
        "饥饿衰减 /分钟",
        ["needs", "decay", "hunger"],
        0.0..=1.0,
        false,
        needs.decay.hunger
    ),
    slider!(
        "社交衰减 /分钟",
        ["needs", "decay", "social"],
        0.0..=1.0,
        false,
        needs.decay.social
    ),
    slider!(
        "娱乐衰减 /分钟",
        ["needs", "decay", "fun"],
        0.0..=1.0,
        false,
        needs.decay.fun
    ),
    slider!(
        "睡眠恢复 /分钟",
        ["needs", "sleep_restore"],
        0.0..=2.0,
        false,
        needs.sleep_restore
    ),
    slider!(
        "进食恢复 /分钟",
        ["needs", "eat_restore"],
        0.0..=5.0,
        false,
        needs.eat_restore
    ),
    slider!("步行速度", ["walk_speed"], 5.0..=300.0, false, walk_speed),
    slider!(
        "搭话概率（每步）",
        ["social", "proximity", "base_probability"],
        0.0..=1.0,
        false,
        social.proximity.base_probability
    ),
    slider!(
        "搭话距离",
        ["social", "proximity", "distance"],
        5.0..=300.0,
        false,
        social.proximity.distance
    ),
    slider!(
        "同一对冷却（分钟）",
        ["social", "cooldown_minutes"],
        0.0..=600.0,
        true,
        social.cooldown_minutes
    ),
    slider!(
        "聊后休息（分钟）",
        ["social", "pause_minutes"],
        0.0..=240.0,
        true,
        social.pause_minutes
    ),
    slider!(
        "主动找人阈值",
        ["social", "approach_need"],
        0.0..=100.0,
        false,
        social.approach_need
    ),
    slider!(
        "计划：随机性",
        ["planner", "noise"],
        0.0..=30.0,
        false,
        planner.noise
    ),
    slider!(
        "计划：饥饿权重",
        ["planner", "hunger"],
        0.0..=5.0,
        false,
        planner.hunger
    ),
    slider!(
        "计划：孤独权重",
        ["planner", "loneliness"],
        0.0..=2.0,
        false,
        planner.loneliness
    ),
    slider!(
        "计划：无聊权重",
        ["planner", "boredom"],
        0.0..=3.0,
        false,
        planner.boredom
    ),
    slider!(
        "计划：上班分",
        ["planner", "work"],
        0.0..=300.0,
        false,
        planner.work
    ),
    slider!(
        "计划：人气上限（人）",
        ["planner", "crowd"],
        0.0..=50.0,
        false,
        planner.crowd
    ),
    slider!(
        "计划：去找人的步行代价",
        ["planner", "walk_to_company"],
        0.0..=2.0,
        false,
        planner.walk_to_company
    ),
];

/// Formats a slider value as it goes into YAML.
fn yaml_number(v: f64, whole: bool) -> String {
    if whole {
        format!("{}", v.round() as i64)
    } else {
        // Enough digits for the sliders, no float noise (0.1 + 0.2 …).
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s.is_empty() || s == "-" {
            "0".into()
        } else {
            s.to_string()
        }
    }
}

/// Replaces the scalar at `path` in YAML `text` (block mappings, and a flow
/// mapping `{ a: 1, b: 2 }` as the last level), keeping everything else.
/// `None` when the key is not written in the file.
pub(crate) fn set_scalar(text: &str, path: &[&str], value: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut start = 0;
    let mut parent_indent: isize = -1;
    for (depth, key) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let mut block_indent = None;
        let mut found = None;
        for (i, line) in lines.iter().enumerate().skip(start) {
            let t = line.trim_start();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let indent = line.len() - t.len();
            if indent as isize <= parent_indent {
                break;
            }
            if indent != *block_indent.get_or_insert(indent) {
                continue;
            }
            if t.strip_prefix(key)
                .is_some_and(|rest| rest.starts_with(':'))
            {
                found = Some((i, indent));
                break;
            }
        }
        let (i, indent) = found?;
        let after_key = indent + key.len() + 1;
        let rest = lines[i][after_key..].to_string();
        if last {
            // `key: old   # comment` → `key: new   # comment`
            let lead = rest.len() - rest.trim_start().len();
            let body = &rest[lead..];
            let end = body.find(" #").unwrap_or(body.len());
            let old = body[..end].trim_end();
            if old.is_empty() || old.starts_with('{') || old.starts_with('[') {
                return None;
            }
            let tail = &body[old.len()..];
            let gap = if lead == 0 { " " } else { &rest[..lead] };
            lines[i] = format!("{}{gap}{value}{tail}", &lines[i][..after_key]);
            return Some(join(lines, text));
        }
        if rest.trim_start().starts_with('{') {
            // A flow mapping holds the last key.
            if depth + 2 != path.len() {
                return None;
            }
            let new = set_in_flow(&lines[i][after_key..], path[depth + 1], value)?;
            lines[i] = format!("{}{new}", &lines[i][..after_key]);
            return Some(join(lines, text));
        }
        start = i + 1;
        parent_indent = indent as isize;
    }
    None
}

/// `{ energy: 0.07, hunger: 0.13 }` with `hunger` set to `value`.
fn set_in_flow(flow: &str, key: &str, value: &str) -> Option<String> {
    let open = flow.find('{')?;
    let close = flow.rfind('}')?;
    let inner = &flow[open + 1..close];
    let mut out = Vec::new();
    let mut done = false;
    for entry in inner.split(',') {
        let (k, v) = entry.split_once(':')?;
        if k.trim() == key && !done {
            let lead = &v[..v.len() - v.trim_start().len()];
            let trail = &v[v.trim_end().len()..];
            out.push(format!(
                "{k}:{}{value}{trail}",
                if lead.is_empty() { " " } else { lead }
            ));
            done = true;
        } else {
            out.push(entry.to_string());
        }
    }
    done.then(|| {
        format!(
            "{}{{{}}}{}",
            &flow[..open],
            out.join(","),
            &flow[close + 1..]
        )
    })
}

fn join(lines: Vec<String>, original: &str) -> String {
    let mut s = lines.join("\n");
    if original.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// What writing back did.
#[derive(Debug, PartialEq)]
pub(crate) enum Written {
    /// The slider values were set in the text, comments kept.
    InPlace(PathBuf),
    /// A key was missing: the whole file was written anew.
    Rewritten(PathBuf),
}

/// Writes the sliders' values of `tuning` into `dir/tuning.yaml`: a new file
/// renamed into place (never a half-written one), the previous version kept
/// as `tuning.yaml.bak`.
pub(crate) fn write_back(dir: &Path, tuning: &Tuning) -> Result<Written, String> {
    let path = dir.join("tuning.yaml");
    let old = match crate::base::files::read_text(&path, crate::base::files::MAX_FILE) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut text = Some(old.clone());
    for s in SLIDERS {
        text = text.and_then(|t| set_scalar(&t, s.path, &yaml_number((s.get)(tuning), s.whole)));
    }
    // Trust the in-place edit only if it reads back as the values set.
    let in_place = text.filter(|t| {
        crate::base::parse_yaml::<Tuning>(t).is_ok_and(|parsed| {
            SLIDERS
                .iter()
                .all(|s| ((s.get)(&parsed) - (s.get)(tuning)).abs() < 1e-3)
        })
    });
    let write = |text: &str| {
        crate::base::files::replace_keeping_previous(&path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    match in_place {
        Some(t) => {
            write(&t)?;
            Ok(Written::InPlace(path))
        }
        None => {
            let yaml = serde_saphyr::to_string(tuning)
                .map_err(|e| format!("cannot write the tuning as YAML: {e}"))?;
            // The promise of an end line lets the next load tell this file
            // from one cut off on its way to the disk.
            let end = crate::scenario::end_line("tuning.yaml");
            let yaml = yaml.trim_end();
            write(&format!(
                "# Written by the window's tuning panel. Its last line is \"{end}\": a copy without it was cut off and is refused.\n{yaml}\n{end}\n"
            ))?;
            Ok(Written::Rewritten(path))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/heartvale/tuning.yaml"
        ))
        .unwrap()
    }

    #[test]
    fn scalars_are_set_in_place_keeping_comments() {
        let text = shipped();
        let t = set_scalar(&text, &["needs", "decay", "hunger"], "0.2").unwrap();
        assert!(
            t.contains("decay: { energy: 0.07, hunger: 0.2, social: 0.06, fun: 0.05 }"),
            "{t}"
        );
        let t = set_scalar(&t, &["social", "cooldown_minutes"], "45").unwrap();
        assert!(
            t.contains("  cooldown_minutes: 45    # before the same pair talks again"),
            "{t}"
        );
        let t = set_scalar(&t, &["social", "proximity", "base_probability"], "0.55").unwrap();
        assert!(t.contains("base_probability: 0.55 # per step"), "{t}");
        // `walk_speed` at the top, not `social.…` keys of the same name elsewhere.
        let t = set_scalar(&t, &["walk_speed"], "80").unwrap();
        assert!(
            t.contains("walk_speed: 80            # map units per game minute"),
            "{t}"
        );
        let parsed: Tuning = crate::base::parse_yaml(&t).unwrap();
        assert_eq!(parsed.needs.decay.hunger, 0.2);
        assert_eq!(parsed.social.cooldown_minutes, 45);
        assert_eq!(parsed.social.proximity.base_probability, 0.55);
        assert_eq!(parsed.walk_speed, 80.0);
        // Everything else is byte for byte the same.
        assert_eq!(t.lines().count(), text.lines().count());
        let changed = t.lines().zip(text.lines()).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 4);
        assert_eq!(set_scalar(&text, &["needs", "nope"], "1"), None);
        assert_eq!(
            set_scalar(&text, &["group", "distance"], "1"),
            None,
            "not top level"
        );
    }

    #[test]
    fn sliders_change_the_tuning_and_write_back_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tuning.yaml"), shipped()).unwrap();
        let mut tuning: Tuning = crate::base::parse_yaml(&shipped()).unwrap();
        for (i, s) in SLIDERS.iter().enumerate() {
            let v = s.range.start() + (s.range.end() - s.range.start()) * (0.1 + 0.05 * i as f64);
            (s.set)(&mut tuning, v);
            let want = if s.whole { v.round() } else { v };
            assert!(((s.get)(&tuning) - want).abs() < 1e-4, "{}", s.label);
        }
        assert!(matches!(
            write_back(dir.path(), &tuning),
            Ok(Written::InPlace(_))
        ));
        let text = std::fs::read_to_string(dir.path().join("tuning.yaml")).unwrap();
        assert!(text.contains("# Numbers designers turn."), "comments kept");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("tuning.yaml.bak")).unwrap(),
            shipped(),
            "the previous version kept"
        );
        let back: Tuning = crate::base::parse_yaml(&text).unwrap();
        for s in SLIDERS {
            assert!(
                ((s.get)(&back) - (s.get)(&tuning)).abs() < 1e-3,
                "{}",
                s.label
            );
        }
        // A file without the keys is written whole; the old one is kept.
        std::fs::write(dir.path().join("tuning.yaml"), "step_minutes: 1\n").unwrap();
        assert!(matches!(
            write_back(dir.path(), &tuning),
            Ok(Written::Rewritten(_))
        ));
        let written = std::fs::read_to_string(dir.path().join("tuning.yaml")).unwrap();
        let back: Tuning = crate::base::parse_yaml(&written).unwrap();
        assert_eq!(back, tuning);
        // It promises its end line and keeps the promise: a load tells a cut copy.
        assert!(
            written
                .lines()
                .next()
                .unwrap()
                .contains("\"# end of tuning.yaml\"")
        );
        assert!(written.ends_with("\n# end of tuning.yaml\n"), "{written}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("tuning.yaml.bak")).unwrap(),
            "step_minutes: 1\n"
        );
    }

    #[test]
    fn numbers_are_written_plainly() {
        assert_eq!(yaml_number(0.30000000000000004, false), "0.3");
        assert_eq!(yaml_number(60.0, false), "60");
        assert_eq!(yaml_number(44.6, true), "45");
        assert_eq!(yaml_number(0.0, false), "0");
    }
}
