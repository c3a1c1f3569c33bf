#!/usr/bin/env bash
# PostgreSQL on the same two cores: durable ingest over loopback HTTP with one collector and with two on one
# database, beside `openssl speed -multi 2 ecdsap256` from the same run; then `skan report` and `skan export` over
# ROWS rows beside psql running the same query and `COPY ... TO STDOUT (FORMAT csv)`. Medians of RUNS runs.
# Usage: Benchmarks/postgres.sh   (env: SKAN_BIN= GEN_BIN= SERVE_FLAGS= DURATION=12 CONNECTIONS=128 COUNT=400000
#        ROWS=10000000 RUNS=3 PARTS="ingest reports" AAK_SHARE=0.15)
# The postbacks are shaped like a network's traffic (`skan bench postbacks`, written by GEN_BIN, SKAN_BIN's by
# default); AAK_SHARE=0 for builds from before AdAttributionKit.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-12}
CONNECTIONS=${CONNECTIONS:-128}
COUNT=${COUNT:-400000}
ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}
PARTS=${PARTS:-ingest reports}
OUT=bench-out
mkdir -p "$OUT"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install -y wrk)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install -y time)" >&2; exit 2; }

if [ -n "${SKAN_BIN:-}" ]; then
    BIN="$SKAN_BIN"
else
    swift build -c release --product skan >&2
    BIN="$(swift build -c release --show-bin-path)/skan"
fi

# A durable cluster (fsync on, synchronous_commit on): an acknowledged postback survives power loss.
CLUSTER=$(mktemp -d /tmp/skan-bench-pg.XXXXXX)
Scripts/postgres-test-server.sh start "$CLUSTER" $$ --durable >"$OUT/pg.txt"
trap 'Scripts/postgres-test-server.sh stop "$CLUSTER"' EXIT
BASE=$(sed -n 's/^url=//p' "$OUT/pg.txt" | sed 's#/postgres$##')
PSQL="$(sed -n 's/^bin=//p' "$OUT/pg.txt")/psql"
newdb() { "$PSQL" -X -q "$BASE/postgres" -c "CREATE DATABASE $1"; echo "$BASE/$1"; }
median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
openssl_verify() { openssl speed -multi 2 -seconds 3 ecdsap256 2>/dev/null | grep 'nistp256' | tail -1 | awk '{print $NF}'; }

AAK_SHARE=${AAK_SHARE:-0.15}
POSTBACKS="$OUT/postbacks-traffic-$AAK_SHARE-$COUNT.jsonl"
if [ ! -s "$POSTBACKS" ]; then
    echo "signing $COUNT distinct postbacks ..." >&2
    "${GEN_BIN:-$BIN}" bench postbacks --shape traffic --bare --aak-share "$AAK_SHARE" --count "$COUNT" --out "$POSTBACKS"
fi
# wrk is one client address: no per-address limit (issue 38), on a build that has one.
# The help is read whole first: `grep -q` closing the pipe early made pipefail drop the flag in some runs (429s).
SERVE_HELP=$("$BIN" serve --help 2>/dev/null || true)
case $SERVE_HELP in *--rate-limit*) NO_LIMIT="--rate-limit 0" ;; *) NO_LIMIT= ;; esac
AAK_KEY=()
[ "$AAK_SHARE" = 0 ] || AAK_KEY=(--aak-key simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem)

# Starts N collectors on one new database, loads them together for DURATION seconds (each wrk gets its share of
# the connections and a disjoint part of the postbacks), prints "rate p99-ms rows".
ingest() {
    local collectors=$1 url pids=() ports=() index
    url=$(newdb "ingest_${collectors}_$RANDOM$RANDOM")
    for index in $(seq "$collectors"); do
        "$BIN" serve --db "$url" --port 0 --log-level warning $NO_LIMIT ${SERVE_FLAGS:-} \
            --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem "${AAK_KEY[@]}" \
            >"$OUT/serve-$index.out" 2>"$OUT/serve-$index.err" &
        pids+=($!)
    done
    for index in $(seq "$collectors"); do
        for _ in $(seq 200); do grep -q listening "$OUT/serve-$index.out" 2>/dev/null && break; sleep 0.1; done
        ports+=("$(grep -o 'http://127.0.0.1:[0-9]*' "$OUT/serve-$index.out" | head -1 | cut -d: -f3)")
    done
    local per=$((CONNECTIONS / collectors)) waits=()
    for index in $(seq "$collectors"); do
        # Each wrk thread reads its own slice of the file: thread count × collectors slices in all.
        wrk -t1 -c"$per" -d"${DURATION}s" --latency -s Benchmarks/post-distinct.lua \
            "http://127.0.0.1:${ports[$((index - 1))]}/postbacks" -- "$POSTBACKS" "$collectors" "$((index - 1))" \
            >"$OUT/wrk-$index.txt" &
        waits+=($!)
    done
    wait "${waits[@]}"
    for pid in "${pids[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
    local rows
    rows=$("$PSQL" -X -A -t "$url" -c 'SELECT count(*) FROM postbacks')
    python3 - "$rows" "$OUT"/wrk-*.txt <<'PY'
import re, sys
rows, files = int(sys.argv[1]), sys.argv[2:]
seconds, p99 = [], []
for name in files:
    text = open(name).read()
    seconds.append(float(re.search(r"requests in ([0-9.]+)s", text).group(1)))
    value, unit = re.search(r"99%\s+([0-9.]+)(us|ms|s)", text).groups()
    p99.append(float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit])
