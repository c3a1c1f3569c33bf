#!/usr/bin/env bash
# The relay's cost and speed (issue 35), on durable SQLite with distinct traffic-shaped postbacks
# (`skan bench postbacks`, as Benchmarks/collector.sh makes them), against a local receiver
# (Benchmarks/relay-receiver.py, 204 to everything, counting distinct Idempotency-Keys):
#   1. ingest: Benchmarks/pair-binaries.sh on one binary, `skan serve` without a relay against `--relay` with one
#      destination (the receiver, up and taking everything), PAIRS pairs in one run. Goal: after/before >= 0.95.
#   2. drain: one more `--relay` run under the same load; the postbacks the receiver got during the load per second
#      against the accepted postbacks per second (arrival), then the backlog left at the end (what the outbox still
#      held when the collector stopped) drained by `skan serve --relay` alone, timed until the receiver has every
#      stored postback. Goal: drain >= arrival.
# Usage: Benchmarks/relay.sh   (env: SKAN_BIN= (default: a release build) PAIRS=5 DURATION=10 COUNT=400000
#        IN_FLIGHT=32 PARTS="ingest drain"; the rest, e.g. CONNECTIONS, goes to collector.sh)
# Smoke run with tiny sizes (checks the script, not the figures): SKAN_BIN=.build/debug/skan PAIRS=1 DURATION=2
#        COUNT=2000 Benchmarks/relay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
export DURATION=${DURATION:-10}
export COUNT=${COUNT:-400000}
IN_FLIGHT=${IN_FLIGHT:-32}
PARTS=${PARTS:-"ingest drain"}
OUT=bench-out
mkdir -p "$OUT"
for tool in wrk sqlite3 curl python3; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done

if [ -n "${SKAN_BIN:-}" ]; then
    BIN="$SKAN_BIN"
else
    swift build -c release --product skan >&2
    BIN="$(swift build -c release --show-bin-path)/skan"
fi
export SKAN_BIN="$BIN"

rm -f "$OUT/relay-receiver.port"
python3 Benchmarks/relay-receiver.py "$OUT/relay-receiver.port" >"$OUT/relay-receiver.log" 2>&1 &
RECEIVER=$!
trap 'kill $RECEIVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$OUT/relay-receiver.port" ] && break; sleep 0.1; done
RPORT=$(cat "$OUT/relay-receiver.port")
counts() { curl -s "http://127.0.0.1:$RPORT/count"; }
RELAY="$OUT/relay.json"
cat >"$RELAY" <<JSON
{"destinations": [{"name": "bench", "url": "http://127.0.0.1:$RPORT/in", "in-flight": $IN_FLIGHT}]}
JSON

if [[ " $PARTS " == *" ingest "* ]]; then
    echo "== durable ingest: no destination (before) against one destination (after), $PAIRS pairs" >&2
    BEFORE="$BIN" AFTER="$BIN" AFTER_FLAGS="--relay $RELAY" PAIRS=$PAIRS Benchmarks/pair-binaries.sh \
        | tee "$OUT/relay-ingest.txt"
    # The stand-in partner runs on the same cores, so its CPU is taken from the collector's: say how much, per
    # request it answered (utime + stime of /proc/PID/stat, in clock ticks).
    read -r REQUESTS _ <<<"$(counts)"
    TICKS=$(awk '{print $14 + $15}' "/proc/$RECEIVER/stat")
    awk -v t="$TICKS" -v hz="$(getconf CLK_TCK)" -v n="$REQUESTS" 'BEGIN {
        printf "receiver: %d requests, %.1f µs of its CPU each (on the same cores as the collector)\n", n, n ? t / hz / n * 1e6 : 0 }' \
        | tee -a "$OUT/relay-ingest.txt"
fi

if [[ " $PARTS " == *" drain "* ]]; then
    echo "== drain under load, then the backlog alone" >&2
    curl -s "http://127.0.0.1:$RPORT/reset" >/dev/null
    SERVE_FLAGS="--relay $RELAY" Benchmarks/collector.sh | tee "$OUT/relay-load.txt" >&2
    ARRIVAL=$(awk '/accepted postbacks\/s/ {print $4}' "$OUT/relay-load.txt")
    ROWS=$(sqlite3 "$OUT/bench.sqlite" 'SELECT count(*) FROM postbacks')
    BACKLOG=$(sqlite3 "$OUT/bench.sqlite" 'SELECT count(*) FROM relay_outbox')
    read -r _ DURING <<<"$(counts)"
    # The load's seconds, as collector.sh counted them: its stored rows over its rate.
    SECONDS_LOADED=$(python3 -c "print($ROWS / max($ARRIVAL, 1))")

    "$BIN" serve --db "$OUT/bench.sqlite" --port 0 --log-level warning --relay "$RELAY" \
        --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem >"$OUT/relay-drain.out" 2>"$OUT/relay-drain.err" &
    SERVER=$!
    trap 'kill $RECEIVER 2>/dev/null || true; kill -TERM $SERVER 2>/dev/null || true' EXIT
    START=$(date +%s.%N)
    DELIVERED=$DURING
    for _ in $(seq 6000); do
        read -r _ DELIVERED <<<"$(counts)"
        [ "$DELIVERED" -ge "$ROWS" ] && break
        sleep 0.1
    done
    END=$(date +%s.%N)
    kill -TERM $SERVER; wait $SERVER || true
    LEFT=$(sqlite3 "$OUT/bench.sqlite" 'SELECT count(*) FROM relay_outbox')
    python3 - "$ARRIVAL" "$ROWS" "$DURING" "$SECONDS_LOADED" "$BACKLOG" "$START" "$END" "$DELIVERED" "$LEFT" <<'PY'
import sys
arrival, rows, during, loaded, backlog, start, end, delivered, left = (float(x) for x in sys.argv[1:])
drain_loaded = during / loaded
drained = delivered - during
drain_alone = drained / max(end - start, 1e-9)
print(f"relay drain: arrival {arrival:.0f}/s; delivered during the load {during:.0f} of {rows:.0f} stored, "
      f"{drain_loaded:.0f}/s ({drain_loaded / max(arrival, 1):.2f}x arrival)")
print(f"  backlog at the end {backlog:.0f}; drained alone {drained:.0f} in {end - start:.2f} s (start-up included), "
      f"{drain_alone:.0f}/s ({drain_alone / max(arrival, 1):.2f}x arrival); left in the outbox {left:.0f}; "
      f"receiver has {delivered:.0f} distinct keys of {rows:.0f} stored")
PY
fi
