#!/usr/bin/env bash
# Core throughput beside OpenSSL's own figures from the same run (issue 2's "done when").
#
# The machine is shared and its speed swings by a third within a minute, so every figure is a ratio taken in
# pairs: openssl, skan, openssl, skan, openssl ... each skan sample is divided by the mean of the openssl samples
# just before and just after it, and the report gives the median of those ratios with their range. Medians of the
# two sides taken separately (what this script did before) compared samples minutes apart.
#
#   Benchmarks/core.sh                      # 9 one-second pairs per measure, 5 runs of the 200,000-line command
#   PAIRS=15 CLI_ROUNDS=7 Benchmarks/core.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-9}
CLI_ROUNDS=${CLI_ROUNDS:-5}
SECONDS_EACH=${SECONDS_EACH:-1}
LINES=${LINES:-200000}
out=${OUT:-.build/bench}
mkdir -p "$out"

swift build -c release --product skan >/dev/null
skan=${SKAN_BIN:-.build/release/skan}
file="$out/postbacks-$LINES.jsonl"
[ -f "$file" ] || "$skan" bench postbacks --count "$LINES" --version 4.0 --out "$file"
aak_file="$out/aak-postbacks-$LINES.jsonl"
[ -f "$aak_file" ] || "$skan" bench postbacks --count "$LINES" --version aak --out "$aak_file"

# openssl speed's last lines: "256 bits ecdsa (nistp256)  0.0000s 0.0001s  29506.0  9428.3" (sign/s, verify/s).
ossl() { # $1 = extra flags ("" or "-multi 2"), $2 = curve (256|192); prints "sign verify"
  # shellcheck disable=SC2086
  openssl speed $1 -seconds "$SECONDS_EACH" "ecdsap$2" 2>/dev/null |
    awk -v c="nistp$2" '$0 ~ c && $0 ~ /ecdsa/ { n = split($0, f, " "); s = f[n-1]; v = f[n] } END { print s, v }'
}
skan_rate() { # $1 = measure, $2 = threads; prints the rate
  "$skan" bench core --seconds "$SECONDS_EACH" --only "$1" --threads "$2" |
    sed -E 's/.*"per_second":([0-9]+).*/\1/'
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
summary() { # ratios on stdin -> "median (min-max)"
  sort -g | awk '{a[NR]=$1} END {m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.2f  (%.2f-%.2f)", m, a[1], a[NR]}'
}
ratio() { awk -v s="$1" -v a="$2" -v b="$3" 'BEGIN {printf "%.4f\n", s / ((a + b) / 2)}'; }

declare -A ratios rates
# One measure in PAIRS pairs. $1 = name, $2 = openssl flags, $3 = curve, $4 = skan measure, $5 = threads,
# $6 = openssl column (1 sign, 2 verify)
paired() {
  local before after sample
  before=$(ossl "$2" "$3" | cut -d' ' -f"$6")
  for _ in $(seq "$PAIRS"); do
    sample=$(skan_rate "$4" "$5")
    after=$(ossl "$2" "$3" | cut -d' ' -f"$6")
    ratios[$1]+="$(ratio "$sample" "$before" "$after") "
    rates[$1-skan]+="$sample "
    rates[$1-openssl]+="$after "
    before=$after
  done
}

echo "one thread, P-256 verify" >&2; paired p256 "" 256 verify-p256 1 2
echo "one thread, P-192 verify" >&2; paired p192 "" 192 verify-p192 1 2
echo "one thread, AdAttributionKit verify" >&2; paired aak "" 256 verify-aak 1 2
echo "one thread, P-256 sign" >&2;   paired sign "" 256 sign-impression-p256 1 1
echo "two threads, P-256 verify" >&2; paired p256all "-multi 2" 256 verify-p256 "$(nproc)" 2

# The whole command: JSON lines in, JSON lines out, every core, 200,000 postbacks; -multi 2 before and after.
# $1 = key (cli, cli-aak), $2 = file, then the key options.
whole_command() {
  local key=$1 input=$2 before after elapsed user sys rss valid sample
  shift 2
  before=$(SECONDS_EACH=3 ossl "-multi 2" 256 | cut -d' ' -f2)
  for _ in $(seq "$CLI_ROUNDS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$skan" verify --format json "$@" "$input" > "$out/verify.jsonl"
    read -r elapsed user sys rss < "$out/time.txt"
    valid=$(grep -c '"status":"valid"' "$out/verify.jsonl")
    [ "$valid" = "$LINES" ] || { echo "only $valid of $LINES verified" >&2; exit 1; }
    after=$(SECONDS_EACH=3 ossl "-multi 2" 256 | cut -d' ' -f2)
    sample=$(awk -v n="$LINES" -v s="$elapsed" 'BEGIN {printf "%d", n / s}')
    ratios[$key]+="$(ratio "$sample" "$before" "$after") "
    rates[$key-skan]+="$sample "
    rates[$key-openssl]+="$after "
    rates[$key-cpu-us]+="$(awk -v n="$LINES" -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", (u + s) * 1e6 / n}') "
    rates[$key-rss-kb]+="$rss "
    before=$after
  done
}
echo "skan verify --format json, $LINES lines" >&2
whole_command cli "$file" --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem
echo "skan verify --format json, $LINES AdAttributionKit lines" >&2
whole_command cli-aak "$aak_file" --aak-key simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem

values() { tr ' ' '\n' <<< "$1" | grep -v '^$'; }  # a space-separated series, one value a line
line() { # $1 = label, $2 = key
  printf '%-44s %9s %10s   %s\n' "$1" "$(values "${rates[$2-skan]}" | median)" \
    "$(values "${rates[$2-openssl]}" | median)" "$(values "${ratios[$2]}" | summary)"
}
echo "$(nproc) cores, $(date -u +%FT%TZ); $PAIRS pairs of ${SECONDS_EACH}s samples, $CLI_ROUNDS runs of the command"
printf '%-44s %9s %10s   %s\n' "" "skan/s" "openssl/s" "ratio: median of pairs (range)"
line "verify P-256, 1 thread, JSON -> result" p256
line "verify P-192, 1 thread, JSON -> result" p192
line "verify AdAttributionKit, 1 thread, JSON -> result" aak
line "sign impression P-256, 1 thread" sign
line "verify P-256, all cores (in-process)" p256all
line "skan verify --format json, $LINES lines" cli
line "skan verify --format json, $LINES AAK lines" cli-aak
for key in cli cli-aak; do
  echo "$key: CPU per postback $(values "${rates[$key-cpu-us]}" | median) us (user+sys), peak RSS $(( $(values "${rates[$key-rss-kb]}" | median | cut -d. -f1) / 1024 )) MB"
done
