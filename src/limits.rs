//! Explicit limits on what the tool reads, so no input can exhaust memory, time or stack.

/// Largest SQL script read, in bytes: a deployment of 100,000 INSERTs, each with its sink's
/// CREATE TABLE (30 MB), is read; checking two of them takes about 6 GB of memory.
pub const MAX_SCRIPT_BYTES: usize = 32 * 1024 * 1024;
/// Most statements in one script (such a deployment has 200,008).
pub const MAX_STATEMENTS: usize = 250_000;
/// Most tokens (words, symbols, literals; not whitespace, comments or commas) in one statement.
/// It bounds the chains sqlparser builds without recursing (`a AND b AND ...`, `... UNION ALL
/// ...`), whose depth the nesting limit below does not see but the planner recurses into. Commas
/// separate the items of lists (columns, arguments, `IN` values, `FROM` items), which are read
/// in loops, not chains: a CREATE TABLE of 20,000 columns is within the limit.
pub const MAX_STATEMENT_TOKENS: usize = 50_000;
/// Deepest nesting of expressions and subqueries sqlparser may recurse into.
pub const MAX_SQL_NESTING: usize = 200;
/// Stack size of the thread that parses and plans (deep SQL recurses): enough for the deepest
/// chain the token limit lets through, in an unoptimized build too. Only the pages a script
/// actually needs are ever touched.
pub const PARSER_STACK_BYTES: usize = 1024 * 1024 * 1024;
/// Largest rule or case file read, in bytes.
pub const MAX_YAML_BYTES: usize = 4 * 1024 * 1024;
/// Most rules loaded in total.
pub const MAX_RULES: usize = 10_000;
/// Deepest nesting of views inside views.
pub const MAX_VIEW_DEPTH: usize = 64;
/// Most CTE reads planned again in one query (each read of a CTE after its first is planned as
/// its own copy; a WITH whose CTEs each read the one before twice doubles them at each step).
/// Past it, later reads share the first copy.
pub const MAX_CTE_REPLANS: usize = 64;
/// Deepest nesting of a rule predicate; parentheses, lists, function calls and `not` each add a
/// level. It keeps the recursive parser and evaluator far from the end of the stack.
pub const MAX_PREDICATE_DEPTH: usize = 64;
/// Longest rule predicate or message, in bytes.
pub const MAX_PREDICATE_BYTES: usize = 16 * 1024;
