#!/usr/bin/env bash
# `skan relay replay`'s memory over a day of many postbacks (issue 35): it reads its days a thousand postbacks at a
# time (ExportPage) and queues each thousand before reading on, so its peak resident memory must not grow with the
# number of postbacks replayed. Peak RSS is the kernel's count for the one process (GNU time's "Maximum resident set
# size"), not a wall-clock figure: it holds on a loaded machine.
#
# For each size in SIZES, a SQLite database made by `skan relay status` is filled with that many synthetic postbacks
# of one day (sqlite3, a 400-byte body each: the replay reads rows, it does not verify them), and one destination
# that takes every postback gets them all; with PG_URL (a server's postgres:// URL whose user may create databases)
# the same on PostgreSQL. Prints one line per run: engine, postbacks, entries queued, peak RSS (MB), seconds.
# Goal: the peak at the largest size within a few MB of the smallest's.
# Usage: Benchmarks/relay-replay.sh   (env: SKAN_BIN= (default: a release build) SIZES="10000 1000000" PG_URL=)
# Smoke run: SKAN_BIN=.build/debug/skan SIZES="2000 20000" Benchmarks/relay-replay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10000 1000000"}
OUT=bench-out/relay-replay
mkdir -p "$OUT"
for tool in sqlite3 /usr/bin/time; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 2; }; done

if [ -n "${SKAN_BIN:-}" ]; then
    BIN="$SKAN_BIN"
else
    swift build -c release --product skan >&2
    BIN="$(swift build -c release --show-bin-path)/skan"
fi

export PGOPTIONS="-c client_min_messages=warning"
RELAY="$OUT/relay.json"
echo '{"destinations": [{"name": "partner", "url": "http://127.0.0.1:9/in"}]}' >"$RELAY"
DAY=2026-11-02

# Rows of one day, ids in arrival order, as the collector stores them (the columns a replay reads; no rollups).
fill_sql() {
    cat <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key, app_id,
    attribution_signature, raw_body, received_at, key_name, layout, endpoint)
SELECT 'tx-' || i, 'example.skadnetwork', 0, '4.0', 1, 525463029, 'sig', zeroblob(400),
    '$DAY' || 'T' || printf('%02d:%02d:%02d.000Z', (i / 3600) % 24, (i / 60) % 60, i % 60), 'apple', '4.0', '/postbacks'
FROM n;
SQL
}

measure() {  # engine db postbacks
    local started ended rss queued
    started=$(date +%s.%N)
    /usr/bin/time -v -o "$OUT/time.txt" "$BIN" relay replay --db "$2" --relay "$RELAY" --destination partner \
        --since $DAY --until $DAY >"$OUT/replay.txt"
    ended=$(date +%s.%N)
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$OUT/time.txt")
    queued=$(awk '{print $1}' "$OUT/replay.txt")
    printf '%-10s %10s postbacks  %10s queued  peak %7s MB  %6.1f s\n' "$1" "$3" "$queued" "$rss" "$(echo "$ended - $started" | bc)"
}

for size in $SIZES; do
    db="$OUT/replay-$size.sqlite"
    rm -f "$db" "$db"-*
    "$BIN" relay status --db "$db" >/dev/null
    fill_sql "$size" | sqlite3 "$db"
    measure sqlite "$db" "$size"
    rm -f "$db" "$db"-*
    if [ -n "${PG_URL:-}" ]; then
        name="skan_replay_$size"
        psql -X -q "$PG_URL" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
        url="${PG_URL%/*}/$name"
        "$BIN" relay status --db "$url" >/dev/null
        # The same rows through PostgreSQL's own series (no sqlite3 dialect).
        psql -X -q "$url" -c "INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version,
            has_version_key, app_id, attribution_signature, raw_body, received_at, key_name, layout, endpoint, framework)
            SELECT 'tx-' || i, 'example.skadnetwork', 0, '4.0', true, 525463029, 'sig', convert_to(repeat('x', 400), 'UTF8'),
                '$DAY' || 'T' || to_char(make_interval(secs => i % 86400), 'HH24:MI:SS') || '.000Z', 'apple', '4.0', '/postbacks',
                'skadnetwork'
            FROM generate_series(1, $size) AS i"
        measure postgres "$url" "$size"
        psql -X -q "$PG_URL" -c "DROP DATABASE $name"
    fi
done
