#!/usr/bin/env bash
# `skan report --integrity` over ROWS stored postbacks and ROWS/2 kept repeats (default 10,000,000 postbacks;
# issue 36: the integrity counts are aggregated by the database, memory flat whatever the store's size).
# The answer is checked against counts worked out from the generator's rule, then timed with peak RSS.
#
#   Benchmarks/integrity.sh                 # 10M postbacks, 3 rounds; the database is kept in .build/bench
#   ROWS=1000000 ROUNDS=1 Benchmarks/integrity.sh
#
# Postback i (1...ROWS) is a winning network postback of network i % 3. Every even i has a developer copy
# (kept as an other-side repeat), which differs in its fine value when i % 20 = 0; every i % 50 = 0 also has a
# network resend with another country (a same-side conflict). So per network: conflicts = n20 + n50, copies
# disagreeing = n20, agreeing = n2 - n20, network only = n - n2, developer only = 0.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-3}
out=${OUT:-.build/bench}
mkdir -p "$out"
swift build -c release --product skan >/dev/null 2>&1
skan=.build/release/skan
db="$out/integrity-$ROWS.sqlite"

if [ ! -f "$db" ]; then
  echo "making $db with $ROWS postbacks and their repeats (schema from skan's own migrations, rows in SQL)" >&2
  "$skan" ingest --db "$db" /dev/null >/dev/null 2>&1 || true
  sqlite3 "$db" "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < $ROWS)
  INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key, app_id,
    did_win, postback_sequence_index, conversion_value, attribution_signature, raw_body, received_at, key_name,
    layout, endpoint)
  SELECT printf('%012x', i), 'net' || (i % 3) || '.skadnetwork', 0, '4.0', 1, 525463029, 1, 0, i % 64, 'sig', '{}',
    strftime('%Y-%m-%dT%H:%M:%fZ', 1772323200 + (i * 2592000.0 / $ROWS), 'unixepoch'), 'apple-p256', '4.0', '/postbacks'
  FROM n;
  INSERT INTO postback_repeats (framework, ad_network_id, transaction_id, dedup_sequence_index, differing,
    first_conversion_value, repeat_conversion_value, first_fidelity_type, repeat_fidelity_type, first_side,
    first_endpoint, first_received_at, repeat_side, repeat_endpoint, repeat_received_at, repeat_raw_body, repeat_values)
  SELECT framework, ad_network_id, transaction_id, 0, CASE WHEN id % 20 = 0 THEN 'conversion-value' ELSE '' END,
    conversion_value, CASE WHEN id % 20 = 0 THEN (conversion_value + 1) % 64 ELSE conversion_value END, NULL, NULL,
    'network', endpoint, received_at, 'developer', '/.well-known/skadnetwork/report-attribution/', received_at, '',
    'conversion-value=' || CASE WHEN id % 20 = 0 THEN (conversion_value + 1) % 64 ELSE conversion_value END
  FROM postbacks WHERE id % 2 = 0;
  INSERT INTO postback_repeats (framework, ad_network_id, transaction_id, dedup_sequence_index, differing,
    first_conversion_value, repeat_conversion_value, first_country_code, repeat_country_code, first_side,
    first_endpoint, first_received_at, repeat_side, repeat_endpoint, repeat_received_at, repeat_raw_body, repeat_values)
  SELECT framework, ad_network_id, transaction_id, 0, 'country', conversion_value, conversion_value, NULL, 'FR',
    'network', endpoint, received_at, 'network', endpoint, received_at, '', 'country=FR'
  FROM postbacks WHERE id % 50 = 0;"
fi

expected=$(awk -v rows="$ROWS" 'BEGIN {
  for (i = 1; i <= rows; i++) { k = i % 3; n[k]++; if (i % 2 == 0) n2[k]++; if (i % 20 == 0) n20[k]++; if (i % 50 == 0) n50[k]++ }
  for (k = 0; k < 3; k++)
    printf "net%d.skadnetwork,%d,%d,0,%d,0,%d,%d,0,%d,0,0,0,0\n", k, n20[k] + n50[k], n20[k], n50[k], n2[k] - n20[k], n20[k], n[k] - n2[k]
}')

timed() { local file=$1; shift; /usr/bin/time -f "%e %M" -o "$out/t.txt" "$@" > "$file"; read -r t m < "$out/t.txt"; }
declare -a ts ms
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  timed "$out/integrity.csv" "$skan" report --db "$db" --integrity --format csv; ts+=("$t"); ms+=("$m")
done
tail -n +2 "$out/integrity.csv" | tr -d '\r' | cmp -s - <(echo "$expected") && echo "integrity rows match the generator's counts" \
  || { echo "INTEGRITY ROWS DIFFER from the generator's counts:" >&2; cat "$out/integrity.csv" >&2; echo "expected:" >&2; echo "$expected" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
cat <<REPORT
$ROWS postbacks, $(( ROWS / 2 + ROWS / 50 )) repeats, medians of $ROUNDS rounds, $(nproc) cores, $(date -u +%FT%TZ)
report --integrity   $(median "${ts[@]}") s   peak RSS $(( $(median "${ms[@]}") / 1024 )) MB
REPORT
