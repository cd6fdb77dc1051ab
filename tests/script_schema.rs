//! The generated JSON Schema as an editor uses it: the copies shipped beside
//! the samples are current, every sample document passes, and the mistakes an
//! editor can see (unknown keys, wrong types, unknown values, missing names,
//! two kinds in one action, a key its kind does not take) are refused.

use std::path::Path;

use heartvale::script::load::split_documents;
use heartvale::script::schema::{json_schema, json_schema_text};

const SAMPLES: [&str; 2] = [
    "scenarios/heartvale/scripts/hello",
    "scenarios/heartvale/scripts/guardian",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each YAML document of each file in `dir`, as JSON, with its file and first line.
fn documents(dir: &str) -> Vec<(String, u64, serde_json::Value)> {
    let mut files: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (line, doc) in split_documents(&text) {
            let value: serde_json::Value = serde_saphyr::from_str(&doc).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            out.push((name, line, value));
        }
    }
    out
}

/// Where the schema refuses a document: the instance paths.
fn refusals(doc: &serde_json::Value) -> Vec<String> {
    let validator = jsonschema::draft7::new(&json_schema()).unwrap();
    let mut paths: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| e.instance_path().to_string())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[test]
fn the_shipped_schema_files_are_current() {
    for dir in SAMPLES {
        let shipped =
            std::fs::read_to_string(root().join(dir).join("yaml_schema.json")).unwrap_or_default();
        assert!(
            shipped == json_schema_text(),
            "{dir}/yaml_schema.json is stale: run `heartvale script schema > {dir}/yaml_schema.json`"
        );
    }
}

#[test]
fn every_sample_document_passes() {
    for dir in SAMPLES {
        for (file, line, doc) in documents(dir) {
            assert_eq!(
                refusals(&doc),
                Vec::<String>::new(),
                "{dir}/{file} from line {line}"
            );
        }
    }
}

#[test]
fn each_schema_level_mistake_is_refused_where_it_is() {
    let got: Vec<Vec<String>> = documents("tests/scripts/broken-keys")
        .iter()
        .map(|(_, _, d)| refusals(d))
        .collect();
    let action = "/sessions/0/stages/0/steps/0/actions/0";
    assert_eq!(
        got,
        [
            vec![action.to_string()],
            vec![format!("{action}/max_rounds")],
            vec!["/skills/0/actions/0/timing".to_string()],
            vec!["/roles/0/type".to_string()],
            vec!["/sessions/0/stages/0/steps/0".to_string()],
            vec![String::new()],
        ]
    );
    // The checker's corpus: two kinds in one action, `tone` on a `say`,
    // max_rounds 12; its other mistakes need the whole set to be seen.
    let session = documents("tests/scripts/broken")
        .into_iter()
        .find(|(f, _, _)| f == "session.yaml")
        .unwrap()
        .2;
    let steps = "/sessions/0/stages/0/steps/0/actions";
    assert_eq!(
        refusals(&session),
        [
            format!("{steps}/5"),
            format!("{steps}/6"),
            format!("{steps}/7/max_rounds"),
        ]
    );
}
