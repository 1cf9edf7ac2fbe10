//! Any text as a rule predicate and as a message template, compiled against each operator's
//! fact schema and, when it compiles, evaluated on empty facts.
#![no_main]

use flink_compat::diff::schema;
use flink_compat::plan::OperatorKind;
use flink_compat::rules::dsl::{Predicate, Template};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let facts = serde_json::json!({});
    for kind in OperatorKind::ALL {
        let schema = schema::schema(&schema::operator_facts(kind));
        if let Ok(predicate) = Predicate::compile(text, &schema) {
            predicate.eval(&facts);
        }
        if let Ok(template) = Template::compile(text, &schema) {
            template.render(&facts);
        }
    }
});
