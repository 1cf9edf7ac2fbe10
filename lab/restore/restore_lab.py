#!/usr/bin/env python3
"""Restore lab: run an old Flink SQL job, stop it with a savepoint, start the new job from that
savepoint, run the new job once more without state, and record what open-source Flink did.

    python restore_lab.py run [PAIR_ID ...]      run pairs (all by default), then judge them
    python restore_lab.py judge [PAIR_ID ...]    judge again from the raw logs of earlier runs
    python restore_lab.py check                  check that every pair parses with flink-compat

See README.md for what the outcomes mean. The pairs run in one child process (one JVM, a local
MiniCluster per job); a pair with `own_jvm` runs each job in a process (and JVM) of its own, as
separate deployments would.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

LAB = Path(__file__).resolve().parent
PAIRS = LAB / "pairs"
RUNS = LAB / "runs"
OBSERVATIONS = LAB / "observations"
PIPELINE_NAME = "restore-lab"
SAVEPOINT_ATTEMPTS = 24
# LAB_TIME_SCALE=2 runs every job twice as long: on a loaded machine tasks start late, and a job
# stopped before its tasks ran has nothing to show (window pairs' pauses are not scaled).
TIME_SCALE = float(os.environ.get("LAB_TIME_SCALE", "1"))
# The lab's lookup source (lookup/src, 'connector' = 'lab-lookup'), compiled by `run` when a pair
# uses it; the jobs find it through this variable.
LOOKUP_JAR_ENV = "RESTORE_LAB_LOOKUP_JAR"
OUTCOMES = ("restore_fails", "state_reused", "silently_wrong", "state_dropped", "cannot_tell")


# ---------------------------------------------------------------------------------------------
# Phase: one job in this process (run as a child of `run`)
# ---------------------------------------------------------------------------------------------

def split_statements(script: str) -> list[str]:
    """Split a script on semicolons outside quotes, dropping `--` comments."""
    statements, current, quote = [], [], None
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    for ch in "\n".join(lines):
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
        elif ch in ("'", "`", '"'):
            quote = ch
            current.append(ch)
        elif ch == ";":
            statements.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    statements.append("".join(current).strip())
    return [s for s in statements if s]


SET_RE = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.IGNORECASE | re.DOTALL)


def mark(*fields: object) -> None:
    print("LAB", *fields, flush=True)


def java_failure(error: BaseException) -> dict:
    """Class and message of the deepest cause of a Java exception, and the chain of classes."""
    text = str(error)
    chain = []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"^(?:Caused by: )?([a-zA-Z_$][\w$]*(?:\.[\w$]+)+(?:Exception|Error|Throwable))(?::\s*(.*))?$", line)
        if m:
            chain.append((m.group(1), (m.group(2) or "").strip()))
    if not chain:
        return {"class": type(error).__name__, "message": text.splitlines()[0][:300] if text else "", "chain": []}
    root = chain[-1]
    return {"class": root[0], "message": root[1][:300], "chain": [c for c, _ in chain]}


def run_job(script: str, seconds: float, restore: str | None, savepoint_dir: str | None,
            align_stop: list | None = None) -> None:
    try:
        submit_and_watch(script, seconds, restore, savepoint_dir, align_stop)
    except Exception as error:  # a failure of the lab itself: record it and go on with the next job
        mark("FAILED", "lab", json.dumps(java_failure(error)))


def submit_and_watch(script: str, seconds: float, restore: str | None, savepoint_dir: str | None,
                     align_stop: list | None) -> None:
    """Submit one job, let it run `seconds`, then stop it with a savepoint or cancel it.
    align_stop [size, offset]: stop at `offset` seconds into a `size`-second window, so that the
    window open at the savepoint holds rows (a stop just after a window fired leaves it empty)."""
    from pyflink.java_gateway import get_gateway
    from pyflink.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = t_env.get_config()
    conf.set("parallelism.default", "1")
    conf.set("pipeline.name", PIPELINE_NAME)
    conf.set("state.backend.type", "hashmap")
    conf.set("restart-strategy.type", "none")
    conf.set("table.local-time-zone", "UTC")
    if restore:
        conf.set("execution.state-recovery.path", restore)
    if "'lab-lookup'" in script and os.environ.get(LOOKUP_JAR_ENV):
        conf.set("pipeline.jars", Path(os.environ[LOOKUP_JAR_ENV]).as_uri())

    result = None
    statement_set = None
    try:
        for statement in split_statements(script):
            m = SET_RE.match(statement)
            if m:
                conf.set(m.group(1), m.group(2))
                continue
            head = " ".join(statement.upper().split()[:4])
            if head in ("EXECUTE STATEMENT SET BEGIN", "BEGIN STATEMENT SET") or head.startswith("BEGIN STATEMENT SET"):
                statement_set = t_env.create_statement_set()
                rest = statement.split("BEGIN", 1)[1].strip() if head.startswith("EXECUTE") else ""
                if rest:
                    statement_set.add_insert_sql(rest)
                continue
            if statement_set is not None:
                if statement.upper() == "END":
                    result, statement_set = statement_set.execute(), None
                else:
                    statement_set.add_insert_sql(statement)
                continue
            r = t_env.execute_sql(statement)
            if statement.upper().startswith(("INSERT", "EXECUTE")):
                result = r
    except Exception as error:  # submission failed (e.g. state that maps to no operator)
        mark("FAILED", "submit", json.dumps(java_failure(error)))
        return
    if result is None:
        mark("FAILED", "submit", json.dumps({"class": "lab", "message": "no INSERT in script", "chain": []}))
        return
    client = result.get_job_client()
    mark("SUBMITTED", f"{time.time():.3f}")

    deadline = time.time() + seconds
    status = None
    while time.time() < deadline:
        try:
            status = client.get_job_status().result().name
        except Exception:  # a local MiniCluster shuts down as soon as its job ended
            status = "ENDED"
        if status in ("FAILED", "CANCELED", "FINISHED", "ENDED"):
            break
        time.sleep(0.5)
    mark("STATUS", status, f"{time.time():.3f}")
    if status in ("FAILED", "ENDED"):
        try:
            result.wait()
            mark("ENDED", "without error")
        except Exception as error:
            mark("FAILED", "runtime", json.dumps(java_failure(error)))
        return
    if status != "RUNNING":
        return
    if savepoint_dir:
        if align_stop:
            size, offset = align_stop
            time.sleep((offset - time.time() % size) % size)
        jvm = get_gateway().jvm
        canonical = jvm.org.apache.flink.core.execution.SavepointFormatType.CANONICAL
        # On a loaded machine a job is RUNNING before its tasks are: the savepoint is refused
        # ("Checkpoint triggering task ... is not being executed") until they run. Try again.
        for attempt in range(SAVEPOINT_ATTEMPTS):
            try:
                path = client._j_job_client.stopWithSavepoint(False, savepoint_dir, canonical).get()
                break
            except Exception as error:
                if "CheckpointException" not in str(error) or attempt == SAVEPOINT_ATTEMPTS - 1:
                    raise
                mark("RETRY", "savepoint", f"{time.time():.3f}")
                time.sleep(5)
        mark("SAVEPOINT", path, f"{time.time():.3f}")
    else:
        client.cancel().result()
        mark("CANCELED", f"{time.time():.3f}")


def run_phases(args: argparse.Namespace) -> int:
    """The three jobs of each pair, one pair after the other, in this process (one JVM; each job
    gets its own MiniCluster, and the new job sees the old one only through the savepoint). A pair
    with `own_jvm` runs each job in a JVM of its own, as separate deployments would: generated
    operator uids (table.exec.uid.generation ALWAYS) number the plan's nodes with a counter that
    lives as long as the JVM."""
    for run_dir in map(Path, args.run_dirs):
        lab = json.loads((run_dir / "lab.json").read_text())
        job = run_job_in_own_jvm if lab.get("own_jvm") else run_job
        mark("PAIR", run_dir.name)
        mark("PHASE", "old")
        job((run_dir / "old.sql").read_text(), lab.get("old_seconds", 12) * TIME_SCALE, None,
            f"file://{run_dir / 'savepoints'}", lab.get("align_stop"))
        savepoints = sorted((run_dir / "savepoints").glob("savepoint-*"))
        if savepoints:
            time.sleep(lab.get("pause_seconds", 0))
            mark("PHASE", "new")
            job((run_dir / "new.sql").read_text(), lab.get("new_seconds", 10) * TIME_SCALE, f"file://{savepoints[-1]}",
                None)
        mark("PHASE", "baseline")
        job((run_dir / "new.sql").read_text(), lab.get("new_seconds", 10) * TIME_SCALE, None, None)
        mark("DONE", run_dir.name)
    return 0


def run_job_in_own_jvm(script: str, seconds: float, restore: str | None, savepoint_dir: str | None,
                       align_stop: list | None = None) -> None:
    """run_job in a child process (its own JVM); its output joins this process's."""
    spec = json.dumps(dict(script=script, seconds=seconds, restore=restore, savepoint_dir=savepoint_dir,
                           align_stop=align_stop))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "job", spec], stdout=subprocess.PIPE,
                          text=True)
    sys.stdout.write(done.stdout)
    sys.stdout.flush()


