#!/usr/bin/env bash
# Builds the fuzz targets once, then runs each in turn for SECONDS (default 900), seeded from
# cases/, examples/, rules/ and the shared corpus (fuzz/seeds.py). What a run finds that adds
# coverage beyond the seeds and fuzz/corpus/<target>/ is added to that corpus (committed: the
# next run starts from it; the files already there stay as they are). Every crash, timeout or
# out-of-memory input is minimized and copied to tests/fuzz_regressions/<target>/, which
# `cargo test` replays (tests/fuzz_regressions.rs).
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# A nightly toolchain is used when installed, otherwise stable with RUSTC_BOOTSTRAP=1.
# FUZZ_SANITIZER (default none: the code is safe Rust, and a sanitizer halves the speed) is
# passed to `cargo fuzz build --sanitizer`. Run it under `nice`.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-900}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(sql_front_end check predicate_dsl rule_file case_file)
fi

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    cargo_fuzz=(cargo +nightly fuzz)
    rustc=(rustc +nightly)
else
    export RUSTC_BOOTSTRAP=1
    cargo_fuzz=(cargo fuzz)
    rustc=(rustc)
fi
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2; exit 2; }
sanitizer=${FUZZ_SANITIZER:-none}
"${cargo_fuzz[@]}" build --release --debug-assertions --sanitizer "$sanitizer"
# The binaries are run directly: `cargo fuzz run` would rebuild from a tree that may have
# changed since.
host=$("${rustc[@]}" -vV | sed -n 's/^host: //p')
bin_dir=target/$host/release

# A directory of this run's own: runs of different targets may go on side by side.
seeds=target/seeds-$$
trap 'rm -rf "$seeds"' EXIT
rm -rf "$seeds"
(cd .. && python3 fuzz/seeds.py "fuzz/$seeds")

limits=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1)
summary=()
for target in "${targets[@]}"; do
    bin=$bin_dir/$target
    mkdir -p "corpus/$target" "artifacts/$target" "$seeds/$target" "../tests/fuzz_regressions/$target"
    # libFuzzer writes what it finds into the first directory: a scratch one, so that the
    # committed corpus only ever grows by what adds coverage (below), never churns.
    found=$(mktemp -d)
    started=$(date +%s)
    deadline=$((started + seconds))
    crashes=0
    runs=0
    # A crash stops libFuzzer; fuzzing goes on for the rest of the time, up to 5 crashes.
    while [ "$(date +%s)" -lt "$deadline" ] && [ "$crashes" -lt 5 ]; do
        left=$((deadline - $(date +%s)))
        before=$(ls "artifacts/$target" | sort)
        log=$(mktemp)
        if "$bin" "${limits[@]}" -max_total_time="$left" -artifact_prefix="artifacts/$target/" \
            "$found" "corpus/$target" "$seeds/$target" >"$log" 2>&1; then
            status=ok
        else
            status=failed
        fi
        runs=$((runs + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)))
        tail -n 3 "$log"
        [ "$status" = ok ] && { rm -f "$log"; break; }
        new=$(comm -13 <(echo "$before") <(ls "artifacts/$target" | sort))
        if [ -z "$new" ]; then
            echo "$target: libFuzzer failed without an artifact:" >&2
            tail -n 30 "$log" >&2
            rm -f "$log"
            exit 1
        fi
        rm -f "$log"
        for artifact in $new; do
            input=artifacts/$target/$artifact
            # libFuzzer's timeout is wall time: a fuzzer starved of CPU (under `nice`, beside
            # builds) can report a timeout that the input alone does not have. Run it alone,
            # with the same limits: an input that passes then is set aside, not a regression.
            if "$bin" -timeout=10 -rss_limit_mb=2048 "$input" >/dev/null 2>&1; then
                mv "$input" "artifacts/$target/unconfirmed-$artifact"
                echo "$target: $artifact passes when run alone (set aside as unconfirmed-$artifact)" >&2
                continue
            fi
            crashes=$((crashes + 1))
            minimized=artifacts/$target/minimized-$artifact
            # Minimizing keeps the input failing; a timeout or out-of-memory input may not
            # minimize, then it is kept whole.
            "$bin" -minimize_crash=1 -runs=20000 -timeout=10 -exact_artifact_path="$minimized" \
                "$input" >/dev/null 2>&1 || true
            [ -s "$minimized" ] || cp "$input" "$minimized"
            cp "$minimized" "../tests/fuzz_regressions/$target/$artifact"
            echo "$target: $artifact -> tests/fuzz_regressions/$target/$artifact" >&2
        done
    done
    # Keep what the run found that adds coverage beyond the seeds and the committed corpus:
    # merge it into a copy of both, then add the files that are neither to the corpus.
    merged=$(mktemp -d)
    cp -r "$seeds/$target"/. "corpus/$target"/. "$merged"/
    "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 "$merged" "$found" >/dev/null 2>&1
    added=0
    for file in "$merged"/*; do
        name=$(basename "$file")
        # Inputs over 1 KiB are left to the seeds and the next run: the committed corpus
        # stays small (most coverage comes with the small ones).
        if [ ! -e "$seeds/$target/$name" ] && [ ! -e "corpus/$target/$name" ] \
            && [ "$(stat -c %s "$file")" -le 1024 ]; then
            mv "$file" "corpus/$target/"
            added=$((added + 1))
        fi
    done
    rm -rf "$merged" "$found"
    elapsed=$(($(date +%s) - started))
    summary+=("$target: ${elapsed}s, $runs runs, $crashes failing inputs, corpus $(ls "corpus/$target" | wc -l) files ($added added) ($(du -sh "corpus/$target" | cut -f1))")
done
printf '%s\n' "${summary[@]}"
