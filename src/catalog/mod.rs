//! The catalog a script builds: tables with their time attributes, views, functions, configuration.

pub mod config;
pub mod connectors;
pub mod duration;
pub mod names;
pub mod reads;

use crate::error::{Error, Result};
use crate::notes::Notes;
use crate::source::{ByteSpan, SourceFile};
use crate::sql::{
    AlterChange, AlterViewChange, ColumnKind, ColumnPosition, FunctionDef, Language, LikeFeature,
    LikeStrategy, SchemaEdit, Script, Statement, StatementKind, TableDef, ViewDef,
};
use config::{Config, Origin};
use names::NamePath;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeKind {
    Rowtime,
    Proctime,
}

impl TimeKind {
    pub fn name(self) -> &'static str {
        match self {
            TimeKind::Rowtime => "rowtime",
            TimeKind::Proctime => "proctime",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Table {
    pub def: TableDef,
    pub span: ByteSpan,
    /// Whether the table has columns beyond those declared, known only from their use: a CTAS
    /// table (the query's columns) or one declared LIKE a table the script does not declare.
    pub open: bool,
    /// An `ALTER TABLE` that changed the table in a way the tool does not model (its leading
    /// words): the queries reading the table are compared as a whole.
    pub altered: Option<String>,
    /// The statements whose text made the definition what it is: its CREATE, those of a LIKE
    /// base, each ALTER applied. Definitions of two scripts whose origins read alike are alike.
    pub origins: Vec<ByteSpan>,
}

impl Table {
    pub fn name(&self) -> &str {
        self.def.name.last()
    }

    /// The time attribute kind of a column: WATERMARK FOR x makes x rowtime, PROCTIME() proctime.
    pub fn time_kind(&self, column: &str) -> Option<TimeKind> {
        self.def
            .columns
            .iter()
            .find(|c| c.name == column)
            .and_then(|c| self.time_kind_of(c))
            .or_else(|| self.watermark_on(column).then_some(TimeKind::Rowtime))
    }

    /// The time attribute a declared column of this table is, if any.
    pub fn time_kind_of(&self, column: &crate::sql::ColumnDef) -> Option<TimeKind> {
        if self.watermark_on(&column.name) {
            return Some(TimeKind::Rowtime);
        }
        match &column.kind {
            ColumnKind::Computed { expr } if is_proctime_call(expr.as_ref()) => {
                Some(TimeKind::Proctime)
            }
            _ => None,
        }
    }

    fn watermark_on(&self, column: &str) -> bool {
        self.def
            .watermark
            .as_ref()
            .is_some_and(|w| w.column == column)
    }
}

pub fn is_proctime_call(expr: &sqlparser::ast::Expr) -> bool {
    matches!(expr, sqlparser::ast::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("PROCTIME"))
}

#[derive(Debug, Clone)]
pub struct View {
    pub def: ViewDef,
    pub span: ByteSpan,
    pub hints: Vec<String>,
    /// The catalog and database current where the view is declared: its query's names
    /// resolve from there.
    pub path: NamePath,
    /// The statements whose text made the definition what it is (see [`Table::origins`]).
    pub origins: Vec<ByteSpan>,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub def: FunctionDef,
}

impl Function {
    pub fn language(&self) -> Language {
        self.def.language
    }
}

/// One INSERT (or bare query) of the script, in order.
#[derive(Debug, Clone)]
pub struct QueryStatement {
    pub sink: Option<crate::sql::Name>,
    /// The sink's identity (its full path without the default parts).
    pub sink_identity: Option<String>,
    /// The catalog and database current at the statement: its names resolve from there.
    pub path: NamePath,
    pub columns: Vec<String>,
    pub query: Box<sqlparser::ast::Query>,
    pub span: ByteSpan,
    /// Index among the script's queries, from 1.
    pub ordinal: usize,
    /// The configuration in force at the statement: an index into `Catalog::config_versions`.
    pub config_version: usize,
    pub hints: Vec<String>,
    /// The job the statement is submitted in, from 1: the INSERTs of a statement set share
    /// one; an INSERT or a query outside a statement set is a job of its own.
    pub job: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Tables and views by their identity (see [`names`]).
    pub tables: BTreeMap<String, Table>,
    pub views: BTreeMap<String, View>,
    /// The current catalog and database (`USE CATALOG`, `USE`).
    pub path: NamePath,
    /// Keyed by the uppercased name: function names are case-insensitive.
    pub functions: BTreeMap<String, Function>,
    /// Every CREATE FUNCTION, in script order, by uppercased name: its kind (temporary system,
    /// temporary, catalog), the path it was declared in and its implementation. A name declared
    /// more than once (in two databases, TEMPORARY beside a catalog function, a temporary system
    /// function beside a temporary one) resolves by Flink's order and the current path, which
    /// `functions` (one definition per name) does not model.
    pub function_declarations: Vec<(String, String)>,
    /// Functions of this script declared under a name the other script (the old one) does not
    /// declare, with the implementation of one that only the other declares: the same class,
    /// language and resources under a new name (`CREATE FUNCTION f2 AS 'same.Class'` where the
    /// old job declared `f1`). By uppercased name here, the old name as value: a call of the new
    /// name is the same computation as a call of the old one (`rename_functions_from`).
    pub functions_renamed: BTreeMap<String, String>,
    /// The current catalog and database after each `USE CATALOG` / `USE`, in script order.
    pub paths_used: Vec<NamePath>,
    /// The catalogs the script creates, with their default database.
    pub created_catalogs: BTreeMap<String, String>,
    /// The configuration at the end of the script (the job's, as it is submitted).
    pub config: Config,
    /// The configurations in force at the queries (`QueryStatement::config_version`): a SET
    /// between two INSERTs applies to the second only.
    pub config_versions: Vec<Config>,
    /// Whether a SET or RESET came after the last version was taken.
    config_changed: bool,
    pub queries: Vec<QueryStatement>,
    pub notes: Notes,
    /// Statements read past without modelling them.
    pub ignored: Vec<(String, ByteSpan)>,
    /// `DROP TABLE|VIEW` statements of names the script does not declare, as compared between
    /// two scripts: the statement with the dropped name resolved to its full identity (`DROP VIEW
    /// v` under the default catalog and database is `DROP VIEW
    /// default_catalog.default_database.v` written otherwise), by span.
    pub drops: Vec<UndeclaredDrop>,
    /// `CREATE DATABASE` statements (read past: no query reads a database) with the database's
    /// name resolved to `catalog.database`, by span: `USE CATALOG c; CREATE DATABASE d` and
    /// `CREATE DATABASE c.d` create the same database.
    pub databases_created: Vec<(ByteSpan, String)>,
    /// Definitions a later statement replaced (DROP, a second CREATE, ALTER TABLE), by identity,
    /// oldest first: the queries before the replacement read them (Flink runs a script's
    /// statements in order).
    pub replaced: BTreeMap<String, Vec<Replaced>>,
    /// How many queries came before each name's definition was last declared or altered.
    defined_after: BTreeMap<String, usize>,
    /// Names a DROP removed, with how many queries came before it. The definition stays under
    /// the name (the queries before the DROP read it) until a CREATE declares the name again.
    dropped: BTreeMap<String, usize>,
    /// `CREATE ... IF NOT EXISTS` of a name already declared, which Flink skips: each with the
    /// name's identity, in script order.
    pub skipped: Vec<(String, Skipped)>,
    /// The DROPs of declared names, each with the name resolved, in script order.
    pub modelled_drops: Vec<String>,
    /// Catalog (not temporary) definitions a TEMPORARY table or view of the same name hides:
    /// they are in force again once it is dropped.
    shadowed: BTreeMap<String, Skipped>,
    /// The names in `shadowed` whose catalog definition was created while the TEMPORARY one was
    /// in force: no statement has read it (one declared before the temporary one is kept among
    /// the name's definitions, read or unused, as any replaced definition).
    declared_hidden: std::collections::BTreeSet<String>,
    /// The jobs numbered so far (see [`QueryStatement::job`]).
    jobs: usize,
    /// The job of the statement set being read, if any.
    statement_set_job: Option<usize>,
}

/// A definition Flink skips (`CREATE ... IF NOT EXISTS` of a declared name), kept to be compared.
#[derive(Debug, Clone)]
pub enum Skipped {
    Table(Box<Table>),
    View(Box<View>),
}

/// A definition a later statement replaced, kept under `key` in `tables` or `views` for the
/// queries written before the replacement.
#[derive(Debug, Clone)]
pub struct Replaced {
    /// How many of the script's queries come before the replacement.
    pub queries_before: usize,
    pub key: String,
}

impl Catalog {
    /// The job of a query statement read now (see [`QueryStatement::job`]).
    fn job_of_query(&mut self) -> usize {
        match self.statement_set_job {
            Some(job) => job,
            None => {
                self.jobs += 1;
                self.jobs
            }
        }
    }

    /// The statements read past, as two scripts' are compared: each in canonical spelling, a
    /// DROP with the name it drops resolved.
    pub fn read_past_texts(&self, file: &SourceFile) -> Vec<String> {
        self.read_past_texts_without(file, &[])
    }

    /// [`Catalog::read_past_texts`], but for the statements written at `left_out`.
    pub fn read_past_texts_without(&self, file: &SourceFile, left_out: &[ByteSpan]) -> Vec<String> {
        self.ignored
            .iter()
            .filter(|(_, span)| !left_out.contains(span))
            .map(|(_, span)| {
                let drop = self.drops.iter().find(|d| d.span == *span);
                let database = self.databases_created.iter().find(|(s, _)| s == span);
                drop.map(|d| d.resolved.clone())
                    .or_else(|| database.map(|(_, resolved)| resolved.clone()))
                    .unwrap_or_else(|| crate::sql::canonical_text(file.slice(*span)))
            })
            .collect()
    }
}

impl Catalog {
    /// A statement the tool does not model: warned about at `span`, and listed as read past.
    fn read_past(&mut self, warning: String, words: String, span: ByteSpan) {
        self.notes.warn(warning, Some(span));
        self.ignored.push((words, span));
    }

    /// The name a call of the function `name` is compared under: the old job's name of the same
    /// implementation when the function was renamed (`functions_renamed`), else `name`.
    pub fn compared_function_name(&self, name: String) -> String {
        match self.functions_renamed.get(&name.to_uppercase()) {
            Some(old) => old.clone(),
            None => name,
        }
    }

    /// Finds the functions this script declares under a new name with the implementation of a
    /// function only `old` declares (`functions_renamed`). Only one-to-one renames count: a
    /// name declared more than once (which Flink resolves by its own order), or an
    /// implementation declared under two new or two old names, is left as written.
    pub fn rename_functions_from(&mut self, old: &Catalog) {
        let declared_once = |catalog: &Catalog, name: &str| {
            catalog
                .function_declarations
                .iter()
                .filter(|(n, _)| n == name)
                .count()
                <= 1
        };
        let same = |a: &Function, b: &Function| {
            a.def.class == b.def.class
                && a.def.language == b.def.language
                && a.def.resources == b.def.resources
                && a.def.system == b.def.system
        };
        let old_only: Vec<(&String, &Function)> = old
            .functions
            .iter()
            .filter(|(name, _)| !self.functions.contains_key(*name) && declared_once(old, name))
            .collect();
        let new_only: Vec<(&String, &Function)> = self
            .functions
            .iter()
            .filter(|(name, _)| !old.functions.contains_key(*name) && declared_once(self, name))
            .collect();
        let mut renamed = BTreeMap::new();
        for (new_name, new_function) in &new_only {
            let olds: Vec<&&String> = old_only
                .iter()
                .filter(|(_, f)| same(f, new_function))
                .map(|(n, _)| n)
                .collect();
            let news = new_only
                .iter()
                .filter(|(_, f)| same(f, new_function))
                .count();
            if let ([old_name], 1) = (olds.as_slice(), news) {
                renamed.insert((*new_name).clone(), (**old_name).clone());
            }
        }
        self.functions_renamed = renamed;
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        reads::note(reads::ReadKind::Function, name);
        self.functions.get(&name.to_uppercase())
    }

    /// The key under which the definition of `identity` that the query of this ordinal reads
    /// is kept (ordinals count from 1): the definition in force at its statement. `usize::MAX`
    /// reads the last one. Keys other than the identity are internal: plans name tables and
    /// views by identity.
    pub fn key_at<'a>(&'a self, identity: &'a str, ordinal: usize) -> &'a str {
        self.replaced
            .get(identity)
            .and_then(|versions| versions.iter().find(|v| ordinal <= v.queries_before))
            .map_or(identity, |v| v.key.as_str())
    }

    /// The table `identity` names for the query of this ordinal (see [`Catalog::key_at`]).
    pub fn table_at(&self, identity: &str, ordinal: usize) -> Option<&Table> {
        reads::note(reads::ReadKind::Table, identity);
        self.tables.get(self.key_at(identity, ordinal))
    }

    /// The view `identity` names for the query of this ordinal (see [`Catalog::key_at`]).
    pub fn view_at(&self, identity: &str, ordinal: usize) -> Option<&View> {
        reads::note(reads::ReadKind::View, identity);
        self.views.get(self.key_at(identity, ordinal))
    }

    /// Whether `key` (of `tables` or `views`) is a replaced definition, not a name's last one.
    pub fn is_replaced(&self, key: &str) -> bool {
        self.replaced
            .values()
            .any(|versions| versions.iter().any(|v| v.key == key))
    }

    /// The keys of the definitions `identity` had, oldest first: those replaced, then the last.
    pub fn keys_of<'a>(&'a self, identity: &'a str) -> impl Iterator<Item = &'a str> {
        self.replaced
            .get(identity)
            .into_iter()
            .flatten()
            .map(|v| v.key.as_str())
            .chain(std::iter::once(identity))
    }

    /// The index of the configuration in force now, in `config_versions`.
    fn config_version(&mut self) -> usize {
        if self.config_changed || self.config_versions.is_empty() {
            self.config_versions.push(self.config.clone());
            self.config_changed = false;
        }
        self.config_versions.len() - 1
    }

    /// The catalog definitions created under the name of a TEMPORARY table or view and still
    /// hidden by it at the end of the script, by identity: no query reads them, but a later
    /// `DROP TEMPORARY` would reveal them, so they are compared between the two scripts.
    pub fn hidden(&self) -> impl Iterator<Item = (&str, &Skipped)> {
        self.declared_hidden
            .iter()
            .filter_map(|name| Some((name.as_str(), self.shadowed.get(name)?)))
    }

    /// Whether `CREATE [TEMPORARY] ... IF NOT EXISTS identity` finds the name taken: Flink looks
    /// among the temporary tables and views for a TEMPORARY one, among the catalog's for another
    /// (a catalog definition a temporary one hides counts).
    fn exists(&self, identity: &str, temporary: bool) -> bool {
        if temporary {
            self.temporary_in_force(identity)
        } else {
            (self.declares(identity) && !self.temporary_in_force(identity))
                || self.shadowed.contains_key(identity)
        }
    }

    /// Whether the definition `identity` names here is a TEMPORARY table or view.
    fn temporary_in_force(&self, identity: &str) -> bool {
        self.declares(identity)
            && match (self.views.get(identity), self.tables.get(identity)) {
                (Some(view), _) => view.def.temporary,
                (None, Some(table)) => table.def.temporary,
                (None, None) => false,
            }
    }

    /// Whether `identity` names a table or view here: declared and not dropped since.
    pub fn declares(&self, identity: &str) -> bool {
        (self.tables.contains_key(identity) || self.views.contains_key(identity))
            && !self.dropped.contains_key(identity)
    }

    /// Keeps the definition of `identity` for the queries before its DROP, or before this
    /// point, under a key of its own (`identity~N`, the Nth replaced): the name is free for a
    /// new definition. When `keep` (an ALTER TABLE changes the definition in place), a copy is
    /// kept, and only if a query may have read it.
    /// Before a TEMPORARY table or view `identity` is created: a catalog definition in force
    /// under that name is kept, to be restored when the temporary one is dropped.
    fn shadow(&mut self, identity: &str, temporary: bool) {
        if !temporary || !self.declares(identity) {
            return;
        }
        let permanent = match (self.views.get(identity), self.tables.get(identity)) {
            (Some(view), _) if !view.def.temporary => Some(Skipped::View(Box::new(view.clone()))),
            (None, Some(table)) if !table.def.temporary => {
                Some(Skipped::Table(Box::new(table.clone())))
            }
            _ => None,
        };
        if let Some(permanent) = permanent {
            self.declared_hidden.remove(identity);
            self.shadowed.insert(identity.to_string(), permanent);
        }
    }

    /// `DROP TEMPORARY TABLE|VIEW identity` of a temporary definition hiding a catalog one: the
    /// queries before read the temporary one, those after the catalog one again.
    fn unshadow(&mut self, identity: &str) -> bool {
        let Some(permanent) = self.shadowed.remove(identity) else {
            return false;
        };
        self.declared_hidden.remove(identity);
        self.replace(identity, false);
        match permanent {
            Skipped::View(view) => {
                self.views.insert(identity.to_string(), *view);
            }
            Skipped::Table(table) => {
                self.tables.insert(identity.to_string(), *table);
            }
        }
        true
    }

    fn replace(&mut self, identity: &str, keep: bool) {
        let until = self.dropped.remove(identity).unwrap_or(self.queries.len());
        let read = self
            .defined_after
            .insert(identity.to_string(), self.queries.len())
            .is_none_or(|after| after < until);
        if keep && !read {
            return;
        }
        let versions = self.replaced.get(identity).map_or(0, Vec::len);
        let key = format!("{identity}~{}", versions + 1);
        let kept = if let Some(view) = self.views.get(identity) {
            let view = view.clone();
            if !keep {
                self.views.remove(identity);
            }
            self.views.insert(key.clone(), view);
            true
        } else if let Some(table) = self.tables.get(identity) {
            let table = table.clone();
            if !keep {
                self.tables.remove(identity);
            }
            self.tables.insert(key.clone(), table);
            true
        } else {
            false
        };
        if kept {
            self.replaced
                .entry(identity.to_string())
                .or_default()
                .push(Replaced {
                    queries_before: until,
                    key,
                });
        }
    }
}

/// Reads the script's statements in order; `overrides` are `--set` values, applied last.
/// The statements move into the catalog: a deployment's ASTs are not copied.
pub fn build(script: Script, overrides: &[(String, String)]) -> Result<Catalog> {
    let mut catalog = Catalog::default();
    for statement in script.statements {
        add(&script.file, &mut catalog, statement)?;
    }
    for (key, value) in overrides {
        for config in catalog
            .config_versions
            .iter_mut()
            .chain(std::iter::once(&mut catalog.config))
        {
            config.set(key, value, Origin::CommandLine);
        }
    }
    for (key, _) in catalog
        .config
        .entries()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect::<Vec<_>>()
    {
        if let Some(known) = config::likely_typo(&key) {
            let span = match catalog.config.origin(&key) {
                Some(Origin::Script(span)) => Some(*span),
                _ => None,
            };
            catalog.notes.warn(
                format!("unknown configuration key '{key}': did you mean '{known}'?"),
                span,
            );
        }
    }
    Ok(catalog)
}

fn add(file: &SourceFile, catalog: &mut Catalog, statement: Statement) -> Result<()> {
    match statement.kind {
        // `CREATE ... IF NOT EXISTS` of a name already declared is a no-op in Flink: the
        // first definition stays (a later one read instead would hide a change of the first).
        StatementKind::CreateTable(def)
            if def.if_not_exists
                && catalog.exists(&catalog.path.identity(&def.name.parts), def.temporary) =>
        {
            let table = Table {
                def: *def,
                span: statement.span,
                open: false,
                altered: None,
                origins: vec![statement.span],
            };
            skip(catalog, Skipped::Table(Box::new(table)), statement.span)
        }
        StatementKind::CreateView(def)
            if def.if_not_exists
                && catalog.exists(&catalog.path.identity(&def.name.parts), def.temporary) =>
        {
            let view = View {
                def,
                span: statement.span,
                hints: statement.hints,
                path: catalog.path.clone(),
                origins: vec![statement.span],
            };
            skip(catalog, Skipped::View(Box::new(view)), statement.span)
        }
        StatementKind::CreateTable(def)
            if !def.temporary
                && def.query.is_none()
                && catalog.temporary_in_force(&catalog.path.identity(&def.name.parts)) =>
        {
            // A catalog table created under the name of a TEMPORARY table or view in force:
            // Flink resolves the temporary one first, so the new table is hidden until the
            // temporary one is dropped.
            let identity = catalog.path.identity(&def.name.parts);
            let (def, open, mut origins) = with_like(file, catalog, *def)?;
            validate_table(file, &def, open)?;
            origins.insert(0, statement.span);
            let table = Table {
                def,
                span: statement.span,
                open,
                altered: None,
                origins,
            };
            hide(
                catalog,
                identity,
                Skipped::Table(Box::new(table)),
                statement.span,
            );
        }
        StatementKind::CreateView(def)
            if !def.temporary
                && catalog.temporary_in_force(&catalog.path.identity(&def.name.parts)) =>
        {
            let identity = catalog.path.identity(&def.name.parts);
            let view = View {
                def,
                span: statement.span,
                hints: statement.hints,
                path: catalog.path.clone(),
                origins: vec![statement.span],
            };
            hide(
                catalog,
                identity,
                Skipped::View(Box::new(view)),
                statement.span,
            );
        }
        StatementKind::CreateTable(def) => {
            // A second CREATE of a name (a TEMPORARY table over a catalog one) replaces it
            // from here on.
            let identity = catalog.path.identity(&def.name.parts);
            catalog.shadow(&identity, def.temporary);
            catalog.replace(&identity, false);
            let (mut def, like_open, mut origins) = with_like(file, catalog, *def)?;
            origins.insert(0, statement.span);
            let query = def.query.take();
            let open = like_open || query.is_some();
            validate_table(file, &def, open)?;
            if let Some(query) = query {
                let ordinal = catalog.queries.len() + 1;
                let config_version = catalog.config_version();
                let job = catalog.job_of_query();
                catalog.queries.push(QueryStatement {
                    sink_identity: Some(catalog.path.identity(&def.name.parts)),
                    path: catalog.path.clone(),
                    sink: Some(def.name.clone()),
                    columns: Vec::new(),
                    query,
                    span: statement.span,
                    ordinal,
                    config_version,
                    hints: statement.hints,
                    job,
                });
            }
            let identity = catalog.path.identity(&def.name.parts);
            catalog
                .defined_after
                .insert(identity.clone(), catalog.queries.len());
            catalog.tables.insert(
                identity,
                Table {
                    def,
                    span: statement.span,
                    open,
                    altered: None,
                    origins,
                },
            );
        }
        StatementKind::CreateView(def) => {
            let identity = catalog.path.identity(&def.name.parts);
            catalog.shadow(&identity, def.temporary);
            catalog.replace(&identity, false);
            catalog
                .defined_after
                .insert(identity.clone(), catalog.queries.len());
            catalog.views.insert(
                identity,
                View {
                    def,
                    span: statement.span,
                    hints: statement.hints,
                    path: catalog.path.clone(),
                    origins: vec![statement.span],
                },
            );
        }
        StatementKind::CreateFunction(def) => {
            let key = def.name.last().to_uppercase();
            let kind = match (def.system, def.temporary) {
                (true, _) => "temporary system",
                (false, true) => "temporary",
                (false, false) => "catalog",
            };
            catalog.function_declarations.push((
                key.clone(),
                format!(
                    "{kind} {} {} {:?} {:?}",
                    catalog.path.identity(&def.name.parts),
                    def.class,
                    def.language,
                    def.resources
                ),
            ));
            // Flink resolves a temporary function before a catalog one of the same name,
            // whichever was created first.
            let hidden = !def.temporary
                && catalog
                    .functions
                    .get(&key)
                    .is_some_and(|function| function.def.temporary);
            if hidden {
                catalog.notes.assume(
                    format!(
                        "function `{}` is TEMPORARY here: it hides the catalog function this CREATE declares (Flink resolves the temporary one)",
                        def.name.last()
                    ),
                    Some(statement.span),
                );
            } else {
                catalog.functions.insert(key, Function { def });
            }
        }
        StatementKind::Set(setting) => {
            catalog.config.set(
                &setting.key,
                &setting.value,
                Origin::Script(setting.key_span),
            );
            catalog.config_changed = true;
        }
        StatementKind::Reset { key } => {
            catalog.config.reset(key.as_deref());
            catalog.config_changed = true;
        }
        StatementKind::Insert(insert) => {
            let ordinal = catalog.queries.len() + 1;
            let config_version = catalog.config_version();
            // The sink's conflict strategy is compared as hints are: it changes the state of
            // the sink's materializer, which the tool does not model.
            let mut hints = statement.hints;
            hints.extend(insert.on_conflict);
            // So is INSERT OVERWRITE, which Flink refuses to run in streaming mode ("Streaming
            // mode not support overwrite", at translation) and a batch job restores no state.
            if insert.overwrite {
                hints.push("INSERT OVERWRITE".to_string());
            }
            let job = catalog.job_of_query();
            catalog.queries.push(QueryStatement {
                sink_identity: Some(catalog.path.identity(&insert.sink.parts)),
                path: catalog.path.clone(),
                sink: Some(insert.sink),
                columns: insert.columns,
                query: insert.query,
                span: statement.span,
                ordinal,
                config_version,
                hints,
                job,
            });
        }
        StatementKind::Query(query) => {
            let ordinal = catalog.queries.len() + 1;
            let config_version = catalog.config_version();
            let job = catalog.job_of_query();
            catalog.queries.push(QueryStatement {
                sink: None,
                sink_identity: None,
                path: catalog.path.clone(),
                columns: Vec::new(),
                query,
                span: statement.span,
                ordinal,
                config_version,
                hints: statement.hints,
                job,
            });
        }
        StatementKind::StatementSet(inner) => {
            catalog.jobs += 1;
            catalog.statement_set_job = Some(catalog.jobs);
            let added = inner
                .into_iter()
                .try_for_each(|statement| add(file, catalog, statement));
            catalog.statement_set_job = None;
            added?;
        }
        StatementKind::Use {
            catalog: true,
            name,
        } => {
            let default_database = match name.last() {
                names::DEFAULT_CATALOG => names::DEFAULT_DATABASE,
                other => catalog
                    .created_catalogs
                    .get(other)
                    .map(String::as_str)
                    .unwrap_or(names::UNKNOWN_DEFAULT_DATABASE),
            };
            let default_database = default_database.to_string();
            catalog
                .path
                .use_catalog(name.last(), Some(default_database.as_str()));
            catalog.paths_used.push(catalog.path.clone());
        }
        StatementKind::Use { name, .. } => {
            catalog.path.use_database(&name.parts);
            catalog.paths_used.push(catalog.path.clone());
        }
        StatementKind::AlterTable {
            name,
            change,
            words,
        } => alter_table(catalog, &name, change, words, statement.span),
        StatementKind::AlterView {
            name,
            change,
            words,
        } => alter_view(
            catalog,
            &name,
            change,
            words,
            (statement.span, statement.hints),
        ),
        StatementKind::Explain { .. } => {
            // Flink prints the plan and submits no job: not a query of the job, not compared.
            catalog.notes.warn(
                format!(
                    "statement `{}` submits no job (EXPLAIN prints a plan): it is not a query of the job and was not compared",
                    as_written(file.slice(statement.span))
                ),
                Some(statement.span),
            );
        }
        StatementKind::Other { words } => {
            // A dropped table or view no longer exists for the statements after the DROP (a
            // `CREATE ... IF NOT EXISTS` defines it again); the queries before it read it.
            if let Some((view, parts, keywords)) = dropped(file.slice(statement.span)) {
                let identity = catalog.path.identity(&parts);
                let text = crate::sql::canonical_text(file.slice(statement.span));
                let words: Vec<&str> = text.split(' ').take(keywords).collect();
                let resolved = format!("{} {identity}", words.join(" "));
                let temporary = words
                    .get(1)
                    .is_some_and(|w| w.eq_ignore_ascii_case("TEMPORARY"));
                if temporary && catalog.unshadow(&identity) {
                    catalog.modelled_drops.push(resolved);
                    return Ok(());
                }
                let declared = if view {
                    catalog.views.contains_key(&identity)
                } else {
                    catalog.tables.contains_key(&identity)
                };
                if declared && catalog.declares(&identity) {
                    catalog.dropped.insert(identity, catalog.queries.len());
                    catalog.modelled_drops.push(resolved);
                    return Ok(());
                }
                let if_exists = words.iter().any(|w| w.eq_ignore_ascii_case("EXISTS"));
                catalog.drops.push(UndeclaredDrop {
                    span: statement.span,
                    resolved,
                    identity,
                    if_exists,
                });
            }
            // `CREATE CATALOG c WITH (...)`: its default database is its `default-database`
            // option, `default` without one (Flink's in-memory, Hive and Paimon catalogs; red
            // team round 29, planner: `USE CATALOG c` then reads `c.default.t`).
            if let Some((name, default_database)) = created_catalog(file.slice(statement.span)) {
                catalog.created_catalogs.insert(name, default_database);
            }
            if let Some((keywords, parts)) = created_database(file.slice(statement.span)) {
                let words = statement_words(file.slice(statement.span));
                let canonical = |words: &[&str]| crate::sql::canonical_text(&words.join(" "));
                let resolved = format!(
                    "{} {} {}",
                    canonical(&words[..keywords.min(words.len())]),
                    catalog.path.database_identity(&parts),
                    canonical(words.get(keywords + 1..).unwrap_or_default())
                );
                catalog
                    .databases_created
                    .push((statement.span, resolved.trim_end().to_string()));
            }
            catalog.read_past(
                format!(
                    "statement `{}` is not modelled and was ignored",
                    as_written(file.slice(statement.span))
                ),
                words,
                statement.span,
            );
        }
    }
    Ok(())
}

/// A `CREATE ... IF NOT EXISTS` of a declared name: Flink skips it; it is compared between the
/// two scripts all the same, so that a change to it is reported.
fn skip(catalog: &mut Catalog, skipped: Skipped, span: ByteSpan) {
    let name = match &skipped {
        Skipped::Table(table) => &table.def.name,
        Skipped::View(view) => &view.def.name,
    };
    let identity = catalog.path.identity(&name.parts);
    catalog.notes.assume(
        format!("`{identity}` is already declared: Flink skips this CREATE ... IF NOT EXISTS"),
        Some(span),
    );
    catalog.skipped.push((identity, skipped));
}

/// A catalog table or view created under the name of a TEMPORARY one in force: kept hidden (in
/// force again once the temporary one is dropped), not read by the queries.
fn hide(catalog: &mut Catalog, identity: String, hidden: Skipped, span: ByteSpan) {
    catalog.notes.assume(
        format!("`{identity}` is TEMPORARY here: it hides the catalog definition this CREATE declares (Flink resolves the temporary one)"),
        Some(span),
    );
    catalog.declared_hidden.insert(identity.clone());
    catalog.shadowed.insert(identity, hidden);
}

/// A `DROP TABLE|VIEW` of a name the script does not declare (where the DROP is written).
#[derive(Debug, Clone)]
pub struct UndeclaredDrop {
    pub span: ByteSpan,
    /// The statement with the name resolved to its identity.
    pub resolved: String,
    pub identity: String,
    /// `IF EXISTS`: Flink does nothing when the name does not exist.
    pub if_exists: bool,
}

/// A statement's words, split at white space, without its closing `;`.
fn statement_words(text: &str) -> Vec<&str> {
    text.trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect()
}

/// `CREATE [TEMPORARY] CATALOG [IF NOT EXISTS] name WITH (...)`: its name and its default
/// database (its `default-database` option, `default` without one).
fn created_catalog(text: &str) -> Option<(String, String)> {
    let words = statement_words(text);
    let is = |at: usize, word: &str| words.get(at).is_some_and(|w| w.eq_ignore_ascii_case(word));
    let mut at = if is(1, "TEMPORARY") { 2 } else { 1 };
    if !is(0, "CREATE") || !is(at, "CATALOG") {
        return None;
    }
    at += 1;
    if is(at, "IF") && is(at + 1, "NOT") && is(at + 2, "EXISTS") {
        at += 3;
    }
    let word = words.get(at)?;
    let name = word.split('(').next()?.trim_matches('`').to_string();
    if name.is_empty() {
        return None;
    }
    let key = "'default-database'";
    let default_database = text
        .find(key)
        .and_then(|start| {
            let rest = text[start + key.len()..].trim_start().strip_prefix('=')?;
            let rest = rest.trim_start().strip_prefix('\'')?;
            Some(rest[..rest.find('\'')?].to_string())
        })
        .unwrap_or_else(|| "default".to_string());
    Some((name, default_database))
}

/// `CREATE DATABASE [IF NOT EXISTS] name ...`: how many keywords come before the name, and the
/// name's parts.
fn created_database(text: &str) -> Option<(usize, Vec<String>)> {
    let words = statement_words(text);
    let is = |at: usize, word: &str| words.get(at).is_some_and(|w| w.eq_ignore_ascii_case(word));
    if !is(0, "CREATE") || !is(1, "DATABASE") {
        return None;
    }
    let at = if is(2, "IF") && is(3, "NOT") && is(4, "EXISTS") {
        5
    } else {
        2
    };
    let parts = name_parts(words.get(at)?);
    (parts.len() <= 2 && parts.iter().all(|p| !p.is_empty())).then_some((at, parts))
}

/// `DROP [TEMPORARY] TABLE|VIEW [IF EXISTS] name`: whether a view, the name's parts, and how
/// many keywords come before the name.
fn dropped(text: &str) -> Option<(bool, Vec<String>, usize)> {
    let words = statement_words(text);
    let is = |at: usize, word: &str| words.get(at).is_some_and(|w| w.eq_ignore_ascii_case(word));
    if !is(0, "DROP") {
        return None;
    }
    let mut at = if is(1, "TEMPORARY") { 2 } else { 1 };
    let view = is(at, "VIEW");
    if !view && !is(at, "TABLE") {
        return None;
    }
    at += 1;
    if is(at, "IF") && is(at + 1, "EXISTS") {
        at += 2;
    }
    let name = words.get(at)?;
    let parts = name_parts(name);
    (words.len() == at + 1 && parts.iter().all(|p| !p.is_empty())).then_some((view, parts, at))
}

/// The parts of a name as written: split at the dots outside backquotes, a quoted part unquoted
/// (`` `db1.orders` `` is one part).
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = name.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '`' if quoted && chars.peek() == Some(&'`') => {
                chars.next();
                if let Some(p) = parts.last_mut() {
                    p.push('`');
                }
            }
            '`' => quoted = !quoted,
            '.' if !quoted => parts.push(String::new()),
            _ => {
                if let Some(p) = parts.last_mut() {
                    p.push(c);
                }
            }
        }
    }
    parts
}