def run_one_job(args: argparse.Namespace) -> int:
    spec = json.loads(args.spec)
    run_job(spec["script"], spec["seconds"], spec["restore"], spec["savepoint_dir"], spec["align_stop"])
    return 0


# ---------------------------------------------------------------------------------------------
# Run: a pair in a child process; its raw output kept under runs/<id>/
# ---------------------------------------------------------------------------------------------

def load_pair(pair_id: str) -> dict:
    pair = yaml.safe_load((PAIRS / f"{pair_id}.yaml").read_text())
    if pair.get("id") != pair_id:
        raise SystemExit(f"{pair_id}.yaml: id is {pair.get('id')!r}")
    return pair


def pair_ids(selected: list[str]) -> list[str]:
    all_ids = sorted(p.stem for p in PAIRS.glob("*.yaml"))
    unknown = [s for s in selected if s not in all_ids]
    if unknown:
        raise SystemExit(f"no such pair: {', '.join(unknown)}")
    return selected or all_ids


def prepare_run(pair_id: str) -> Path | None:
    pair = load_pair(pair_id)
    if pair.get("skipped"):
        print(f"{pair_id}: skipped ({pair['skipped']})", flush=True)
        return None
    run_dir = RUNS / pair_id
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    (run_dir / "old.sql").write_text(pair["old"])
    (run_dir / "new.sql").write_text(pair["new"])
    (run_dir / "lab.json").write_text(json.dumps(pair.get("lab", {})))
    return run_dir


