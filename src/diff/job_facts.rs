//! The job-level facts, computed once for every pair: configuration, functions, statements,
//! tables and views no query reads, warnings.

use super::item_facts;
use super::matching::QueryPair;
use super::pair_facts::{keyed_changed_items, ClauseKey};
use crate::catalog::config::KeyChange;
use crate::catalog::UndeclaredDrop;
use crate::facts::job::ConfigFacts;
use crate::plan::Plan;
use crate::source::ByteSpan;
use std::collections::{BTreeSet, HashSet};

/// The two plans being compared, with the job-level facts (configuration, functions,
/// statements) computed once for every pair.
pub struct Job<'a> {
    pub old: &'a Plan,
    pub new: &'a Plan,
    pub config: ConfigFacts,
    /// TEMPORARY TABLEs of the old script removed or declared otherwise in the new one.
    pub temporary_tables_changed: Vec<String>,
    /// Each configuration key whose value in force at a query differs, for the `config_key`
    /// rules.
    pub config_items: Vec<item_facts::Item>,
    /// Each configuration key whose value differs only after the last query of a script (every
    /// query of both jobs reads the same value), for the `config_key` rules: judged once, for
    /// the job, not for the queries, which no such SET applies to.
    pub settings_after_queries: Vec<item_facts::Item>,
    /// The items changed in the whole deployment (`query: item`): VVR counts "more than one
    /// item changed" per deployment, not per query.
    pub deployment_items: Vec<String>,
}

impl<'a> Job<'a> {
    pub fn new(old: &'a Plan, new: &'a Plan) -> Job<'a> {
        let changes = config_changes(old, new);
        let config = config_facts(old, new, &changes);
        let (at_query, after): (Vec<KeyChange>, Vec<KeyChange>) =
            changes.into_iter().partition(|c| c.at_query);
        Job {
            old,
            new,
            config_items: item_facts::config_items(old, new, at_query, &config),
            settings_after_queries: item_facts::config_items(old, new, after, &config),
            config,
            temporary_tables_changed: temporary_tables_changed(old, new),
            deployment_items: Vec::new(),
        }
    }

    /// The job of these query pairs, with the items changed across all of them.
    pub fn of_pairs(old: &'a Plan, new: &'a Plan, pairs: &[QueryPair]) -> Job<'a> {
        let mut job = Job::new(old, new);
        // A filter written once (a view's WHERE) that several queries read is one item: their
        // changed filter terms are written in the same clause.
        let mut items: Vec<(Vec<String>, String, Vec<ClauseKey>)> = Vec::new();
        for pair in pairs {
            let name = pair
                .new
                .or(pair.old)
                .map(|q| q.name.clone())
                .unwrap_or_default();
            for (item, clauses) in keyed_changed_items(pair) {
                let shared = items.iter_mut().find(|(_, other, keys)| {
                    *other == item && keys.iter().any(|k| clauses.contains(k))
                });
                match shared {
                    Some((names, _, keys)) => {
                        names.push(name.clone());
                        keys.extend(clauses);
                    }
                    None => items.push((vec![name.clone()], item, clauses)),
                }
            }
        }
        job.deployment_items = items
            .into_iter()
            .map(|(names, item, _)| format!("{}: {item}", names.join(", ")))
            .collect();
        job
    }
}

