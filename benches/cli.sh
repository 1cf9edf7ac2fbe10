#!/usr/bin/env bash
# Times the whole command-line process (release build).
#
# 1. The CPU time of the documentation example pair, the mean of 200 processes, and the
#    instructions one process executes (valgrind's callgrind, when installed: repeatable under
#    load, unlike times).
# 2. Generated deployments of 1,000, 10,000 and 40,000 INSERT statements (`benches/cli.sh N...`
#    for other sizes): the whole check against parsing alone (`examples/parse_only.rs`: the same
#    two scripts, tokenized, split and parsed by the check's front end, nothing else), side by
#    side in one run, the best of 5 of each: CPU time, their ratio, CPU time per query, the
#    ratio of their wall times (scripts of 64 KiB or more are planned side by side, on two
#    threads: the check takes less wall time than CPU time), and peak memory (maximum resident
#    set) with its ratio.
#
# Uses /usr/bin/time (GNU time). Ratios measured in the same run hold under load; absolute
# times do not.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin flink-compat --example parse_only --example generate_deployment
bin=target/release/flink-compat
parse=target/release/examples/parse_only
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 40000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure RUNS COMMAND...: one line per run, "CPU-SECONDS MAX-RSS-KB WALL-SECONDS", sorted
# by CPU time.
measure() {
  local runs=$1
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S %M %e' -o "$work/time" "$@" >/dev/null 2>&1 || true
    tail -1 "$work/time" | awk '{ printf "%.3f %d %.3f\n", $1 + $2, $3, $4 }'
  done | sort -n
}

echo "uptime: $(uptime)"
# The documentation pair: the mean CPU time (task-clock) of 200 processes, with perf when it is
# installed, else the CPU time of a loop of 200 processes divided by 200.
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  perf stat -x, -e task-clock -r 200 "$bin" check examples/old.sql examples/new.sql 2>"$work/perf" >/dev/null || true
  awk -F, '/task-clock/ { printf "documentation pair: %.2f ms of CPU per process (perf stat task-clock, mean of 200)\n", $1 }' "$work/perf"
else
  /usr/bin/time -f '%U %S' -o "$work/time" bash -c "for _ in \$(seq 200); do $bin check examples/old.sql examples/new.sql >/dev/null || true; done"
  awk '{ printf "documentation pair: %.2f ms of CPU per process (mean of 200)\n", ($1 + $2) * 1000 / 200 }' "$work/time"
fi

if command -v valgrind >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" check examples/old.sql examples/new.sql >/dev/null 2>"$work/callgrind" || true
  awk '/Collected/ { printf "documentation pair: %.1f million instructions per process (callgrind)\n", $NF / 1e6 }' "$work/callgrind"
fi

printf '%-9s %10s %10s %6s %12s %10s %10s %6s %10s %10s %6s\n' queries parse_cpu check_cpu ratio us/query \
  parse_wall check_wall ratio parse_rss check_rss ratio
for n in "${sizes[@]}"; do
  target/release/examples/generate_deployment "$n" "$work/$n" >/dev/null
  measure 5 "$parse" "$work/$n/old.sql" "$work/$n/new.sql" >"$work/parse"
  measure 5 "$bin" check "$work/$n/old.sql" "$work/$n/new.sql" >"$work/check"
  p_cpu=$(head -1 "$work/parse" | cut -d' ' -f1)
  c_cpu=$(head -1 "$work/check" | cut -d' ' -f1)
  p_rss=$(cut -d' ' -f2 "$work/parse" | sort -n | head -1)
  c_rss=$(cut -d' ' -f2 "$work/check" | sort -n | head -1)
  p_wall=$(cut -d' ' -f3 "$work/parse" | sort -n | head -1)
  c_wall=$(cut -d' ' -f3 "$work/check" | sort -n | head -1)
  awk -v n="$n" -v p="$p_cpu" -v c="$c_cpu" -v pr="$p_rss" -v cr="$c_rss" -v pw="$p_wall" \
    -v cw="$c_wall" 'BEGIN {
    printf "%-9d %9.2fs %9.2fs %6.2f %12.1f %9.2fs %9.2fs %6.2f %8.0fMiB %8.0fMiB %6.2f\n",
      n, p, c, c / p, c / n * 1e6, pw, cw, cw / pw, pr / 1024, cr / 1024, cr / pr }'
  rm -rf "${work:?}/$n"
done
