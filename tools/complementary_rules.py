#!/usr/bin/env python3
"""Lists the pairs of rules of one operator kind and change kind whose `when:` are complementary
(one is the other's negation, or they differ in one conjunct that is negated), per profile, as
the profile loads them (a profile's rules override its base's by id; a family's rules per kind).

Such a pair is one idea written twice: write it once, as a rule with `variants:` (docs/guide.md).

    python3 tools/complementary_rules.py            # every complementary pair
    python3 tools/complementary_rules.py --near     # and pairs differing in one conjunct
"""
import glob
import os
import re
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def split_top(text, word):
    """`text` split at the top-level (outside parentheses and quotes) occurrences of `word`."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    pattern = re.compile(r"\s+%s\s+" % word)
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            m = pattern.match(text, i)
            if m:
                parts.append(text[start:i])
                start = i = m.end()
                continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def strip_parens(text):
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, c in enumerate(text):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        text = text[1:-1].strip()
    return text


def norm(text):
    return re.sub(r"\s+", " ", strip_parens(text or "true"))


NEGATED_OPS = [("==", "!="), (">", "<="), ("<", ">=")]


def negation(text):
    """The negation of a conjunct, in a normal form."""
    text = norm(text)
    if text.startswith("not "):
        return norm(text[4:])
    if len(split_top(text, "and")) == 1 and len(split_top(text, "or")) == 1:
        for a, b in NEGATED_OPS:
            for x, y in ((a, b), (b, a)):
                m = re.fullmatch(r"(.+?) %s (.+)" % re.escape(x), text)
                if m and not any(o in m.group(1) for o in ("=", "<", ">")):
                    return "%s %s %s" % (m.group(1), y, m.group(2))
    return "not " + text


def same(a, b):
    a, b = norm(a), norm(b)
    # A count is never negative: `> 0` is `!= 0`, `<= 0` is `== 0`.
    zero = lambda t: re.sub(r"(count\(.+\)) (>|<=) 0$", lambda m: m.group(1) + (" != 0" if m.group(2) == ">" else " == 0"), t)
    return a == b or zero(a) == zero(b)


def complementary(a, b):
    """Whether `when` a and b are complementary, and the conjuncts they share."""
    ca, cb = split_top(norm(a), "and"), split_top(norm(b), "and")
    only_a = [c for c in ca if not any(same(c, d) for d in cb)]
    only_b = [c for c in cb if not any(same(c, d) for d in ca)]
    if len(only_a) == 1 and len(only_b) == 1:
        x, y = only_a[0], only_b[0]
        return same(negation(x), y) or same(x, negation(y)), (only_a, only_b)
    return False, (only_a, only_b)


def substitute(text, values):
    for name, value in values.items():
        text = text.replace("${%s}" % name, str(value))
    return text


def rules_of(path):
    data = yaml.safe_load(open(path)) or {}
    kinds = {}
    if "operator" in data:
        kinds = {data["operator"]: {}}
    elif "family" in data:
        kinds = {k: dict(v or {}, kind=k) for k, v in data["family"].items()}
    for kind, values in kinds.items():
        for rule in data.get("rules", []):
            for variant in rule.get("variants") or [None]:
                merged = dict(rule)
                merged.pop("variants", None)
                if variant is not None:
                    merged.update(variant)
                    whens = [rule.get("when"), variant.get("when")]
                    merged["when"] = " and ".join("(%s)" % w for w in whens if w) or None
                yield kind, {
                    k: substitute(v, values) if isinstance(v, str) else v
                    for k, v in merged.items()
                }, os.path.relpath(path, ROOT)


def profile_rules(profile):
    chain = []
    while profile:
        chain.insert(0, profile)
        meta = yaml.safe_load(open(os.path.join(ROOT, "rules", profile, "profile.yaml")))
        profile = meta.get("extends")
    rules = {}
    for name in chain:
        files = sorted(glob.glob(os.path.join(ROOT, "rules", name, "*.yaml")))
        files = [f for f in files if not f.endswith("profile.yaml")]
        for path in files:
            for kind, rule, rel in rules_of(path):
                base = rules.get(rule["id"], {})
                merged = dict(base)
                merged.update({k: v for k, v in rule.items() if v is not None})
                merged["kind"], merged["file"] = kind, rel
                merged.setdefault("when", "true")
                rules[rule["id"]] = merged
    return rules


def main():
    near = "--near" in sys.argv
    found = 0
    for profile in ["vvr", "apache-flink-2"]:
        rules = list(profile_rules(profile).values())
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                if (a["kind"], a.get("change")) != (b["kind"], b.get("change")):
                    continue
                yes, (only_a, only_b) = complementary(a["when"], b["when"])
                if yes or (near and len(only_a) <= 1 and len(only_b) <= 1):
                    found += yes
                    mark = "complementary" if yes else "near"
                    print(f"{profile}: {mark}: {a['kind']} / {a.get('change')}")
                    print(f"  {a['id']} ({a['file']}): {a['when']}")
                    print(f"  {b['id']} ({b['file']}): {b['when']}")
    print(f"{found} complementary pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