fn config_facts(old: &Plan, new: &Plan, changes: &[KeyChange]) -> ConfigFacts {
    let config = &new.catalog.config;
    // An option that relaxes the rules does so only where it is in force at every query of the
    // new job: a SET after the last query applies to none.
    let relaxes = |key: &str| {
        config.is_true(key)
            && new.queries.iter().all(|q| {
                new.catalog
                    .config_versions
                    .get(q.config_version)
                    .is_some_and(|c| c.is_true(key))
            })
    };
    ConfigFacts {
        ignore_filter: relaxes("table.optimizer.state-compatibility.ignore-filter"),
        ignore_sink: relaxes("table.optimizer.state-compatibility.ignore-sink"),
        ignore_unclaimed_state: config.is_true("execution.state-recovery.ignore-unclaimed-state")
            || config.is_true("execution.savepoint.ignore-unclaimed-state"),
        uid_generation: config
            .get("table.exec.uid.generation")
            .unwrap_or("PLAN_ONLY")
            .trim()
            .to_uppercase(),
        engine_version_changed: old.catalog.config.get("engine.version")
            != config.get("engine.version"),
        mini_batch_old: old.catalog.config.is_true("table.exec.mini-batch.enabled"),
        mini_batch_new: config.is_true("table.exec.mini-batch.enabled"),
        changed_keys: {
            // A key no query reads differently (set after the last query) changes no query.
            let mut keys: Vec<String> = changes
                .iter()
                .filter(|c| c.at_query)
                .map(|c| c.written.clone())
                .collect();
            keys.dedup();
            keys
        },
        unmodelled_statements_changed: unmodelled_statements(old) != unmodelled_statements(new),
        changed_functions: changed_functions(old, new),
        added_functions: added_functions(old, new),
        unused_tables_changed: unused_tables_changed(old, new),
        skipped_definitions_changed: skipped_definitions_changed(old, new),
        hidden_definitions_changed: hidden_definitions_changed(old, new),
        drops_changed: drops_changed(old, new),
        metadata_changed: metadata_changed(old, new),
        warnings_added: warnings_added(old, new),
    }
}

/// The configuration keys whose value in force differs, sorted: at the end of the scripts, or at
/// a query of both (a SET moved across an INSERT changes the configuration of that query only,
/// and is judged for the whole job).
fn config_changes(old: &Plan, new: &Plan) -> Vec<KeyChange> {
    use crate::catalog::config::changes;
    let mut keys = changes(&old.catalog.config, &new.catalog.config);
    let (old_versions, new_versions) = (&old.catalog.config_versions, &new.catalog.config_versions);
    // Compared at every query even when each script has one version: a SET before all the
    // queries of one script and after all those of the other leaves one version each.
    {
        let in_force: std::collections::HashMap<&str, usize> = new
            .queries
            .iter()
            .map(|q| (q.name.as_str(), q.config_version))
            .collect();
        let mut compared = std::collections::HashSet::new();
        for query in &old.queries {
            let Some(&version) = in_force.get(query.name.as_str()) else {
                continue;
            };
            if !compared.insert((query.config_version, version)) {
                continue;
            }
            if let (Some(old_config), Some(new_config)) = (
                old_versions.get(query.config_version),
                new_versions.get(version),
            ) {
                keys.extend(changes(old_config, new_config));
            }
        }
        keys.sort_by(|a, b| (&a.written, &a.old, &a.new).cmp(&(&b.written, &b.old, &b.new)));
        keys.dedup();
    }
    // A value that every query of both jobs reads alike differs only after the last query of
    // a script: Flink applies a SET to the statements after it (plan lab: a SET after the last
    // INSERT leaves the plan as it was), so no query is planned under it.
    let at_queries: Vec<&crate::catalog::config::Config> = [old, new]
        .into_iter()
        .flat_map(|plan| {
            plan.queries
                .iter()
                .filter_map(|q| plan.catalog.config_versions.get(q.config_version))
        })
        .collect();
    for key in &mut keys {
        if crate::catalog::config::same_at_all(&key.written, at_queries.iter().copied()) {
            key.at_query = false;
        }
    }
    keys
}

/// The statements read past (DROP, USE, ...), in canonical spelling, but for the DROPs no
/// query can tell from none (`harmless_drops`, compared with the DROPs of declared names).
fn unmodelled_statements(plan: &Plan) -> Vec<String> {
    let harmless: Vec<ByteSpan> = harmless_drops(plan).map(|d| d.span).collect();
    plan.catalog.read_past_texts_without(&plan.file, &harmless)
}

