//! Semantic checks across the scenario files, and resolution of ids to indices.
//!
//! - `tuning`: the numbers in range;
//! - `locations`: ids, positions, connections → the [`Town`](crate::scenario::Town);
//! - `residents`: each resident's places, work, ties, hobbies, goals, rhythm;
//! - `scripts`: the HEART RULE sets residents run (`counsel:`, `converse:`).

mod locations;
mod residents;
mod scripts;
mod tuning;

use std::path::Path;

use serde_saphyr::Spanned;

pub(crate) use residents::derived_schedule;

use super::spec::{self, Weekday};
use super::{Diagnostic, Diagnostics, Scenario};
use crate::base::closest;
use crate::base::time::{GameTime, parse_clock};
use locations::resolve_locations;
use residents::resolve_residents;
use tuning::check_tuning;

/// The parsed files of a scenario folder.
pub(super) struct Files<'a> {
    pub(super) dir: &'a Path,
    pub(super) town: spec::TownFile,
    pub(super) locations: spec::LocationsFile,
    pub(super) residents: spec::ResidentsFile,
    pub(super) tuning: spec::Tuning,
}

/// Where diagnostics go, and the files they name.
/// What is wrong with `t`, one `field: problem` each: a save's stored
/// tuning is untrusted and checked as `tuning.yaml` is.
pub(crate) fn tuning_problems(t: &spec::Tuning) -> Vec<String> {
    let mut diags = Diagnostics::default();
    let mut cx = Ctx {
        diags: &mut diags,
        town_file: Default::default(),
        loc_file: Default::default(),
        res_file: Default::default(),
        tuning_file: "tuning".into(),
    };
    check_tuning(&mut cx, t);
    diags
        .iter()
        .map(|d| format!("{}: {}", d.field, d.message))
        .collect()
}

struct Ctx<'a> {
    diags: &'a mut Diagnostics,
    town_file: std::path::PathBuf,
    loc_file: std::path::PathBuf,
    res_file: std::path::PathBuf,
    tuning_file: std::path::PathBuf,
}

impl Ctx<'_> {
    fn err<T>(
        &mut self,
        file: &Path,
        span: &Spanned<T>,
        field: String,
        msg: String,
        hint: Option<String>,
    ) {
        let mut d = Diagnostic::at(file, span, &field, msg);
        d.hint = hint;
        self.diags.push(d);
    }
}

/// Checks the files against each other and resolves them into a scenario.
pub(super) fn resolve(files: Files<'_>, diags: &mut Diagnostics) -> Option<Scenario> {
    let mut cx = Ctx {
        diags,
        town_file: files.dir.join("town.yaml"),
        loc_file: files.dir.join("locations.yaml"),
        res_file: files.dir.join("residents.yaml"),
        tuning_file: files.dir.join("tuning.yaml"),
    };
    let tf = &files.town;
    let start = GameTime::parse(&tf.start.value);
    if start.is_none() {
        let f = cx.town_file.clone();
        cx.err(
            &f,
            &tf.start,
            "start".into(),
            format!("bad start time `{}`", tf.start.value),
            Some("write it as \"YYYY-MM-DD HH:MM\", e.g. \"2026-04-06 06:00\"".into()),
        );
    }
    check_town(&mut cx, tf);
    check_tuning(&mut cx, &files.tuning);

    let town = resolve_locations(&mut cx, &files.locations, tf)?;
    let (residents, gatherings) = resolve_residents(
        &mut cx,
        &files.residents,
        &town,
        start.unwrap_or_default(),
        tf.days,
    )?;
    Some(Scenario {
        dir: files.dir.to_path_buf(),
        name: tf.name.clone(),
        description: tf.description.clone(),
        start: start?,
        days: tf.days,
        minutes_per_second: tf.minutes_per_second,
        map: tf.map,
        seed: tf.seed.unwrap_or(42),
        town,
        residents,
        gatherings,
        tuning: files.tuning,
        llm: tf.llm.clone(),
        dialogue: super::PhraseBank::shared_builtin(),
        chat: crate::companion::ChatBank::shared_builtin(),
    })
}

