#!/usr/bin/env bash
# The dashboard over ROWS stored postbacks (default 10,000,000; issue 22's "every panel answers in < 300 ms"): each
# page fetched with curl, median of ROUNDS, beside the engine's own shell counting the same table (`SELECT count(*)`,
# a scan of every row: what a page would cost without the rollup), and the seconds the rollup migration took to
# count the rows already there. SQLite always; PostgreSQL with PARTS="sqlite postgres" (a throwaway server, as
# Benchmarks/postgres.sh starts it).
#
#   Benchmarks/dashboard.sh                       # 10M rows on SQLite; the database is kept in .build/bench
#   SKAN_BIN=.build/release/skan ROWS=1000000 ROUNDS=5 PARTS="sqlite postgres" Benchmarks/dashboard.sh
#   NAMES=1 Benchmarks/dashboard.sh               # the same pages with a stored campaign map (skan campaigns
#                                                 # import): every 4-digit identifier of every network named
#   BINS="/tmp/skan-old .build/release/skan" Benchmarks/dashboard.sh
#                                                 # each build in turn over the same database (SKAN_BIN, or the
#                                                 # release build, makes it): a before and after under one load
#   HTML=/tmp/pages BINS="/tmp/skan-old .build/release/skan" Benchmarks/dashboard.sh
#                                                 # also keeps each page of each build (HTML/<label>/<page>.html):
#                                                 # diff -r the two builds' folders for pages that must not change
#
# The rows are generated in SQL, not posted: 30 days, 8 networks and 90 campaigns of skewed popularity, SKAdNetwork
# 4.0 tiers (2-, 3- and 4-digit source identifiers; fine values only at 4 digits in window 0, skewed towards few
# values), 60/28/12 % in windows 0/1/2, 10 % non-winning, 5 % AdAttributionKit with re-engagements. The rollup's
# size is printed: it, not ROWS, is what a page reads.
set -euo pipefail -f   # -f: the pages have "?" in them
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-5}
PARTS=${PARTS:-sqlite}
out=${OUT:-.build/bench}
mkdir -p "$out"
if [ -n "${SKAN_BIN:-}" ]; then
    skan=$SKAN_BIN
else
    swift build -c release --product skan >&2
    skan="$(swift build -c release --show-bin-path)/skan"
fi
# The six pages as they open (no filter: the rollup without campaigns), then views of one campaign and the
# installs chart stacked by campaign (the rollup with campaigns).
pages="/ /values /windows /frameworks /refused /live /?campaign=10 /values?campaign=10 /?stack=campaign"
# The installs chart stacked by campaign in each filter the page has, alone and combined (issue 36): a network, a
# window, both, a campaign with them, and a date range alone and with a network.
pages="$pages /?stack=campaign&network=net3.skadnetwork /?stack=campaign&window=0 /?stack=campaign&window=1
  /?stack=campaign&network=net3.skadnetwork&window=0 /?stack=campaign&network=net3.skadnetwork&window=2&campaign=10
  /?stack=campaign&from=2026-03-08&to=2026-03-14 /?stack=campaign&from=2026-03-08&to=2026-03-14&network=net3.skadnetwork"

