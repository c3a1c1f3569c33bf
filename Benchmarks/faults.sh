#!/usr/bin/env bash
# Issue 18's load-and-fault cases against the release `skan serve`, each printed as held or FAILED with its figures:
# slow clients, descriptor exhaustion, error-path socket leaks, acknowledgements on half-close and a bad next request,
# a refusal flood; issue 32's slow readers and starvation on every listener (Benchmarks/faults_listeners.py), store
# damage (faults_store.py), two PostgreSQL collectors given the same postbacks (faults_postgres.py) and formula cells
# in every CSV (faults_csv.py).
# Loopback only; about 8 minutes with the defaults (plus the build).
# Usage: Benchmarks/faults.sh   (env: SKAN_BIN= to skip the build; CASES=slow,descriptors,leaks,acks,flood,slowreaders,starvation,
#        truncate,walremove,pgduplicates,csv; PG_RUNS=10 PG_POSTBACKS=20000 PG_WORKERS=16;
#        SLOW_CONNECTIONS=2000 SLOW_SECONDS=30 SLOW_BYTE_INTERVAL=2 SLOW_IDLE_TIMEOUT=5 PROBE_INTERVAL=1
#        PROBE_LIMIT_MS=50 CLOSE_SLACK=1.5 FD_LIMIT=256 IDLE_CONNECTIONS=300 RECOVERY_LIMIT=1 CPU_LIMIT=0.2
#        LEAK_HEADER_CLIENTS=100 LEAK_BODY_CLIENTS=20 LEAK_TIMEOUT=5 ACK_COUNT=200 FLOOD_SECONDS=60
#        FLOOD_CONNECTIONS=8 FLOOD_BODY_BYTES=64000 ROW_LIMIT=5120; see the docstring of Benchmarks/faults.py)
# Exits 0 when every case held, 1 otherwise. Needs python3 (standard library), prlimit and ss (util-linux, iproute2).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in python3 prlimit ss; do
    command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }
done
if [ -z "${SKAN_BIN:-}" ]; then
    nice swift build -c release --product skan >&2
    SKAN_BIN="$(swift build -c release --show-bin-path)/skan"
fi
export SKAN_BIN
exec python3 Benchmarks/faults.py
