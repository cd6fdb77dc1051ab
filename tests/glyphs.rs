//! Every character the window can print is in a font it draws with: the map
//! (names, places, bubbles) and the panels draw with the CJK font in
//! `assets/fonts/`, the panels fall back to egui's own fonts (emoji among
//! them); a character in none of them shows as a box (「好感：20 □ 21」).
//! The text comes from the string literals of the window, the feed's
//! narration and the date events, and from the scenario's YAML (names,
//! places, lines, scenes, bulletins).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skrifa::{FontRef, MetadataProvider};

fn covered_by(bytes: &[u8]) -> impl Fn(char) -> bool + '_ {
    let font = FontRef::new(bytes).expect("a font");
    move |c| font.charmap().map(c).is_some()
}

/// The text inside double quotes on lines that are not comments, up to the
/// unit tests.
fn literals(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().take_while(|l| !l.starts_with("#[cfg(test)]")) {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with("#[") || code.starts_with("assert") {
            continue;
        }
        let mut inside = false;
        let mut escaped = false;
        for c in code.chars() {
            match c {
                '\\' if inside && !escaped => escaped = true,
                '"' if !escaped => inside = !inside,
                _ if inside => {
                    out.push(c);
                    escaped = false;
                }
                _ => escaped = false,
            }
        }
    }
    out
}

/// A YAML file's text without its comments.
fn yaml_text(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.split(" #").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// Joiners and selectors shape emoji; they have no glyph of their own.
fn invisible(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200d}' | '\u{fe0f}' | '\u{fe0e}')
}

/// An emoji the window draws as a picture (`assets/emoji/`), not a glyph.
fn has_icon(root: &Path, c: char) -> bool {
    root.join(format!("assets/emoji/{:x}.png", c as u32))
        .is_file()
}

#[test]
fn every_character_the_window_prints_is_in_a_font() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cjk = std::fs::read(root.join("assets/fonts/DroidSansFallbackFull.ttf")).unwrap();
    let fonts = [
        covered_by(&cjk),
        covered_by(epaint_default_fonts::UBUNTU_LIGHT),
        covered_by(epaint_default_fonts::NOTO_EMOJI_REGULAR),
        covered_by(epaint_default_fonts::EMOJI_ICON),
    ];
    let mut sources = Vec::new();
    files(&root.join("src/window"), "rs", &mut sources);
    for f in ["narrate.rs", "dates.rs", "words.rs"] {
        let p = root.join("src/sim/event_log").join(f);
        if p.exists() {
            sources.push(p);
        }
    }
    sources.push(root.join("src/sim/social/mod.rs"));
    let mut yaml = Vec::new();
    files(&root.join("scenarios/heartvale"), "yaml", &mut yaml);
    let mut missing: BTreeSet<(char, String)> = BTreeSet::new();
    let mut check = |text: &str, from: &Path| {
        for c in text.chars().filter(|&c| !invisible(c)) {
            if !fonts.iter().any(|f| f(c)) && !has_icon(root, c) {
                let name = from
                    .strip_prefix(root)
                    .unwrap_or(from)
                    .display()
                    .to_string();
                missing.insert((c, name));
            }
        }
    };
    for p in &sources {
        check(&literals(&std::fs::read_to_string(p).unwrap()), p);
    }
    for p in &yaml {
        check(&yaml_text(&std::fs::read_to_string(p).unwrap()), p);
    }
    assert!(sources.len() > 40 && yaml.len() > 5, "read the sources");
    assert!(
        missing.is_empty(),
        "characters no font draws (they show as □): {:?}",
        missing
            .iter()
            .map(|(c, f)| format!("{c} U+{:04X} in {f}", *c as u32))
            .collect::<Vec<_>>()
    );
}
