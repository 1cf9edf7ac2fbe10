"""The plan lab: Flink's own planner over every script flink-compat is tested on, recorded.

    python plan_lab.py record [PREFIX ...]   plan the inputs (those whose id starts with a
                                             PREFIX, or all) in one JVM and write
                                             observations/flink-<version>.yaml
    python plan_lab.py list                  print the input ids
    python plan_lab.py verify                compare the recorded flink-tests nodes with the
                                             plans Flink's repository keeps for those tests

See README.md. Run with PyFlink (e.g. /work/pyflink-venv/bin/python) and Java 17 on PATH.
"""

import json
import os
import subprocess
import sys
import tempfile
import traceback

import yaml

import plan_json
import sql_script

LAB = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(LAB))
CORPUS = os.path.join(os.path.dirname(REPO), "shared", "corpus")
OBSERVATIONS = os.path.join(LAB, "observations")


def fingerprint(text):
    """FNV-1a (64 bits) of the script's UTF-8 text, in hex: the test recomputes it to tell a
    script changed since it was recorded."""
    h = 0xcbf29ce484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


# -- inputs ------------------------------------------------------------------------------
def inputs():
    """(id, script text, configuration) of every input, in a stable order: each side of each
    case file, each flink-tests script, each valid realworld script."""
    out = []
    cases = os.path.join(REPO, "cases")
    for root, _, files in sorted(os.walk(cases)):
        for name in sorted(files):
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, REPO)
            with open(path, encoding="utf-8") as f:
                case = yaml.safe_load(f)
            config = {str(k): str(v) for k, v in (case.get("set") or {}).items()}
            for side in ("old", "new"):
                if isinstance(case.get(side), str):
                    out.append(("%s#%s" % (rel, side), case[side], config))
    tests = os.path.join(CORPUS, "flink-tests")
    for root, _, files in sorted(os.walk(tests)):
        for name in sorted(files):
            if name.endswith(".sql"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    out.append(("flink-tests/" + os.path.relpath(path, tests), f.read(), {}))
    realworld = os.path.join(CORPUS, "realworld")
    index = os.path.join(realworld, "index.json")
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            for entry in sorted(json.load(f), key=lambda e: e["file"]):
                if entry.get("flink_sql") != "valid":
                    continue
                with open(os.path.join(realworld, entry["file"]), encoding="utf-8") as g:
                    out.append(("realworld/" + entry["file"], g.read(), {}))
    return out


# -- planning ----------------------------------------------------------------------------
def stand_in_jar():
    """Compiles the stand-in connector (standin/src) against PyFlink's jars into a temporary jar."""
    import pyflink
    lib = os.path.join(os.path.dirname(pyflink.__file__), "lib")
    src = os.path.join(LAB, "standin", "src")
    build = tempfile.mkdtemp(prefix="plan-lab-")
    java = [os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.endswith(".java")]
    subprocess.run(["javac", "-nowarn", "-d", build, "-cp", os.path.join(lib, "*")] + java, check=True)
    services = os.path.join(build, "META-INF", "services")
    os.makedirs(services)
    with open(os.path.join(src, "META-INF", "services", "org.apache.flink.table.factories.Factory")) as f:
        factory = f.read()
    with open(os.path.join(services, "org.apache.flink.table.factories.Factory"), "w") as f:
        f.write(factory)
    jar = os.path.join(build, "plan-stand-in.jar")
    subprocess.run(["jar", "cf", jar, "-C", build, "flinkcompat", "-C", build, "META-INF"], check=True)
    return jar


def flink_message(exc):
    """The head of the deepest meaningful message of a Java exception raised through py4j."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        messages = []
        cur = java
        while cur is not None:
            msg = cur.getMessage()
            if msg:
                messages.append(str(msg))
            cur = cur.getCause()
        text = messages[0] if messages else str(java)
        for m in messages:
            if "SQL parse failed" in text or "SQL validation failed" in text:
                text = m
        return _short(text)
    return _short(str(exc))


def _short(text):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    head = lines[0] if lines else ""
    for prefix in ("org.apache.flink.table.api.ValidationException: ",
                   "org.apache.flink.table.api.TableException: ",
                   "org.apache.flink.sql.parser.impl.ParseException: "):
        head = head.replace(prefix, "")
    return head[:300]


SINK_MISMATCH = ("do not match", "Column types of query result and sink")


class Lab:
    def __init__(self, jar):
        from pyflink.table import EnvironmentSettings, TableEnvironment
        self.make_env = lambda: TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        self.jar = jar

    def plan_script(self, text, config):
        """The observation of one script: per query (in script order) its stateful nodes or
        Flink's message; and the statements Flink refused."""
        env = self.make_env()
        env.get_config().set("pipeline.jars", "file://" + self.jar)
        env.get_config().set("table.dml-sync", "false")
        jenv = env._j_tenv
        for k, v in config.items():
            env.get_config().set(k, v)
        queries, refused = [], []
        try:
            statements = sql_script.split_statements(text)
        except Exception as e:  # noqa: BLE001 - any failure of the splitter is recorded
            return {"error": "split: %s" % e}
        for stmt in statements:
            cls = sql_script.classify(stmt)
            try:
                if cls == "set":
                    kv = sql_script.parse_set(stmt)
                    if kv:
                        env.get_config().set(kv[0], kv[1])
                elif cls == "reset":
                    pass
                elif cls == "create_table":
                    jenv.executeSql(sql_script.stand_in_table(stmt)[0])
                elif cls == "create_catalog":
                    jenv.executeSql(sql_script.stand_in_catalog(stmt))
                elif cls == "ctas":
                    queries.append(self.plan_query(jenv, sql_script.stand_in_table(stmt)[0], ctas=True))
                elif cls == "query":
                    queries.append(self.plan_query(jenv, stmt))
                elif cls == "query_execute":
                    queries.append(self.plan_query(jenv, stmt.split(None, 1)[1]))
                elif cls == "statement_set":
                    members = sql_script.statement_set_members(stmt)
                    first = len(queries)
                    for member in members:
                        queries.append(self.plan_query(jenv, member))
                    self.record_sharing(jenv, members, queries, first)
                elif cls == "execute":
                    jenv.executeSql(stmt)
            except Exception as e:  # noqa: BLE001 - Flink's refusal is the observation
                refused.append({"statement": " ".join(stmt.split())[:80], "message": flink_message(e)})
        out = {"queries": queries}
        if refused:
            out["refused"] = refused
        return out

    def plan_query(self, jenv, stmt, ctas=False):
        words = sql_script.head_words(stmt, 4)
        try:
            if words and words[0] == "INSERT" or ctas:
                plan = jenv.compilePlanSql(stmt).asJsonString()
                sink = None
            else:
                table = jenv.sqlQuery(stmt)
                descriptor = self._stand_in_descriptor()
                plan = table.insertInto(descriptor).compilePlan().asJsonString()
                sink = ""
        except Exception as e:  # noqa: BLE001
            message = flink_message(e)
            parts = sql_script.insert_parts(stmt) if not ctas else None
            if parts is None or not any(m in message for m in SINK_MISMATCH):
                return {"error": message}
            # The query is valid; only its sink's declared columns do not fit (case files often
            # declare a sink loosely). Plan the query into a stand-in sink of its own schema.
            retried = self.plan_query(jenv, parts[1])
            if "error" in retried:
                return {"error": message}
            retried["sink"] = parts[0]
            retried["sink_mismatch"] = message
            return {"sink": parts[0], "sink_mismatch": message, "nodes": retried["nodes"]}
        parsed = json.loads(plan)
        p = plan_json.Plan(parsed)
        out = {}
        if sink is None:
            sinks = [n for n in parsed.get("nodes", []) if plan_json.node_kind(n["type"]) == "sink"]
            if sinks:
                out["sink"] = plan_json.table_name(sinks[-1].get("dynamicTableSink", {}).get("table", {}).get("identifier"))
        out["nodes"] = p.stateful()
        return out

    def record_sharing(self, jenv, members, queries, first):
        """A statement set is one job: Flink plans its INSERTs together and computes a sub-plan
        several of them compute alike once (`table.optimizer.reuse-sub-plan-enabled`). Each
        query of a job the lab compiled gets `shared`: its stateful nodes the job shares with
        other queries, upstream first, with those queries (1-based, as in `queries`); empty when
        it shares none. A query without `shared` was not compiled as part of a job."""
        planned = queries[first:]
        if len(members) < 2 or any("nodes" not in q or "sink_mismatch" in q for q in planned):
            return
        statement_set = jenv.createStatementSet()
        for member in members:
            statement_set.addInsertSql(member)
        try:
            job = plan_json.Plan(json.loads(statement_set.compilePlan().asJsonString()))
        except Exception as e:  # noqa: BLE001 - the queries' own plans stand
            planned[0]["job_error"] = flink_message(e)
            return
        names = job.sink_names()
        if [n.lower() for n in names] != [(q.get("sink") or "").lower() for q in planned]:
            planned[0]["job_error"] = "the job's sinks %s are not the INSERTs' in order" % names
            return
        for query, shared in zip(planned, job.sharing()):
            query["shared"] = [{"node": s["node"], "with": [first + 1 + w for w in s["with"]]}
                               for s in shared]

    def _stand_in_descriptor(self):
        from pyflink.java_gateway import get_gateway
        gw = get_gateway()
        td = gw.jvm.org.apache.flink.table.api.TableDescriptor
        return td.forConnector("plan-stand-in").option("stand-in.changelog", "insert").build()


def flink_version():
    from importlib import metadata
    for name in ("apache-flink", "apache_flink"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def record(prefixes):
    version = flink_version()
    path = os.environ.get("PLAN_LAB_OUT") or os.path.join(OBSERVATIONS, "flink-%s.yaml" % version)
    old = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = {s["id"]: s for s in (yaml.safe_load(f) or {}).get("scripts", [])}
    lab = Lab(stand_in_jar())
    chosen = [i for i in inputs() if not prefixes or any(i[0].startswith(p) for p in prefixes)]
    planned = {}  # many case sides are the same script: plan each text once
    for n, (sid, text, config) in enumerate(chosen, 1):
        key = (text, tuple(sorted(config.items())))
        if key not in planned:
            try:
                planned[key] = lab.plan_script(text, config)
            except Exception:  # noqa: BLE001 - a lab failure is recorded, not fatal
                planned[key] = {"error": "lab: " + traceback.format_exc().splitlines()[-1][:200]}
        obs = planned[key]
        entry = {"id": sid, "fingerprint": fingerprint(text)}
        entry.update(obs)
        old[sid] = entry
        print("[%d/%d] %s: %s" % (n, len(chosen), sid, summary(entry)), flush=True)
        if n % 50 == 0:  # a long run keeps what it has planned
            write(path, version, old)
    write(path, version, old)


def write(path, version, entries):
    wanted = {i[0] for i in inputs()}
    scripts = [entries[k] for k in sorted(entries) if k in wanted]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("# Written by lab/plan/plan_lab.py record: Flink's optimized plan of every input, reduced to\n"
                "# its stateful exec nodes and their state-relevant attributes. Do not edit by hand.\n")
        yaml.dump({"flink_version": version, "scripts": scripts}, f, Dumper=_Dumper,
                  sort_keys=False, allow_unicode=True, width=120)
    os.replace(path + ".tmp", path)
    print("wrote %s (%d scripts)" % (os.path.relpath(path, REPO), len(scripts)), flush=True)


def summary(entry):
    qs = entry.get("queries", [])
    planned = sum(1 for q in qs if "nodes" in q)
    return "%d queries, %d planned, %d refused statements%s" % (
        len(qs), planned, len(entry.get("refused", [])), " ERROR " + entry["error"] if "error" in entry else "")


class _Dumper(yaml.SafeDumper):
    pass


def _flow_lists(dumper, data):
    flow = all(isinstance(x, (str, int, float, bool)) or x is None for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _flow_small_maps(dumper, data):
    flow = all(isinstance(v, (str, int, float, bool)) or v is None for v in data.values()) and "node" not in data \
        and "id" not in data and "statement" not in data
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)


_Dumper.add_representer(list, _flow_lists)
_Dumper.add_representer(dict, _flow_small_maps)


def verify():
    """The stand-in against Flink's own tests: for each flink-tests script, the stateful nodes
    recorded here against those of the compiled plan Flink's repository keeps for that test
    program (index.json `plan_node_types`)."""
    version = flink_version()
    with open(os.path.join(OBSERVATIONS, "flink-%s.yaml" % version), encoding="utf-8") as f:
        recorded = {s["id"]: s for s in yaml.safe_load(f)["scripts"]}
    with open(os.path.join(CORPUS, "flink-tests", "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    same = differ = unknown = 0
    for entry in index:
        expected = entry.get("plan_node_types")
        obs = recorded.get("flink-tests/" + entry["file"])
        if expected is None or obs is None or not any("nodes" in q for q in obs.get("queries", [])):
            unknown += 1
            continue
        want = sorted(plan_json.node_kind(t) for t in expected if plan_json.node_kind(t) in plan_json.STATEFUL)
        got = sorted(n["node"] for q in obs["queries"] for n in q.get("nodes", []) if n["node"] in plan_json.STATEFUL)
        if want == got:
            same += 1
        else:
            differ += 1
            print("%s: Flink's test plan %s, recorded %s" % (entry["file"], want, got))
    print("%d agree, %d differ, %d not comparable" % (same, differ, unknown))


def main(argv):
    if len(argv) >= 2 and argv[1] == "verify":
        verify()
        return 0
    if len(argv) >= 2 and argv[1] == "list":
        for sid, _, _ in inputs():
            print(sid)
        return 0
    if len(argv) >= 2 and argv[1] == "record":
        record(argv[2:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