/// A statement quoted as written, on one line, without its `;`, cut after 60 characters.
fn as_written(text: &str) -> String {
    const LONGEST: usize = 60;
    let words: Vec<&str> = text
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect();
    let line = words.join(" ");
    if line.chars().count() <= LONGEST {
        return line;
    }
    let mut cut: String = line.chars().take(LONGEST).collect();
    cut.truncate(cut.trim_end().len());
    cut.push_str(" …");
    cut
}

/// `ALTER TABLE` as Flink applies it to a table of the script: options set or reset, the table
/// renamed. Another change (columns, watermark, ...) marks the table altered (the queries reading
/// it are compared as a whole); an ALTER of a table the script does not declare is read past.
fn alter_table(
    catalog: &mut Catalog,
    name: &crate::sql::Name,
    change: AlterChange,
    words: String,
    span: ByteSpan,
) {
    let identity = catalog.path.identity(&name.parts);
    if catalog.declares(&identity) {
        // The queries before the ALTER read the table as it was.
        catalog.replace(&identity, true);
    }
    let Some(table) = catalog
        .tables
        .get_mut(&identity)
        .filter(|_| !catalog.dropped.contains_key(&identity))
    else {
        catalog.read_past(
            format!("statement `{words} ...` changes a table the script does not declare: it is not modelled and was ignored"),
            words,
            span,
        );
        return;
    };
    table.origins.push(span);
    match change {
        AlterChange::SetOptions(options) => {
            for (key, value) in options {
                match table.def.options.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => table.def.options.push((key, value)),
                }
            }
        }
        AlterChange::ResetOptions(keys) => table.def.options.retain(|(k, _)| !keys.contains(k)),
        AlterChange::RenameTo(new_name) => {
            if let Some(mut table) = catalog.tables.remove(&identity) {
                // Flink renames the table within its own database: only the new name's last
                // part counts (Catalog#renameTable takes an object name).
                let mut parts = name.parts.clone();
                if let (Some(last), Some(new_last)) = (parts.last_mut(), new_name.parts.last()) {
                    *last = new_last.clone();
                }
                let new_identity = catalog.path.identity(&parts);
                table.def.name = new_name;
                catalog.tables.insert(new_identity, table);
            }
        }
        AlterChange::Schema(edits) => {
            // Applied as Flink applies them, all or nothing: the queries after the ALTER read
            // the table as if declared so. A change Flink refuses (a column that does not
            // exist, a second watermark, a column others refer to) is not modelled.
            let mut def = table.def.clone();
            let applied = if def.temporary {
                Err("Flink refuses ALTER TABLE of a temporary table".to_string())
            } else {
                edits
                    .into_iter()
                    .try_for_each(|edit| schema_edit(&mut def, edit))
            };
            match applied {
                Ok(()) => table.def = def,
                Err(why) => {
                    table.altered = Some(words.clone());
                    catalog.read_past(
                        format!("statement `{words} ...` changes table `{identity}` in a way the tool does not model ({why}): the queries reading it are compared as a whole"),
                        words,
                        span,
                    );
                }
            }
        }
        AlterChange::Other => {
            table.altered = Some(words.clone());
            catalog.read_past(
                format!("statement `{words} ...` changes table `{identity}` in a way the tool does not model: the queries reading it are compared as a whole"),
                words,
                span,
            );
        }
    }
}