/// The `DROP ... IF EXISTS` statements of names the script neither declares nor reads: Flink
/// does nothing, or drops a catalog object no query of the job reads.
fn harmless_drops(plan: &Plan) -> impl Iterator<Item = &UndeclaredDrop> {
    let read: BTreeSet<&str> = plan
        .queries
        .iter()
        .flat_map(|q| q.sources.iter().chain(&q.views))
        .map(String::as_str)
        .collect();
    plan.catalog
        .drops
        .iter()
        .filter(move |d| d.if_exists && !read.contains(d.identity.as_str()))
}

/// The names whose skipped `CREATE ... IF NOT EXISTS` statements differ between the scripts.
fn skipped_definitions_changed(old: &Plan, new: &Plan) -> Vec<String> {
    fn skipped(plan: &Plan) -> std::collections::BTreeMap<&str, Vec<Option<String>>> {
        let definitions = plan.catalog.skipped.iter().map(|(n, d)| (n.as_str(), d));
        definitions_by_name(plan, definitions)
    }
    names_differing(&skipped(old), &skipped(new))
}

/// The names whose hidden catalog definitions (created under the name of a TEMPORARY table or
/// view, which hides them to the end of the script) differ between the scripts.
fn hidden_definitions_changed(old: &Plan, new: &Plan) -> Vec<String> {
    fn hidden(plan: &Plan) -> std::collections::BTreeMap<&str, Vec<Option<String>>> {
        definitions_by_name(plan, plan.catalog.hidden())
    }
    names_differing(&hidden(old), &hidden(new))
}

/// The names whose definitions differ between the two sides (present on one side only, or
/// declared otherwise), sorted.
fn names_differing(
    old: &std::collections::BTreeMap<&str, Vec<Option<String>>>,
    new: &std::collections::BTreeMap<&str, Vec<Option<String>>>,
) -> Vec<String> {
    let mut names: Vec<&str> = old.keys().chain(new.keys()).copied().collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter(|name| old.get(name) != new.get(name))
        .map(str::to_string)
        .collect()
}

