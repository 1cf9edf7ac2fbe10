//! JSON Schema checks shared by the tests of the documented formats.

use serde_json::Value;

/// The validator of a schema file of the repository.
pub fn validator(path: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(path).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

/// Fails, naming `what` and every violation with its place, unless `value` follows the schema.
pub fn assert_follows(validator: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} is invalid:\n{}",
        errors.join("\n")
    );
}
