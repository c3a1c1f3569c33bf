#!/usr/bin/env bash
# Builds SKANKit's libFuzzer targets, seeds them from the real vectors and runs each for a set number of inputs or
# a set time, then prints per target: executions, executions per second, wall time, whether it crashed, and where
# the crash input went. See Fuzz/README.md.
#
# Usage: Fuzz/run.sh [TARGET ...]          (default: every target)
# Environment:
#   RUNS=N        inputs per target (default 200000; the figures in Fuzz/README.md used RUNS=10000000)
#   MAX_TIME=S    also stop a target after S seconds (default: no limit)
#   MAX_LEN=B     longest input libFuzzer makes (default 4096, six times a real postback: the collector takes
#                 up to 64 KiB, but every length check and loop in the readers is reached far below that)
#   VECTORS=DIR   the vectors to seed from (default: ../shared/vectors beside the package)
#   WORK=DIR      corpora, crash inputs and logs (default: .build-fuzz/work, ignored by git)
#   NICE=N        nice level of the fuzzing processes (default 10: the machine is shared)
#   SKIP_BUILD=1  use the binaries already built
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch="$root/.build-fuzz"
runs=${RUNS:-200000}
max_time=${MAX_TIME:-0}
max_len=${MAX_LEN:-4096}
vectors=${VECTORS:-"$root/../shared/vectors"}
work=${WORK:-"$scratch/work"}
nice_level=${NICE:-10}
all_targets=(FuzzJSONReader FuzzPostbackParser FuzzPostbackVerifier FuzzImpressionParser FuzzFixedKeyVerifier)
targets=("${@:-${all_targets[@]}}")

for target in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "run.sh: unknown target $target (known: ${all_targets[*]})" >&2; exit 2; }
done
[[ -d "$vectors" ]] || { echo "run.sh: no vectors at $vectors (set VECTORS)" >&2; exit 2; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    # SwiftPM's own --sanitize=fuzzer (not -Xswiftc alone) so that it links libFuzzer's main instead of the Swift
    # one; address sanitizer too, because SKANCore reads bytes through unsafe buffer pointers that release builds
    # do not bounds-check. SwiftPM hands swiftc `-sanitize=fuzzer -sanitize=address`, and swiftc 6.3.1 keeps only
    # the last of the two, dropping the coverage instrumentation (libFuzzer then warns "no interesting inputs");
    # the combined `-sanitize=fuzzer,address` after them restores it. The scratch path keeps these instrumented
    # builds apart from the root package's.
    nice -n "$nice_level" swift build -c release --package-path "$root/Fuzz" --scratch-path "$scratch" \
        --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address
fi
bin="$scratch/release"

# Seed files are named by the hash of their bytes, so making them again over an old set (or while another run.sh
# reads them) writes the same files.
seeds="$work/seeds"
python3 "$root/Fuzz/make-seeds.py" "$vectors" "$root/Samples/postbacks" "$seeds"

# Leaks are still checked after every input (libFuzzer's -detect_leaks, on by default with ASan); only the check
# at exit is off. At exit LeakSanitizer reports Apple's P-192 key, which lives for the whole process in
# `KeyRing.apple`: Swift stores the class reference inside an enum payload with its tag in the pointer's spare
# bits, so LeakSanitizer does not see it as a pointer (seen in the first trial run: 3,339 bytes "leaked", all
# allocated while making `KeyRing.apple`).
export ASAN_OPTIONS=${ASAN_OPTIONS:-leak_check_at_exit=0}

summary=()
failed=0
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"
    artifacts="$work/artifacts/$target"
    log="$work/logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    options=(
        -runs="$runs" -max_len="$max_len" -dict="$root/Fuzz/skan.dict"
        -artifact_prefix="$artifacts/" -timeout=10 -print_final_stats=1
    )
    [[ "$max_time" != 0 ]] && options+=(-max_total_time="$max_time")
    echo "== $target: ${options[*]}"
    start=$(date +%s)
    status=0
    # The corpus folder first: libFuzzer adds the inputs that found new coverage there, so a later run goes on from it.
    nice -n "$nice_level" "$bin/$target" "${options[@]}" "$corpus" "$seeds/$target" >"$log" 2>&1 || status=$?
    seconds=$(( $(date +%s) - start ))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # Our own rate from the wall time: libFuzzer's average_exec_per_sec is rounded to whole seconds of run time.
    per_second=$(( ${executions:-0} / (seconds > 0 ? seconds : 1) ))
    artifact=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //' || true)
    verdicts=$(grep '^verifier:' "$log" | tail -1 || true)
    if [[ $status == 0 ]]; then
        result="no crash"
    else
        result="CRASH (exit $status): ${artifact:-see $log}"
        failed=1
    fi
    line="$target: ${executions:-?} executions, ${per_second:-?} exec/s, ${seconds} s, $result"
    [[ -n "$verdicts" ]] && line+=" — $verdicts"
    echo "$line"
    summary+=("$line")
    grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*deadly signal)' "$log" | head -5 || true
done

echo
echo "== summary (logs in $work/logs, crash inputs in $work/artifacts)"
printf '%s\n' "${summary[@]}"
exit $failed
