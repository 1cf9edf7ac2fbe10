"""From a compiled plan (Flink's `COMPILE PLAN` JSON) to the lab's observation of one query: its
stateful exec nodes, upstream first, each with its state-relevant attributes, every field named
by the source column it comes from (`Table.column`) or by the expression computing it."""

import re

# Exec nodes that keep state (and the lookup join, which the tool models as an operator).
STATEFUL = {
    "group-aggregate", "global-group-aggregate", "incremental-group-aggregate",
    "group-window-aggregate", "window-aggregate", "global-window-aggregate",
    "over-aggregate", "deduplicate", "rank", "window-rank", "window-deduplicate",
    "join", "interval-join", "temporal-join", "window-join", "lookup-join", "match",
    "temporal-sort", "sort", "sort-limit", "limit", "changelog-normalize",
    "python-group-aggregate", "python-group-window-aggregate", "python-over-aggregate",
    "process-table-function", "multi-join",
}
PASS_THROUGH = {
    "exchange", "watermark-assigner", "changelog-normalize", "drop-update-before",
    "mini-batch-assigner", "sink", "deduplicate", "limit", "sort-limit", "sort", "temporal-sort",
    "window-deduplicate", "rank", "window-rank",
}
AGGREGATES = {
    "group-aggregate", "global-group-aggregate", "incremental-group-aggregate",
    "group-window-aggregate", "window-aggregate", "global-window-aggregate",
    "python-group-aggregate", "python-group-window-aggregate",
}


def node_kind(type_name):
    """`stream-exec-rank_1` -> `rank`."""
    return re.sub(r"_\d+$", "", type_name).replace("stream-exec-", "")


class Ref:
    """A field of some node's output: its text, the source columns it reads, and whether it is
    exactly one source column."""

    def __init__(self, text, cols=(), plain=False):
        self.text, self.cols, self.plain = text, frozenset(cols), plain


UNKNOWN = Ref("?")


def _fn_name(call):
    for key in ("internalName", "systemName", "catalogName"):
        if key in call:
            name = call[key]
            name = re.sub(r"^\$(.*)\$\d+$", r"\1", name)
            return name.replace("`", "").split(".")[-1].upper()
    return "?"


def row_field_names(output_type):
    """The top-level field names of a ROW type, as JSON or as a type string."""
    if isinstance(output_type, dict):
        return [f.get("name", "?") for f in output_type.get("fields", [])]
    if not isinstance(output_type, str):
        return []
    s = output_type
    start = s.find("<")
    if start < 0:
        return []
    names, depth, i = [], 0, start + 1
    expect_name = True
    while i < len(s):
        c = s[i]
        if expect_name and depth == 0 and c == "`":
            j = i + 1
            while j < len(s):
                if s[j] == "`" and not (j + 1 < len(s) and s[j + 1] == "`"):
                    break
                j += 2 if s[j] == "`" else 1
            names.append(s[i + 1:j].replace("``", "`"))
            i, expect_name = j + 1, False
            continue
        if c in "<(":
            depth += 1
        elif c in ">)":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            expect_name = True
        elif c == "'":
            j = s.find("'", i + 1)
            i = j if j > 0 else i
        i += 1
    return names


def table_name(identifier):
    """`default_catalog`.`default_database`.`T` -> T (the last name part)."""
    parts = re.findall(r"`((?:[^`]|``)*)`", identifier or "")
    return parts[-1].replace("``", "`") if parts else (identifier or "?")


