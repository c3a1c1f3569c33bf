#!/usr/bin/env bash
# Reports and exports over ROWS stored postbacks (default 10,000,000), beside the sqlite3 shell running the same
# query and its own `.mode csv` export on the same database in the same run (issue 5's "done when").
# Each figure is the median of ROUNDS interleaved runs (sqlite3, then skan, ...), with peak RSS from /usr/bin/time.
#
#   Benchmarks/reports.sh                 # 10M rows, 3 rounds; the database is kept in .build/bench for reruns
#   ROWS=1000000 ROUNDS=5 Benchmarks/reports.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-3}
BY=${BY:-ad-network,campaign,day}
out=${OUT:-.build/bench}
mkdir -p "$out"
swift build -c release --product skan >/dev/null 2>&1
skan=.build/release/skan
db="$out/reports-$ROWS.sqlite"

if [ ! -f "$db" ]; then
  echo "making $db with $ROWS postbacks (schema from skan's own migrations, rows generated in SQL)" >&2
  "$skan" ingest --db "$db" /dev/null >/dev/null 2>&1 || true
  # Distinct transaction ids, three networks, 9,000 source identifiers, 30 days, fine, coarse and null values,
  # winning and non-winning, three windows: the mix of a 4.0 campaign, 700 bytes a row like real postbacks.
  sqlite3 "$db" "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < $ROWS)
  INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key, campaign_id,
    source_identifier, app_id, redownload, source_app_id, source_domain, fidelity_type, did_win,
    postback_sequence_index, conversion_value, coarse_conversion_value, country_code, attribution_signature, extras,
    raw_body, received_at, key_name, layout, endpoint)
  SELECT printf('%08x-%04x-4%03x-a%03x-%012x', i, i % 65536, i % 4096, (i*7) % 4096, i*2654435761 % 281474976710656),
    CASE i % 3 WHEN 0 THEN 'adnet1.skadnetwork' WHEN 1 THEN 'rival22.skadnetwork' ELSE 'third3.skadnetwork' END,
    i % 3, '4.0', 1, NULL, printf('%d', 1000 + (i*37) % 9000), 525463029, (i % 11 = 0),
    CASE WHEN i % 4 = 0 THEN 1234567891 END, NULL, i % 2, (i % 9 <> 0), i % 3,
    CASE WHEN i % 3 = 0 AND i % 5 <> 0 THEN (i*13) % 64 END,
    CASE WHEN i % 3 <> 0 AND i % 7 <> 0 THEN CASE i % 3 WHEN 1 THEN 'low' ELSE 'high' END END, NULL,
    'MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=', NULL,
    printf('{\"version\":\"4.0\",\"ad-network-id\":\"adnet1.skadnetwork\",\"source-identifier\":\"%d\",\"app-id\":525463029,\"transaction-id\":\"%08x\",\"redownload\":false,\"fidelity-type\":1,\"did-win\":true,\"postback-sequence-index\":0,\"attribution-signature\":\"MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=\"}', 1000 + i % 9000, i),
    strftime('%Y-%m-%dT%H:%M:%fZ', 1772323200 + (i * 2592000.0 / $ROWS), 'unixepoch'), 'apple-p256', '4.0', '/postbacks'
  FROM n;"
fi

query=$("$skan" report --by "$BY" --print-sql)
# timed OUTFILE COMMAND...: runs COMMAND with its standard output in OUTFILE; sets $t (seconds) and $m (peak KB).
timed() { local file=$1; shift; /usr/bin/time -f "%e %M" -o "$out/t.txt" "$@" > "$file"; read -r t m < "$out/t.txt"; }
declare -a rs rk es ek rkm ekm
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  timed "$out/report-sqlite.csv" sqlite3 -csv "$db" "$query"; rs+=("$t")
  timed "$out/report-skan.csv" "$skan" report --db "$db" --by "$BY" --format csv; rk+=("$t"); rkm+=("$m")
  timed "$out/export-sqlite.csv" sqlite3 -csv -header "$db" "SELECT * FROM postbacks ORDER BY id"; es+=("$t")
  timed "$out/export-skan.csv" "$skan" export --db "$db"; ek+=("$t"); ekm+=("$m")
done
# Same content: the report's counts match sqlite3's query row for row; the export differs only in CRLF endings.
tail -n +2 "$out/report-skan.csv" | cut -d, -f1-8 | tr -d '\r' | cmp -s - <(cut -d, -f1-8 "$out/report-sqlite.csv") \
  && echo "report rows match sqlite3's" || echo "REPORT ROWS DIFFER from sqlite3's" >&2
tr -d '\r' < "$out/export-skan.csv" | cmp -s - "$out/export-sqlite.csv" && echo "export matches sqlite3's byte for byte (but CRLF)" \
  || echo "EXPORT DIFFERS from sqlite3's" >&2

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
r1=$(median "${rs[@]}"); r2=$(median "${rk[@]}"); e1=$(median "${es[@]}"); e2=$(median "${ek[@]}")
cat <<REPORT
$ROWS postbacks, medians of $ROUNDS rounds, $(nproc) cores, $(date -u +%FT%TZ)
                         sqlite3 s   skan s   ratio   skan peak RSS   skan rows/s
report --by $BY   $r1   $r2   $(ratio "$r2" "$r1")   $(( $(median "${rkm[@]}") / 1024 )) MB   $(awk -v n="$ROWS" -v s="$r2" 'BEGIN {printf "%d", n/s}')
export (csv)             $e1   $e2   $(ratio "$e2" "$e1")   $(( $(median "${ekm[@]}") / 1024 )) MB   $(awk -v n="$ROWS" -v s="$e2" 'BEGIN {printf "%d", n/s}')
REPORT
