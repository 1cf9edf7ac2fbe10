//! The four verdicts, ordered by severity.

use serde::Serialize;
use std::fmt;

/// fully_compatible < partially_compatible < unknown < incompatible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    FullyCompatible,
    PartiallyCompatible,
    Unknown,
    Incompatible,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::FullyCompatible,
        Verdict::PartiallyCompatible,
        Verdict::Unknown,
        Verdict::Incompatible,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::FullyCompatible => "fully_compatible",
            Verdict::PartiallyCompatible => "partially_compatible",
            Verdict::Unknown => "unknown",
            Verdict::Incompatible => "incompatible",
        }
    }

    pub fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
