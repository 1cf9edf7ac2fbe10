//! The facts of a matched pair (or of a changed item) as the JSON the rules read: both sides,
//! a relation object per list fact, the job's configuration (`config`), and the facts of the
//! pair as a whole, side by side at the top level.

use super::job::ConfigFacts;
use serde::Serialize;
use serde_json::{Map, Value};

/// The old side's facts in a pair's facts (`old.*`).
pub const OLD: &str = "old";
/// The new side's facts in a pair's facts (`new.*`).
pub const NEW: &str = "new";
/// The job's configuration beside a pair's or an item's facts (`config.*`).
pub const CONFIG: &str = "config";

/// The facts of one side of a pair.
pub type Side<'a> = Option<&'a Map<String, Value>>;

/// The facts of each side of a pair, as objects (`None` for a side that is not one).
pub fn sides(facts: &Value) -> (Side<'_>, Side<'_>) {
    let side = |name: &str| facts.get(name).and_then(Value::as_object);
    (side(OLD), side(NEW))
}

/// Whether the two sides' facts differ.
pub fn sides_differ(facts: &Value) -> bool {
    facts.get(OLD) != facts.get(NEW)
}

/// The path a rule reads a configuration fact by (`config.changed_keys`).
pub fn config_path(fact: super::FactName) -> String {
    format!("{CONFIG}.{}", fact.name())
}

/// The top level of a pair's facts (its fields are [`OLD`], [`NEW`] and [`CONFIG`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sides_and_the_configuration_are_where_the_names_say() {
        let old = Map::from_iter([("a".to_string(), Value::from(1))]);
        let new = Map::new();
        let facts = pair_value(&old, &new, &Map::new(), &ConfigFacts::default(), &());
        let (o, n) = sides(&facts);
        assert_eq!(o, Some(&old));
        assert_eq!(n, Some(&new));
        assert!(sides_differ(&facts));
        assert!(facts.get(CONFIG).is_some_and(Value::is_object));
        assert_eq!(
            config_path(ConfigFacts::changed_keys),
            "config.changed_keys"
        );
    }
}
