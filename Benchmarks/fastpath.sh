#!/usr/bin/env bash
# Does the postback fast path (PostbackFastPath, the event-loop handler) still pay against Hummingbird's router?
# Benchmarks/pair-binaries.sh on one binary: "before" is the default path, "after" --postbacks-via-router, so its
# after/before ratio is router/fast. Issue 17's rule: keep the fast path while it accepts >= 5 % more postbacks/s at
# the median pair, with no pair favouring the router.
# Usage: Benchmarks/fastpath.sh   (env: PAIRS=6 DURATION=10 SKAN_BIN= ORDER=fast|router; the rest, e.g.
# CONNECTIONS, goes to collector.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SKAN_BIN:-}" ]; then
    swift build -c release --product skan >&2
    SKAN_BIN="$(swift build -c release --show-bin-path)/skan"
fi
# ORDER=router runs the router first in each pair, to see whether the order moves the ratio.
if [ "${ORDER:-fast}" = router ]; then ORDER=after; else ORDER=before; fi
BEFORE=$SKAN_BIN AFTER=$SKAN_BIN AFTER_FLAGS=--postbacks-via-router PAIRS=${PAIRS:-6} ORDER=$ORDER \
    Benchmarks/pair-binaries.sh
python3 - bench-out/pair-rates.txt <<'PY'
import statistics, sys
ratios = [float(p[2]) / float(p[1]) for p in (line.split() for line in open(sys.argv[1])) if p]
pays = statistics.median(ratios) <= 1 / 1.05 and max(ratios) < 1
print("fast path pays" if pays else "fast path does not pay (rule: >= 5 % at the median, every pair faster)")
PY
