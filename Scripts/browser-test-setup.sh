#!/usr/bin/env bash
# What the dashboard's browser tests need: Debian's headless-capable chromium, and Chart.js (libjs-chart.js), which
# the dashboard serves from /usr/share/javascript. Installs whichever is missing (as root, or through sudo) and
# prints `chromium=PATH` and `chartjs=PATH`. Exits non-zero, saying why, when they cannot be had.
set -euo pipefail

chartjs=/usr/share/javascript/chart.js/chart.min.js
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -f "$chartjs" ] || missing+=(libjs-chart.js)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "needs ${missing[*]} and is not root (no sudo)" >&2; exit 1; }
    sudo_cmd="sudo -n"
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "needs ${missing[*]} and has no apt-get" >&2; exit 1; }
  echo "installing ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >&2
fi
echo "chromium=$(command -v chromium)"
echo "chartjs=$chartjs"
