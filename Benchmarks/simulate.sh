#!/usr/bin/env bash
# Simulates 1,000,000 devices of a sample campaign (the 4.0 sample, or CAMPAIGN=Samples/campaigns/aak-mixed.json;
# postback signing included) and, in the same run,
# measures `openssl speed -multi 2 ecdsap256` sign/s as the reference. Prints devices/s, postbacks/s,
# the ratio to openssl's sign/s (target ≥ 0.5) and peak memory (target < 1 GB).
# Usage: Benchmarks/simulate.sh [DEVICES]   (run from the package root; builds release first unless SKAN_BIN= names
# a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
devices="${1:-1000000}"
campaign="${CAMPAIGN:-Samples/campaigns/skan-4.0-subscription.json}"
out="${BENCH_OUT:-bench-out}"
mkdir -p "$out"

# SKAN_BIN compares another build (A/B runs of two binaries on this noisy machine); by default, build release.
if [ -n "${SKAN_BIN:-}" ]; then
    skan="$SKAN_BIN"
else
    swift build -c release --product skan >&2
    skan="$(swift build -c release --show-bin-path)/skan"
fi

echo "== openssl speed -multi 2 -seconds 3 ecdsap256" >&2
openssl speed -multi 2 -seconds 3 ecdsap256 2>/dev/null | tee "$out/openssl-speed.txt" >&2
# The last line of the table: "256 bits ecdsa (nistp256)   0.0000s   0.0000s  SIGN/S  VERIFY/S".
openssl_sign=$(awk '/ecdsa \(nistp256\)/ { line = $0 } END { split(line, f, " "); print f[length(f) - 1] }' "$out/openssl-speed.txt")

echo "== skan simulate --devices $devices" >&2
start=$(date +%s.%N)
/usr/bin/time -v -o "$out/time.txt" "$skan" simulate --campaign "$campaign" \
    --seed 1 --devices "$devices" --out "$out/postbacks.jsonl" 2> "$out/summary.txt"
end=$(date +%s.%N)
cat "$out/summary.txt" >&2

postbacks=$(awk '/^postbacks/ { print $2 }' "$out/summary.txt")
seconds=$(echo "$end - $start" | bc -l)
peak_kb=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$out/time.txt")
printf 'devices            %d in %.1f s: %.0f devices/s\n' "$devices" "$seconds" "$(echo "$devices / $seconds" | bc -l)"
printf 'postbacks signed   %d: %.0f postbacks/s\n' "$postbacks" "$(echo "$postbacks / $seconds" | bc -l)"
printf 'openssl reference  %s sign/s (ecdsap256, -multi 2)\n' "$openssl_sign"
printf 'ratio              %.2f (target >= 0.5)\n' "$(echo "$postbacks / $seconds / $openssl_sign" | bc -l)"
printf 'peak memory        %.0f MB (target < 1024)\n' "$(echo "$peak_kb / 1024" | bc -l)"
