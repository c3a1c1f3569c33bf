#!/usr/bin/env bash
# Peak memory of `skan verify` and `skan ingest` over records of 1 MB each (issue 18: a batch was 4,096 records
# whatever their size, so 3 GB of large records took 2.9 GB). Prints the peak RSS of each command from
# /usr/bin/time beside the input's size; the file is made once in OUT and kept for reruns.
#
#   Benchmarks/large-records.sh               # 3,000 records of 1,000,000 bytes (3 GB)
#   RECORDS=1000 Benchmarks/large-records.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-3000}
out=${OUT:-.build/bench}
mkdir -p "$out"
swift build -c release --product skan >/dev/null 2>&1
skan=.build/release/skan
input="$out/large-records-$RECORDS.jsonl"
if [ ! -f "$input" ]; then
  python3 - "$input" "$RECORDS" <<'PY'
import sys
path, count = sys.argv[1], int(sys.argv[2])
# Just under the 1 MiB record limit, so every record is read whole and judged (malformed: no signature).
record = b'{"version":"4.0","transaction-id":"' + b"a" * 1_000_000 + b'"}\n'
with open(path, "wb") as f:
    for _ in range(count):
        f.write(record)
PY
fi
size=$(stat -c %s "$input")
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
verify_kb=$(peak "$skan" verify --format json "$input" || true)
db="$out/large-records.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
ingest_kb=$(peak "$skan" ingest --db "$db" "$input" || true)
rm -f "$db" "$db-wal" "$db-shm"
printf 'input            %d records, %d MB\n' "$RECORDS" $((size / 1000000))
printf 'skan verify      peak RSS %d MB\n' $((verify_kb / 1000))
printf 'skan ingest      peak RSS %d MB\n' $((ingest_kb / 1000))