def lookup_jar() -> Path:
    """Compiles the lab's lookup source (lookup/src) against PyFlink's jars into runs/lab-lookup.jar."""
    import zipfile
    import pyflink
    lib = Path(pyflink.__file__).parent / "lib"
    src = LAB / "lookup" / "src"
    build = RUNS / "lab-lookup-classes"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    java = [str(p) for p in src.rglob("*.java")]
    subprocess.run(["javac", "-nowarn", "-d", str(build), "-cp", str(lib / "*"), *java], check=True)
    jar = RUNS / "lab-lookup.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for path in build.rglob("*.class"):
            z.write(path, str(path.relative_to(build)))
        for path in (src / "META-INF").rglob("*"):
            if path.is_file():
                z.write(path, str(path.relative_to(src)))
    return jar


def run_pairs(ids: list[str]) -> None:
    """Run the pairs in one child process; split its output into runs/<id>/run.log."""
    run_dirs = [d for d in map(prepare_run, ids) if d]
    if not run_dirs:
        return
    if any("'lab-lookup'" in (d / "old.sql").read_text() + (d / "new.sql").read_text() for d in run_dirs):
        os.environ[LOOKUP_JAR_ENV] = str(lookup_jar())
    command = [sys.executable, str(Path(__file__).resolve()), "phases", *map(str, run_dirs)]
    with (RUNS / "stderr.log").open("w") as err:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1)
        assert process.stdout is not None
        out = None
        for line in process.stdout:
            if line.startswith("LAB PAIR "):
                if out:
                    out.close()
                pair_id = line.split()[2]
                print(f"{pair_id}: running", flush=True)
                out = (RUNS / pair_id / "run.log").open("w")
            if out:
                out.write(f"{time.time():.3f}\t{line}")  # each line with its arrival time
                out.flush()
        if out:
            out.close()
        process.wait()
    for run_dir in run_dirs:
        shutil.rmtree(run_dir / "savepoints", ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Logs
# ---------------------------------------------------------------------------------------------

ROW_RE = re.compile(r"^(?:[\w-]+(?::\d+)?>\s*)?([+-][IUD])\[(.*)\]$")


def parse_value(text: str):
    text = text.strip()
    if text == "null":
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    m = re.match(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)Z?$", text)
    if m:
        stamp = datetime.datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}")
        return stamp.replace(tzinfo=datetime.timezone.utc).timestamp()
    return text


def empty_log() -> dict:
    return {"rows": [], "failure": None, "savepoint": None, "submitted": None, "status": None,
            "ran": False}


def parse_run(path: Path) -> dict[str, dict]:
    """Per job (old, new, baseline): rows (arrival time, kind, values, text) and the lab's markers."""
    logs = {name: empty_log() for name in ("old", "new", "baseline")}
    if not path.exists():
        return logs
    log = None
    for line in path.read_text().splitlines():
        if "\t" not in line:
            continue
        stamp, text = line.split("\t", 1)
        if text.startswith("LAB "):
            fields = text.split(" ", 3)
            if fields[1] == "PHASE":
                log = logs[fields[2]]
                log["ran"] = True
            elif log is None:
                continue
            elif fields[1] == "SUBMITTED":
                log["submitted"] = float(fields[2])
            elif fields[1] == "SAVEPOINT":
                log["savepoint"] = fields[2]
            elif fields[1] == "STATUS":
                log["status"] = fields[2]
            elif fields[1] == "FAILED":
                log["failure"] = dict(json.loads(fields[3]), phase=fields[2])
            continue
        m = ROW_RE.match(text.strip())
        if m and log is not None:
            values = [parse_value(v) for v in m.group(2).split(", ")] if m.group(2) else []
            log["rows"].append({"t": float(stamp), "kind": m.group(1), "values": values,
                                "text": text.strip()})
    return logs


# ---------------------------------------------------------------------------------------------
# Judge
# ---------------------------------------------------------------------------------------------

