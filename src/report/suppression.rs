//! How a finding is marked accepted (`suppress` decides which are).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SuppressionKind {
    /// A comment in the script.
    Inline,
    /// An `[[allow]]` of the configuration file.
    Config,
}

/// Why a finding is accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppression {
    pub kind: SuppressionKind,
    pub reason: String,
    /// Where the allow is written: `file:line:column`.
    pub origin: String,
}
