"""Reading a Flink SQL script the way the plan lab needs it: split into statements, each
classified, and its CREATE TABLE options replaced by the lab's stand-in connector."""

import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def tokens(text):
    """(kind, text, start, end) of each token: 'str' ('...'), 'ident' (`...` or "..."), 'word',
    'sym', skipping whitespace and comments."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith("/*", i) and not text.startswith("/*+", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c in "'`\"":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            yield ("str" if c == "'" else "ident", text[i:j + 1], i, j + 1)
            i = j + 1
        else:
            m = _WORD.match(text, i)
            if m:
                yield ("word", m.group(0), i, m.end())
                i = m.end()
            else:
                yield ("sym", c, i, i + 1)
                i += 1


def split_statements(text):
    """The statements of a script, each as its text without the final `;`. A statement set
    (`BEGIN STATEMENT SET; ... END;` or `EXECUTE STATEMENT SET BEGIN ... END;`) is one statement."""
    out, start, in_set, words = [], 0, False, []
    for kind, tok, s, e in tokens(text):
        if kind == "word":
            words.append(tok.upper())
            words = words[-3:]
            if words[-3:] == ["BEGIN", "STATEMENT", "SET"] or words[-3:] == ["STATEMENT", "SET", "BEGIN"]:
                in_set = True
        if kind == "sym" and tok == ";":
            stmt = text[start:s].strip()
            last = words[-1:] == ["END"]
            if in_set and not last:
                continue
            if stmt:
                out.append(stmt)
            start, in_set, words = e, False, []
    rest = text[start:].strip()
    if rest and any(True for _ in tokens(rest)):
        out.append(rest)
    return out


def head_words(stmt, count=6):
    return [t[1].upper() for t in tokens(stmt) if t[0] == "word"][:count]


def classify(stmt):
    """query | statement_set | set | reset | create_table | ctas | skip | execute."""
    w = head_words(stmt, 8)
    if not w:
        return "skip"
    first = w[0]
    if first in ("INSERT", "SELECT", "WITH", "VALUES", "TABLE"):
        return "query"
    if first == "(" or stmt.lstrip().startswith("("):
        return "query"
    if w[:3] == ["BEGIN", "STATEMENT", "SET"] or w[:3] == ["EXECUTE", "STATEMENT", "SET"]:
        return "statement_set"
    if first == "EXECUTE" and len(w) > 1 and w[1] == "INSERT":
        return "query_execute"
    if first == "SET":
        return "set"
    if first == "RESET":
        return "reset"
    if first == "CREATE" and "TABLE" in w[:4]:
        return "ctas" if _is_ctas(stmt) else "create_table"
    if first == "CREATE" and "CATALOG" in w[:2]:
        return "create_catalog"
    if first in ("SHOW", "DESCRIBE", "DESC", "EXPLAIN", "ADD", "REMOVE", "CALL", "ANALYZE",
                 "TRUNCATE", "UPDATE", "DELETE", "COMPILE", "EXECUTE"):
        return "skip"
    return "execute"


def _is_ctas(stmt):
    depth = 0
    for kind, tok, _, _ in tokens(stmt):
        if kind == "sym" and tok == "(":
            depth += 1
        elif kind == "sym" and tok == ")":
            depth -= 1
        elif kind == "word" and depth == 0 and tok.upper() == "AS":
            return True
    return False


def statement_set_members(stmt):
    """The INSERTs inside a statement set."""
    toks = list(tokens(stmt))
    begin = None
    for i, t in enumerate(toks):
        if t[0] == "word" and t[1].upper() == "BEGIN":
            begin = i
            break
    if begin is None:
        return []
    # after `BEGIN STATEMENT SET ;` or `... SET BEGIN`
    j = begin + 1
    while j < len(toks) and toks[j][0] == "word" and toks[j][1].upper() in ("STATEMENT", "SET"):
        j += 1
    if j < len(toks) and toks[j][1] == ";":
        j += 1
    end = len(toks)
    for k in range(len(toks) - 1, j - 1, -1):
        if toks[k][0] == "word" and toks[k][1].upper() == "END":
            end = k
            break
    if j >= end:
        return []
    body = stmt[toks[j][2]:toks[end][2]]
    return [s for s in split_statements(body) if classify(s) == "query"]


def _unquote(tok):
    if tok[0] in "'`\"":
        return tok[1:-1].replace(tok[0] * 2, tok[0])
    return tok


def parse_set(stmt):
    """(key, value) of `SET 'k' = 'v'` (or `SET k = v`), or None."""
    toks = [t for t in tokens(stmt)][1:]
    if not toks:
        return None
    eq = next((i for i, t in enumerate(toks) if t[1] == "="), None)
    if eq is None:
        return None
    key = "".join(_unquote(t[1]) for t in toks[:eq]).strip()
    value = stmt[toks[eq + 1][2]:].strip() if eq + 1 < len(toks) else ""
    return key, _unquote(value) if value[:1] in "'\"`" else value


CDC_FORMATS = ("debezium-json", "debezium-avro-confluent", "canal-json", "maxwell-json", "ogg-json",
               "debezium-protobuf", "changelog-json")


def changelog_of(options, keyed=True):
    """What the real connector produces: insert, upsert or all (what the stand-in imitates), for
    a table with a primary key or not (`keyed`)."""
    connector = options.get("connector", "").lower()
    formats = [v.lower() for k, v in options.items() if k == "format" or k.endswith(".format")]
    is_true = lambda key: options.get(key, "").strip().lower() == "true"
    cdc = connector.endswith("-cdc")
    # Flink CDC switches: every change read as an INSERT; postgres-cdc's changelog-mode
    # all / upsert; mongodb-cdc emits upserts unless it reads full changelogs.
    if cdc and is_true("scan.read-changelog-as-append-only.enabled"):
        return "insert"
    mode = options.get("changelog-mode", "").upper().replace(" ", "")
    if mode in ("UPSERT", "ALL"):
        return mode.lower()
    if connector == "upsert-kafka":
        return "upsert"
    if connector == "mongodb-cdc" and not is_true("scan.full-changelog"):
        return "upsert"
    # Paimon (BaseDataTableSource.getChangelogMode): an append table emits inserts; a primary-key
    # table upserts, unless first-row merging, scan.remove-normalize or a changelog producer.
    if connector == "paimon":
        if not keyed or options.get("merge-engine", "").strip().lower() == "first-row":
            return "insert"
        producer = options.get("changelog-producer", "none").strip().lower()
        return "all" if is_true("scan.remove-normalize") or producer != "none" else "upsert"
    if cdc or any(f in CDC_FORMATS or f.endswith("-cdc") for f in formats):
        return "all"
    if mode:
        kinds = set(mode.split(","))
        if "UB" in kinds:
            return "all"
        if kinds - {"I"}:
            return "upsert"
    return "insert"


def _with_options(stmt):
    """(start, end, options) of the top-level WITH (...) of a CREATE TABLE, or None."""
    toks = list(tokens(stmt))
    depth = 0
    for i, (kind, tok, s, e) in enumerate(toks):
        if kind == "sym" and tok == "(":
            depth += 1
        elif kind == "sym" and tok == ")":
            depth -= 1
        elif (kind == "word" and depth == 0 and tok.upper() == "WITH" and i + 1 < len(toks)
              and toks[i + 1][1] == "("):
            d, j = 0, i + 1
            while j < len(toks):
                if toks[j][1] == "(":
                    d += 1
                elif toks[j][1] == ")":
                    d -= 1
                    if d == 0:
                        break
                j += 1
            inner = toks[i + 2:j]
            options = {}
            k = 0
            while k + 2 < len(inner) + 1 and k < len(inner):
                if k + 2 < len(inner) and inner[k + 1][1] == "=":
                    options[_unquote(inner[k][1]).lower()] = _unquote(inner[k + 2][1])
                    k += 3
                else:
                    k += 1
                if k < len(inner) and inner[k][1] == ",":
                    k += 1
            return s, (toks[j][3] if j < len(toks) else len(stmt)), options
    return None


def _has_like(stmt):
    depth = 0
    for kind, tok, _, _ in tokens(stmt):
        if kind == "sym" and tok == "(":
            depth += 1
        elif kind == "sym" and tok == ")":
            depth -= 1
        elif kind == "word" and depth == 0 and tok.upper() == "LIKE":
            return True
    return False


def stand_in_table(stmt):
    """The CREATE TABLE with its WITH options replaced by the stand-in connector (keeping what
    the real connector's changelog mode is), and the original options."""
    found = _with_options(stmt)
    if found is None:
        if _has_like(stmt):
            return stmt, {}
        options = {}
        return stmt + " WITH ('connector' = 'plan-stand-in', 'stand-in.changelog' = 'insert')", options
    s, e, options = found
    keyed = re.search(r"\bPRIMARY\s+KEY\b", stmt[:s], re.I) is not None
    clause = "WITH ('connector' = 'plan-stand-in', 'stand-in.changelog' = '%s')" % changelog_of(
        options, keyed)
    return stmt[:s] + clause + stmt[e:], options


def stand_in_catalog(stmt):
    """A CREATE CATALOG of any type becomes an in-memory catalog of the same name."""
    found = _with_options(stmt)
    clause = "WITH ('type' = 'generic_in_memory')"
    if found is None:
        return stmt + " " + clause
    s, e, _ = found
    return stmt[:s] + clause + stmt[e:]


def insert_parts(stmt):
    """(sink name, query text) of `INSERT INTO|OVERWRITE sink [PARTITION (...)] [(cols)] query`,
    or None."""
    toks = list(tokens(stmt))
    if len(toks) < 3 or toks[0][1].upper() != "INSERT":
        return None
    i = 1
    if toks[i][1].upper() in ("INTO", "OVERWRITE"):
        i += 1
    name = []
    while i < len(toks) and (toks[i][0] in ("word", "ident") or toks[i][1] == "."):
        if toks[i][1] != ".":
            name.append(_unquote(toks[i][1]))
        i += 1
        if i < len(toks) and toks[i][1] != ".":
            break
    for keyword in ("PARTITION", None):
        if i < len(toks) and keyword and toks[i][1].upper() == keyword:
            i = _skip_parens(toks, i + 1)
    if i + 1 < len(toks) and toks[i][1] == "(" and toks[i + 1][1].upper() not in ("SELECT", "WITH", "VALUES", "("):
        i = _skip_parens(toks, i)
    if i >= len(toks) or not name:
        return None
    return name[-1], stmt[toks[i][2]:]


def _skip_parens(toks, i):
    depth = 0
    while i < len(toks):
        if toks[i][1] == "(":
            depth += 1
        elif toks[i][1] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i
