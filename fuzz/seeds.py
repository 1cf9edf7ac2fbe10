"""Writes the seed inputs of every fuzz target into DIR/<target>/, each file named by the SHA-1
of its content (as libFuzzer names corpus files): the SQL of the case files, of examples/ and of
the shared corpus (../shared/corpus), old and new of each case joined by a NUL byte for `check`,
the predicates and messages of the built-in rules, the rule files and the case files.

Usage: python3 fuzz/seeds.py DIR   (run from the repository's root)"""

import glob
import hashlib
import os
import sys

import yaml

out = sys.argv[1]


def seed(target, text):
    data = text.encode("utf-8")
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


sql_files = sorted(glob.glob("examples/*.sql"))
for corpus in ("../shared/corpus", "/work/shared/corpus"):
    sql_files += sorted(glob.glob(os.path.join(corpus, "**", "*.sql"), recursive=True))
for path in sql_files:
    text = read(path)
    seed("sql_front_end", text)
    seed("check", text)

for path in sorted(glob.glob("cases/**/*.yaml", recursive=True)):
    text = read(path)
    seed("case_file", text)
    case = yaml.safe_load(text) or {}
    old, new = case.get("old"), case.get("new")
    if isinstance(old, str) and isinstance(new, str):
        seed("sql_front_end", old)
        seed("sql_front_end", new)
        seed("check", old + "\0" + new)

for path in sorted(glob.glob("rules/**/*.yaml", recursive=True)):
    text = read(path)
    seed("rule_file", text)
    rules = yaml.safe_load(text) or {}
    if not isinstance(rules, dict):
        continue
    for predicate in (rules.get("changes") or {}).values():
        if isinstance(predicate, str):
            seed("predicate_dsl", predicate)
    for rule in rules.get("rules") or []:
        for key in ("when", "message"):
            if isinstance(rule, dict) and isinstance(rule.get(key), str):
                seed("predicate_dsl", rule[key])