class Verdict(Exception):
    def __init__(self, outcome: str, detail: str):
        super().__init__(detail)
        self.outcome, self.detail = outcome, detail


def key_of(values: list, columns: list[int]) -> tuple:
    return tuple(values[i] for i in columns)


def last_rows_by_key(rows: list[dict], key: list[int]) -> dict:
    """The last result per key (the values a retraction of it would carry)."""
    last = {}
    for row in rows:
        if row["kind"] in ("+I", "+U"):
            last[key_of(row["values"], key)] = row["values"]
        elif row["kind"] == "-D":
            last.pop(key_of(row["values"], key), None)
    return last


def first_rows_by_key(rows: list[dict], key: list[int]) -> dict:
    first = {}
    for row in rows:
        first.setdefault(key_of(row["values"], key), row)
    return first


def numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def swapped_columns(restored: list[dict], baseline: list[dict], columns: list[int]) -> list[str]:
    """Two value columns whose ratio in the restored rows is the inverse of their ratio in the
    baseline (e.g. SUM(b) / COUNT(*) is about 150; about 1/150 when the values are swapped). A
    ratio does not depend on how many rows a window or frame holds, a magnitude would."""
    def log_ratio(values: list, j: int, k: int) -> float | None:
        a, b = values[j], values[k]
        return math.log10(a / b) if numeric(a) and numeric(b) and a > 0 and b > 0 else None

    problems = []
    for n, j in enumerate(columns):
        for k in columns[n + 1:]:
            usual = sorted(x for x in (log_ratio(r["values"], j, k) for r in baseline) if x is not None)
            if not usual or abs(usual[len(usual) // 2]) < 0.7:
                continue  # the two columns are not told apart by their ratio
            typical = usual[len(usual) // 2]
            seen = [x for x in (log_ratio(r["values"], j, k) for r in restored) if x is not None]
            if seen and all(abs(x + typical) < abs(x - typical) for x in seen):
                problems.append(f"columns {j} and {k} hold each other's values (their ratio is inverted: swapped)")
    return problems


def keys_out_of_range(spec: dict, rows: list[dict]) -> list[str]:
    """Rows whose key values lie outside the source's ranges: keys read in another order."""
    problems = []
    for column, (low, high) in {int(k): v for k, v in spec.get("key_ranges", {}).items()}.items():
        bad = [r["text"] for r in rows if numeric(r["values"][column]) and not low <= r["values"][column] <= high]
        if bad:
            problems.append(f"key column {column} holds values outside {low}..{high}, e.g. {bad[0]} (key fields swapped)")
    return problems


def keys_in_range(spec: dict, by_key: dict) -> dict:
    """`only_keys: [low, high]`: the keys of the query the pair is about (in a statement set, each
    query has its own key range)."""
    if "only_keys" not in spec:
        return by_key
    low, high = spec["only_keys"]
    return {k: v for k, v in by_key.items() if all(numeric(x) and low <= x <= high for x in k)}


def judge_changelog(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """Group aggregates, keep-last deduplication: the first message for a key after restore is a
    retraction (-U/-D, carrying the restored result) if state was found for it, +I if not."""
    key, old_key = spec["key"], spec.get("old_key", spec["key"])
    same = {int(k): v for k, v in spec.get("same", {}).items()}
    same_meaning = spec.get("state_meaning", "same") == "same"
    old_last = keys_in_range(spec, last_rows_by_key(old["rows"], old_key))
    firsts = keys_in_range(spec, first_rows_by_key(new["rows"], key))
    found, missing, wrong, ok = [], [], [], []
    wrong += keys_out_of_range(spec, new["rows"])
    for k, row in firsts.items():
        if k not in old_last:
            continue
        before = old_last[k]
        if row["kind"] == "+I":
            missing.append(k)
            continue
        found.append(k)
        restored = row["values"]
        if not same_meaning:
            wrong.append(f"key {k}: continues from the old state, whose meaning changed ({row['text']})")
            continue
        for j, value in enumerate(restored):
            if j in key:
                continue
            if j in same:
                if value == before[same[j]]:
                    continue
                others = [i for i, v in enumerate(before) if v == value and i not in old_key]
                why = (f"holds old column {others[0]}'s value {value}, not old column {same[j]}'s {before[same[j]]} (swapped)"
                       if others else f"is {value}, old value was {before[same[j]]}")
                wrong.append(f"key {k}: column {j} {why}")
            elif value is not None and any(value == v for i, v in enumerate(before) if i not in old_key):
                wrong.append(f"key {k}: column {j} (new meaning) continues from old value {value}")
            elif value not in (None, 0):
                wrong.append(f"key {k}: column {j} (new) is {value}, not an empty accumulator's value")
        if not any(w.startswith(f"key {k}:") for w in wrong):
            ok.append(k)
    # A key the baseline emits but the new job never does: its restored result absorbed every new
    # row (e.g. a MAX continuing from an old SUM never changes, so nothing is emitted).
    base_keys = set(keys_in_range(spec, {key_of(r["values"], key): r for r in base["rows"]}))
    value_columns = {j for r in base["rows"] for j, v in enumerate(r["values"]) if v is not None and j not in key}
    for k in sorted((set(old_last) & base_keys) - set(firsts), key=str):
        found.append(k)
        if not same_meaning or not value_columns <= set(same):
            wrong.append(f"key {k}: no result at all after the restore while the baseline emits it: the restored "
                         f"state (old result {old_last[k]}) absorbs the new rows")
    shown = [firsts[k]["text"] for k in found + missing if k in firsts][:4]
    if wrong:
        return "silently_wrong", "; ".join(wrong[:2]), shown
    if not found and not missing:
        raise Verdict("cannot_tell", "no key of the old job appeared in the new job's output")
    if found and not missing:
        return "state_reused", f"all {len(found)} old keys continued from their saved results", shown
    if missing and not found:
        return "state_dropped", f"all {len(missing)} old keys started again from empty (+I)", shown
    return "cannot_tell", f"{len(found)} keys restored, {len(missing)} started empty", shown


def judge_first_row(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """Keep-first deduplication: a key remembered in state is not emitted again."""
    key, old_key = spec["key"], spec.get("old_key", spec["key"])
    same_meaning = spec.get("state_meaning", "same") == "same"
    old_keys = {key_of(r["values"], old_key) for r in old["rows"] if r["kind"] == "+I"}
    base_keys = {key_of(r["values"], key) for r in base["rows"]}
    new_keys = {key_of(r["values"], key) for r in new["rows"]}
    comparable = old_keys & base_keys
    if not comparable:
        raise Verdict("cannot_tell", "the baseline emitted none of the old job's keys")
    again = comparable & new_keys
    if not again:
        if same_meaning:
            return "state_reused", f"old keys {sorted(comparable)} not emitted again (remembered in state)", []
        return "silently_wrong", f"keys {sorted(comparable)} not emitted: suppressed by state saved under another meaning", []
    if again == comparable:
        return "state_dropped", f"old keys {sorted(again)} emitted again as first rows", []
    return "cannot_tell", f"some old keys emitted again ({sorted(again)} of {sorted(comparable)})", []


def restored_windows(spec: dict, new: dict) -> list[dict]:
    """Window results of the new job for windows that ended before the new job started."""
    end = spec["window_end"]
    started = new["submitted"]
    return [r for r in new["rows"] if numeric(r["values"][end]) and r["values"][end] <= started - 0.5]


def judge_window(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """Group window aggregates: a window that closed before the new job started can only come
    from the savepoint; its bounds and values show how the state was read."""
    same = {int(k): v for k, v in spec.get("same", {}).items()}
    end, start = spec["window_end"], spec.get("window_start")
    restored = restored_windows(spec, new)
    if not base["rows"]:
        raise Verdict("cannot_tell", "the baseline emitted no window")
    if not restored:
        return "state_dropped", "no window from before the restart was emitted", []
    problems = keys_out_of_range(spec, new["rows"])
    if spec.get("state_meaning", "same") != "same":
        problems.append("windows from before the restart emitted although the state's meaning changed")
    if start is not None:
        sizes = {round(r["values"][end] - r["values"][start], 3) for r in base["rows"]}
        old_sizes = {round(r["values"][end] - r["values"][start], 3) for r in restored}
        if old_sizes - sizes:
            problems.append(f"restored window fired with size {sorted(old_sizes)} s; the new query's windows are {sorted(sizes)} s")
    value_columns = [j for j in range(len(restored[0]["values"]))
                     if j not in spec["key"] and j not in (start, end) and restored[0]["values"][j] is not None]
    for j in value_columns:
        if j not in same:
            if spec.get("state_meaning", "same") == "same":
                problems.append(f"column {j} (new meaning) computed from the old window's state")
            continue
    problems += swapped_columns(restored, base["rows"], [j for j in value_columns if j in same])
    problems += top_n_problems(spec, restored)
    evidence = [r["text"] for r in restored[:3]]
    if problems:
        return "silently_wrong", "; ".join(dict.fromkeys(problems)), evidence
    return "state_reused", f"{len(restored)} window results from before the restart emitted with the new query's meaning", evidence


def judge_rows(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """OVER aggregates: the first result per key after restore counts rows from before the restart
    (counter > the baseline's first counter) if state was found."""
    key = spec["key"]
    counter = spec["counter"]
    same = {int(k): v for k, v in spec.get("same", {}).items()}
    firsts = first_rows_by_key(new["rows"], key)
    base_firsts = first_rows_by_key(base["rows"], key)
    if not base_firsts:
        raise Verdict("cannot_tell", "the baseline emitted nothing")
    fresh_count = max(r["values"][counter] for r in base_firsts.values())
    carried = [k for k, r in firsts.items() if numeric(r["values"][counter]) and r["values"][counter] > fresh_count]
    evidence = [r["text"] for r in list(firsts.values())[:3]]
    if not carried:
        return "state_dropped", f"first results after restore count {sorted({r['values'][counter] for r in firsts.values()})} rows, as from empty state", evidence
    problems = []
    if spec.get("state_meaning", "same") != "same":
        problems.append(f"the counter continues from rows before the restart although the state's meaning changed")
    for j in spec.get("aggregates", []):
        if j not in same:
            if spec.get("state_meaning", "same") == "same":
                problems.append(f"column {j} (new meaning) continues from old state")
            continue
    problems += swapped_columns([firsts[k] for k in carried], base["rows"], [j for j in spec.get("aggregates", []) if j in same])
    if problems:
        return "silently_wrong", "; ".join(problems), evidence
    return "state_reused", f"{len(carried)} keys continued counting rows from before the restart", evidence


def top_n_problems(spec: dict, restored: list[dict]) -> list[str]:
    """Window Top-N, `top_n: [old N, new N]`: a restored window emits its rows per key from the
    saved state; at most old N of them when the state kept only the old top N."""
    if "top_n" not in spec:
        return []
    old_n, new_n = spec["top_n"]
    per_window: dict = {}
    for r in restored:
        k = (key_of(r["values"], spec["key"]), r["values"][spec["window_end"]])
        per_window[k] = per_window.get(k, 0) + (1 if r["kind"] in ("+I", "+U") else 0)
    most = max(per_window.values(), default=0)
    if most > new_n:
        return [f"a restored window emitted {most} rows for one key, more than the new N {new_n}"]
    if new_n > old_n and most <= old_n:
        return [f"restored windows emitted at most {most} rows per key: the state kept only the old top {old_n}, "
                f"the new query asks for {new_n}"]
    return []


def judge_stamped(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """Joins and Top-N: `stamps` are the printed creation times of the rows an output row is made
    of; an output row with a stamp from before the new job was submitted was built from state."""
    stamps = spec["stamps"]
    started = new["submitted"]
    if not base["rows"]:
        raise Verdict("cannot_tell", "the baseline emitted nothing")

    def oldest(row: dict) -> float | None:
        times = [row["values"][j] for j in stamps if numeric(row["values"][j])]
        return min(times) if times else None

    restored = [r for r in new["rows"] if oldest(r) is not None and oldest(r) < started - 0.5]
    evidence = [r["text"] for r in restored[:3]]
    if "counted" in spec:
        return judge_counted(spec, old, new, base)
    if "looked_up" in spec and restored:
        # Lookup joins: the lab's lookup source finds value key * 100 + offset for a key;
        # `looked_up: [key column, value column, offset]` names the new query's key. A restored row
        # (in flight at the savepoint) carrying another key's value was not looked up again.
        key, value, offset = spec["looked_up"]
        stale = [r for r in restored if not numeric(r["values"][key]) or r["values"][value] != r["values"][key] * 100 + offset]
        if stale:
            return ("silently_wrong", f"{len(stale)} of {len(restored)} rows in flight at the savepoint carry a value "
                    f"not looked up with the new key", [r["text"] for r in stale[:3]])
    if "restored_values" in spec:
        # A projection computed after the operator (a stamp from CURRENT_TIMESTAMP) does not tell
        # restored rows: `restored_values: {match: [columns], null: column}` finds the new job's rows
        # whose values in `match` the old job emitted. The column the new query added (`null`, a
        # column with nulls) filled in one of them shows the operator kept it; null in all, that it
        # was restored without it.
        match, null = spec["restored_values"]["match"], spec["restored_values"]["null"]
        emitted = {key_of(r["values"], match) for r in old["rows"] if r["kind"] in ("+I", "+U")}
        carried = [r for r in new["rows"] if key_of(r["values"], match) in emitted]
        if carried:
            filled = [r for r in carried if r["values"][null] is not None]
            if filled:
                return ("state_reused", f"{len(carried)} rows of the old job's buffer restored; {len(filled)} carry a value in "
                        f"the column the new query added (column {null}): the operator keeps whole input rows",
                        [r["text"] for r in carried[:3]])
            if len(carried) >= 3:
                return ("silently_wrong", f"{len(carried)} rows of the old job's buffer restored, all with null in the column "
                        f"the new query added (column {null})", [r["text"] for r in carried[:3]])
    if "restored_filter" in spec:
        # Rows the operator buffered before the restart (their own stamp, the first, is old) that
        # the new filter drops: `restored_filter: [column, min]` (null or below min is dropped).
        column, low = spec["restored_filter"]
        own = [r for r in new["rows"] if numeric(r["values"][stamps[0]]) and r["values"][stamps[0]] < started - 0.5]
        bad = [r for r in own if not numeric(r["values"][column]) or r["values"][column] < low]
        if bad:
            return ("silently_wrong", f"{len(bad)} of {len(own)} rows buffered before the restart were emitted although "
                    f"the new filter drops them (column {column} null or below {low})", [r["text"] for r in bad[:3]])
        if own:
            return "cannot_tell", f"{len(own)} rows buffered before the restart emitted, none that the new filter drops", evidence
    if "max_age" in spec:
        # MATCH_RECOGNIZE ... WITHIN: `max_age: [start, end, seconds]`; a restored match longer
        # than the new WITHIN was kept under the old pattern's (absent) time limit.
        start, end, limit = spec["max_age"]
        long = [r for r in restored if numeric(r["values"][end]) and r["values"][end] - r["values"][start] > limit + 0.001]
        if long:
            return ("silently_wrong", f"{len(long)} restored matches span more than the new WITHIN {limit} s",
                    [r["text"] for r in long[:3]])
    if not restored and spec.get("empty_buffer"):
        return ("state_reused", "restored without an error; the operator holds rows only until the next millisecond, so "
                "there is nothing to carry over", [])
    if not restored:
        if spec.get("top_n"):
            inserted = sum(1 for r in new["rows"] if r["kind"] == "+I")
            base_inserted = sum(1 for r in base["rows"] if r["kind"] == "+I")
            if inserted * 2 < base_inserted:
                why = (f"no row from before the restart shown, but the new job emitted {inserted} rows where the "
                       f"baseline emitted {base_inserted}: the ranks were filled from state")
                if spec.get("state_meaning", "same") != "same":
                    return "silently_wrong", f"{why}, saved under another meaning", []
                return "cannot_tell", why, []
        return "state_dropped", "no output row is built from a row created before the restart", []
    if spec.get("state_meaning", "same") != "same":
        return "silently_wrong", f"{len(restored)} output rows built from rows saved under another meaning", evidence
    if "bounds" in spec:
        old_bound, new_bound = spec["bounds"]
        ages = [abs(r["values"][stamps[0]] - r["values"][stamps[1]]) for r in restored]
        if new_bound < old_bound and max(ages) > new_bound + 1:
            return "silently_wrong", f"restored rows joined {max(ages):.1f} s apart, beyond the new bound {new_bound} s", evidence
        if new_bound > old_bound:
            stop = max(oldest(r) or 0 for r in old["rows"])
            reach = stop - min(oldest(r) for r in restored)
            if reach < old_bound + 2:
                return ("silently_wrong", f"the restored rows reach back only {reach:.1f} s before the savepoint: rows older "
                        f"than the old bound {old_bound} s were cleaned, the new bound {new_bound} s needs them", evidence)
        return ("state_reused", f"{len(restored)} output rows built from restored rows, ages "
                f"{min(ages):.1f}..{max(ages):.1f} s within the new bound", evidence)
    return "state_reused", f"{len(restored)} output rows built from restored rows", evidence


def judge_counted(spec: dict, old: dict, new: dict, base: dict) -> tuple[str, str, list]:
    """LIMIT without ORDER BY keeps one counter of the rows it has seen (up to offset + fetch).
    `counted: [old fetch, old offset, new fetch, new offset]`: a restored counter lets through only
    the ranks beyond it; an empty state lets through the new query's whole range."""
    old_fetch, old_offset, new_fetch, new_offset = spec["counted"]
    inserted = sum(1 for r in new["rows"] if r["kind"] == "+I")
    fresh = sum(1 for r in base["rows"] if r["kind"] == "+I")
    seen = old_fetch + old_offset
    if sum(1 for r in old["rows"] if r["kind"] == "+I") < old_fetch:
        raise Verdict("cannot_tell", "the old job did not reach its limit")
    continued = len([rank for rank in range(seen + 1, new_offset + new_fetch + 1) if rank > new_offset])
    evidence = [r["text"] for r in new["rows"][:3]]
    if fresh != new_fetch:
        raise Verdict("cannot_tell", f"the baseline emitted {fresh} rows, not the new limit {new_fetch}")
    if inserted == continued and continued != fresh:
        return ("state_reused", f"the new job emitted {inserted} rows (the baseline {fresh}): it continued the old counter "
                f"({seen} rows seen) up to the new range {new_offset + 1}..{new_offset + new_fetch}", evidence)
    if inserted == fresh:
        return "state_dropped", f"the new job emitted {inserted} rows, as the baseline: the counter started from zero", evidence
    return "cannot_tell", f"the new job emitted {inserted} rows; {continued} if it continued, {fresh} from empty", evidence


JUDGES = {"stamped": judge_stamped, "changelog": judge_changelog, "first_row": judge_first_row, "window": judge_window, "rows": judge_rows}


def observe(pair_id: str) -> dict:
    pair = load_pair(pair_id)
    observation = {"id": pair_id, "rule": pair.get("rule")}
    if pair.get("skipped"):
        return dict(observation, outcome="cannot_tell", exception=None,
                    detail=f"not run: {pair['skipped']}", evidence={})
    run_dir = RUNS / pair_id
    logs = parse_run(run_dir / "run.log")
    old, new, base = logs["old"], logs["new"], logs["baseline"]
    evidence = {
        "old_last": [r["text"] for r in old["rows"][-6:]],
        "new_first": [r["text"] for r in new["rows"][:6]],
        "baseline_first": [r["text"] for r in base["rows"][:4]],
    }
    observation["exception"] = None
    try:
        if not old["ran"]:
            raise Verdict("cannot_tell", "not run yet")
        if old["failure"] or not old["savepoint"]:
            failure = old["failure"] or {}
            raise Verdict("cannot_tell", f"the old job did not reach a savepoint: {failure.get('class')}: {failure.get('message')}")
        if new["failure"]:
            failure = new["failure"]
            observation["exception"] = failure["class"]
            if base["failure"]:
                raise Verdict("cannot_tell", f"the new job fails even without state: {base['failure']['class']}")
            raise Verdict("restore_fails", f"{failure['phase']}: {failure['class']}: {failure['message']}")
        if base["failure"]:
            raise Verdict("cannot_tell", f"the new job fails without state: {base['failure']['class']}: {base['failure']['message']}")
        spec = pair["judge"]
        outcome, detail, restored = JUDGES[spec["method"]](spec, old, new, base)
        if restored:
            evidence["judged"] = restored[:4]
        if spec.get("cannot_tell"):  # the pair knows the lab cannot decide this one from numbers
            detail = f"{spec['cannot_tell']} (the numbers said: {outcome}: {detail})"
            outcome = "cannot_tell"
        raise Verdict(outcome, detail)
    except Verdict as verdict:
        assert verdict.outcome in OUTCOMES, verdict.outcome
        observation["outcome"], observation["detail"] = verdict.outcome, verdict.detail
    if pair.get("note"):
        observation["detail"] += f" [{pair['note']}]"
    observation["evidence"] = evidence
    return observation


def machine() -> str:
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores {cpu}, "
            f"Python {platform.python_version()}, {java[0] if java else 'java ?'}; one JVM for a run of pairs with a local MiniCluster per job, "
            f"parallelism 1, hashmap (heap) state backend")


def flink_version() -> str:
    from importlib.metadata import version
    return version("apache-flink")


def write_observations(ids: list[str]) -> Path:
    out = OBSERVATIONS / f"flink-{flink_version()}.yaml"
    existing = yaml.safe_load(out.read_text()) if out.exists() else None
    by_id = {o["id"]: o for o in (existing or {}).get("observations", [])}
    for pair_id in ids:
        by_id[pair_id] = observe(pair_id)
        print(f"{pair_id}: {by_id[pair_id]['outcome']} — {by_id[pair_id]['detail']}", flush=True)
    document = {
        "flink_version": flink_version(),
        "recorded": datetime.date.today().isoformat(),
        "machine": machine(),
        "observations": [by_id[k] for k in sorted(by_id) if (PAIRS / f"{k}.yaml").exists()],
    }
    OBSERVATIONS.mkdir(exist_ok=True)
    out.write_text("# Written by lab/restore/restore_lab.py; see lab/restore/README.md.\n"
                   + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))
    return out


def check_pairs(ids: list[str]) -> int:
    tool = LAB.parent.parent / "target" / "debug" / "flink-compat"
    failures = 0
    for pair_id in ids:
        pair = load_pair(pair_id)
        if pair.get("skipped"):
            print(f"{pair_id}: skipped")
            continue
        run_dir = RUNS / pair_id
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "old.sql").write_text(pair["old"])
        (run_dir / "new.sql").write_text(pair["new"])
        done = subprocess.run([str(tool), "check", str(run_dir / "old.sql"), str(run_dir / "new.sql"), "--format", "json"],
                              capture_output=True, text=True)
        if done.returncode == 2:
            failures += 1
            print(f"{pair_id}: flink-compat cannot read it: {done.stdout.strip()[:300]}")
        else:
            report = json.loads(done.stdout)
            rules = sorted({f["rule"] for q in report.get("queries", []) for o in q.get("operators", []) for f in o.get("findings", [])}
                           | {f["rule"] for q in report.get("queries", []) for f in q.get("findings", [])})
            print(f"{pair_id}: {report['verdict']} {rules}")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "judge", "check"):
        p = sub.add_parser(name)
        p.add_argument("ids", nargs="*")
    phases = sub.add_parser("phases", help="internal: run the jobs of one pair in this process")
    phases.add_argument("run_dirs", nargs="+")
    job = sub.add_parser("job", help="internal: run one job in this process (JSON spec)")
    job.add_argument("spec")
    args = parser.parse_args()
    if args.command == "phases":
        return run_phases(args)
    if args.command == "job":
        return run_one_job(args)
    ids = pair_ids(args.ids)
    if args.command == "check":
        return check_pairs(ids)
    if args.command == "run":
        run_pairs(ids)
    print(f"wrote {write_observations(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
