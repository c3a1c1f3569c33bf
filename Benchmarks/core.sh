#!/usr/bin/env bash
# Core throughput beside OpenSSL's own figures from the same run (issue 2's "done when").
# The machine is shared and noisy, so each figure is the median of ROUNDS interleaved runs:
# openssl, then skan, then openssl again ... so that both see the same background load. Each reference is the mean
# of openssl's medians just before and just after skan's figures.
#
#   Benchmarks/core.sh            # 3 rounds
#   ROUNDS=5 SECONDS_EACH=3 Benchmarks/core.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS_EACH:-3}
LINES=${LINES:-200000}
out=${OUT:-.build/bench}
mkdir -p "$out"

swift build -c release --product skan >/dev/null
skan=.build/release/skan
file="$out/postbacks-$LINES.jsonl"
[ -f "$file" ] || "$skan" bench postbacks --count "$LINES" --version 4.0 --out "$file"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# openssl speed's last lines: "256 bits ecdsa (nistp256)  0.0000s 0.0001s  29506.0  9428.3" (sign/s, verify/s).
column() { # $1 = speed output, $2 = curve word (nistp256|nistp192), $3 = sign|verify
  echo "$1" | awk -v c="$2" -v col="$3" '$0 ~ c && $0 ~ /ecdsa/ { n=split($0,f," "); last=(col=="sign")?f[n-1]:f[n] } END { print last }'
}

declare -A series
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  single=$(openssl speed -seconds "$SECONDS_EACH" ecdsap256 ecdsap192 2>/dev/null)
  series[ossl1-verify-nistp256]+="$(column "$single" nistp256 verify) "
  series[ossl1-verify-nistp192]+="$(column "$single" nistp192 verify) "
  series[ossl1-sign-nistp256]+="$(column "$single" nistp256 sign) "
  series[ossl2-verify-nistp256]+="$(column "$(openssl speed -multi 2 -seconds "$SECONDS_EACH" ecdsap256 2>/dev/null)" nistp256 verify) "
  while read -r line; do
    measure=$(echo "$line" | sed -E 's/.*"measure":"([^"]+)".*"threads":([0-9]+).*"per_second":([0-9]+).*/\1-\2 \3/')
    series[skan-${measure% *}]+="${measure#* } "
  done < <("$skan" bench core --seconds "$SECONDS_EACH")
  # The one-thread references again, right after skan's one-thread figures: on this shared machine the speed
  # drifts within a round, and a reference taken only before would favour whichever side runs first.
  single=$(openssl speed -seconds "$SECONDS_EACH" ecdsap256 ecdsap192 2>/dev/null)
  series[ossl1-verify-nistp256-after]+="$(column "$single" nistp256 verify) "
  series[ossl1-verify-nistp192-after]+="$(column "$single" nistp192 verify) "
  series[ossl1-sign-nistp256-after]+="$(column "$single" nistp256 sign) "
  # The whole command: JSON lines in, JSON lines out, every core, 200,000 postbacks.
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$skan" verify --format json \
      --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem "$file" > "$out/verify.jsonl"
  read -r elapsed rss < "$out/time.txt"
  series[cli-rate]+="$(awk -v n="$LINES" -v s="$elapsed" 'BEGIN {printf "%d", n/s}') "
  series[cli-rss-kb]+="$rss "
  series[ossl2-verify-nistp256-after]+="$(column "$(openssl speed -multi 2 -seconds "$SECONDS_EACH" ecdsap256 2>/dev/null)" nistp256 verify) "
  valid=$(grep -c '"status":"valid"' "$out/verify.jsonl")
  [ "$valid" = "$LINES" ] || { echo "only $valid of $LINES verified" >&2; exit 1; }
done

m() { echo "${series[$1]}" | tr ' ' '\n' | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
mean() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", (a+b)/2}'; }
o256=$(mean "$(m ossl1-verify-nistp256)" "$(m ossl1-verify-nistp256-after)")
o192=$(mean "$(m ossl1-verify-nistp192)" "$(m ossl1-verify-nistp192-after)")
osign=$(mean "$(m ossl1-sign-nistp256)" "$(m ossl1-sign-nistp256-after)")
o2=$(m ossl2-verify-nistp256); o2b=$(m ossl2-verify-nistp256-after)
s256=$(m skan-verify-p256-1); s192=$(m skan-verify-p192-1); s256all=$(m skan-verify-p256-2); s192all=$(m skan-verify-p192-2)
ssign=$(m skan-sign-impression-p256-1); cli=$(m cli-rate); rss=$(m cli-rss-kb)
o2mid=$(awk -v a="$o2" -v b="$o2b" 'BEGIN {print (a+b)/2}')
cat <<REPORT
medians of $ROUNDS rounds, $(nproc) cores, $(date -u +%FT%TZ)
                                         skan/s    openssl/s  ratio
verify P-256, 1 thread, JSON -> result  $s256    $o256    $(ratio "$s256" "$o256")
verify P-192, 1 thread, JSON -> result  $s192    $o192    $(ratio "$s192" "$o192")
verify P-256, all cores (in-process)    $s256all    $o2mid    $(ratio "$s256all" "$o2mid")
verify P-192, all cores (in-process)    $s192all
sign impression P-256, 1 thread         $ssign    $osign    $(ratio "$ssign" "$osign")
skan verify --format json, $LINES lines  $cli    $o2mid    $(ratio "$cli" "$o2mid")   (openssl -multi 2, mean of before/after)
skan verify peak RSS: $((rss / 1024)) MB
REPORT
