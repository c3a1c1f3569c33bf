#!/usr/bin/env bash
# Collector throughput on loopback: `skan serve` (release build, durable SQLite) under wrk posting distinct valid
# postbacks shaped like a network's traffic (`skan bench postbacks`: 8 networks, 9,000 source identifiers, tiers,
# windows, 64 values, non-winning, redownloads; SHAPE=single-key for the old best case of one repeated key), beside
# `openssl speed -multi 2 ecdsap256` verify/s measured in the same run.
# Usage: Benchmarks/collector.sh   (env: SKAN_BIN= GEN_BIN= DURATION=12 CONNECTIONS=32 THREADS=2 COUNT=400000 DURABILITY=full
#        EVENT_LOOPS= SHAPE=traffic AAK_SHARE=0.15 SERVE_FLAGS=, e.g. SERVE_FLAGS=--postbacks-via-router to measure
#        Hummingbird's router path; GEN_BIN is the build that writes the postbacks, SKAN_BIN's by default, and must
#        have `skan bench postbacks --shape`; AAK_SHARE=0 for builds from before AdAttributionKit)
# 32 connections keep the server busy (group commit still batches) without queueing: with a CPU-bound server,
# latency is connections / rate (Little's law), so 64 only doubled p50 and p99 for the same rate.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-12}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
EVENT_LOOPS=${EVENT_LOOPS:-}
COUNT=${COUNT:-400000}
SHAPE=${SHAPE:-traffic}
AAK_SHARE=${AAK_SHARE:-0.15}
DURABILITY=${DURABILITY:-full}
OUT=bench-out
mkdir -p "$OUT"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install -y wrk)" >&2; exit 2; }

# SKAN_BIN compares another build (A/B runs of two binaries on this noisy machine); by default, build release.
if [ -n "${SKAN_BIN:-}" ]; then
    BIN="$SKAN_BIN"
else
    swift build -c release --product skan >&2
    BIN="$(swift build -c release --show-bin-path)/skan"
fi

GEN_BIN=${GEN_BIN:-$BIN}
POSTBACKS="$OUT/postbacks-$SHAPE-$AAK_SHARE-$COUNT.jsonl"
if [ ! -s "$POSTBACKS" ]; then
    echo "signing $COUNT distinct postbacks ($SHAPE) ..." >&2
    if [ "$SHAPE" = single-key ]; then
        python3 Benchmarks/make-postbacks.py "$COUNT" Keys/test/simulated-apple-p256-private-key.pem "$POSTBACKS"
    else
        "$GEN_BIN" bench postbacks --shape traffic --bare --aak-share "$AAK_SHARE" --count "$COUNT" --out "$POSTBACKS"
    fi
fi

rm -f "$OUT"/bench.sqlite*
# The server's shell truncates serve.out only once it runs: without this, the wait below could read the last run's
# port from it (seen as wrk's "unable to connect" in back-to-back runs).
rm -f "$OUT/serve.out"
# wrk is one client address: without this the default per-address limit (issue 38) would answer it 429. A build from
# before the limit has no such option. SERVE_FLAGS come after, so a run can set its own limit.
# The help is read whole first: `grep -q` closing the pipe early made pipefail drop the flag in some runs (429s).
SERVE_HELP=$("$BIN" serve --help 2>/dev/null || true)
case $SERVE_HELP in *--rate-limit*) NO_LIMIT="--rate-limit 0" ;; *) NO_LIMIT= ;; esac
"$BIN" serve --db "$OUT/bench.sqlite" --port 0 --log-level warning --durability "$DURABILITY" \
    ${EVENT_LOOPS:+--event-loops "$EVENT_LOOPS"} $NO_LIMIT ${SERVE_FLAGS:-} \
    --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem \
    $( [ "$AAK_SHARE" = 0 ] || echo --aak-key simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem ) \
    >"$OUT/serve.out" 2>"$OUT/serve.err" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
for _ in $(seq 300); do grep -q listening "$OUT/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(grep -o '127.0.0.1:[0-9]*' "$OUT/serve.out" | head -1 | cut -d: -f2)
if [ -z "$PORT" ]; then
    # Say why rather than let wrk fail on an empty port: seen twice in a paired run, the cause not yet known.
    echo "collector.sh: skan serve did not say it was listening within 30 s (running: $(kill -0 $PID 2>/dev/null && echo yes || echo no))" >&2
    cat "$OUT/serve.out" "$OUT/serve.err" >&2
    exit 1