# One SELECT list for both engines (booleans as \$T and \$F): a, b, c, d uniform in 0..999 give each field, skewed
# by cubing.
columns() {
    cat <<SQL
  printf_tx, 'net' || (sk(a) * 8 / 1000) || '.skadnetwork', 0, CASE WHEN aak THEN NULL ELSE '4.0' END, $T, NULL,
  CASE WHEN digits = 2 THEN base WHEN digits = 3 THEN base * 10 + i % 7 ELSE (base * 10 + i % 7) * 10 + i % 5 END,
  525463029, CASE ctype WHEN 'download' THEN $F WHEN 'redownload' THEN $T END, NULL, NULL, CASE WHEN i % 4 = 0 THEN 0 ELSE 1 END,
  (i / 3) % 10 <> 0, w, CASE WHEN w = 0 AND digits = 4 THEN CASE WHEN d % 100 < 35 THEN 0 ELSE sk(b) * 64 / 1000 END END,
  CASE WHEN w = 0 AND digits = 4 THEN NULL WHEN c % 10 < 5 THEN 'low' WHEN c % 10 < 8 THEN 'medium' WHEN c % 10 < 9 THEN 'high' END,
  NULL, 'MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=', NULL,
  body, received, 'apple-p256', '4.0', '/postbacks', CASE WHEN aak THEN 'adattributionkit' ELSE 'skadnetwork' END, ctype
SQL
}
names="transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key, campaign_id, source_identifier,
  app_id, redownload, source_app_id, source_domain, fidelity_type, did_win, postback_sequence_index, conversion_value,
  coarse_conversion_value, country_code, attribution_signature, extras, raw_body, received_at, key_name, layout,
  endpoint, framework, conversion_type"

# With NAMES=1, imports a campaign map into $1 before it is measured: a name for each 4-digit source identifier the
# rows can carry, under each of the 8 networks (about 25,000 rows, far more than a network's real map), so that the
# pages pay for their names at the worst.
names_map() {
    [ "${NAMES:-0}" = 1 ] || return 0
    awk 'BEGIN { print "ad_network_id,source_identifier,campaign,ad_set,creative"
        for (n = 0; n < 8; n++) for (b = 10; b < 100; b++) for (x = 0; x < 7; x++) for (y = 0; y < 5; y++)
            printf "net%d.skadnetwork,%d,Campaign %d,Ad set %d,Creative %d\n", n, (b * 10 + x) * 10 + y, b, x, y }' >"$out/names.csv"
    "$skan" campaigns import --db "$1" "$out/names.csv" >&2
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Serves the dashboard over $1 and prints one line per page: path, median ms, bytes; then the reference.
measure() {
    local db=$1 label=$2 reference=$3 port pid page
    "$skan" dashboard --db "$db" --port 0 --log-level warning >"$out/dashboard.out" 2>"$out/dashboard.err" &
    pid=$!
    for _ in $(seq 600); do grep -q 'http://' "$out/dashboard.out" 2>/dev/null && break; sleep 0.1; done
    port=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/dashboard.out" | head -1 | cut -d: -f3)
    echo "$label: page, median of $ROUNDS (ms), bytes; $(date -u +%FT%TZ), $(nproc) cores"
    for page in $pages; do
        local times=() bytes=0
        # The first request warms the page cache; with HTML=DIR it is kept, one file per page and build, so that two
        # builds' pages over one database can be compared byte for byte (cmp -r).
        local keep=/dev/null
        if [ -n "${HTML:-}" ]; then
            local folder="$HTML/$(printf '%s' "$label" | tr -c 'A-Za-z0-9.-' '_')"
            mkdir -p "$folder"; keep="$folder/$(printf '%s' "$page" | tr -c 'A-Za-z0-9=.-' '_').html"
        fi
        curl -sf -o "$keep" "http://127.0.0.1:$port$page"
        for _ in $(seq "$ROUNDS"); do
            read -r t bytes < <(curl -sf -o /dev/null -w '%{time_total} %{size_download}\n' "http://127.0.0.1:$port$page")
            times+=("$(awk -v t="$t" 'BEGIN {printf "%.1f", t * 1000}')")
        done
        printf '  %-22s %8s ms  %8s bytes\n' "$page" "$(median "${times[@]}")" "$bytes"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true
    local times=()
    for _ in $(seq "$ROUNDS"); do
        local start end
        start=$(date +%s%N); eval "$reference" >/dev/null; end=$(date +%s%N)
        times+=("$(( (end - start) / 1000000 ))")
    done
    echo "  reference: $(median "${times[@]}") ms for the engine's shell counting every postback (count(*))"
}