/// The names of the tables and views both jobs' queries read or write whose declarations
/// differ in what no operator reads (COMMENT clauses, TEMPORARY, IF NOT EXISTS), and of the
/// functions declared TEMPORARY or SYSTEM on one side only (a SYSTEM one under a name no
/// built-in function has: called alike), sorted.
fn metadata_changed(old: &Plan, new: &Plan) -> Vec<String> {
    /// TEMPORARY, IF NOT EXISTS and the COMMENT clauses of a declaration.
    type Marks = (bool, bool, String);
    fn metadata(plan: &Plan) -> std::collections::BTreeMap<&str, (String, Marks)> {
        let catalog = &plan.catalog;
        used_keys(plan)
            .into_iter()
            .filter_map(|key| {
                let (name, marks) = match (catalog.tables.get(key), catalog.views.get(key)) {
                    (Some(table), _) => {
                        let def = &table.def;
                        // Column comments in any order: a reorder of the columns themselves is
                        // judged by the operators that store rows in the DDL's order.
                        let mut comments = def.comments.clone();
                        comments.sort();
                        let marks = (def.temporary, def.if_not_exists, comments.join(", "));
                        (def.name.dotted(), marks)
                    }
                    (None, Some(view)) => {
                        let def = &view.def;
                        let comment = def.comment.clone().unwrap_or_default();
                        (
                            def.name.dotted(),
                            (def.temporary, def.if_not_exists, comment),
                        )
                    }
                    (None, None) => return None,
                };
                Some((key, (name, marks)))
            })
            .collect()
    }
    // A function declared TEMPORARY (or SYSTEM) on one side only, its implementation and
    // resolution kept.
    let declared_once = |plan: &Plan, name: &str| {
        let declarations = plan.catalog.function_declarations.iter();
        declarations.filter(|(n, _)| n == name).count() == 1
    };
    let functions = old.catalog.functions.iter().filter(|(name, f)| {
        // A name declared twice is resolved among its declarations: `changed_functions`.
        declared_once(old, name)
            && declared_once(new, name)
            && new.catalog.functions.get(*name).is_some_and(|g| {
                (g.def.temporary != f.def.temporary || g.def.system != f.def.system)
                    && (&g.def.class, g.def.language, &g.def.resources)
                        == (&f.def.class, f.def.language, &f.def.resources)
                    && !system_toggle_matters(f, g)
            })
    });
    let functions: Vec<String> = functions.map(|(_, f)| f.def.name.dotted()).collect();
    let (old, new) = (metadata(old), metadata(new));
    let mut names: Vec<String> = old
        .iter()
        .filter(|(key, (_, marks))| new.get(*key).is_some_and(|(_, other)| other != marks))
        .map(|(_, (name, _))| name.clone())
        .chain(functions)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The DROPs of declared names one script has and the other has not.
fn drops_changed(old: &Plan, new: &Plan) -> Vec<String> {
    let with_harmless = |plan: &Plan| -> Vec<String> {
        let mut drops = plan.catalog.modelled_drops.clone();
        drops.extend(harmless_drops(plan).map(|d| d.resolved.clone()));
        drops
    };
    let (old, new) = (&with_harmless(old), &with_harmless(new));
    if old == new {
        return Vec::new();
    }
    let mut changed: Vec<String> = old
        .iter()
        .filter(|d| !new.contains(d))
        .chain(new.iter().filter(|d| !old.contains(d)))
        .cloned()
        .collect();
    if changed.is_empty() {
        // The same DROPs in another order.
        changed = old.clone();
    }
    changed.sort();
    changed.dedup();
    changed
}

/// The definitions of each name (skipped or hidden), as the tool plans them (spelling aside).
fn definitions_by_name<'a>(
    plan: &Plan,
    definitions: impl Iterator<Item = (&'a str, &'a crate::catalog::Skipped)>,
) -> std::collections::BTreeMap<&'a str, Vec<Option<String>>> {
    use crate::catalog::Skipped;
    use crate::plan::source_table::table_signature;
    let mut by_name: std::collections::BTreeMap<&str, Vec<Option<String>>> = Default::default();
    for (name, skipped) in definitions {
        let definition = match skipped {
            Skipped::Table(table) => Some(table_signature(table)),
            Skipped::View(view) => planned_view(plan, view),
        };
        by_name.entry(name).or_default().push(definition);
    }
    by_name
}