/// One schema change of `ALTER TABLE`, as Flink's `AlterSchemaConverter` applies it; `Err` (why)
/// where Flink refuses it or the tool cannot tell the result.
fn schema_edit(def: &mut crate::sql::TableDef, edit: SchemaEdit) -> Result<(), String> {
    let position_of =
        |def: &crate::sql::TableDef, name: &str| def.columns.iter().position(|c| c.name == name);
    // Whether another part of the declaration refers to the column (Flink refuses to drop or
    // rename it): a computed column, the watermark, the primary key.
    let referred = |def: &crate::sql::TableDef, name: &str| {
        let mentions = |text: String| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name)
        };
        def.columns.iter().any(|c| match &c.kind {
            ColumnKind::Computed { expr } => c.name != name && mentions(expr.to_string()),
            _ => false,
        }) || def
            .watermark
            .as_ref()
            .is_some_and(|w| w.column == name || mentions(w.expr.to_string()))
            || def
                .primary_key
                .as_ref()
                .is_some_and(|k| k.iter().any(|c| c == name))
    };
    match edit {
        SchemaEdit::Column {
            column,
            modify,
            position,
        } => {
            let existing = position_of(def, &column.name);
            let at = match (modify, existing) {
                (false, Some(_)) => return Err(format!("column `{}` exists", column.name)),
                (true, None) => return Err(format!("no column `{}`", column.name)),
                (false, None) => def.columns.len(),
                (true, Some(at)) => {
                    def.columns.remove(at);
                    at
                }
            };
            let at = match position {
                ColumnPosition::Unsaid => at,
                ColumnPosition::First => 0,
                ColumnPosition::After(after) => match position_of(def, &after) {
                    Some(i) => i + 1,
                    None => return Err(format!("no column `{after}`")),
                },
            };
            def.columns.insert(at, column);
        }
        SchemaEdit::Watermark {
            def: watermark,
            modify,
        } => {
            if modify != def.watermark.is_some() {
                return Err(if modify {
                    "no watermark to modify".into()
                } else {
                    "the table has a watermark already".into()
                });
            }
            if position_of(def, &watermark.column).is_none() {
                return Err(format!("no column `{}`", watermark.column));
            }
            def.watermark = Some(*watermark);
        }
        SchemaEdit::PrimaryKey { columns, modify } => {
            if modify != def.primary_key.is_some() {
                return Err(if modify {
                    "no primary key to modify".into()
                } else {
                    "the table has a primary key already".into()
                });
            }
            if let Some(missing) = columns.iter().find(|c| position_of(def, c).is_none()) {
                return Err(format!("no column `{missing}`"));
            }
            def.primary_key = Some(columns);
        }
        SchemaEdit::DropColumns(names) => {
            for name in &names {
                if position_of(def, name).is_none() {
                    return Err(format!("no column `{name}`"));
                }
                if referred(def, name) {
                    return Err(format!("column `{name}` is referred to"));
                }
            }
            def.columns.retain(|c| !names.contains(&c.name));
        }
        SchemaEdit::DropWatermark => {
            if def.watermark.take().is_none() {
                return Err("no watermark to drop".into());
            }
        }
        SchemaEdit::DropPrimaryKey => {
            if def.primary_key.take().is_none() {
                return Err("no primary key to drop".into());
            }
        }
        SchemaEdit::RenameColumn { from, to } => {
            let Some(at) = position_of(def, &from) else {
                return Err(format!("no column `{from}`"));
            };
            if position_of(def, &to).is_some() {
                return Err(format!("column `{to}` exists"));
            }
            if referred(def, &from) {
                return Err(format!("column `{from}` is referred to"));
            }
            def.columns[at].name = to;
        }
    }
    Ok(())
}

