#!/usr/bin/env bash
# The hot paths' budgets, in figures that load cannot move: instructions counted by valgrind's callgrind (the same
# total for the same binary and input, whatever else the machine is doing) and bytes written by system calls.
# Each figure is per unit of work: the difference between a SMALL and a LARGE run divided by the difference in
# units, so start-up, key loading and closing cancel out. Data comes from `skan bench postbacks` (traffic-shaped,
# deterministic for a seed), never one repeated key.
#
#   ingest-instructions   one postback of `skan ingest --batch-size 256` (commits the size of a collector's group
#                         commits under load) into a fresh durable SQLite file: read, verify, the collector's store
#                         work (insert, counters, rollup folds) and SQLite itself
#   store-instructions    the same ingest counted only inside GRDB's transactions (callgrind --toggle-collect):
#                         the store's share (inserts, counters, rollup folds, commit), where a change to the
#                         store shows at full size rather than diluted by the verification around it
#   ingest-bytes          bytes written to the database and its WAL per ingested postback (strace), checkpoint
#                         at close included
#   verify-instructions   one line of `skan verify --format json`
#   simulate-instructions one device of `skan simulate` (Samples/campaigns/skan-4.0-subscription.json)
#   sign-instructions     one impression of `skan sign --input FILE.csv` (P-256, version 4.0)
#   relay-instructions    one postback sent by the relay to a local receiver (`skan bench relay` draining a filled
#                         outbox: claim, request, reply, settlement; the median of three runs of each size)
#
# Budgets live in Benchmarks/budgets.txt. A figure more than TOLERANCE % (default 3) over its budget fails the run,
# printing both. A budget is raised only in a commit that says why in Benchmarks/README.md.
#
#   Benchmarks/budget.sh                    # builds release, measures, checks (what .ci/run does)
#   SKAN_BIN=/tmp/skan-old GEN_BIN=.build/release/skan Benchmarks/budget.sh --report   # another build's figures,
#                                           # no check (GEN_BIN writes the data: a build with `bench postbacks --shape`)
#   Benchmarks/budget.sh --write            # writes the measured figures as the new budgets
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
TOLERANCE=${TOLERANCE:-3}
out=${OUT:-.build/budget}
mkdir -p "$out"
for tool in valgrind callgrind_annotate strace objcopy python3; do
    command -v "$tool" >/dev/null || { echo "budget.sh needs $tool (apt-get install -y valgrind strace binutils python3)" >&2; exit 2; }
done
if [ -z "${SKAN_BIN:-}" ]; then
    swift build -c release --product skan >&2
    SKAN_BIN="$(swift build -c release --show-bin-path)/skan"
fi
# valgrind 3.19 gives up on the debug info Swift 6.3 writes; a copy without it runs (symbols stay).
skan="$out/skan"
objcopy --strip-debug "$SKAN_BIN" "$skan"
keys=(--apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem
      --apple-key-p192 Keys/test/simulated-apple-p192-public-key.pem)
# AAK_SHARE=0 measures a build from before AdAttributionKit (no --aak-key) on SKAdNetwork traffic alone.
[ "${AAK_SHARE:-0.15}" = 0 ] || keys+=(--aak-key simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem)