/// TEMPORARY TABLEs of the old script removed or declared otherwise in the new one.
fn temporary_tables_changed(old: &Plan, new: &Plan) -> Vec<String> {
    use crate::plan::source_table::same_signature;
    old.catalog
        .tables
        .iter()
        .filter(|(name, t)| t.def.temporary && !old.catalog.is_replaced(name))
        .filter(|(name, t)| {
            new.catalog
                .tables
                .get(*name)
                .is_none_or(|n| !same_signature(n, t))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Whether a function declared SYSTEM on one side only resolves otherwise: a system function is
/// resolved before the built-in functions, a catalog one after them, so only a function named
/// as a built-in one is called otherwise.
fn system_toggle_matters(old: &crate::catalog::Function, new: &crate::catalog::Function) -> bool {
    let name = old.def.name.last();
    old.def.system != new.def.system
        && (crate::plan::functions::is_builtin_scalar(name)
            || crate::plan::functions::is_builtin_aggregate(name))
}

/// Functions declared in the old job and removed, or declared again with another class,
/// language or resources (`USING JAR`); and functions declared in the new job only that the old
/// job calls: a call the old job resolved otherwise (a built-in function, which a temporary
/// system function replaces, or one of a catalog).
fn changed_functions(old: &Plan, new: &Plan) -> Vec<String> {
    // A function renamed with its implementation kept (`Catalog::functions_renamed`) is the
    // same computation under a new name: neither removed nor added.
    let renamed = |name: &String| new.catalog.functions_renamed.values().any(|o| o == name);
    let replaced = old.catalog.functions.iter().filter(|(name, f)| {
        !renamed(name)
            && new.catalog.functions.get(*name).is_none_or(|g| {
                g.def.class != f.def.class
                    || g.def.language != f.def.language
                    || g.def.resources != f.def.resources
                    || system_toggle_matters(f, g)
            })
    });
    let mut new_only = new_functions(old, new).peekable();
    let called = match new_only.peek() {
        Some(_) => called_functions(old),
        None => HashSet::new(),
    };
    let shadowing = new_only.filter(|(name, _)| called.contains(name.as_str()));
    let mut changed: Vec<String> = replaced
        .chain(shadowing)
        .map(|(_, f)| f.def.name.last().to_string())
        .collect();
    for name in ambiguous_functions_resolved_otherwise(old, new) {
        if !changed.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
            changed.push(name);
        }
    }
    changed
}

/// Function names declared more than once in either job (in two databases, TEMPORARY beside a
/// catalog function, a temporary system function beside a temporary one), whose declarations or
/// the `USE` statements (where queries and views resolve names from) differ between the jobs: a call
/// of such a name may resolve to another implementation, which the tool does not model.
fn ambiguous_functions_resolved_otherwise(old: &Plan, new: &Plan) -> Vec<String> {
    let declarations = |plan: &Plan, name: &str| -> Vec<String> {
        plan.catalog
            .function_declarations
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
            .collect()
    };
    let mut names: Vec<&String> = old
        .catalog
        .function_declarations
        .iter()
        .chain(new.catalog.function_declarations.iter())
        .map(|(n, _)| n)
        .collect();
    names.sort();
    names.dedup();
    let same_paths = old.catalog.paths_used == new.catalog.paths_used;
    names
        .into_iter()
        .filter(|name| {
            let (o, n) = (declarations(old, name), declarations(new, name));
            (o.len() > 1 || n.len() > 1) && (o != n || !same_paths)
        })
        .map(|name| name.to_lowercase())
        .collect()
}

/// The names the script calls as functions (`name(`, `db.name (`), upper-cased as the catalog
/// keys functions.
fn called_functions(plan: &Plan) -> HashSet<String> {
    use crate::sql::dialect::FlinkDialect;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let Ok(tokens) = Tokenizer::new(&FlinkDialect, &plan.file.text).tokenize() else {
        return HashSet::new();
    };
    let mut words = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_)));
    let mut called = HashSet::new();
    let mut previous = words.next();
    for token in words {
        if let (Some(Token::Word(word)), Token::LParen) = (previous, token) {
            called.insert(word.value.to_uppercase());
        }
        previous = Some(token);
    }
    called
}

/// The functions the new job declares and the old one does not.
fn new_functions<'p>(
    old: &'p Plan,
    new: &'p Plan,
) -> impl Iterator<Item = (&'p String, &'p crate::catalog::Function)> {
    new.catalog
        .functions
        .iter()
        .filter(|(name, _)| !old.catalog.functions.contains_key(*name))
}

