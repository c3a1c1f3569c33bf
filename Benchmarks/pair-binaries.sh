#!/usr/bin/env bash
# Durable HTTP ingest of two builds (or one build with two sets of serve flags), paired: Benchmarks/collector.sh on
# BEFORE, then AFTER (or the reverse with ORDER=after), PAIRS times, then each pair's accepted postbacks/s and the
# after/before ratios.
# Usage: BEFORE=/tmp/skan-old AFTER=.build/release/skan Benchmarks/pair-binaries.sh   (env: PAIRS=5 DURATION=10
# ORDER=before|after BEFORE_FLAGS= AFTER_FLAGS= (serve flags of each side); the rest, e.g. CONNECTIONS, goes to
# collector.sh). Benchmarks/fastpath.sh is this with one binary and AFTER_FLAGS=--postbacks-via-router.
# Pairs, not two medians minutes apart: this shared machine's speed swings by a third within a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BEFORE:?set BEFORE to the reference binary}" "${AFTER:?set AFTER to the binary under test}"
PAIRS=${PAIRS:-5}
export DURATION=${DURATION:-10}
OUT=bench-out
mkdir -p "$OUT"
rates="$OUT/pair-rates.txt"
: >"$rates"
accepted() { awk '/accepted postbacks\/s/ {print $4}' "$1"; }
run() { SKAN_BIN=$2 SERVE_FLAGS=$4 Benchmarks/collector.sh | tee "$OUT/pair-$3-$1.txt" >&2; }
for pair in $(seq "$PAIRS"); do
    if [ "${ORDER:-before}" = after ]; then
        run after "$AFTER" "$pair" "${AFTER_FLAGS:-}"; run before "$BEFORE" "$pair" "${BEFORE_FLAGS:-}"
    else
        run before "$BEFORE" "$pair" "${BEFORE_FLAGS:-}"; run after "$AFTER" "$pair" "${AFTER_FLAGS:-}"
    fi
    echo "$pair $(accepted "$OUT/pair-$pair-before.txt") $(accepted "$OUT/pair-$pair-after.txt")" >>"$rates"
done
python3 - "$rates" <<'PY'
import statistics, sys
pairs = [line.split() for line in open(sys.argv[1]) if line.strip()]
before = [float(p[1]) for p in pairs]
after = [float(p[2]) for p in pairs]
ratios = [a / b for b, a in zip(before, after)]
print("pair  before/s  after/s  after/before")
for (pair, b, a), ratio in zip(pairs, ratios):
    print(f"{pair:>4}  {float(b):8.0f}  {float(a):7.0f}  {ratio:12.3f}")
print(f"median before {statistics.median(before):.0f}/s, after {statistics.median(after):.0f}/s; after/before: "
      f"median of pairs {statistics.median(ratios):.3f} (spread {min(ratios):.3f}-{max(ratios):.3f})")
PY