class Plan:
    def __init__(self, plan):
        self.nodes = {n["id"]: n for n in plan.get("nodes", [])}
        self.order = [n["id"] for n in plan.get("nodes", [])]
        self.inputs = {i: [] for i in self.nodes}
        for edge in plan.get("edges", []):
            self.inputs.setdefault(edge["target"], []).append(edge["source"])
        self.memo = {}

    def kind(self, nid):
        return node_kind(self.nodes[nid]["type"])

    def arity(self, nid):
        return len(row_field_names(self.nodes[nid].get("outputType")))

    # -- naming fields -------------------------------------------------------------------
    def field(self, nid, index):
        key = (nid, index)
        if key not in self.memo:
            self.memo[key] = UNKNOWN  # cycles cannot occur; guards deep recursion mistakes
            self.memo[key] = self._field(nid, index)
        return self.memo[key]

    def _input(self, nid, k=0):
        ins = self.inputs.get(nid, [])
        return ins[k] if k < len(ins) else None

    def _field(self, nid, index):
        node, kind = self.nodes[nid], self.kind(nid)
        inp = self._input(nid)
        if kind == "table-source-scan":
            table = table_name(node.get("scanTableSource", {}).get("table", {}).get("identifier"))
            names = row_field_names(node.get("outputType"))
            if index < len(names):
                col = "%s.%s" % (table, names[index])
                return Ref(col, [col], True)
            return UNKNOWN
        if kind in ("calc", "python-calc"):
            proj = node.get("projection") or []
            if index < len(proj):
                return self.expr(inp, proj[index])
            return UNKNOWN
        if kind in AGGREGATES or kind in ("local-group-aggregate", "local-window-aggregate"):
            grouping = node.get("grouping") or []
            if index < len(grouping):
                return self._grouped(nid, grouping[index])
            calls = node.get("aggCalls") or []
            k = index - len(grouping)
            if k < len(calls) and not kind.startswith("local"):
                return self.agg_call(nid, calls[k])
            names = row_field_names(node.get("outputType"))
            if index < len(names) and names[index] in ("window_start", "window_end", "window_time"):
                return Ref(names[index])
            return Ref("agg_output")
        if kind == "window-table-function":
            arity_in = self.arity(inp) if inp is not None else 0
            if index < arity_in:
                return self.field(inp, index)
            names = row_field_names(node.get("outputType"))
            return Ref(names[index] if index < len(names) else "?")
        if kind in ("over-aggregate", "python-over-aggregate"):
            arity_in = self.arity(inp) if inp is not None else 0
            if index < arity_in:
                return self.field(inp, index)
            return Ref("over_output")
        if kind in ("join", "interval-join", "temporal-join", "window-join"):
            left_arity = self.arity(inp) if inp is not None else 0
            if index < left_arity:
                return self.field(inp, index)
            right = self._input(nid, 1)
            return self.field(right, index - left_arity) if right is not None else UNKNOWN
        if kind == "lookup-join":
            left_arity = self.arity(inp) if inp is not None else 0
            if index < left_arity:
                return self.field(inp, index)
            temporal = node.get("temporalTable", {})
            table = table_name(temporal.get("lookupTableSource", {}).get("table", {}).get("identifier"))
            names = row_field_names(temporal.get("outputType"))
            proj = node.get("projectionOnTemporalTable")
            k = index - left_arity
            if proj:
                return self._temporal_expr(table, names, proj[k]) if k < len(proj) else UNKNOWN
            if k < len(names):
                col = "%s.%s" % (table, names[k])
                return Ref(col, [col], True)
            return UNKNOWN
        if kind in PASS_THROUGH:
            if inp is None:
                return UNKNOWN
            if index < self.arity(inp):
                return self.field(inp, index)
            return Ref("rank_number" if "rank" in kind else "?")
        if kind == "union":
            refs = [self.field(i, index) for i in self.inputs.get(nid, [])]
            cols = set().union(*[r.cols for r in refs]) if refs else set()
            return Ref("UNION(%s)" % ", ".join(r.text for r in refs), cols)
        return Ref(kind + "_output")

    def _local(self, nid):
        """The local half beneath the global half of a two-phase aggregate (through exchanges)."""
        cur = self._input(nid)
        while cur is not None and self.kind(cur) == "exchange":
            cur = self._input(cur)
        if cur is not None and self.kind(cur).startswith("local-"):
            return cur
        return None

    def _grouped(self, nid, index):
        """A grouping field of an aggregate: for the global half of a two-phase aggregate, the
        local half's grouping field."""
        local = self._local(nid)
        if local is not None:
            grouping = self.nodes[local].get("grouping") or []
            if index < len(grouping):
                return self.field(self._input(local), grouping[index])
        inp = self._input(nid)
        return self.field(inp, index) if inp is not None else UNKNOWN

    def agg_input(self, nid):
        """The node whose fields an aggregate's argList indexes."""
        local = self._local(nid)
        if local is not None:
            return self._input(local)
        return self._input(nid)

    def agg_call(self, nid, call):
        src = self.agg_input(nid)
        args = [self.field(src, a) for a in call.get("argList", [])] if src is not None else []
        name = _fn_name(call)
        inner = ", ".join(a.text for a in args) or ("*" if call.get("syntax") == "FUNCTION_STAR" or name == "COUNT" else "")
        text = "%s(%s%s)" % (name, "DISTINCT " if call.get("distinct") else "", inner)
        if call.get("filterArg", -1) >= 0 and src is not None:
            text += " FILTER (WHERE %s)" % self.field(src, call["filterArg"]).text
        cols = set().union(*[a.cols for a in args]) if args else set()
        return Ref(text, cols)

    def _temporal_expr(self, table, names, rex):
        if rex.get("kind") == "INPUT_REF":
            i = rex.get("inputIndex", -1)
            if 0 <= i < len(names):
                col = "%s.%s" % (table, names[i])
                return Ref(col, [col], True)
        return Ref("?")

    def expr(self, inp, rex):
        kind = rex.get("kind")
        if kind == "INPUT_REF":
            return self.field(inp, rex.get("inputIndex", -1)) if inp is not None else UNKNOWN
        if kind == "LITERAL":
            if "sarg" in rex:
                return Ref("SARG%s" % _sarg_text(rex["sarg"]))
            value = rex.get("value")
            if value is None:
                return Ref("NULL")
            if isinstance(value, str):
                return Ref("'%s'" % value)
            return Ref(str(value).lower() if isinstance(value, bool) else str(value))
        if kind == "CALL":
            ops = [self.expr(inp, o) for o in rex.get("operands", [])]
            name = _fn_name(rex)
            text = "%s(%s)" % (name, ", ".join(o.text for o in ops))
            cols = set().union(*[o.cols for o in ops]) if ops else set()
            if name == "CAST" and len(ops) == 1 and ops[0].plain:
                return Ref(ops[0].text, cols, False)
            return Ref(text, cols)
        if kind == "FIELD_ACCESS":
            base = self.expr(inp, rex.get("expr", {}))
            return Ref("%s.%s" % (base.text, rex.get("name")), base.cols)
        return Ref(str(kind or "?"))

    # -- what the plan keeps -----------------------------------------------------------
    def filters_beneath(self, nid):
        """The conditions of the Calcs between a stateful node and the stateful node or scan
        beneath it, on every input, as texts."""
        out = []
        stack = list(self.inputs.get(nid, []))
        seen = set()
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            kind = self.kind(cur)
            if kind in STATEFUL and kind not in ("changelog-normalize",):
                continue
            node = self.nodes[cur]
            if kind == "calc" and node.get("condition"):
                out.append(self.expr(self._input(cur), node["condition"]))
            if kind == "table-source-scan":
                for ab in (node.get("scanTableSource", {}).get("sourceAbilities") or []):
                    if ab.get("type") == "FilterPushDown":
                        out.append(Ref("pushed-filter"))
            stack.extend(self.inputs.get(cur, []))
        return out

    def describe(self, nid):
        node, kind = self.nodes[nid], self.kind(nid)
        inp = self._input(nid)
        d = {"node": kind}

        def names(indices, of=inp):
            return [self.field(of, i).text for i in indices] if of is not None else []

        if kind in AGGREGATES:
            d["keys"] = [self._grouped(nid, g).text for g in node.get("grouping") or []]
            d["aggregates"] = [self.agg_call(nid, c).text for c in node.get("aggCalls") or []]
            window = node.get("window") or node.get("windowing")
            if window:
                d["window"] = _window_text(window)
        if kind in ("over-aggregate", "python-over-aggregate"):
            spec = node.get("overSpec", {})
            # The row it stores: every field of its input, by lineage.
            if inp is not None:
                d["row"] = [self.field(inp, i).text for i in range(self.arity(inp))]
            d["partition"] = names(spec.get("partition", {}).get("fields", []))
            groups = spec.get("groups") or []
            if groups:
                g = groups[0]
                d["order"] = [_order(self.field(inp, f["index"]).text, f) for f in g.get("orderBy", {}).get("fields", [])]
                d["frame"] = "%s %s" % ("ROWS" if g.get("isRows") else "RANGE", _bound(g.get("lowerBound")))
                d["aggregates"] = []
                for c in g.get("aggCalls") or []:
                    args = [self.field(inp, a).text for a in c.get("argList", [])]
                    d["aggregates"].append("%s(%s%s)" % (_fn_name(c), "DISTINCT " if c.get("distinct") else "", ", ".join(args) or "*"))
        if kind == "deduplicate":
            d["partition"] = names(node.get("uniqueKeys") or [])
            d["keep"] = "last" if node.get("keepLastRow") else "first"
            d["time"] = "rowtime" if node.get("isRowtime") else "proctime"
        if kind in ("rank", "window-rank"):
            d["function"] = node.get("rankType")
            d["partition"] = names(node.get("partition", {}).get("fields", node.get("partitionSpec", {}).get("fields", [])))
            order = node.get("orderBy") or node.get("sortSpec") or {}
            d["order"] = [_order(self.field(inp, f["index"]).text, f) for f in order.get("fields", [])]
            rng = node.get("rankRange") or {}
            if rng.get("type") == "Constant":
                d["range"] = [rng.get("start"), rng.get("end")]
            elif rng:
                d["range"] = "variable"
            if "outputRowNumber" in node:
                d["rank_output"] = node["outputRowNumber"]
            if kind == "window-rank":
                d["window"] = _window_text(node.get("windowing") or {})
        if kind == "window-deduplicate":
            d["partition"] = names(node.get("partitionKeys") or [])
            d["keep"] = "last" if node.get("keepLastRow") else "first"
            d["window"] = _window_text(node.get("windowing") or {})
        if kind in ("join", "interval-join", "temporal-join", "window-join"):
            spec = node.get("joinSpec") or node.get("intervalJoinSpec", {}).get("joinSpec") or {}
            right = self._input(nid, 1)
            d["join_type"] = spec.get("joinType")
            lk, rk = spec.get("leftKeys") or [], spec.get("rightKeys") or []
            # In leftKeys order: Flink keys the join's state by the keys in this order.
            d["keys"] = ["%s = %s" % (self.field(inp, a).text, self.field(right, b).text) for a, b in zip(lk, rk)]
            non_equi = spec.get("nonEquiCondition")
            if non_equi:
                d["non_equi"] = self._join_expr(nid, non_equi).text
            if kind == "interval-join":
                b = node.get("intervalJoinSpec", {}).get("windowBounds", {})
                d["bounds"] = {"time": "rowtime" if b.get("isEventTime") else "proctime",
                               "left_lower_ms": b.get("leftLowerBound"), "left_upper_ms": b.get("leftUpperBound")}
            if kind == "window-join":
                d["window"] = _window_text(node.get("leftWindowing") or {})
        if kind == "lookup-join":
            temporal = node.get("temporalTable", {})
            d["join_type"] = node.get("joinType")
            d["table"] = table_name(temporal.get("lookupTableSource", {}).get("table", {}).get("identifier"))
            names_r = row_field_names(temporal.get("outputType"))
            keys = []
            for k, v in sorted((node.get("lookupKeys") or {}).items(), key=lambda kv: int(kv[0])):
                col = "%s.%s" % (d["table"], names_r[int(k)]) if int(k) < len(names_r) else "?"
                if v.get("type") == "FieldRef":
                    keys.append("%s = %s" % (self.field(inp, v.get("index")).text, col))
                else:
                    keys.append("%s = %s" % (v.get("literal", {}).get("value", "constant"), col))
            # In the plan's lookupKeys order (the looked-up table's column order).
            d["keys"] = keys
            d["async"] = bool(node.get("asyncOptions"))
        if kind == "match":
            spec = node.get("matchSpec", {})
            d["partition"] = names(spec.get("partition", {}).get("fields", []))
            d["order"] = [_order(self.field(inp, f["index"]).text, f) for f in spec.get("orderKeys", {}).get("fields", [])]
        if kind in ("temporal-sort", "sort", "sort-limit"):
            spec = node.get("orderBy") or node.get("sortSpec") or {}
            d["order"] = [_order(self.field(inp, f["index"]).text, f) for f in spec.get("fields", [])]
        if kind in ("sort-limit", "limit"):
            rng = node.get("rankRange") or {}
            d["range"] = [rng.get("start"), rng.get("end")]
        if kind == "changelog-normalize":
            d["keys"] = names(node.get("uniqueKeys") or [])
        if kind == "sink":
            d["keys"] = [self.field(inp, i).text for i in node.get("inputUpsertKey") or []]
        filters = self.filters_beneath(nid)
        if filters:
            d["filters"] = sorted(f.text for f in filters)
        return d

    def _join_expr(self, nid, rex):
        """A join condition reads the concatenation of both inputs."""
        return _JoinScope(self, nid).expr(rex)

    def stateful(self):
        out = []
        for nid in self.order:
            kind = self.kind(nid)
            node = self.nodes[nid]
            # A SESSION window table function on its own (no window aggregate merged it) keeps
            # each session's rows until it closes (UnalignedWindowTableFunctionOperator).
            session_tvf = kind == "window-table-function" and "session" in str(node.get("windowing", "")).lower()
            if kind in STATEFUL or session_tvf or (kind == "sink" and node.get("upsertMaterializeStrategy", node.get("upsertMaterialize"))
                                    not in (None, False, "NONE")):
                out.append(self.describe(nid))
            elif kind not in ("sink",) and node.get("state") and kind not in STATEFUL:
                d = self.describe(nid)
                d["unlisted"] = True
                out.append(d)
        return out


    def is_stateful(self, nid):
        """Whether the node keeps state, as `stateful` lists it."""
        kind = self.kind(nid)
        node = self.nodes[nid]
        if kind == "sink":
            return node.get("upsertMaterializeStrategy", node.get("upsertMaterialize")) not in (None, False, "NONE")
        session_tvf = kind == "window-table-function" and "session" in str(node.get("windowing", "")).lower()
        return kind in STATEFUL or session_tvf or bool(node.get("state"))

    def sharing(self):
        """For a job of several INSERTs: per sink (in plan order), the stateful nodes upstream
        of it that also feed other sinks (Flink planned them once for several INSERTs),
        upstream first, each as {node, with: the other sinks' ordinals}."""
        sinks = [nid for nid in self.order if self.kind(nid) == "sink"]
        outputs = {}
        for target, sources in self.inputs.items():
            for source in sources:
                outputs.setdefault(source, []).append(target)
        reach = {}
        for nid in reversed(self.order):  # the plan lists its nodes upstream first
            found = {sinks.index(nid)} if nid in sinks else set()
            for target in outputs.get(nid, []):
                found |= reach.get(target, set())
            reach[nid] = found
        out = []
        for k in range(len(sinks)):
            shared = []
            for nid in self.order:
                if k in reach[nid] and len(reach[nid]) > 1 and self.is_stateful(nid):
                    shared.append({"node": self.kind(nid), "with": sorted(reach[nid] - {k})})
            out.append(shared)
        return out

    def sink_names(self):
        """The sinks' table names, in plan order."""
        return [table_name(self.nodes[nid].get("dynamicTableSink", {}).get("table", {}).get("identifier"))
                for nid in self.order if self.kind(nid) == "sink"]