if [[ " $PARTS " == *" sqlite "* ]]; then
    T=1 F=0
    db="$out/dashboard-$ROWS.sqlite"
    if [ ! -f "$db" ]; then
        echo "making $db with $ROWS postbacks ..." >&2
        final=$db db="$db.partial"
        rm -f "$db"
        "$skan" ingest --db "$db" /dev/null >/dev/null 2>&1 || true
        start=$(date +%s)
        # The rows first, then the rollup migration counts them, as it does for a store made before it: the same
        # numbers as the trigger would keep, and it times the migration.
        sqlite3 "$db" "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
          DROP TRIGGER IF EXISTS postback_rollups_count; DROP TABLE IF EXISTS postback_rollups; DROP TABLE IF EXISTS postback_rollups_by_tier; DROP TABLE IF EXISTS postback_rollups_by_campaign_day;
          DROP TABLE IF EXISTS rollup_watermark;
          DELETE FROM grdb_migrations WHERE identifier IN ('0006-rollups', '0007-campaign-days', '0008-rollups-folded', '0013-rollups-own-file');
          WITH RECURSIVE n(i, h, g) AS (SELECT 1, 1, 7 UNION ALL
              SELECT i + 1, (h * 1103515245 + 12345) % 2147483648, (g * 22695477 + 1) % 2147483648 FROM n WHERE i < $ROWS),
          r AS (SELECT i, (h >> 16) % 1000 AS a, (g >> 16) % 1000 AS b, (h >> 6) % 1000 AS c, (g >> 6) % 1000 AS d FROM n),
          s AS (SELECT *, CASE WHEN b < 600 THEN 0 WHEN b < 880 THEN 1 ELSE 2 END AS w, i % 20 = 0 AS aak,
              10 + (c * c / 1000 * c / 1000) * 90 / 1000 AS base FROM r),
          t AS (SELECT *, CASE WHEN w = 0 THEN CASE WHEN d < 400 THEN 4 WHEN d < 700 THEN 3 ELSE 2 END
                  ELSE CASE WHEN d < 300 THEN 3 ELSE 2 END END AS digits,
              CASE WHEN aak AND (i / 20) % 3 = 0 THEN 're-engagement' WHEN i % 7 = 0 THEN 'redownload' ELSE 'download' END AS ctype,
              printf('%08x-%04x-4%03x-a%03x-%012x', i, i % 65536, i % 4096, (i * 7) % 4096, i * 2654435761 % 281474976710656) AS printf_tx,
              printf('{\"version\":\"4.0\",\"ad-network-id\":\"adnet1.skadnetwork\",\"source-identifier\":\"%d\",\"app-id\":525463029,\"transaction-id\":\"%08x\",\"redownload\":false,\"fidelity-type\":1,\"did-win\":true,\"postback-sequence-index\":0,\"attribution-signature\":\"MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=\"}', 1000 + i % 9000, i) AS body,
              strftime('%Y-%m-%dT%H:%M:%fZ', 1772323200 + (i * 2592000.0 / $ROWS), 'unixepoch') AS received FROM s)
          INSERT INTO postbacks ($names) SELECT $(columns | sed -E 's/sk\(([a-d])\)/(\1 * \1 \/ 1000 * \1 \/ 1000)/g') FROM t;"
        echo "  rows generated in $(( $(date +%s) - start )) s" >&2
        rm -f "$db-rollups" "$db-rollups-wal" "$db-rollups-shm"
        start=$(date +%s)
        "$skan" report --db "$db" --by window >/dev/null    # opening migrates: the rollup counts every row
        echo "  rollup migration over $ROWS rows: $(( $(date +%s) - start )) s" >&2
        mv "$db" "$final"; db=$final
    fi
    # The rollups are in a file of their own beside the database (SQLiteRollupFolder); a database made before that
    # has them inside, and the first open moves them.
    rollups=$db-rollups
    [ -f "$rollups" ] || rollups=$db
    echo "SQLite, $ROWS postbacks, $(sqlite3 "$rollups" "SELECT count(*) FROM postback_rollups") rollup rows, $(du -h "$db" | cut -f1)"
    names_map "$db"
    for bin in ${BINS:-$skan}; do
        skan=$bin measure "$db" "skan dashboard (SQLite, $bin)" "sqlite3 '$db' 'SELECT count(*) FROM postbacks'"
    done
