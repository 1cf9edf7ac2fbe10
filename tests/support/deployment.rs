//! Generates large deployment scripts for the robustness tests and the benchmarks: a few
//! source tables and, per query, a sink table and one `INSERT` that is a window aggregate, a
//! deduplication or an OVER aggregate, in turn.

/// Source tables the queries read, one after another.
const SOURCES: usize = 8;

/// The old and new scripts of a deployment with `queries` INSERT statements. The new script adds
/// an aggregate to every tenth window aggregate (kept state plus new state: partially
/// compatible) and leaves everything else as it was.
pub fn pair(queries: usize) -> (String, String) {
    (script(queries, false), script(queries, true))
}

/// One deployment script with `queries` INSERT statements.
pub fn script(queries: usize, changed: bool) -> String {
    let mut sql = String::with_capacity(queries * 600);
    for s in 0..SOURCES {
        sql.push_str(&format!(
            "CREATE TEMPORARY TABLE events_{s} (\n  user_id BIGINT,\n  item STRING,\n  \
             amount DOUBLE,\n  ts TIMESTAMP(3),\n  pt AS PROCTIME(),\n  \
             WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n) WITH ('connector' = 'kafka', \
             'topic' = 'events_{s}', 'format' = 'json');\n\n"
        ));
    }
    for q in 0..queries {
        let source = format!("events_{}", q % SOURCES);
        let (columns, query) = match q % 3 {
            0 => window_aggregate(q, &source, changed && q % 10 == 0),
            1 => deduplication(&source),
            _ => over_aggregate(&source),
        };
        sql.push_str(&format!(
            "CREATE TEMPORARY TABLE sink_{q} ({columns}) WITH ('connector' = 'print');\n\n\
             INSERT INTO sink_{q}\n{query};\n\n"
        ));
    }
    sql
}

fn window_aggregate(q: usize, source: &str, extra: bool) -> (String, String) {
    let minutes = 1 + q % 5;
    let (extra_column, extra_aggregate) = if extra {
        (", biggest DOUBLE", ",\n       MAX(amount)")
    } else {
        ("", "")
    };
    (
        format!(
            "user_id BIGINT, window_start TIMESTAMP(3), events BIGINT, total DOUBLE{extra_column}"
        ),
        format!(
            "SELECT user_id,\n       TUMBLE_START(ts, INTERVAL '{minutes}' MINUTE),\n       \
             COUNT(*),\n       SUM(amount){extra_aggregate}\nFROM {source}\n\
             GROUP BY user_id, TUMBLE(ts, INTERVAL '{minutes}' MINUTE)"
        ),
    )
}

fn deduplication(source: &str) -> (String, String) {
    (
        "user_id BIGINT, item STRING, amount DOUBLE".into(),
        format!(
            "SELECT user_id, item, amount FROM (\n  SELECT *, ROW_NUMBER() OVER (\n    \
             PARTITION BY user_id ORDER BY pt DESC) AS rn\n  FROM {source})\nWHERE rn = 1"
        ),
    )
}

fn over_aggregate(source: &str) -> (String, String) {
    (
        "user_id BIGINT, amount DOUBLE, recent_total DOUBLE".into(),
        format!(
            "SELECT user_id, amount,\n       SUM(amount) OVER (PARTITION BY user_id ORDER BY ts\n         \
             ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS recent_total\nFROM {source}"
        ),
    )
}

/// One INSERT reading a left-deep chain of `tables` joins (`t0 JOIN t1 ON t0.k = t1.k JOIN
/// ...`), each table declared with a key and a column of its own.
pub fn join_chain(tables: usize) -> String {
    let mut sql = String::with_capacity(tables * 120);
    for t in 0..tables {
        sql.push_str(&format!(
            "CREATE TABLE t{t} (k BIGINT, v{t} BIGINT) WITH ('connector' = 'datagen');\n"
        ));
    }
    sql.push_str(&open_join_chain(tables));
    sql
}

/// The join chain of `join_chain` over tables without DDL (documentation style): every column
/// is known only from its use.
pub fn open_join_chain(tables: usize) -> String {
    let mut sql = String::with_capacity(tables * 40);
    let last = tables.saturating_sub(1);
    sql.push_str(&format!(
        "INSERT INTO s SELECT t0.k, t{last}.v{last} FROM t0"
    ));
    for t in 1..tables {
        sql.push_str(&format!(" JOIN t{t} ON t{}.k = t{t}.k", t - 1));
    }
    sql.push_str(";\n");
    sql
}

/// One INSERT selecting `columns` columns (`c0, c1, ...`) of one table, declared when `ddl`.
pub fn wide_select(columns: usize, ddl: bool) -> String {
    let mut sql = String::with_capacity(columns * 30);
    if ddl {
        let declared: Vec<String> = (0..columns).map(|c| format!("c{c} BIGINT")).collect();
        sql.push_str(&format!(
            "CREATE TABLE wide ({}) WITH ('connector' = 'datagen');\n",
            declared.join(", ")
        ));
    }
    let selected: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
    sql.push_str(&format!(
        "INSERT INTO s SELECT {} FROM wide;\n",
        selected.join(", ")
    ));
    sql
}