/// `ALTER VIEW` as Flink applies it to a catalog view of the script: renamed (the queries after
/// it read it by its new name), or given a new query (the queries after it read that one; its
/// names resolve from the catalog and database current at the ALTER). Flink refuses it for a
/// temporary view or a table: such an ALTER, or one of a view the script does not declare, is
/// read past with a warning, as any statement the tool does not model.
fn alter_view(
    catalog: &mut Catalog,
    name: &crate::sql::Name,
    change: AlterViewChange,
    words: String,
    statement: (ByteSpan, Vec<String>),
) {
    let (span, hints) = statement;
    let identity = catalog.path.identity(&name.parts);
    let modelled = catalog.declares(&identity)
        && catalog
            .views
            .get(&identity)
            .is_some_and(|view| !view.def.temporary);
    if !modelled {
        catalog.read_past(
            format!("statement `{words} ...` changes a view the script does not declare as a catalog view: it is not modelled and was ignored"),
            words,
            span,
        );
        return;
    }
    match change {
        AlterViewChange::RenameTo(new_name) => {
            // The queries before the ALTER read the view by its old name.
            catalog.replace(&identity, true);
            let Some(mut view) = catalog.views.remove(&identity) else {
                return;
            };
            // As for a table, Flink renames the view within its own database: only the new
            // name's last part counts.
            let mut parts = name.parts.clone();
            if let (Some(last), Some(new_last)) = (parts.last_mut(), new_name.parts.last()) {
                *last = new_last.clone();
            }
            let new_identity = catalog.path.identity(&parts);
            if catalog.tables.contains_key(&new_identity)
                || catalog.views.contains_key(&new_identity)
            {
                // A dropped definition of the new name: the queries before read it.
                catalog.replace(&new_identity, false);
            }
            catalog
                .defined_after
                .insert(new_identity.clone(), catalog.queries.len());
            view.def.name = new_name;
            view.origins.push(span);
            catalog.views.insert(new_identity, view);
        }
        AlterViewChange::As(query) => {
            let Some(name) = catalog.views.get(&identity).map(|v| v.def.name.clone()) else {
                return;
            };
            // The queries before the ALTER read the old query.
            catalog.replace(&identity, false);
            catalog
                .defined_after
                .insert(identity.clone(), catalog.queries.len());
            let def = ViewDef {
                name,
                temporary: false,
                if_not_exists: false,
                columns: Vec::new(),
                comment: None,
                query,
            };
            let view = View {
                def,
                span,
                hints,
                path: catalog.path.clone(),
                origins: vec![span],
            };
            catalog.views.insert(identity, view);
        }
    }
}

