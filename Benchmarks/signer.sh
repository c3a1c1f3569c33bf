#!/usr/bin/env bash
# The signing service's throughput over loopback HTTP (issue 14): `skan signer` (release build) under wrk, with
# batches of BATCH impressions per request and with single-impression requests paced at half the batched rate,
# beside `openssl speed -multi 2 ecdsap256` sign/s measured before and after each run in the same script.
#
#   Benchmarks/signer.sh                       # RUNS=3 DURATION=10 BATCH=100
#   SKAN_BIN=/path/to/skan RUNS=5 Benchmarks/signer.sh
#   SIGNER_FLAGS=--impressions-via-router Benchmarks/signer.sh   # the router instead of the event loop, to compare
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-10}
BATCH=${BATCH:-100}
OUT=bench-out/signer
mkdir -p "$OUT"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install -y wrk)" >&2; exit 2; }
if [ -n "${SKAN_BIN:-}" ]; then BIN="$SKAN_BIN"; else
    swift build -c release --product skan >&2
    BIN="$(swift build -c release --show-bin-path)/skan"
fi

cp Keys/test/ad-network-private-key.pem "$OUT/network.pem" && chmod 600 "$OUT/network.pem"
one='{"version":"4.0","ad-network-id":"example123.skadnetwork","source-identifier":5239,"itunes-item-id":525463029,"source-app-id":880047117}'
printf '%s' "$one" > "$OUT/single.json"
{ printf '['; for i in $(seq "$BATCH"); do [ "$i" -gt 1 ] && printf ','; printf '%s' "$one"; done; printf ']'; } > "$OUT/batch.json"

"$BIN" signer --key "example123.skadnetwork=$OUT/network.pem" --port 0 --log-level warning ${SIGNER_FLAGS:-} > "$OUT/signer.out" 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$OUT/signer.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -nE 's/.*listening on (http[^ ]+).*/\1/p' "$OUT/signer.out")

# The signer's CPU (user + system) in clock ticks, read around each wrk run: CPU per impression is steadier than a
# rate on shared cores, so two builds are compared by it.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
ticks_per_second=$(getconf CLK_TCK)
per_item_us() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$ticks_per_second" 'BEGIN { printf "%.1f", (b - a) * 1e6 / hz / n }'; }
ossl_sign() { openssl speed -multi 2 -seconds 3 ecdsap256 2>/dev/null | awk '/nistp256/ && /ecdsa/ { n = split($0, f, " "); s = f[n-1] } END { print s }'; }
# wrk's summary: requests/s, and latency percentiles in ms (wrk prints us, ms or s).
wrk_run() { # $1 = body file, $2 = connections, $3 = delay ms
    wrk -t2 -c"$2" -d"${DURATION}s" --latency -s Benchmarks/signer-post.lua "$URL" -- "$1" "$3"
}
ms() { awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.2f\n", v }'; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "run batched/s  openssl/s  ratio  batch-p50  batch-p99  single/s  single-p50  single-p99  batch-cpu-us  single-cpu-us  (target single/s = batched/2; cpu: the signer's per impression)" | tee "$OUT/results.txt"
for run in $(seq "$RUNS"); do
    before=$(ossl_sign)
    t0=$(cpu_ticks)
    wrk_run "$OUT/batch.json" 8 0 > "$OUT/batch-$run.txt"
    t1=$(cpu_ticks)
    after=$(ossl_sign)
    rps=$(awk '/Requests\/sec/ { print $2 }' "$OUT/batch-$run.txt")
    batched=$(awk -v r="$rps" -v b="$BATCH" 'BEGIN { printf "%d", r * b }')
    openssl_rate=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%d", (a + b) / 2 }')
    bp50=$(awk '$1 == "50%" { print $2 }' "$OUT/batch-$run.txt" | ms)
    bp99=$(awk '$1 == "99%" { print $2 }' "$OUT/batch-$run.txt" | ms)
    # Single requests at about half the batched rate: each connection pauses 1 ms after each reply (wrk's finest
    # pacing), so connections = target x (1 ms + about 1 ms of latency) / 1000 offer about the target.
    target=$(( batched / 2 ))
    connections=$(( (target * 2 + 999) / 1000 ))
    t2=$(cpu_ticks)
    wrk_run "$OUT/single.json" "$connections" 1 > "$OUT/single-$run.txt"
    t3=$(cpu_ticks)
    bcpu=$(per_item_us "$t0" "$t1" "$(awk -v b="$BATCH" '/requests in/ { print $1 * b }' "$OUT/batch-$run.txt")")
    scpu=$(per_item_us "$t2" "$t3" "$(awk '/requests in/ { print $1 }' "$OUT/single-$run.txt")")
    single=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$OUT/single-$run.txt")
    sp50=$(awk '$1 == "50%" { print $2 }' "$OUT/single-$run.txt" | ms)
    sp99=$(awk '$1 == "99%" { print $2 }' "$OUT/single-$run.txt" | ms)
    ratio=$(awk -v s="$batched" -v o="$openssl_rate" 'BEGIN { printf "%.2f", s / o }')
    echo "$run $batched $openssl_rate $ratio $bp50 $bp99 $single $sp50 $sp99 $bcpu $scpu" | tee -a "$OUT/results.txt"
done
echo "median ratio (batched impressions/s / openssl -multi 2 sign/s): $(awk 'NR > 1 { print $4 }' "$OUT/results.txt" | median);" \
     "median single-request p99: $(awk 'NR > 1 { print $9 }' "$OUT/results.txt" | median) ms at $(awk 'NR > 1 { print $7 }' "$OUT/results.txt" | median)/s"