class _JoinScope:
    def __init__(self, plan, nid):
        self.plan, self.nid = plan, nid
        self.left = plan._input(nid)
        self.right = plan._input(nid, 1)
        self.left_arity = plan.arity(self.left) if self.left is not None else 0

    def field(self, i):
        if i < self.left_arity:
            return self.plan.field(self.left, i)
        return self.plan.field(self.right, i - self.left_arity) if self.right is not None else UNKNOWN

    def expr(self, rex):
        kind = rex.get("kind")
        if kind == "INPUT_REF":
            return self.field(rex.get("inputIndex", -1))
        if kind == "CALL":
            ops = [self.expr(o) for o in rex.get("operands", [])]
            cols = set().union(*[o.cols for o in ops]) if ops else set()
            return Ref("%s(%s)" % (_fn_name(rex), ", ".join(o.text for o in ops)), cols)
        return self.plan.expr(None, rex)


def _order(text, f):
    ascending = f.get("isAscending", True)
    # NULLs sort as the smallest values by default (first ascending, last descending); another
    # order is part of the key, written as the tool writes it.
    null_last = f.get("nullIsLast", not ascending)
    if null_last == ascending:
        text = "%s(%s)" % ("NULLS_LAST" if null_last else "NULLS_FIRST", text)
    return "%s %s" % (text, "ASC" if ascending else "DESC")


