//! The JSON Schema a plan must match, built from the town: `target_location` is
//! an enum of the place ids, `duration` a bounded integer. Servers with
//! grammar-constrained decoding (llama.cpp, vLLM, Ollama, OpenAI) then cannot
//! produce an unknown place or an absurd duration.

use serde_json::{Value, json};

use crate::scenario::{Town, Tuning};

pub(crate) const PLAN_SCHEMA_NAME: &str = "heartvale_plan";

pub(crate) fn plan_schema(town: &Town, tuning: &Tuning) -> Value {
    let ids: Vec<&str> = town.indices().map(|l| town.id(l).as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "action": { "type": "string", "description": "English verb phrase, e.g. \"Eat lunch\", \"Sleep\", \"Post Notice\"" },
            "target_location": { "type": "string", "enum": ids },
            "dialogue": { "type": "string", "description": "one line in Chinese" },
            "emoji": { "type": "string" },
            "activity": {
                "type": "string",
                "enum": ["sleep", "work", "eat", "socialise", "attend", "leisure", "post_notice", "idle"],
                "description": "what kind of action: work for a shift whatever its words"
            },
            "duration": {
                "type": "integer",
                "minimum": tuning.durations.min,
                "maximum": tuning.durations.max
            }
        },
        "required": ["action", "target_location", "dialogue", "emoji", "duration", "activity"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless::default_scenario;

    #[test]
    fn schema_lists_every_place_and_bounds_duration() {
        let s = default_scenario();
        let v = plan_schema(&s.town, &s.tuning);
        let ids = v["properties"]["target_location"]["enum"]
            .as_array()
            .unwrap();
        assert_eq!(ids.len(), s.town.len());
        assert!(ids.iter().any(|i| i == "tavern"));
        assert_eq!(
            v["properties"]["duration"]["maximum"],
            s.tuning.durations.max
        );
    }
}
