//! The shape of the facts: what the fact producers (`crate::diff`) declare and what the rules'
//! predicates and templates (`crate::rules::dsl`) may read. Both depend on this module.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// The static type of a fact or of an expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactType {
    Bool,
    Number,
    String,
    List(Box<FactType>),
    Object(BTreeMap<String, FactType>),
    /// Unknown shape: compatible with every type; any path below it is allowed.
    Any,
}

impl FactType {
    pub fn list(element: FactType) -> FactType {
        FactType::List(Box::new(element))
    }

    pub fn object<K: Into<String>>(fields: impl IntoIterator<Item = (K, FactType)>) -> FactType {
        FactType::Object(
            fields
                .into_iter()
                .map(|(name, ty)| (name.into(), ty))
                .collect(),
        )
    }
}

impl fmt::Display for FactType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FactType::Bool => f.write_str("bool"),
            FactType::Number => f.write_str("number"),
            FactType::String => f.write_str("string"),
            FactType::List(element) => write!(f, "list<{element}>"),
            FactType::Object(_) => f.write_str("object"),
            FactType::Any => f.write_str("any"),
        }
    }
}

/// The facts' top level, an object.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FactSchema {
    pub root: BTreeMap<String, FactType>,
}

static ANY: FactType = FactType::Any;

impl FactSchema {
    pub fn new() -> FactSchema {
        FactSchema::default()
    }

    /// Adds (or replaces) a top-level fact.
    pub fn with(mut self, name: impl Into<String>, ty: FactType) -> FactSchema {
        self.root.insert(name.into(), ty);
        self
    }

    /// Every path a predicate may name, with its type: depth first, fields in
    /// name order, each object before its fields. Lists are leaves (paths do
    /// not reach into list elements), and so is `Any`.
    pub fn paths(&self) -> Vec<(String, &FactType)> {
        let mut paths = Vec::new();
        collect_paths("", &self.root, &mut paths);
        paths
    }

    /// The type of a dotted path, or `None` if the schema has no such path.
    pub fn type_of(&self, path: &str) -> Option<&FactType> {
        self.resolve(path).ok()
    }

    /// The type at `path`, or why there is none.
    pub fn resolve(&self, path: &str) -> Result<&FactType, PathNotFound<'_>> {
        let mut fields = &self.root;
        let mut prefix_len = 0;
        let mut segments = path.split('.').peekable();
        while let Some(segment) = segments.next() {
            let ty = fields.get(segment).ok_or(PathNotFound::MissingField)?;
            if segments.peek().is_none() {
                return Ok(ty);
            }
            prefix_len += segment.len();
            match ty {
                FactType::Object(inner) => fields = inner,
                FactType::Any => return Ok(&ANY),
                _ => {
                    return Err(PathNotFound::NoFields {
                        prefix: path[..prefix_len].to_owned(),
                        ty,
                    })
                }
            }
            prefix_len += '.'.len_utf8();
        }
        // `split` yields at least one segment, so the loop has returned.
        Err(PathNotFound::MissingField)
    }
}

impl<K: Into<String>> FromIterator<(K, FactType)> for FactSchema {
    fn from_iter<I: IntoIterator<Item = (K, FactType)>>(fields: I) -> FactSchema {
        FactSchema {
            root: fields
                .into_iter()
                .map(|(name, ty)| (name.into(), ty))
                .collect(),
        }
    }
}

pub enum PathNotFound<'s> {
    /// Some object along the path lacks the next segment.
    MissingField,
    /// The path goes on below `prefix`, whose type has no fields.
    NoFields { prefix: String, ty: &'s FactType },
}

fn collect_paths<'s>(
    prefix: &str,
    fields: &'s BTreeMap<String, FactType>,
    out: &mut Vec<(String, &'s FactType)>,
) {
    for (name, ty) in fields {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        out.push((path.clone(), ty));
        if let FactType::Object(inner) = ty {
            collect_paths(&path, inner, out);
        }
    }
}
