#!/usr/bin/env bash
# Runs the package Scripts/package.sh wrote as an operator would, with nothing of the build around it: unpacked
# into an empty temporary folder, `skan` started under `env -i` (no toolchain, no Swift library path, only
# /usr/bin:/bin), `skan serve` from the sample configuration (its database and ports moved by SKAN_SERVE_*
# variables, which is also the precedence at work), one of Apple's signed sample postbacks posted to it, and
# `skan report` counting it. Also: ldd lists no Swift library, no private key is in the archive, the dashboard
# answers from its packaged templates, and a password on the command line is refused.
#
#   Scripts/package-check.sh dist/skan-0.9.0-linux-x86_64.tar.gz
#   Scripts/package-check.sh            # the newest dist/skan-*.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."
archive=${1:-$(ls -t dist/skan-*.tar.gz 2>/dev/null | head -1)}
[ -n "$archive" ] && [ -f "$archive" ] || { echo "package-check.sh: no archive (run Scripts/package.sh)" >&2; exit 2; }
archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
sample=$(pwd)/Samples/postbacks/skan-4.0-web-fine-apple-doc.json

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "package-check: FAIL: $*" >&2; exit 1; }
ok() { echo "package-check: ok: $*"; }

tar -C "$work" -xzf "$archive"
root=$(ls -d "$work"/skan-*)
cd "$root"
# A clean environment: nothing but a PATH without the toolchain, run from the unpacked folder.
clean() { env -i PATH=/usr/bin:/bin "$@"; }

ldd bin/skan | grep -E -i 'swift|Foundation|libdispatch|BlocksRuntime|icu' && fail "bin/skan links a Swift library"
ok "ldd: $(ldd bin/skan | awk '{print $1}' | tr '\n' ' ')"
grep -rlI -e '-----BEGIN [A-Z ]*PRIVATE KEY-----' . && fail "a private key is in the package"
ok "no private key; $(ls Keys/*/*.pem | wc -l) public keys"
[ -f etc/skan.json ] && [ -f systemd/skan-serve.service ] && [ -n "$(ls licenses)" ] || fail "a packaged file is missing"
ok "$(ls licenses | wc -l) licence files"
clean bin/skan --version

data="$work/data"
mkdir -p "$data"
# The sample configuration, with the database and the ports moved by the environment (the variables win).
serve_env=(SKAN_SERVE_DB="$data/skan.sqlite" SKAN_SERVE_PORT=0 SKAN_SERVE_ADMIN_PORT=0)
clean "${serve_env[@]}" bin/skan serve --config etc/skan.json --print-config > "$work/print-config.txt"
grep -q "^serve.db .*= $data/skan.sqlite .*# environment SKAN_SERVE_DB" "$work/print-config.txt" ||
    fail "print-config: $(cat "$work/print-config.txt")"
grep -q "^serve.log-format .*= json .*# file etc/skan.json" "$work/print-config.txt" || fail "print-config: log-format"
ok "print-config names each value's source"

# exec: $! is then skan itself, not a subshell, so the SIGTERM below reaches it.
(exec env -i PATH=/usr/bin:/bin "${serve_env[@]}" bin/skan serve --config etc/skan.json > "$work/serve.out" 2> "$work/serve.err") &
pids+=($!)
for _ in $(seq 1 100); do grep -q 'admin on' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$work/serve.out")
admin=$(sed -n 's/.*admin on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$work/serve.out")
[ -n "$port" ] && [ -n "$admin" ] || fail "serve did not start: $(cat "$work/serve.out" "$work/serve.err")"
ok "serve listening on $port, admin on $admin"
for probe in healthz livez readyz; do
    [ "$(/usr/bin/curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/$probe")" = 200 ] || fail "/$probe"
done
ok "/healthz, /livez and /readyz answer 200"
reply=$(/usr/bin/curl -s -H 'Content-Type: application/json' --data-binary @"$sample" "http://127.0.0.1:$port/postbacks")
[ "$reply" = '{"status":"accepted"}' ] || fail "postback: $reply"
ok "postback accepted"
kill -TERM "${pids[0]}"
# The sample's drain-delay (5 s): /readyz fails at once while /livez and the listeners still answer.
for _ in $(seq 1 20); do
    [ "$(/usr/bin/curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 503 ] && break; sleep 0.1
done
[ "$(/usr/bin/curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 503 ] || fail "/readyz while draining"
[ "$(/usr/bin/curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/livez")" = 200 ] || fail "/livez while draining"
ok "after SIGTERM: /readyz 503, /livez 200"
wait "${pids[0]}" || fail "serve exited with $?: $(tail -3 "$work/serve.err")"
pids=()
# JSON logs (serve.log-format in the sample): every line parses.
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$work/serve.err" ||
    fail "a log line is not JSON: $(head -3 "$work/serve.err")"
ok "$(wc -l < "$work/serve.err") JSON log lines"

report=$(clean bin/skan report --db "$data/skan.sqlite" --by version --format csv)
echo "$report"
echo "$report" | grep -q '^4.0,1,' || fail "report: $report"
ok "report counts the postback"

# The dashboard renders from the packaged templates.
(exec env -i PATH=/usr/bin:/bin SKAN_DASHBOARD_DB="$data/skan.sqlite" SKAN_DASHBOARD_PORT=0 \
    bin/skan dashboard --config etc/skan.json > "$work/dash.out" 2> "$work/dash.err") &
pids+=($!)
for _ in $(seq 1 100); do grep -q 'http://' "$work/dash.out" 2>/dev/null && break; sleep 0.1; done
dash=$(sed -n 's/.*http:\/\/[^:]*:\([0-9]*\)\/.*/\1/p' "$work/dash.out")
[ -n "$dash" ] || fail "dashboard did not start: $(cat "$work/dash.out" "$work/dash.err")"
[ "$(/usr/bin/curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$dash/")" = 200 ] || fail "dashboard page"
ok "dashboard answers on $dash"

if clean bin/skan serve --db 'postgres://skan:hunter2@127.0.0.1/skan' 2> "$work/secret.err"; then
    fail "a password on the command line was accepted"
fi
grep -q 'SKAN_SERVE_DB' "$work/secret.err" || fail "password refusal: $(cat "$work/secret.err")"
ok "a password on the command line is refused"
echo "package-check: passed ($(basename "$archive"), $(du -h "$archive" | cut -f1))"
