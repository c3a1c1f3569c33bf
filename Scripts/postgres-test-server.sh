#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a free loopback port, for the tests and the benchmarks.
#
#   postgres-test-server.sh start DIR [OWNER_PID] [--durable]   make and start a cluster in DIR (empty or missing);
#                                                              prints url=, bin=, port= lines. With OWNER_PID the
#                                                              cluster is stopped and DIR removed once that
#                                                              process is gone (a test process that was killed).
#   postgres-test-server.sh stop DIR       stop the cluster and remove DIR
#   postgres-test-server.sh pause DIR      stop the server, keep its data (a test of a database restart)
#   postgres-test-server.sh resume DIR     start it again on the same port
#
# Installs Debian's postgresql when it is missing. initdb refuses to run as root, so the cluster belongs to the
# postgres user. Without --durable, fsync is off: a test cluster need not survive power loss, and its commits
# then cost no disk flush. The benchmarks pass --durable.
set -euo pipefail

command=${1:?usage: $0 start|stop|pause|resume DIR}
dir=${2:?usage: $0 $command DIR}

find_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$bin" ] && [ -x "$bin/initdb" ] && echo "$bin"
}

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"
  elif [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"
  else sudo -u postgres -- "$@"
  fi
}

install_postgres() {
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing postgresql" >&2
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq postgresql >&2
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start_server() {
  local bin=$1
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
}

case $command in
  start)
    bin=$(find_bin || true)
    if [ -z "$bin" ]; then install_postgres; bin=$(find_bin); fi
    id postgres >/dev/null 2>&1 || { echo "no postgres user after installing postgresql" >&2; exit 1; }
    durable=off; owner=""
    for argument in "${@:3}"; do
      case $argument in
        --durable) durable=on ;;
        *) owner=$argument ;;
      esac
    done
    mkdir -p "$dir"
    chown postgres "$dir"
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    port=$(free_port)
    {
      echo "listen_addresses = '127.0.0.1'"
      echo "port = $port"
      echo "unix_socket_directories = '$dir'"
      echo "fsync = $durable"
      echo "synchronous_commit = on"
      echo "full_page_writes = $durable"
      echo "max_connections = 200"
      echo "shared_buffers = 256MB"
    } | as_postgres tee -a "$dir/data/postgresql.conf" >/dev/null
    echo "$port" > "$dir/port"
    echo "$bin" > "$dir/bin"
    start_server "$bin"
    if [ -n "$owner" ]; then
      # Stops and removes the cluster once the owner is gone, however it ended.
      (
        trap '' HUP INT
        while kill -0 "$owner" 2>/dev/null; do sleep 1; done
        as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$dir"
      ) </dev/null >/dev/null 2>&1 &
      disown
    fi
    echo "url=postgres://postgres@127.0.0.1:$port/postgres"
    echo "bin=$bin"
    echo "port=$port"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    bin=$(cat "$dir/bin" 2>/dev/null || find_bin)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  pause)
    as_postgres "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    start_server "$(cat "$dir/bin")"
    ;;
  *)
    echo "usage: $0 start|stop|pause|resume DIR" >&2
    exit 2
    ;;
esac
