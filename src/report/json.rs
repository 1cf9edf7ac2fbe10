//! The JSON report: exactly one object on stdout, `{"verdict": ..., ...}` or `{"error": ...}`.

use super::Report;
use crate::error::Error;

pub fn render(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        format!("{{\"error\": {{\"kind\": \"internal\", \"message\": \"{e}\"}}}}")
    })
}

pub fn render_error(error: &Error) -> String {
    let value =
        serde_json::json!({ "schema_version": super::SCHEMA_VERSION, "error": error.to_json() });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
