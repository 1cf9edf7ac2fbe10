//! The typed facts: one Rust type per operator kind's facts (and per query, source pair, job
//! and changed item), declared once with the `facts!` macro. Each type serializes (serde) to
//! the JSON the rule DSL evaluates, and derives its own schema: the name, type and meaning
//! (the field's doc comment) of every fact, and the coverage group the fail-safe uses. The
//! DSL's type checker, `rules facts`, docs/facts.md and the fail-safe's coverage are built from
//! these schemas (`diff::schema`).

use crate::fact_schema::FactType;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// Declares a facts type: a struct whose fields are facts, each with a doc comment (its meaning
/// for rule authors), optionally `#[group = "name"]` (the coverage group: facts that are views
/// of one another), optionally `#[judged_by = "..."]` (the other pairs that judge a change of
/// the fact: this pair's fail-safe leaves it to them), and serde attributes.
/// `#[serde(flatten)]` splices another facts type's facts in, for serde and for the schema
/// alike.
macro_rules! facts {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[group = $group:literal])?
                $(#[judged_by = $judged:literal])?
                $(#[serde($($serde:tt)*)])*
                pub $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])*
                pub $field: $ty,
            )*
        }

        /// The names of its facts (a flattened field's are those of its type).
        #[allow(non_upper_case_globals)]
        impl $name {
            $( $crate::facts::fact_name! { $field; $($($serde)*)* } )*
        }

        impl $crate::facts::FactTyped for $name {
            fn fact_type() -> $crate::fact_schema::FactType {
                $crate::facts::object_of(&<Self as $crate::facts::FactTyped>::fields().unwrap_or_default())
            }

            fn fields() -> Option<Vec<$crate::facts::Fact>> {
                let mut out = Vec::new();
                $(
                    $crate::facts::Fact::add::<$ty>(
                        &mut out,
                        stringify!($field),
                        concat!($($doc),*),
                        None$(.or(Some($group)))?,
                        None$(.or(Some($judged)))?,
                        stringify!($($($serde)*)*),
                    );
                )*
                Some(out)
            }
        }
    };
}

/// The name constant of one field of a facts type; none for a flattened field.
macro_rules! fact_name {
    ($field:ident; flatten) => {};
    ($field:ident; $($serde:tt)*) => {
        #[doc = concat!("The name of the fact `", stringify!($field), "`.")]
        pub const $field: $crate::facts::FactName =
            $crate::facts::FactName::of_field(stringify!($field));
    };
}
pub(crate) use fact_name;

