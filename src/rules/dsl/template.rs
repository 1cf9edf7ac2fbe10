//! Message templates: text with `{path}` placeholders filled from facts.

use super::schema::CheckPath;
use crate::facts::aggregate::{Emit, Frame, TimeOrder, WindowTvf};
use crate::facts::{self, FactName};
use serde_json::Value;
use std::sync::OnceLock;

use super::{json, parser, DslError, FactSchema, Span};

/// A checked message template such as
/// `"added {aggregates.added} to the window on {new.window.time_attr}"`.
/// `{{` and `}}` stand for literal braces.
#[derive(Debug, Clone)]
pub struct Template {
    source: String,
    /// Filled when first rendered for a deferred template.
    parts: OnceLock<Vec<Part>>,
}

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    Fact(String),
}

impl Template {
    /// Parses `src` and checks every placeholder's path against `schema`.
    pub fn compile(src: &str, schema: &FactSchema) -> Result<Template, DslError> {
        Ok(Template {
            source: src.to_owned(),
            parts: OnceLock::from(parse(src, Some(schema))?),
        })
    }

    /// A built-in template, parsed when it is first rendered (see `Predicate::deferred`). One
    /// that does not parse (never a built-in one) renders as its own text.
    pub fn deferred(src: &str) -> Template {
        Template {
            source: src.to_owned(),
            parts: OnceLock::new(),
        }
    }

    fn parts(&self) -> &[Part] {
        self.parts.get_or_init(|| {
            parse(&self.source, None).unwrap_or_else(|_| vec![Part::Text(self.source.clone())])
        })
    }

    /// Fills the placeholders: strings as they are, integral numbers without
    /// `.0`, `null`, an absent fact or an empty list as `none`, lists as their
    /// items joined by `, ` (the first [`LIST_SHOWN`], then how many more; a list
    /// inside one in parentheses), objects as a
    /// Flink user writes them (windows, ORDER BY, frames, early/late fire; see
    /// [`render_value`]), never as JSON.
    pub fn render(&self, facts: &Value) -> String {
        let mut out = String::new();
        for part in self.parts() {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Fact(path) => match json::lookup(facts, path) {
                    Some(Value::Array(items)) if items.is_empty() => out.push_str("none"),
                    Some(Value::Array(items)) => {
                        let shown = &items[..items.len().min(LIST_SHOWN)];
                        let rendered: Vec<String> = shown.iter().map(render_value).collect();
                        out.push_str(&rendered.join(", "));
                        if items.len() > shown.len() {
                            out.push_str(&format!(" and {} more", items.len() - shown.len()));
                        }
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
        for part in self.parts() {
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

/// The items of a list a message shows, before `and N more`: a message stays one finding's
/// length however large the job (a deployment-wide list in the finding of each of its changed
/// queries would make the report grow with the square of the changes).
pub const LIST_SHOWN: usize = 20;

/// The parts of template `src`, every placeholder's path checked against `schema` when given.
fn parse(src: &str, schema: Option<&FactSchema>) -> Result<Vec<Part>, DslError> {
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
                DslError::new(Span::new(brace_at, after_brace), "unclosed `{`")
                    .with_help("close the placeholder with `}`, or write `{{` for a literal brace")
            })?;
        let path = parser::parse_lone_path(&src[after_brace..close_at], after_brace)?;
        if let Some(schema) = schema {
            schema.check_path(&path, Span::new(brace_at, close_at + 1))?;
        }
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
    Ok(parts)
}

/// A value as text, the way a Flink user writes it: a window as `TUMBLE 5 min on ts`, an
/// ORDER BY as `ts ASC`, an OVER frame as `RANGE 1 h PRECEDING`, early/late-fire settings in
/// words; another object as `key value` pairs, a list inside a list in parentheses. Never JSON.
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
        Value::Array(items) if items.is_empty() => "none".to_owned(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render_value).collect();
            format!("({})", items.join(", "))
        }
        Value::Object(map) => render_object(map),
    }
}

/// An object in words. A window, an ORDER BY, a frame and early/late-fire settings are
/// recognized by their facts (named by their facts types) and read back as those types.
fn render_object(map: &serde_json::Map<String, Value>) -> String {
    let has = |fact: FactName| map.contains_key(fact.name());
    if has(WindowTvf::kind) && has(WindowTvf::time_attribute) {
        if let Ok(window) = facts::from_map::<WindowTvf>(map) {
            return window_text(&window);
        }
    }
    if has(TimeOrder::key) && has(TimeOrder::direction) {
        if let Ok(order) = facts::from_map::<TimeOrder>(map) {
            return format!("{} {}", order.key, order.direction.to_uppercase());
        }
    }
    if has(Frame::units) && has(Frame::preceding) {
        if let Ok(frame) = facts::from_map::<Frame>(map) {
            let bound = match &frame.preceding {
                Value::String(s) => s.to_uppercase(),
                Value::Number(n) if frame.units.eq_ignore_ascii_case("range") => {
                    whole_ms(&frame.preceding).map_or_else(|| n.to_string(), duration)
                }
                other => render_value(other),
            };
            return format!("{} {bound} PRECEDING", frame.units.to_uppercase());
        }
    }
    if has(Emit::early_fire) && has(Emit::late_fire) {
        if let Ok(emit) = facts::from_map::<Emit>(map) {
            return emit_text(&emit);
        }
    }
    let pairs: Vec<String> = map
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| format!("{} {}", k.replace('_', " "), render_value(v)))
        .collect();
    if pairs.is_empty() {
        "none".to_owned()
    } else {
        pairs.join(", ")
    }
}