/// town.yaml's own numbers and its `llm:` key variable.
fn check_town(cx: &mut Ctx<'_>, tf: &spec::TownFile) {
    if tf.days == 0 {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            "`days` must be at least 1",
            None,
        ));
    }
    if !positive(tf.minutes_per_second) {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            "`minutes_per_second` must be positive",
            None,
        ));
    }
    let map = &tf.map;
    if !(positive(map.width) && positive(map.height)) {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            &format!(
                "`map` must be two positive sizes, not {} × {}",
                map.width, map.height
            ),
            Some("e.g. map: { width: 1600, height: 1000 }"),
        ));
    }
    if let Some(name) = tf.llm.as_ref().and_then(|l| l.api_key_env.as_deref())
        && !super::spec::key_name_allowed(name)
    {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            &format!(
                "`llm.api_key_env`: `{}` is not an API key's name",
                crate::base::shortened(name, 60)
            ),
            Some(&super::spec::key_name_hint()),
        ));
    }
    check_llm_urls(cx, tf);
}

/// The town's `llm.base_url`: every member a URL, weights in range.
fn check_llm_urls(cx: &mut Ctx<'_>, tf: &spec::TownFile) {
    if let Some(urls) = tf.llm.as_ref().and_then(|l| l.base_url.as_ref())
        && let Err(e) = urls.members()
    {
        cx.diags.push(Diagnostic::file(
            &cx.town_file,
            &format!("`llm.base_url`: {e}"),
            Some("e.g. base_url: [http://127.0.0.1:8089/v1, \"http://10.0.0.2:8089/v1#weight=2\"]"),
        ));
    }
}

/// A size, speed or rate the model needs: finite and above zero (NaN fails).
pub(super) fn positive(v: f32) -> bool {
    v > 0.0 && v.is_finite()
}

/// Checks the map alone (used when residents.yaml could not be read).
pub(super) fn check_map(
    dir: &Path,
    town: &spec::TownFile,
    locations: &spec::LocationsFile,
    diags: &mut Diagnostics,
) {
    let mut cx = Ctx {
        diags,
        town_file: dir.join("town.yaml"),
        loc_file: dir.join("locations.yaml"),
        res_file: dir.join("residents.yaml"),
        tuning_file: dir.join("tuning.yaml"),
    };
    let _ = resolve_locations(&mut cx, locations, town);
}

/// "did you mean" for an unknown id, or the ids there are.
fn unknown_hint<'a>(
    word: &str,
    ids: impl IntoIterator<Item = &'a str> + Clone,
    file: &str,
) -> String {
    match closest(word, ids.clone()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => {
            let all: Vec<&str> = ids.into_iter().take(12).collect();
            format!("ids defined in {file}: {}", all.join(", "))
        }
    }
}

/// A time of day (`HH:MM`), or an error at it.
fn clock(cx: &mut Ctx<'_>, file: &Path, s: &Spanned<String>, field: String) -> Option<u32> {
    let v = parse_clock(&s.value);
    if v.is_none() {
        cx.err(
            file,
            s,
            field,
            format!("bad time of day `{}`", s.value),
            Some("write it as \"HH:MM\", e.g. \"08:30\"".into()),
        );
    }
    v
}

/// `HH:MM-HH:MM` work hours.
fn parse_hours(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('-')?;
    let (a, b) = (parse_clock(a)?, parse_clock(b)?);
    (a < b).then_some((a, b))
}

fn weekday_index(d: Weekday) -> usize {
    match d {
        Weekday::Mon => 0,
        Weekday::Tue => 1,
        Weekday::Wed => 2,
        Weekday::Thu => 3,
        Weekday::Fri => 4,
        Weekday::Sat => 5,
        Weekday::Sun => 6,
    }
}
