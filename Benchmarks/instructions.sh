#!/usr/bin/env bash
# Instructions per verified postback, counted by valgrind's callgrind: the figure that does not move with the
# machine's load. core.sh's ratios are wall-clock and on this shared machine swing by a third within minutes;
# instruction counts repeat to a fraction of a percent for the same binary and input.
#
# skan: the whole `skan verify --format json` command (read, split, parse, hash, verify, write), as the
#       difference between a SMALL-line and a LARGE-line file divided by the difference in lines, so start-up
#       and key loading cancel out.
# openssl: `openssl speed -mr` under callgrind, the instructions inside EVP_PKEY_verify divided by the number
#       of verifications it reports (its loop verifies one fixed digest; no parsing, no hashing).
#
#   Benchmarks/instructions.sh
#   SMALL=500 LARGE=2500 CURVES="p256 aak" Benchmarks/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
SMALL=${SMALL:-500}
LARGE=${LARGE:-2500}
out=${OUT:-.build/bench}
mkdir -p "$out"
swift build -c release --product skan >/dev/null
# valgrind 3.19 gives up on the debug info Swift 6.3 writes; a copy without it runs (symbols stay).
skan="$out/skan-nodebug"
objcopy --strip-debug "${SKAN_BIN:-.build/release/skan}" "$skan"

total_ir() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }

# Instructions per postback for `skan verify --format json` over version $1's postbacks.
skan_ir() {
  local version=$1 irs=()
  for lines in "$SMALL" "$LARGE"; do
    local file="$out/ir-$version-$lines.jsonl"
    [ -f "$file" ] || "$skan" bench postbacks --count "$lines" --version "$version" --out "$file"
    valgrind --tool=callgrind --callgrind-out-file="$out/ir-skan.cg" "$skan" verify --format json \
      --apple-key-p256 Keys/test/simulated-apple-p256-public-key.pem \
      --apple-key-p192 Keys/test/simulated-apple-p192-public-key.pem \
      --aak-key simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem "$file" >/dev/null 2>&1
    irs+=("$(total_ir "$out/ir-skan.cg")")
  done
  # The share inside the library's verify call (BoringSSL's for P-256, OpenSSL's for P-192), from the larger run.
  local crypto
  crypto=$(callgrind_annotate --inclusive=yes "$out/ir-skan.cg" 2>/dev/null |
           awk '/:(CCryptoBoringSSL_ECDSA_do_verify|EVP_PKEY_verify) / && !done {gsub(",", "", $1); print $1; done = 1}')
  awk -v a="${irs[0]}" -v b="${irs[1]}" -v n=$((LARGE - SMALL)) -v c="$crypto" -v l="$LARGE" \
    'BEGIN {printf "%.0f %.0f\n", (b - a) / n, c / l}'
}

# Instructions per EVP_PKEY_verify call in `openssl speed` for curve word $1 (ecdsap256 | ecdsap192).
openssl_ir() {
  valgrind --tool=callgrind --callgrind-out-file="$out/ir-ossl.cg" openssl speed -mr -seconds 2 "$1" \
    >"$out/ir-ossl.txt" 2>&1
  local count ir
  count=$(awk -F: '/^\+DTP:[0-9]+:verify:ecdsa/ {getline; print $2}' "$out/ir-ossl.txt")
  ir=$(callgrind_annotate --inclusive=yes "$out/ir-ossl.cg" 2>/dev/null |
       awk '/:EVP_PKEY_verify / && !done {gsub(",", "", $1); print $1; done = 1}')
  awk -v ir="$ir" -v n="$count" 'BEGIN {printf "%.0f", ir / n}'
}

echo "instructions per verification (callgrind), $(date -u +%FT%TZ)"
echo "                                         skan (of it, in the verify call)  openssl   openssl/skan"
for curve in ${CURVES:-p256 p192}; do
  # aak: AdAttributionKit postbacks (a JWS verify is one P-256 verify), against openssl's P-256.
  case $curve in p256) version=4.0 ;; p192) version=2.0 ;; aak) version=aak ;;
    *) echo "CURVES: p256, p192 or aak, not $curve" >&2; exit 2 ;; esac
  read -r s crypto < <(skan_ir "$version")
  o=$(openssl_ir "ecdsa${curve/aak/p256}")
  printf '%s, skan verify --format json, per line  %s (%s)          %s    %s\n' "$curve" "$s" "$crypto" "$o" \
    "$(awk -v a="$o" -v b="$s" 'BEGIN {printf "%.2f", a/b}')"
done
