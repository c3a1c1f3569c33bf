#!/usr/bin/env bash
# Collector throughput on loopback: `skan serve` (release build, durable SQLite) under wrk posting distinct valid
# P-256 postbacks, beside `openssl speed -multi 2 ecdsap256` verify/s measured in the same run.
# Usage: Benchmarks/collector.sh   (env: DURATION=12 CONNECTIONS=64 COUNT=400000 DURABILITY=full)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-12}
CONNECTIONS=${CONNECTIONS:-64}
COUNT=${COUNT:-400000}
DURABILITY=${DURABILITY:-full}
OUT=bench-out
mkdir -p "$OUT"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install -y wrk)" >&2; exit 2; }

swift build -c release --product skan >&2
BIN="$(swift build -c release --show-bin-path)/skan"

POSTBACKS="$OUT/postbacks-$COUNT.jsonl"
if [ ! -s "$POSTBACKS" ]; then
    echo "signing $COUNT distinct postbacks ..." >&2
    python3 Benchmarks/make-postbacks.py "$COUNT" Keys/test/simulated-apple-p256-private-key.pem "$POSTBACKS"
fi

rm -f "$OUT"/bench.sqlite*
"$BIN" serve --db "$OUT/bench.sqlite" --port 0 --log-level warning --durability "$DURABILITY" \
    --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem >"$OUT/serve.out" 2>"$OUT/serve.err" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$OUT/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(grep -o '127.0.0.1:[0-9]*' "$OUT/serve.out" | cut -d: -f2)
URL="http://127.0.0.1:$PORT"

openssl speed -multi 2 -seconds 3 ecdsap256 >"$OUT/openssl.txt" 2>/dev/null
OPENSSL_VERIFY=$(grep 'nistp256' "$OUT/openssl.txt" | tail -1 | awk '{print $NF}')

metric() { curl -s "$URL/metrics" | awk -v name="$1" '$1 == name {print $2}'; }
ACCEPTED_BEFORE=$(metric skan_postbacks_accepted_total)
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s Benchmarks/post-distinct.lua "$URL/postbacks" \
    -- "$POSTBACKS" 2 >"$OUT/wrk.txt"
ACCEPTED_AFTER=$(metric skan_postbacks_accepted_total)
RECEIVED=$(metric skan_postbacks_received_total)
DUPLICATE=$(metric skan_postbacks_duplicate_total)
RSS_KB=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
kill -TERM $PID; wait $PID || true
trap - EXIT
ROWS=$(sqlite3 "$OUT/bench.sqlite" 'SELECT count(*) FROM postbacks')

P50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt")
P99=$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt")
# wrk's own measured duration ("N requests in 12.01s"): its Lua set-up, reading the file, is not load time.
WRK_SECONDS=$(grep -o 'requests in [0-9.]*s' "$OUT/wrk.txt" | grep -o '[0-9.]*' | tail -1)
python3 - "$ACCEPTED_BEFORE" "$ACCEPTED_AFTER" "$WRK_SECONDS" "$OPENSSL_VERIFY" <<'PY' >"$OUT/rate.txt"
import sys
before, after, seconds, verify = (float(x) for x in sys.argv[1:])
rate = (after - before) / seconds
print(f"{rate:.0f} {rate / verify:.2f}")
PY
read -r RATE RATIO <"$OUT/rate.txt"
cat <<REPORT
collector benchmark ($(date -u +%FT%TZ), $(nproc) cores, durability=$DURABILITY, wrk -t2 -c$CONNECTIONS -d${DURATION}s)
  accepted postbacks/s : $RATE   (accepted $((${ACCEPTED_AFTER%.*} - ${ACCEPTED_BEFORE%.*})), received $RECEIVED, duplicate $DUPLICATE, rows $ROWS)
  latency p50 / p99    : $P50 / $P99
  server peak RSS      : $((RSS_KB / 1024)) MB
  openssl verify/s     : $OPENSSL_VERIFY   (openssl speed -multi 2 -seconds 3 ecdsap256)
  ratio                : ${RATIO}x   (target >= 0.4x, p99 < 50 ms, RSS < 300 MB)
REPORT
grep -E 'Requests/sec|Non-2xx|Socket errors' "$OUT/wrk.txt" || true