/// A whole, non-negative number of milliseconds (written `60000` or `60000.0`).
fn whole_ms(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..1e18).contains(f))
            .map(|f| f as u64)
    })
}

/// Milliseconds in the largest unit that divides them: `5 min`, `1 h`, `90 s`, `250 ms`.
fn duration(ms: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    UNITS
        .iter()
        .find(|(unit, _)| ms > 0 && ms.is_multiple_of(*unit))
        .map_or_else(
            || format!("{ms} ms"),
            |(unit, name)| format!("{} {name}", ms / unit),
        )
}

/// `TUMBLE 5 min on ts`, `HOP 10 min, slide 5 min on ts`, `SESSION gap 30 min on ts`,
/// `CUMULATE 1 h, step 10 min on ts`, with an offset and the keys of `PARTITION BY` if any.
/// A group window reads as a window TVF without step, offset and partition.
fn window_text(window: &WindowTvf) -> String {
    let ms = |value: Option<i128>| value.and_then(|v| u64::try_from(v).ok());
    let mut parts = vec![window.kind.to_uppercase()];
    let mut sizes = Vec::new();
    if let Some(gap) = ms(window.gap_ms) {
        sizes.push(format!("gap {}", duration(gap)));
    }
    if let Some(size) = ms(window.size_ms) {
        sizes.push(duration(size));
    }
    if let Some(slide) = ms(window.slide_ms) {
        sizes.push(format!("slide {}", duration(slide)));
    }
    if let Some(step) = ms(window.step_ms) {
        sizes.push(format!("step {}", duration(step)));
    }
    if let Some(offset) = ms(window.offset_ms).filter(|&o| o != 0) {
        sizes.push(format!("offset {}", duration(offset)));
    }
    if !sizes.is_empty() {
        parts.push(sizes.join(", "));
    }
    if !window.time_attribute.is_empty() {
        parts.push(format!("on {}", window.time_attribute));
    }
    if !window.partition.is_empty() {
        parts.push(format!("partitioned by {}", window.partition.join(", ")));
    }
    parts.join(" ")
}

/// Early/late-fire settings in words: `early fire every 1 min, late fire every 10 s, allowed
/// lateness 1 h`, or `no early or late fire`.
fn emit_text(emit: &Emit) -> String {
    let mut parts = Vec::new();
    for (on, delay, name) in [
        (emit.early_fire, &emit.early_fire_delay, "early fire"),
        (emit.late_fire, &emit.late_fire_delay, "late fire"),
    ] {
        if on {
            parts.push(match delay {
                Some(d) => format!("{name} every {d}"),
                None => name.to_owned(),
            });
        }
    }
    if let Some(lateness) = &emit.allow_lateness {
        parts.push(format!("allowed lateness {lateness}"));
    }
    if parts.is_empty() {
        "no early or late fire".to_owned()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod display_tests {
    use super::render_value;
    use serde_json::json;

    #[test]
    fn values_read_as_flink_sql_not_json() {
        let tumble = json!({"gap_ms": null, "kind": "tumble", "size_ms": 300000, "slide_ms": null,
            "time_attribute": "ts", "time_kind": "rowtime"});
        assert_eq!(render_value(&tumble), "TUMBLE 5 min on ts");
        let hop = json!({"kind": "hop", "size_ms": 3600000, "slide_ms": 90000,
            "time_attribute": "ts", "partition": ["k"], "offset_ms": 0});
        assert_eq!(
            render_value(&hop),
            "HOP 1 h, slide 90 s on ts partitioned by k"
        );
        let session = json!({"kind": "session", "gap_ms": 250, "time_attribute": "pt"});
        assert_eq!(render_value(&session), "SESSION gap 250 ms on pt");
        assert_eq!(
            render_value(&json!({"key": "ts", "direction": "desc", "time_kind": null})),
            "ts DESC"
        );
        assert_eq!(
            render_value(&json!({"units": "range", "preceding": 3600000})),
            "RANGE 1 h PRECEDING"
        );
        assert_eq!(
            render_value(&json!({"units": "rows", "preceding": "unbounded"})),
            "ROWS UNBOUNDED PRECEDING"
        );
        let emit = json!({"early_fire": true, "early_fire_delay": "1 min", "late_fire": false,
            "late_fire_delay": null, "allow_lateness": null});
        assert_eq!(render_value(&emit), "early fire every 1 min");
        assert_eq!(render_value(&json!([["a", "b"], []])), "((a, b), none)");
        assert_eq!(render_value(&json!({"a_b": 1, "c": null})), "a b 1");
    }
}