print(f"{rows / max(seconds):.0f} {max(p99):.1f} {rows}")
PY
    rm -f "$OUT"/wrk-*.txt
}

if [[ " $PARTS " == *" ingest "* ]]; then
    echo "postgres ingest benchmark ($(date -u +%FT%TZ), $(nproc) cores, wrk -c$CONNECTIONS -d${DURATION}s, $RUNS runs)"
    for collectors in 1 2; do
        rates=(); p99s=(); refs=()
        for _ in $(seq "$RUNS"); do
            before=$(openssl_verify)
            read -r rate p99 rows < <(ingest "$collectors")
            after=$(openssl_verify)
            ref=$(python3 -c "print(round(($before + $after) / 2))")
            rates+=("$rate"); p99s+=("$p99"); refs+=("$ref")
            echo "  $collectors collector(s): $rate postbacks/s (rows $rows), p99 $p99 ms, openssl $ref verify/s"
        done
        rate=$(median "${rates[@]}"); ref=$(median "${refs[@]}")
        echo "  median, $collectors collector(s): $rate postbacks/s, p99 $(median "${p99s[@]}") ms, openssl $ref verify/s," \
             "ratio $(python3 -c "print(round($rate / $ref, 2))") (target >= 0.25)"
    done
fi

if [[ " $PARTS " == *" reports "* ]]; then
    url=$(newdb reports)
    # One real postback, then ROWS copies of it spread over 30 days, 100 campaigns and 4 networks, made inside
    # PostgreSQL (generate_series) rather than posted: this measures reading, not writing.
    head -n 1 "$POSTBACKS" >"$OUT/one.jsonl"
    "$BIN" ingest --db "$url" --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem "$OUT/one.jsonl" >/dev/null 2>&1
    columns=$("$PSQL" -X -A -t "$url" -c "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'postbacks' AND column_name <> 'id'")
    select=$(echo "$columns" | tr ',' '\n' | sed -e "s/^transaction_id$/md5(g::text)/" \
        -e "s/^ad_network_id$/'net' || (g % 4) || '.skadnetwork'/" -e "s/^campaign_id$/g % 100/" \
        -e "s/^received_at$/to_char(timestamp '2026-03-01' + (g % 30) * interval '1 day' + (g % 86400) * interval '1 second', 'YYYY-MM-DD\"T\"HH24:MI:SS.000\"Z\"')/" | paste -sd,)
    echo "filling $ROWS rows ..." >&2
    # The rows go in behind the collector's back, so the per-day rollups (which the collector's insert keeps) are
    # dropped and made again by their migration, which a writer runs (`skan ingest`), as for a store made before them.
    "$PSQL" -X -q "$url" -c "INSERT INTO postbacks ($columns) SELECT $select FROM postbacks, generate_series(2, $ROWS) g WHERE id = 1" \
        -c "DROP TABLE postback_rollups, postback_rollups_by_tier, postback_rollups_by_campaign_day" -c "DELETE FROM skan_migrations WHERE id IN ('0005-rollups', '0006-campaign-days')" \
        -c "VACUUM ANALYZE postbacks"
    start=$(date +%s)
    "$BIN" ingest --db "$url" /dev/null >/dev/null
    echo "  rollup migration over $ROWS rows: $(( $(date +%s) - start )) s"
    "$PSQL" -X -q "$url" -c "VACUUM ANALYZE"
    # Two reports: one the rollups answer, and one they cannot (the app is not in them), which reads every row.
    rolled="--by ad-network,campaign,day"
    scanned="--by day,ad-network,app"
    echo "postgres report/export benchmark ($(date -u +%FT%TZ), $ROWS rows, $RUNS runs)"
    timed() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
    for what in report-rollup report-scan export; do
        ours=(); theirs=(); rss=()
        for _ in $(seq "$RUNS"); do
            if [ $what != export ]; then
                by=$rolled; [ $what = report-scan ] && by=$scanned
                # shellcheck disable=SC2086
                sql=$("$BIN" report --db "$url" $by --print-sql | grep -v '^--')
                # shellcheck disable=SC2086
                read -r seconds kb < <(timed "$BIN" report --db "$url" $by --format csv)
                read -r reference _ < <(timed "$PSQL" -X -q --csv "$url" -c "$sql")
            else
                read -r seconds kb < <(timed "$BIN" export --db "$url" --format csv)
                read -r reference _ < <(timed "$PSQL" -X -q "$url" -c "COPY (SELECT * FROM postbacks ORDER BY id) TO STDOUT (FORMAT csv)")
            fi
            ours+=("$seconds"); theirs+=("$reference"); rss+=("$kb")
            echo "  skan $what $seconds s, $((kb / 1024)) MB; psql $reference s"
        done
        a=$(median "${ours[@]}"); b=$(median "${theirs[@]}")
        echo "  median skan $what: $a s, peak $(( $(printf '%s\n' "${rss[@]}" | sort -n | tail -1) / 1024 )) MB; psql $b s;" \
             "ratio $(python3 -c "print(round($a / max($b, 0.01), 2))") (target <= 1.5, < 200 MB)"
    done
fi