def _bound(b):
    if not b:
        return "?"
    if b.get("kind") == "UNBOUNDED_PRECEDING" or b.get("isUnbounded") or "UNBOUNDED" in str(b.get("kind", "")):
        return "UNBOUNDED PRECEDING"
    if b.get("kind") == "CURRENT_ROW" or b.get("isCurrentRow"):
        return "CURRENT ROW"
    off = b.get("offset")
    if isinstance(off, dict):
        off = off.get("value")
    return "%s PRECEDING" % off


def _sarg_text(sarg):
    parts = []
    for r in sarg.get("ranges", []):
        lo, hi = r.get("lower"), r.get("upper")
        if lo and hi and lo.get("value") == hi.get("value"):
            parts.append(str(lo.get("value")))
        else:
            parts.append("%s%s..%s%s" % ("[" if lo and lo.get("boundType") == "CLOSED" else "(",
                                         lo.get("value") if lo else "-inf",
                                         hi.get("value") if hi else "+inf",
                                         "]" if hi and hi.get("boundType") == "CLOSED" else ")"))
    return "[" + ", ".join(parts) + "]"


def _window_text(w):
    """The window of a group window aggregate or a window TVF's windowing strategy."""
    if not w:
        return None
    spec = w.get("window", w)
    kind = spec.get("kind") or spec.get("type")
    out = {"kind": kind}
    for key in ("size", "slide", "gap", "step", "maxSize", "offset"):
        if key in spec:
            out[key] = spec[key]
    if "timeField" in spec:
        out["time"] = spec["timeField"].get("fieldName")
    if "timeAttributeIndex" in w:
        out["time_index"] = w["timeAttributeIndex"]
    if "isRowtime" in w:
        out["rowtime"] = w["isRowtime"]
    if w.get("strategy"):
        out["strategy"] = w["strategy"]
    return out
