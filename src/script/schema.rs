//! The JSON Schema (draft-07) of script files, generated from the types in
//! `format.rs`, for editors: VS Code's YAML extension underlines unknown keys,
//! wrong types and misspelt timings as the writer types. The rules serde
//! cannot express (exactly one kind per action, the keys each kind takes) are
//! added from the same table the checker uses, so the two cannot drift.

use serde_json::{Value, json};

use super::format::{ActionKind, Document};

/// The schema as a JSON value.
pub fn json_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let mut schema = serde_json::to_value(generator.into_root_schema_for::<Document>())
        .expect("a schema is plain JSON");
    schema["title"] = json!("HEART RULE script file");
    if let Some(action) = schema.pointer_mut("/definitions/Action") {
        add_action_rules(action);
    }
    schema
}

/// The schema as written to `yaml_schema.json`.
pub fn json_schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema()).expect("plain JSON");
    s.push('\n');
    s
}

/// Exactly one kind key (`ai:` alone counts as a scene change), and each other
/// key only beside a kind that takes it.
fn add_action_rules(action: &mut Value) {
    // A kind key with nothing after it is no action at all: the loader reads
    // it as absent, so the editor should flag it.
    for k in ActionKind::ALL.iter().map(|k| k.key()).chain(["ai"]) {
        if let Some(p) = action.pointer_mut(&format!("/properties/{k}")) {
            p["type"] = json!("string");
        }
    }
    let mut one_of: Vec<Value> = ActionKind::ALL
        .iter()
        .map(|k| json!({ "required": [k.key()] }))
        .collect();
    one_of.push(json!({ "required": ["ai"], "not": { "required": ["scene"] } }));
    let mut extra: Vec<&str> = ActionKind::ALL
        .iter()
        .flat_map(|k| k.extra_keys().iter().copied())
        .collect();
    extra.sort_unstable();
    extra.dedup();
    let dependencies: serde_json::Map<String, Value> = extra
        .into_iter()
        // `ai` is a kind of its own when alone.
        .filter(|key| *key != "ai")
        .map(|key| {
            let kinds: Vec<Value> = ActionKind::ALL
                .iter()
                .filter(|k| k.extra_keys().contains(&key))
                .map(|k| json!({ "required": [k.key()] }))
                .collect();
            (key.to_string(), json!({ "anyOf": kinds }))
        })
        .collect();
    action["oneOf"] = Value::Array(one_of);
    action["dependencies"] = Value::Object(dependencies);
}
