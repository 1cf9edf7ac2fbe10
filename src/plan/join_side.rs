//! One input of a join, shared along a chain of joins: in `t0 JOIN t1 ON .. JOIN t2 ON ..`
//! the left input of each join is the previous join's output, a prefix of one store that each
//! join extends with its right input. No join copies its left input, and every question a join
//! asks of an input (does it hold this column, this table, this time attribute?) is a lookup
//! in the store's indexes, so a chain of n joins costs O(n), not O(n²).

use super::expr::CExpr;
use super::join::collect_atoms;
use super::scope::{looks_like_time, Column, Relation};
use crate::catalog::TimeKind;
use foldhash::HashMap;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The columns, tables without DDL and atoms of a chain's inputs, in join order, indexed.
#[derive(Debug, Default)]
struct Store {
    columns: Vec<Column>,
    /// The positions of the columns with each canonical text, ascending.
    by_canonical: HashMap<String, Vec<usize>>,
    open_tables: Vec<String>,
    /// The first position of each table without DDL.
    open_index: HashMap<String, usize>,
    /// The step (input appended) at which each atom first appears.
    atoms: HashMap<String, usize>,
    steps: usize,
}

impl Store {
    fn push(&mut self, columns: &[Column], open_tables: &[String]) {
        let step = self.steps;
        let mut atoms = BTreeSet::new();
        for column in columns {
            collect_atoms(&column.expr, &mut atoms);
            let position = self.columns.len();
            self.by_canonical
                .entry(column.expr.canonical())
                .or_default()
                .push(position);
            self.columns.push(column.clone());
        }
        for table in open_tables {
            atoms.insert(table.clone());
            self.open_index
                .entry(table.clone())
                .or_insert(self.open_tables.len());
            self.open_tables.push(table.clone());
        }
        for atom in atoms {
            self.atoms.entry(atom).or_insert(step);
        }
        self.steps += 1;
    }
}

/// One input of a join: a prefix of a store (its columns, tables without DDL and atoms).
#[derive(Debug, Clone)]
pub struct Side {
    store: Rc<RefCell<Store>>,
    columns: usize,
    open_tables: usize,
    steps: usize,
}

impl Side {
    fn new(columns: &[Column], open_tables: &[String]) -> Side {
        let mut store = Store::default();
        store.push(columns, open_tables);
        Side {
            columns: store.columns.len(),
            open_tables: store.open_tables.len(),
            steps: store.steps,
            store: Rc::new(RefCell::new(store)),
        }
    }

    /// The input a relation is.
    pub fn of(relation: &Relation) -> Side {
        let open: Vec<String> = relation
            .open_tables
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        Side::new(&relation.columns, &open)
    }

    /// The output of a join of `self` (left) with a right input of `columns` and `open_tables`:
    /// shares `self`'s store when `self` is its last input (a chain), copies it otherwise.
    pub fn joined(&self, columns: &[Column], open_tables: &[String]) -> Side {
        let at_tip = {
            let store = self.store.borrow();
            store.columns.len() == self.columns
                && store.open_tables.len() == self.open_tables
                && store.steps == self.steps
        };
        if !at_tip {
            let store = self.store.borrow();
            let copy = Side::new(
                &store.columns[..self.columns],
                &store.open_tables[..self.open_tables],
            );
            drop(store);
            return copy.joined(columns, open_tables);
        }
        let mut store = self.store.borrow_mut();
        store.push(columns, open_tables);
        Side {
            store: Rc::clone(&self.store),
            columns: store.columns.len(),
            open_tables: store.open_tables.len(),
            steps: store.steps,
        }
    }

    /// How many columns the input has.
    pub fn len(&self) -> usize {
        self.columns
    }

    pub fn is_empty(&self) -> bool {
        self.columns == 0
    }

    /// Whether the input reads tables without DDL.
    pub fn has_open_tables(&self) -> bool {
        self.open_tables > 0
    }

    /// Whether none of its columns is a time attribute.
    pub fn untimed(&self) -> bool {
        self.store.borrow().columns[..self.columns]
            .iter()
            .all(|c| c.time.is_none())
    }

    /// Whether the input is made of this table instance or upstream value.
    pub fn contains_atom(&self, atom: &str) -> bool {
        self.store
            .borrow()
            .atoms
            .get(atom)
            .is_some_and(|&step| step < self.steps)
    }

