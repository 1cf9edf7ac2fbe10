//! The facts of a matched pair (or of a changed item) as the JSON the rules read: both sides,
//! a relation object per list fact, the job's configuration (`config`), and the facts of the
//! pair as a whole, side by side at the top level.

use super::job::ConfigFacts;
use serde::Serialize;
use serde_json::{Map, Value};

/// The top level of a pair's facts.
#[derive(Serialize)]
struct Pair<'a, W: Serialize> {
    old: &'a Map<String, Value>,
    new: &'a Map<String, Value>,
    config: &'a ConfigFacts,
    /// One relation object per list fact of the sides (`keys.added`, ...).
    #[serde(flatten)]
    relations: &'a Map<String, Value>,
    /// The facts of the pair as a whole (`QueryPairFacts`, `SourcePairFacts`, or none).
    #[serde(flatten)]
    whole: &'a W,
}

/// The facts of a pair as the rules read them.
pub fn pair_value<W: Serialize>(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    relations: &Map<String, Value>,
    config: &ConfigFacts,
    whole: &W,
) -> Value {
    let pair = Pair {
        old,
        new,
        config,
        relations,
        whole,
    };
    serde_json::to_value(pair).unwrap_or(Value::Null)
}

/// A changed item's facts (`ConfigKeyItem`, `TableOptionItem`) with the job's beside them.
#[derive(Serialize)]
struct WithConfig<'a, T: Serialize> {
    #[serde(flatten)]
    item: &'a T,
    config: &'a ConfigFacts,
}

/// An item's facts as the rules read them: its own, and the job's beside them (`config.*`).
pub fn item_value<T: Serialize>(item: &T, config: &ConfigFacts) -> Value {
    serde_json::to_value(WithConfig { item, config }).unwrap_or(Value::Null)
}