# Instructions of one command under callgrind (every thread), from its total; VALGRIND_FLAGS narrows what counts.
instructions() {
    valgrind --tool=callgrind ${VALGRIND_FLAGS:-} --callgrind-out-file="$out/run.cg" "$@" >/dev/null 2>"$out/valgrind.err" ||
        { echo "failed under callgrind: $*" >&2; tail -5 "$out/valgrind.err" >&2; exit 1; }
    callgrind_annotate "$out/run.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}

# Per unit: (LARGE run - SMALL run) / (units of LARGE - units of SMALL).
per_unit() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {printf "%.0f", (b - a) / n}'; }

# The traffic file, made once per size (the same seed makes the same bytes).
traffic() {
    local file="$out/traffic-${AAK_SHARE:-0.15}-$1.jsonl"
    [ -s "$file" ] || "${GEN_BIN:-$skan}" bench postbacks --count "$1" --seed 7 --aak-share "${AAK_SHARE:-0.15}" --out "$file"
    echo "$file"
}

# Postbacks per transaction: a collector under load commits a few hundred at a time, and what a commit costs (the
# pages it writes to the WAL) depends on it; skan ingest's default of 4,096 would hide it.
BATCH=${BATCH:-256}

ingest_run() {
    rm -f "$out"/ingest.sqlite*
    # `bench ingest` is `skan ingest` with a waiting main thread: valgrind cannot run an async command's main.
    instructions "$skan" bench ingest --db "$out/ingest.sqlite" --batch-size "$BATCH" "${keys[@]}" "$(traffic "$1")"
}

# Only inside GRDB's Database.inTransaction (its Swift symbol, mangled): BEGIN, the writer's work, COMMIT.
store_run() { VALGRIND_FLAGS="--toggle-collect=*GRDB8DatabaseC13inTransaction*" ingest_run "$1"; }

# Bytes that write(2) and pwrite(2) put into the database, its rollups file and their WALs while `skan ingest` loads
# $1 postbacks.
ingest_bytes_run() {
    rm -f "$out"/bytes.sqlite*
    strace -f -qq -y -s 0 -e trace=write,pwrite64,pwritev,pwritev2 -o "$out/strace.txt" \
        "$skan" ingest --db "$out/bytes.sqlite" --batch-size "$BATCH" "${keys[@]}" "$(traffic "$1")" >/dev/null 2>&1
    awk '/bytes\.sqlite(-rollups)?(-wal)?>/ && / = [0-9]+$/ {s += $NF} END {printf "%.0f", s}' "$out/strace.txt"
}

verify_run() { instructions "$skan" verify --format json "${keys[@]}" "$(traffic "$1")"; }

simulate_run() {
    instructions "$skan" simulate --campaign Samples/campaigns/skan-4.0-subscription.json --seed 3 --devices "$1" \
        --out "$out/simulated.jsonl"
}

sign_run() {
    local file="$out/impressions-$1.csv"
    if [ ! -s "$file" ]; then
        echo "version,ad-network-id,source-identifier,itunes-item-id,source-app-id,nonce,timestamp" >"$file"
        for i in $(seq "$1"); do
            printf '4.0,example123.skadnetwork,%d,525463029,%d,%08x-4d6f-4226-9c60-0050e4c00067,%d\n' \
                $((1000 + i % 9000)) $((1000000000 + i % 5000)) "$i" $((1700000000000 + i)) >>"$file"
        done
    fi
    instructions "$skan" sign --key Keys/test/ad-network-private-key.pem --input "$file"
}

# The relay sending postbacks to a local receiver (Benchmarks/relay-receiver.py: another process, not counted): an
# outbox filled beforehand, uncounted (`skan ingest`, then `skan relay replay` queues every stored postback), drained
# by `skan bench relay` (claims, requests, replies, settlements). Every claim is a full batch, so the figure does not
# depend on timing.
relay_run() {
    local db="$out/relay.sqlite" config="$out/relay.json" port_file="$out/relay-receiver.port" receiver
    rm -f "$db"* "$port_file"
    "$skan" ingest --db "$db" --batch-size "$BATCH" "${keys[@]}" "$(traffic "$1")" >/dev/null 2>&1
    python3 Benchmarks/relay-receiver.py "$port_file" >/dev/null 2>&1 &
    receiver=$!
    for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
    printf '{"destinations": [{"name": "bench", "url": "http://127.0.0.1:%s/in"}]}\n' "$(cat "$port_file")" >"$config"
    "$skan" relay replay --db "$db" --relay "$config" --destination bench --since 2000-01-01 >/dev/null
    instructions "$skan" bench relay --db "$db" --relay "$config"
    kill "$receiver" 2>/dev/null || true
}

# The median of RUNS runs of `$fn $size` (one run when RUNS is 1).
median_of() {
    local runs=$1 fn=$2 size=$3 i
    for i in $(seq "$runs"); do $fn "$size"; echo; done | sort -n | awk 'NF {v[++n] = $1} END {print v[int((n + 1) / 2)]}'
}

measure() {
    local name=$1 fn=$2 small=$3 large=$4 runs=${5:-1} a b
    a=$(median_of "$runs" "$fn" "$small"); b=$(median_of "$runs" "$fn" "$large")
    echo "$name $(per_unit "$a" "$b" $((large - small)))"
}

figures="$out/figures.txt"
{
    measure ingest-instructions ingest_run 200 2000
    measure store-instructions store_run 200 2000
    measure ingest-bytes ingest_bytes_run 2000 12000
    measure verify-instructions verify_run 200 2000
    measure simulate-instructions simulate_run 200 2000
    measure sign-instructions sign_run 100 400
    # The relay's count follows how many replies one event-loop wake-up finds (the receiver is another process, at
    # its own speed): the median of three runs of each size, so that one slow wake-up pattern does not decide.
    measure relay-instructions relay_run 200 2000 3
} >"$figures"

budgets=Benchmarks/budgets.txt
if [ "$mode" = --write ]; then
    { echo "# measure budget (per unit; Benchmarks/budget.sh; raise one only in a commit that says why in Benchmarks/README.md)"
      cat "$figures"; } >"$budgets"
    cat "$budgets"
    exit 0
fi
echo "budgets ($(date -u +%FT%TZ), $("$skan" --version 2>/dev/null || echo skan), tolerance $TOLERANCE %)"
status=0
while read -r name value; do
    budget=$(awk -v n="$name" '$1 == n {print $2}' "$budgets")
    if [ -z "$budget" ]; then
        printf '  %-22s %12s   (no budget)\n' "$name" "$value"
        [ "$mode" = --report ] || status=1
        continue
    fi
    verdict=$(awk -v v="$value" -v b="$budget" -v t="$TOLERANCE" \
        'BEGIN {r = v / b; printf "%+.1f %% %s", (r - 1) * 100, (r > 1 + t / 100) ? "OVER BUDGET" : "ok"}')
    printf '  %-22s %12s   budget %12s   %s\n' "$name" "$value" "$budget" "$verdict"
    case $verdict in *OVER*) [ "$mode" = --report ] || status=1 ;; esac
done <"$figures"
[ $status -eq 0 ] || echo "a figure is over its budget by more than $TOLERANCE %: find the cause, or raise the budget in a commit that says why in Benchmarks/README.md" >&2
exit $status