fi

if [[ " $PARTS " == *" postgres "* ]]; then
    T=true F=false
    CLUSTER=$(mktemp -d /tmp/skan-bench-pg.XXXXXX)
    Scripts/postgres-test-server.sh start "$CLUSTER" $$ --durable >"$out/pg.txt"
    trap 'Scripts/postgres-test-server.sh stop "$CLUSTER"' EXIT
    base=$(sed -n 's/^url=//p' "$out/pg.txt" | sed 's#/postgres$##')
    psql="$(sed -n 's/^bin=//p' "$out/pg.txt")/psql"
    "$psql" -X -q "$base/postgres" -c "CREATE DATABASE dashboard"
    url="$base/dashboard"
    "$skan" ingest --db "$url" /dev/null >/dev/null 2>&1 || true
    start=$(date +%s)
    "$psql" -X -q "$url" -c "SET synchronous_commit = off;
      DROP TABLE IF EXISTS postback_rollups, postback_rollups_by_tier, postback_rollups_by_campaign_day, postback_rollups_by_campaign;
      DELETE FROM skan_migrations WHERE id IN ('0005-rollups', '0006-campaign-days', '0013-campaign-totals');
      INSERT INTO postbacks ($names)
      SELECT $(columns | sed -E 's/sk\(([a-d])\)/(\1 * \1 \/ 1000 * \1 \/ 1000)/g; s/printf_tx/tx/') FROM (
        SELECT *, CASE WHEN w = 0 THEN CASE WHEN d < 400 THEN 4 WHEN d < 700 THEN 3 ELSE 2 END
                ELSE CASE WHEN d < 300 THEN 3 ELSE 2 END END AS digits,
            CASE WHEN aak AND (i / 20) % 3 = 0 THEN 're-engagement' WHEN i % 7 = 0 THEN 'redownload' ELSE 'download' END AS ctype,
            md5(i::text) AS tx, convert_to('{\"transaction-id\":\"' || i || '\"}', 'UTF8') AS body,
            to_char(to_timestamp(1772323200 + i * 2592000.0 / $ROWS) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS received
        FROM (SELECT *, CASE WHEN b < 600 THEN 0 WHEN b < 880 THEN 1 ELSE 2 END AS w, i % 20 = 0 AS aak,
                10 + (c * c / 1000 * c / 1000) * 90 / 1000 AS base
            FROM (SELECT i, (random() * 1000)::int % 1000 AS a, (random() * 1000)::int % 1000 AS b,
                    (random() * 1000)::int % 1000 AS c, (random() * 1000)::int % 1000 AS d
                FROM generate_series(1, $ROWS) AS i) r) s) t;"
    "$psql" -X -q "$url" -c "VACUUM ANALYZE postbacks"
    echo "  rows generated in $(( $(date +%s) - start )) s" >&2
    start=$(date +%s)
    "$skan" ingest --db "$url" /dev/null >/dev/null 2>&1 || true   # opening migrates: the rollup counts every row
    echo "  rollup migration over $ROWS rows: $(( $(date +%s) - start )) s" >&2
    echo "PostgreSQL, $ROWS postbacks, $("$psql" -X -A -t "$url" -c "SELECT count(*) FROM postback_rollups") rollup rows"
    names_map "$url"
    for bin in ${BINS:-$skan}; do
        skan=$bin measure "$url" "skan dashboard (PostgreSQL, $bin)" "'$psql' -X -A -t '$url' -c 'SELECT count(*) FROM postbacks'"
    done
fi