fi
URL="http://127.0.0.1:$PORT"

# The reference is measured just before and just after the load and averaged, as Benchmarks/core.sh does: on this
# shared machine one 3-second window can read 20% off the other.
openssl_verify() {
    openssl speed -multi 2 -seconds 3 ecdsap256 2>/dev/null | grep 'nistp256' | tail -1 | awk '{print $NF}'
}
OPENSSL_BEFORE=$(openssl_verify)

# Accepted postbacks are the rows of the fresh database (every request a new postback), counted after the server
# stops: the same for every build, whichever listener serves its /metrics.
ACCEPTED_BEFORE=0
CPU_BEFORE=$(awk '{print $14 + $15}' /proc/$PID/stat)
WRITTEN_BEFORE=$(awk '/^write_bytes/ {print $2}' /proc/$PID/io)
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s Benchmarks/post-distinct.lua "$URL/postbacks" \
    -- "$POSTBACKS" "$THREADS" >"$OUT/wrk.txt"
CPU_AFTER=$(awk '{print $14 + $15}' /proc/$PID/stat)
WRITTEN_AFTER=$(awk '/^write_bytes/ {print $2}' /proc/$PID/io)
OPENSSL_AFTER=$(openssl_verify)
OPENSSL_VERIFY=$(python3 -c "print(round(($OPENSSL_BEFORE + $OPENSSL_AFTER) / 2))")
RSS_KB=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
kill -TERM $PID; wait $PID || true
trap - EXIT
ROWS=$(sqlite3 "$OUT/bench.sqlite" 'SELECT count(*) FROM postbacks')
ACCEPTED_AFTER=$ROWS
RECEIVED=$(awk '/requests in/ {print $1}' "$OUT/wrk.txt")
REFUSED=$(awk '/Non-2xx/ {print $NF}' "$OUT/wrk.txt")

P50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt")
P99=$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt")
# wrk's own measured duration ("N requests in 12.01s"): its Lua set-up, reading the file, is not load time.
WRK_SECONDS=$(grep -o 'requests in [0-9.]*s' "$OUT/wrk.txt" | grep -o '[0-9.]*' | tail -1)
python3 - "$ACCEPTED_BEFORE" "$ACCEPTED_AFTER" "$WRK_SECONDS" "$OPENSSL_VERIFY" "$CPU_BEFORE" "$CPU_AFTER" \
    "$(getconf CLK_TCK)" <<'PY' >"$OUT/rate.txt"
import sys
before, after, seconds, verify, cpu_before, cpu_after, ticks = (float(x) for x in sys.argv[1:])
rate = (after - before) / seconds
cpu = (cpu_after - cpu_before) / ticks * 1e6 / max(after - before, 1)
print(f"{rate:.0f} {rate / verify:.2f} {cpu:.0f}")
PY
read -r RATE RATIO CPU_US <"$OUT/rate.txt"
cat <<REPORT
collector benchmark ($(date -u +%FT%TZ), $(nproc) cores, durability=$DURABILITY, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s${EVENT_LOOPS:+, --event-loops $EVENT_LOOPS}${SERVE_FLAGS:+, $SERVE_FLAGS})
  accepted postbacks/s : $RATE   (stored $ROWS of $RECEIVED requests, ${REFUSED:-0} not 2xx; $SHAPE data)
  latency p50 / p99    : $P50 / $P99
  server peak RSS      : $((RSS_KB / 1024)) MB
  server CPU / accepted: $CPU_US µs   (user + system time of skan serve during wrk)
  written / accepted   : $(( (WRITTEN_AFTER - WRITTEN_BEFORE) / (ROWS > 0 ? ROWS : 1) )) bytes   (the server's write_bytes in /proc during wrk: database, WAL)
  openssl verify/s     : $OPENSSL_VERIFY   (openssl speed -multi 2 -seconds 3 ecdsap256, mean of $OPENSSL_BEFORE before and $OPENSSL_AFTER after)
  ratio                : ${RATIO}x   (target >= 0.4x, p99 < 50 ms, RSS < 300 MB)
  load average         : $(cut -d' ' -f1-3 /proc/loadavg)   (other work on the same cores moves every figure)
REPORT
grep -E 'Requests/sec|Non-2xx|Socket errors' "$OUT/wrk.txt" || true