/// The name of a fact, taken from its facts type (`WindowFacts::window`): a misspelt fact
/// name does not compile. The clause behind a fact is recorded under it
/// ([`crate::plan::Operator::fact_spans`]); a path a rule reads finds it by its text.
#[derive(Debug, Clone, Copy)]
pub struct FactName(&'static str);

impl FactName {
    /// The name of the fact a field holds: the field's name without `r#` (`async`, not
    /// `r#async`), trimmed once, when the constant is made (names are compared often).
    pub const fn of_field(field: &'static str) -> FactName {
        match field.as_bytes() {
            [b'r', b'#', ..] => match field.split_at_checked(2) {
                Some((_, name)) => FactName(name),
                None => FactName(field),
            },
            _ => FactName(field),
        }
    }

    /// The fact's name as the rules read it.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl PartialEq for FactName {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for FactName {}

impl PartialOrd for FactName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FactName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

/// A rule's path names a fact by text: the span lookup finds it by its name.
impl std::borrow::Borrow<str> for FactName {
    fn borrow(&self) -> &str {
        self.name()
    }
}

impl std::fmt::Display for FactName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

pub mod aggregate;
pub mod job;
pub mod join;
mod kind;
pub mod operators;
pub mod pair;
pub mod ranking;

pub use kind::OperatorKind;
pub use operators::operator_facts;

/// One fact of a facts type: its name, type, meaning and coverage group.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub name: &'static str,
    pub fact_type: FactType,
    pub doc: &'static str,
    /// Facts of one group are views of one another: a rule that reads one explains a change in
    /// the others. None: the fact is its own group.
    pub group: Option<&'static str>,
    /// The pairs that judge a change of the fact (e.g. a query's `sources`: the source table
    /// pairs): the fail-safe of this pair does not count it. None: this pair judges it.
    pub judged_by: Option<&'static str>,
}

impl Fact {
    /// Adds the field `name` of type `T` (all of `T`'s facts when the field is flattened).
    pub fn add<T: FactTyped>(
        out: &mut Vec<Fact>,
        name: &'static str,
        doc: &'static str,
        group: Option<&'static str>,
        judged_by: Option<&'static str>,
        serde: &'static str,
    ) {
        if serde.contains("flatten") {
            out.extend(T::fields().unwrap_or_default());
            return;
        }
        out.push(Fact {
            name: name.trim_start_matches("r#"),
            fact_type: T::fact_type(),
            doc: doc.trim(),
            group,
            judged_by,
        });
    }

    /// The fact's name, as the key of what is recorded about it.
    pub fn key(&self) -> FactName {
        FactName(self.name)
    }

    /// The fact as the hand-written tables had it: name, type, meaning.
    pub fn row(&self) -> (&'static str, FactType, &'static str) {
        (self.name, self.fact_type.clone(), self.doc)
    }
}

/// The DSL type of a Rust fact type.
pub trait FactTyped {
    fn fact_type() -> FactType;
    /// The facts of a facts type (declared with `facts!`); None for a plain value.
    fn fields() -> Option<Vec<Fact>> {
        None
    }
}

pub fn object_of(facts: &[Fact]) -> FactType {
    FactType::Object(
        facts
            .iter()
            .map(|f| (f.name.to_string(), f.fact_type.clone()))
            .collect(),
    )
}

/// The facts of a facts type, in declaration order.
pub fn facts_of<T: FactTyped>() -> Vec<Fact> {
    T::fields().unwrap_or_default()
}

macro_rules! fact_type {
    ($fact:expr => $($t:ty),*) => {
        $(impl FactTyped for $t {
            fn fact_type() -> FactType {
                $fact
            }
        })*
    };
}

fact_type!(FactType::String => String);
fact_type!(FactType::Bool => bool);
fact_type!(FactType::Number => i64, u64, usize, i128, f64);
fact_type!(FactType::Any => Value);

impl<T: FactTyped> FactTyped for Vec<T> {
    fn fact_type() -> FactType {
        FactType::List(Box::new(T::fact_type()))
    }
}

/// An optional fact: `null` when absent (or left out with `skip_serializing_if`).
impl<T: FactTyped> FactTyped for Option<T> {
    fn fact_type() -> FactType {
        T::fact_type()
    }
}

/// Whether these facts include every fact of the facts type `T` (e.g. a kind's facts have
/// the `Aggregates`).
pub fn has<T: FactTyped>(facts: &[Fact]) -> bool {
    facts_of::<T>().iter().all(|f| facts.contains(f))
}

/// A facts value as the JSON object the rules read (the generated layer).
pub fn to_map<T: Serialize>(facts: &T) -> Map<String, Value> {
    match serde_json::to_value(facts) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Facts that do not read back as their type: a fact written with another type than the one
/// read declares (a bug in the tool, never in the user's script).
#[derive(Debug, Clone, PartialEq)]
pub struct FactError(pub String);

impl std::fmt::Display for FactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A facts value read back from the JSON object (facts it does not declare ignored, facts
/// missing from the object at their default).
pub fn from_map<T: DeserializeOwned + Default>(map: &Map<String, Value>) -> Result<T, FactError> {
    // Read from the borrowed object: only the facts `T` declares are copied.
    T::deserialize(map).map_err(|e| FactError(e.to_string()))
}

facts! {
    /// The filter terms beneath an operator.
    pub struct Filters {
        /// filter terms applied upstream of the operator (WHERE), canonical
        pub filters: Vec<String>,
    }
}
