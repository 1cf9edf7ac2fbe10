#!/usr/bin/env bash
# Times the whole command-line process (release build): the documentation example pair and
# generated deployments of 100, 1,000 and 10,000 INSERT statements. Uses hyperfine when it is
# installed (`apt-get install hyperfine`), else a plain loop that prints the mean.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/flink-compat
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in 100 1000 10000; do
  cargo run --release --quiet --example generate_deployment -- "$n" "$work/$n"
done

time_it() { # NAME RUNS COMMAND...
  local name=$1 runs=$2
  shift 2
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 3 --runs "$runs" -i --command-name "$name" "$*" | grep -E 'Benchmark|Time|Range'
  else
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null || true; done
    end=$(date +%s%N)
    echo "$name: mean $(((end - start) / runs / 1000)) µs over $runs runs"
  fi
}

time_it "documentation pair" 200 "$bin" check examples/old.sql examples/new.sql
for n in 100 1000 10000; do
  time_it "$n queries" 10 "$bin" check "$work/$n/old.sql" "$work/$n/new.sql"
done
