#!/usr/bin/env bash
# Checks that every BoringSSL internal Sources/CSKANP256Table declares by hand is a global symbol of the
# CCryptoBoringSSL objects of the swift-crypto version Package.swift pins, and that the resolved version is the pin.
# A link of skan or the tests proves the names resolve too; this names the missing one, for the day the pin moves.
#
#   Scripts/check-p256-symbols.sh            # after swift build -c release
#   Scripts/check-p256-symbols.sh debug      # after swift build
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-release}
source=Sources/CSKANP256Table/P256Table.c

pinned=$(sed -n 's|.*swift-crypto.git", exact: "\([0-9.]*\)").*|\1|p' Package.swift)
resolved=$(grep -A6 '"identity" : "swift-crypto"' Package.resolved | sed -n 's/.*"version" : "\(.*\)".*/\1/p')
[ -n "$pinned" ] || { echo "Package.swift does not pin swift-crypto with exact:" >&2; exit 1; }
[ "$pinned" = "$resolved" ] || { echo "swift-crypto pinned $pinned, resolved $resolved" >&2; exit 1; }
grep -q "swift-crypto $pinned" "$source" || { echo "$source does not say it was written against $pinned" >&2; exit 1; }

objects=$(find ".build/$config/CCryptoBoringSSL.build" -name '*.o' 2>/dev/null || true)
[ -n "$objects" ] || { echo "no CCryptoBoringSSL objects under .build/$config: swift build -c $config first" >&2; exit 2; }
# shellcheck disable=SC2086
defined=$(nm -g --defined-only $objects 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
# Plain declarations, and the _adx/_nohw pair each NISTZ_VARIANTS(name, ...) line declares.
wanted=$({ grep -o 'CCryptoBoringSSL_[a-z0-9_]*(' "$source" | tr -d '('
           sed -n 's/^NISTZ_VARIANTS(\([a-z0-9_]*\),.*/\1/p' "$source" |
               while read -r name; do echo "CCryptoBoringSSL_${name}_adx"; echo "CCryptoBoringSSL_${name}_nohw"; done
         } | sort -u)
missing=$(comm -23 <(echo "$wanted") <(echo "$defined"))
if [ -n "$missing" ]; then
    echo "swift-crypto $pinned does not define what $source declares:" >&2
    echo "$missing" >&2
    exit 1
fi
echo "swift-crypto $pinned defines all $(echo "$wanted" | wc -l) symbols $source declares"
