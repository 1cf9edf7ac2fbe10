//! Message templates: text with `{path}` placeholders filled from facts.

use serde_json::Value;

use super::{json, parser, DslError, FactSchema, Span};

/// A checked message template such as
/// `"added {aggregates.added} to the window on {new.window.time_attr}"`.
/// `{{` and `}}` stand for literal braces.
#[derive(Debug, Clone)]
pub struct Template {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    Fact(String),
}

impl Template {
    /// Parses `src` and checks every placeholder's path against `schema`.
    pub fn compile(src: &str, schema: &FactSchema) -> Result<Template, DslError> {
        parser::check_length(src, "template")?;
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut position = 0;
        while let Some(offset) = src[position..].find(['{', '}']) {
            let brace_at = position + offset;
            text.push_str(&src[position..brace_at]);
            let after_brace = brace_at + 1;
            let brace = &src[brace_at..after_brace];
            if src[after_brace..].starts_with(brace) {
                text.push_str(brace);
                position = after_brace + 1;
                continue;
            }
            if brace == "}" {
                return Err(
                    DslError::new(Span::new(brace_at, after_brace), "unmatched `}`")
                        .with_help("write `}}` for a literal brace"),
                );
            }
            let close_at = src[after_brace..]
                .find(['{', '}'])
                .map(|offset| after_brace + offset)
                .filter(|&at| src[at..].starts_with('}'))
                .ok_or_else(|| {
                    DslError::new(Span::new(brace_at, after_brace), "unclosed `{`").with_help(
                        "close the placeholder with `}`, or write `{{` for a literal brace",
                    )
                })?;
            let path = parser::parse_lone_path(&src[after_brace..close_at], after_brace)?;
            schema.check_path(&path, Span::new(brace_at, close_at + 1))?;
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            parts.push(Part::Fact(path));
            position = close_at + 1;
        }
        text.push_str(&src[position..]);
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Template {
            source: src.to_owned(),
            parts,
        })
    }

    /// Fills the placeholders: strings as they are, integral numbers without
    /// `.0`, `null`, an absent fact or an empty list as `none`, lists as their
    /// items joined by `, ` (nested lists and objects inside them as JSON),
    /// objects as compact JSON.
    pub fn render(&self, facts: &Value) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Fact(path) => match json::lookup(facts, path) {
                    Some(Value::Array(items)) if items.is_empty() => out.push_str("none"),
                    Some(Value::Array(items)) => {
                        let rendered: Vec<String> = items.iter().map(render_value).collect();
                        out.push_str(&rendered.join(", "));
                    }
                    Some(value) => out.push_str(&render_value(value)),
                    None => out.push_str("none"),
                },
            }
        }
        out
    }

    /// Every path the template reads, without duplicates, in order of first appearance.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = Vec::new();
        for part in &self.parts {
            if let Part::Fact(path) = part {
                if !paths.contains(path) {
                    paths.push(path.clone());
                }
            }
        }
        paths
    }

    pub fn source(&self) -> &str {
        &self.source
    }
}

/// A value as text; lists and objects (which reach here inside a list, or as
/// the value of a placeholder naming an object) are compact JSON.
fn render_value(value: &Value) -> String {
    match value {
        Value::Null => "none".to_owned(),
        Value::Bool(value) => value.to_string(),
        Value::String(text) => text.clone(),
        Value::Number(number) => match number.as_f64() {
            // f64's Display drops the fraction of integral values (3.0 -> "3").
            Some(float) if number.is_f64() => float.to_string(),
            _ => number.to_string(),
        },
        Value::Array(_) | Value::Object(_) => value.to_string(),
    }
}
