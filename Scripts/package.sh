#!/usr/bin/env bash
# Builds `skan` for release with the Swift standard library and Foundation linked statically, and writes
# dist/skan-VERSION-linux-ARCH.tar.gz: a folder that runs on a Debian host without a Swift toolchain, needing only
# the system's libc, libstdc++, libssl3 and libsqlite3-0 (ldd is checked here: no Swift library and no libcurl may
# be listed; nothing imports FoundationNetworking, whose URLSession is what would link libcurl).
#
#   Scripts/package.sh                 # builds (swift build -c release --static-swift-stdlib ... --product skan), packs
#   SKAN_BIN=path/to/skan Scripts/package.sh   # packs a binary built that way already (CI shares one build)
#   OUT=/tmp/dist Scripts/package.sh   # where the .tar.gz goes (default: dist/)
#
# The archive holds:
#   skan-VERSION-linux-ARCH/
#     bin/skan                         the binary
#     bin/SKANKit_SKANDashboard.resources/   the dashboard's templates (found beside the binary)
#     Keys/apple/                      Apple's public keys; Keys/test/ the test PUBLIC keys only (never a private key)
#     etc/skan.json                    a sample configuration (docs/guides/deployment.md)
#     etc/skan.env                     where the secrets go (SKAN_SERVE_DB with a password), mode 600
#     systemd/skan-serve.service       a systemd unit for the collector
#     licenses/                        the licence texts of what the binary links
#     README.md                        what is where
#
# Scripts/package-check.sh unpacks it into an empty folder and runs it with an empty environment.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-dist}

if [ -z "${SKAN_BIN:-}" ]; then
    swift build -c release --static-swift-stdlib --product skan >&2
    SKAN_BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/skan"
fi
bin_dir=$(dirname "$SKAN_BIN")

# No Swift library may be needed at run time: the point of the static standard library.
if ldd "$SKAN_BIN" | grep -E -i 'swift|Foundation|libdispatch|BlocksRuntime|icu' >&2; then
    echo "package.sh: $SKAN_BIN links the Swift libraries above dynamically; build it with --static-swift-stdlib" >&2
    exit 1
fi
# Nor libcurl: a host needs only libssl3 and libsqlite3-0 (an `import FoundationNetworking` would bring it back).
if ldd "$SKAN_BIN" | grep -i 'curl' >&2; then
    echo "package.sh: $SKAN_BIN needs libcurl; something imports FoundationNetworking (URLSession): use AsyncHTTPClient" >&2
    exit 1
fi

version=$("$SKAN_BIN" --version | awk '{print $2}')
arch=$(uname -m)
name="skan-$version-linux-$arch"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/Keys/apple" "$root/Keys/test" "$root/etc" "$root/systemd" "$root/licenses"

cp "$SKAN_BIN" "$root/bin/skan"
strip --strip-debug "$root/bin/skan" 2>/dev/null || true
for bundle in "$bin_dir"/*.resources; do
    [ -e "$bundle" ] && cp -R "$bundle" "$root/bin/"
done

# Public keys only: a file is copied when it holds a public key and no private one.
for key in Keys/apple/*.pem Keys/test/*.pem; do
    if grep -q 'PRIVATE KEY' "$key"; then continue; fi
    grep -q 'PUBLIC KEY' "$key" || continue
    cp "$key" "$root/$key"
done
cp Keys/apple/README.md "$root/Keys/apple/README.md"

cp Samples/deploy/skan.json "$root/etc/skan.json"
cp Samples/deploy/skan.env "$root/etc/skan.env"
chmod 600 "$root/etc/skan.env"
cp Samples/deploy/skan-serve.service "$root/systemd/skan-serve.service"

# The licence of every package whose modules the binary links: the link's file list names each module's objects.
link_list=$(ls "$bin_dir"/skan.product/Objects.LinkFileList 2>/dev/null || true)
checkouts=$(cd "$bin_dir/../.." 2>/dev/null && pwd)/checkouts
[ -d "$checkouts" ] || checkouts=.build/checkouts
for checkout in "$checkouts"/*; do
    package=$(basename "$checkout")
    linked=no
    if [ -n "$link_list" ]; then
        # A module's folder is Sources/NAME, or NAME at the top (GRDB).
        for target in "$checkout"/Sources/*/ "$checkout"/*/; do
            module=$(basename "$target")
            if grep -q "/$module.build/" "$link_list"; then linked=yes; break; fi
        done
    else
        linked=yes # no file list (another build layout): every package, to be safe
    fi
    [ "$linked" = yes ] || continue
    for file in "$checkout"/LICENSE* "$checkout"/NOTICE*; do
        [ -f "$file" ] && cp "$file" "$root/licenses/$package-$(basename "$file")"
    done
done
cp /opt/swift/usr/share/swift/LICENSE.txt "$root/licenses/swift-runtime-LICENSE.txt" 2>/dev/null ||
    cp "$(dirname "$(command -v swift)")/../share/swift/LICENSE.txt" "$root/licenses/swift-runtime-LICENSE.txt"
# Foundation's ICU is linked statically with it: its licence, as Debian ships it.
[ -f /usr/share/doc/libicu72/copyright ] && cp /usr/share/doc/libicu72/copyright "$root/licenses/icu-copyright.txt"
cp Samples/deploy/PACKAGE.md "$root/README.md"

if grep -rlI -e '-----BEGIN [A-Z ]*PRIVATE KEY-----' "$root" >&2; then
    echo "package.sh: a private key reached the package (above)" >&2
    exit 1
fi

mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"