    /// The first of its columns with this canonical text.
    fn first(&self, store: &Store, canonical: &str) -> Option<usize> {
        store
            .by_canonical
            .get(canonical)
            .and_then(|p| p.first().copied())
            .filter(|&p| p < self.columns)
    }

    /// Whether `canonical` is a column `table.column` of one of its tables without DDL.
    fn open_column(&self, store: &Store, canonical: &str) -> bool {
        canonical.match_indices('.').any(|(at, _)| {
            store
                .open_index
                .get(&canonical[..at])
                .is_some_and(|&p| p < self.open_tables)
                && !canonical[at + 1..].contains([' ', '('])
        })
    }

    /// Every column the input holds, canonical, in its order (what a join beneath a ranking
    /// carries: Flink prunes nothing beneath a ranking).
    pub fn all_columns(&self) -> Vec<String> {
        let store = self.store.borrow();
        let mut seen = BTreeSet::new();
        let mut out: Vec<String> = Vec::new();
        for column in &store.columns[..self.columns] {
            let canonical = column.expr.canonical();
            if seen.insert(canonical.clone()) {
                out.push(canonical);
            }
        }
        out
    }

    /// The columns of `used` the input holds: its own in its order, then those of its tables
    /// without DDL (known only from their use).
    pub fn input_fact(&self, used: &BTreeSet<String>) -> Vec<String> {
        let store = self.store.borrow();
        let mut own: Vec<(usize, &String)> = used
            .iter()
            .filter_map(|c| self.first(&store, c).map(|p| (p, c)))
            .collect();
        own.sort();
        let mut out: Vec<String> = own.into_iter().map(|(_, c)| c.clone()).collect();
        for canonical in used {
            let own = self.first(&store, canonical).is_some();
            if !own && self.open_column(&store, canonical) {
                out.push(canonical.clone());
            }
        }
        out
    }

    /// Its event-time attributes, in its order: the versioned side of a temporal join keeps
    /// each version with its time, read or not.
    pub fn rowtime_columns(&self) -> Vec<CExpr> {
        let store = self.store.borrow();
        store.columns[..self.columns]
            .iter()
            .filter(|c| c.time == Some(TimeKind::Rowtime))
            .map(|c| c.expr.clone())
            .collect()
    }

    /// Its time attributes that `terms` read, in its order; for a table without DDL, the
    /// columns of `terms` whose name looks like a time (documentation style). (A time attribute
    /// no term reads bounds nothing: the join's time bounds are read from these terms.)
    pub fn time_columns(&self, terms: &[CExpr]) -> Vec<(String, TimeKind)> {
        let store = self.store.borrow();
        let mut parts = BTreeSet::new();
        for term in terms {
            subtrees(term, &mut parts);
        }
        let mut declared: Vec<(usize, String, TimeKind)> = Vec::new();
        for canonical in &parts {
            for &p in store.by_canonical.get(canonical).into_iter().flatten() {
                if p >= self.columns {
                    break;
                }
                if let Some(time) = store.columns[p].time {
                    declared.push((p, canonical.clone(), time));
                }
            }
        }
        declared.sort_by_key(|(p, ..)| *p);
        let mut times: Vec<(String, TimeKind)> =
            declared.into_iter().map(|(_, c, t)| (c, t)).collect();
        let mut read = Vec::new();
        for term in terms {
            term.source_columns(&mut read);
        }
        for (table, column) in read {
            let open = store
                .open_index
                .get(&table)
                .is_some_and(|&p| p < self.open_tables);
            if open {
                let kind = if column.eq_ignore_ascii_case("proctime") {
                    TimeKind::Proctime
                } else if looks_like_time(&column) {
                    TimeKind::Rowtime
                } else {
                    continue;
                };
                let canonical = CExpr::Column { table, column }.canonical();
                if !times.iter().any(|(c, _)| *c == canonical) {
                    times.push((canonical, kind));
                }
            }
        }
        times
    }
}

fn subtrees(expr: &CExpr, out: &mut BTreeSet<String>) {
    out.insert(expr.canonical());
    expr.children().into_iter().for_each(|c| subtrees(c, out));
}