/// Tables and views whose definitions no query reads were added, removed or declared
/// otherwise, by name: a name no query of either job reads, or a definition read by no query
/// of a name both jobs read (one replaced before a query read it, one declared after the last).
/// A name only one job reads is judged by the queries that read it.
fn unused_tables_changed(old: &Plan, new: &Plan) -> Vec<String> {
    // Once per job, not a scan of every query per table: a deployment declares a table per query.
    let (old_used, new_used) = (used_keys(old), used_keys(new));
    let mut names: Vec<&str> = [old, new]
        .into_iter()
        .flat_map(|plan| {
            let catalog = &plan.catalog;
            catalog
                .tables
                .keys()
                .chain(catalog.views.keys())
                .filter(|key| !catalog.is_replaced(key))
                .map(String::as_str)
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter(|name| {
            let read = |plan: &Plan, used: &HashSet<&str>| {
                plan.catalog.keys_of(name).any(|key| used.contains(key))
            };
            read(old, &old_used) == read(new, &new_used)
                && unused_definitions(old, name, &old_used)
                    != unused_definitions(new, name, &new_used)
        })
        .map(str::to_string)
        .collect()
}

/// The keys of the definitions the queries of `plan` read or write.
fn used_keys(plan: &Plan) -> HashSet<&str> {
    plan.queries
        .iter()
        .flat_map(|q| {
            q.sink
                .iter()
                .chain(&q.sources)
                .chain(&q.views)
                .map(move |name| plan.catalog.key_at(name, q.ordinal))
        })
        .collect()
}

/// The definitions of `name` no query of `plan` reads, oldest first, as the tool plans them.
fn unused_definitions(plan: &Plan, name: &str, used: &HashSet<&str>) -> Vec<String> {
    use crate::plan::source_table::table_signature;
    let catalog = &plan.catalog;
    catalog
        .keys_of(name)
        .filter(|key| !used.contains(key))
        .filter_map(
            |key| match (catalog.tables.get(key), catalog.views.get(key)) {
                (Some(table), _) => Some(format!("table {}", table_signature(table))),
                (None, Some(view)) => planned_view(plan, view).map(|v| format!("view {v}")),
                (None, None) => None,
            },
        )
        .collect()
}

/// What `view` is as the tool plans it: its output's lineage and the operators it would plan,
/// so that a view spelled otherwise (a predicate turned around, names qualified) is the same
/// view. A view the tool cannot plan on its own is its canonical text.
fn planned_view(plan: &Plan, view: &crate::catalog::View) -> Option<String> {
    let mut notes = crate::notes::Notes::default();
    let mut builder = crate::plan::builder::Builder::new(&plan.catalog, &plan.file, &mut notes);
    builder.path = view.path.clone();
    let planned = builder
        .query(&view.def.query)
        .and_then(|relation| builder.finish_rank(relation, view.span));
    Some(match planned {
        Ok(relation) => {
            let operators: Vec<String> = builder
                .operators
                .iter()
                .map(|op| format!("{:?} {}", op.kind, op.facts_text()))
                .collect();
            format!("{} {}", relation.lineage(), operators.join("; "))
        }
        Err(_) => crate::sql::canonical_text(plan.file.slice(view.span)),
    })
}

/// The warnings of the new script (mistakes Flink's planner rejects, resolved as the author
/// evidently meant) when it has more than the old one: the new script differs where the
/// resolved plans may not show it. Counted, not matched by text, so that a rewrite spelling
/// the same mistake otherwise (keyword case, operators) adds none; the ones the old script
/// does not have (ignoring case) are listed, else all of them.
fn warnings_added(old: &Plan, new: &Plan) -> Vec<String> {
    use crate::notes::NoteKind;
    let warnings = |plan: &'_ Plan| -> Vec<String> {
        let mut all: Vec<String> = plan
            .notes
            .items
            .iter()
            .chain(&plan.catalog.notes.items)
            .filter(|n| n.kind == NoteKind::Warning)
            .map(|n| n.message.clone())
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let (before, after) = (warnings(old), warnings(new));
    if after.len() <= before.len() {
        return Vec::new();
    }
    let known: Vec<String> = before.iter().map(|w| w.to_lowercase()).collect();
    let added: Vec<String> = after
        .iter()
        .filter(|w| !known.contains(&w.to_lowercase()))
        .cloned()
        .collect();
    if added.is_empty() {
        after
    } else {
        added
    }
}

/// Functions the new job declares and the old one neither declares nor calls (see
/// [`changed_functions`]).
fn added_functions(old: &Plan, new: &Plan) -> Vec<String> {
    // A renamed function (`Catalog::functions_renamed`) is not new: the old job declared it.
    let mut new_only = new_functions(old, new)
        .filter(|(name, _)| !new.catalog.functions_renamed.contains_key(*name))
        .peekable();
    if new_only.peek().is_none() {
        return Vec::new();
    }
    let called = called_functions(old);
    new_only
        .filter(|(name, _)| !called.contains(name.as_str()))
        .map(|(_, f)| f.def.name.last().to_string())
        .collect()
}
