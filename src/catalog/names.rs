//! A table's identity is its full path `catalog.database.table`: `USE CATALOG c` and
//! `USE [c.]db` decide where an unqualified or partly qualified name lives (Flink's default is
//! `default_catalog.default_database`). The identity is written without the default parts, so
//! `orders` and `default_catalog.default_database.orders` are one table, named `orders` in
//! reports, while `db1.orders` and `db2.orders` are two.

pub const DEFAULT_CATALOG: &str = "default_catalog";
pub const DEFAULT_DATABASE: &str = "default_database";
/// The database `USE CATALOG c` selects for a catalog the script does not create: its default
/// one, which the script does not say (`default` for Hive and Paimon catalogs, an option of a
/// JDBC catalog), so that it names no database written out.
pub const UNKNOWN_DEFAULT_DATABASE: &str = "$default";

/// The current catalog and database, as set by `USE CATALOG` / `USE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePath {
    pub catalog: String,
    pub database: String,
}

impl Default for NamePath {
    fn default() -> Self {
        NamePath {
            catalog: DEFAULT_CATALOG.to_string(),
            database: DEFAULT_DATABASE.to_string(),
        }
    }
}

/// A name part as it is written in an identity: backquoted (a backquote doubled) when it holds a
/// `.` or a backquote, so that the table `` `db1.orders` `` of the current database and the table
/// `orders` of database `db1` are two identities.
fn quoted(part: &str) -> String {
    if part.contains('.') || part.contains('`') {
        format!("`{}`", part.replace('`', "``"))
    } else {
        part.to_string()
    }
}

impl NamePath {
    /// The identity of the object `parts` names (`t`, `db.t` or `catalog.db.t`) from here.
    pub fn identity(&self, parts: &[String]) -> String {
        let (catalog, database, name) = match parts {
            [] => return String::new(),
            [name] => (self.catalog.as_str(), self.database.as_str(), name),
            [database, name] => (self.catalog.as_str(), database.as_str(), name),
            [.., catalog, database, name] => (catalog.as_str(), database.as_str(), name),
        };
        let name = quoted(name);
        match (catalog == DEFAULT_CATALOG, database == DEFAULT_DATABASE) {
            (true, true) => name,
            (true, false) => format!("{}.{name}", quoted(database)),
            _ => format!("{}.{}.{name}", quoted(catalog), quoted(database)),
        }
    }

    /// The full name `catalog.database` of the database `parts` names (`db` or `catalog.db`)
    /// from here.
    pub fn database_identity(&self, parts: &[String]) -> String {
        let (catalog, database) = match parts {
            [] => (self.catalog.as_str(), self.database.as_str()),
            [database] => (self.catalog.as_str(), database.as_str()),
            [.., catalog, database] => (catalog.as_str(), database.as_str()),
        };
        format!("{}.{}", quoted(catalog), quoted(database))
    }

    /// `USE CATALOG c`: the current database becomes the catalog's default one,
    /// `default_database` (of `default_catalog`) unless told.
    pub fn use_catalog(&mut self, catalog: &str, default_database: Option<&str>) {
        self.catalog = catalog.to_string();
        self.database = default_database.unwrap_or(DEFAULT_DATABASE).to_string();
    }

    /// `USE db` or `USE c.db`.
    pub fn use_database(&mut self, parts: &[String]) {
        match parts {
            [database] => self.database = database.clone(),
            [.., catalog, database] => {
                self.catalog = catalog.clone();
                self.database = database.clone();
            }
            [] => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<String> {
        text.split('.').map(str::to_string).collect()
    }

    #[test]
    fn default_parts_are_dropped_and_others_kept() {
        let here = NamePath::default();
        assert_eq!(here.identity(&parts("orders")), "orders");
        assert_eq!(
            here.identity(&parts("default_catalog.default_database.orders")),
            "orders"
        );
        assert_eq!(here.identity(&parts("db1.orders")), "db1.orders");
        assert_ne!(
            here.identity(&parts("db1.orders")),
            here.identity(&parts("db2.orders"))
        );
        assert_eq!(here.identity(&parts("cat.db.sink_v1")), "cat.db.sink_v1");
    }

    #[test]
    fn a_part_holding_a_dot_is_one_part() {
        let here = NamePath::default();
        let one = here.identity(&["db1.orders".to_string()]);
        assert_eq!(one, "`db1.orders`");
        assert_ne!(one, here.identity(&parts("db1.orders")));
        assert_eq!(
            here.identity(&["db1".to_string(), "a`b".to_string()]),
            "db1.`a``b`"
        );
    }

    #[test]
    fn use_statements_qualify_unqualified_names() {
        let mut here = NamePath::default();
        here.use_catalog("cat", Some("default"));
        assert_eq!(here.identity(&parts("orders")), "cat.default.orders");
        here.use_database(&parts("db"));
        assert_eq!(here.identity(&parts("orders")), "cat.db.orders");
        assert_eq!(here.identity(&parts("cat.db.orders")), "cat.db.orders");
        here.use_database(&parts("default_catalog.db1"));
        assert_eq!(here.identity(&parts("orders")), "db1.orders");
    }
}