/// `CREATE TABLE t (...) WITH (...) LIKE base (options)`, merged as Flink documents it: the
/// base's physical columns, then per feature (computed and metadata columns, watermarks,
/// constraints, partitions, options) the strategy the options give it (the last option naming
/// the feature, else `ALL`, else Flink's default: INCLUDING, OVERWRITING for options). INCLUDING
/// a feature both tables define is Flink's error; OVERWRITING keeps the table's own.
/// A base the script does not declare (a catalog table) leaves its columns to be taken from use.
/// Also returns the base's origins (see [`Table::origins`]).
fn with_like(
    file: &SourceFile,
    catalog: &Catalog,
    mut def: TableDef,
) -> Result<(TableDef, bool, Vec<ByteSpan>)> {
    let Some(like) = def.like.clone() else {
        return Ok((def, false, Vec::new()));
    };
    let located = |message: String| Error::located("sql", file, like.span, message, "here", None);
    let base = catalog.path.identity(&like.parts);
    let Some(base) = catalog
        .tables
        .get(&base)
        .filter(|_| catalog.declares(&base))
    else {
        return Ok((def, true, Vec::new()));
    };
    let open = base.open;
    let origins = base.origins.clone();
    let base = &base.def;
    let strategy = |feature: LikeFeature| {
        let default = if feature == LikeFeature::Options {
            LikeStrategy::Overwriting
        } else {
            LikeStrategy::Including
        };
        def.like_options
            .iter()
            .rev()
            .find(|o| o.feature == feature)
            .or_else(|| {
                def.like_options
                    .iter()
                    .rev()
                    .find(|o| o.feature == LikeFeature::All)
            })
            .map(|o| o.strategy)
            .unwrap_or(default)
    };
    let mut columns = Vec::new();
    for column in &base.columns {
        let feature = match column.kind {
            ColumnKind::Physical { .. } => None,
            ColumnKind::Computed { .. } => Some(LikeFeature::Generated),
            ColumnKind::Metadata { .. } => Some(LikeFeature::Metadata),
        };
        let own = def.columns.iter().any(|c| c.name == column.name);
        match feature.map(strategy) {
            None => columns.push(column.clone()),
            Some(LikeStrategy::Excluding) => {}
            Some(LikeStrategy::Overwriting) if own => {}
            Some(_) if own => {
                return Err(located(format!(
                    "column `{}` is declared here and in the LIKE base `{}`: Flink rejects it unless the LIKE options exclude or overwrite it",
                    column.name,
                    like.last()
                )))
            }
            Some(_) => columns.push(column.clone()),
        }
    }
    columns.append(&mut def.columns);
    def.columns = columns;
    match (strategy(LikeFeature::Watermarks), &def.watermark, &base.watermark) {
        (LikeStrategy::Excluding, _, _) | (_, _, None) => {}
        (_, None, Some(base)) => def.watermark = Some(base.clone()),
        (LikeStrategy::Overwriting, Some(_), Some(_)) => {}
        (_, Some(own), Some(base)) if own.column != base.column => {}
        (_, Some(_), Some(_)) => {
            return Err(located(format!(
                "the LIKE base `{}` already has a watermark for this column: Flink rejects it unless the LIKE options exclude or overwrite watermarks",
                like.last()
            )))
        }
    }
    if strategy(LikeFeature::Constraints) == LikeStrategy::Including {
        match (&def.primary_key, &base.primary_key) {
            (Some(_), Some(_)) => {
                return Err(located(format!(
                    "the LIKE base `{}` already has a primary key: Flink rejects a second one unless the LIKE options exclude constraints",
                    like.last()
                )))
            }
            (None, Some(key)) => def.primary_key = Some(key.clone()),
            _ => {}
        }
    }
    if strategy(LikeFeature::Partitions) == LikeStrategy::Including && def.partitioned_by.is_empty()
    {
        def.partitioned_by = base.partitioned_by.clone();
    }
    // Each option with where it is written (an inherited one where the base writes it).
    let written = |d: &TableDef| -> Vec<((String, String), Option<ByteSpan>)> {
        d.options
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, o)| (o, d.option_spans.get(i).copied()))
            .collect()
    };
    let own_options = written(&def);
    let mut options = match strategy(LikeFeature::Options) {
        LikeStrategy::Excluding => Vec::new(),
        _ => written(base),
    };
    let including = strategy(LikeFeature::Options) == LikeStrategy::Including;
    for ((key, value), span) in own_options {
        if including && options.iter().any(|((k, _), _)| *k == key) {
            return Err(located(format!(
                "option '{key}' is set here and in the LIKE base `{}`: Flink rejects it under INCLUDING OPTIONS (OVERWRITING OPTIONS is the default)",
                like.last()
            )));
        }
        options.retain(|((k, _), _)| *k != key);
        options.push(((key, value), span));
    }
    def.option_spans = options.iter().filter_map(|(_, s)| *s).collect();
    if def.option_spans.len() != options.len() {
        def.option_spans.clear();
    }
    def.options = options.into_iter().map(|(o, _)| o).collect();
    Ok((def, open, origins))
}

fn validate_table(file: &SourceFile, def: &TableDef, open: bool) -> Result<()> {
    if let Some(watermark) = def.watermark.as_ref().filter(|_| !open) {
        if !def.columns.iter().any(|c| c.name == watermark.column) {
            return Err(Error::located(
                "sql",
                file,
                watermark.span,
                format!(
                    "WATERMARK FOR `{}`: the table has no such column",
                    watermark.column
                ),
                "unknown column",
                None,
            ));
        }
    }
    let mut declared = std::collections::HashSet::new();
    for column in &def.columns {
        if !declared.insert(column.name.as_str()) {
            return Err(Error::located(
                "sql",
                file,
                column.span,
                format!("column `{}` is declared twice", column.name),
                "second declaration",
                None,
            ));
        }
    }
    Ok(())
}
