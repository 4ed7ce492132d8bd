#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and CI: nothing durable (fsync off), loopback only, trust
# authentication, C locale (text compares as SQLite's binary order does).
# PG_CLUSTER_DURABLE=1 at `start` makes it durable instead, with PostgreSQL's own defaults (fsync,
# synchronous_commit and full_page_writes on): a commit waits for the disk, as SQLite's do with
# synchronous=FULL, for measuring writes like for like (`npm run bench -- --pg-durable`). The
# choice is kept in <dir>/durable, so `up` starts the server again as it was.
#
#   scripts/pg-cluster.sh start <dir> [port]   initialise <dir>/data, start, print the URL last
#                                              (no port: the first free one from 25432)
#   scripts/pg-cluster.sh stop <dir>           stop at once and remove <dir>
#   scripts/pg-cluster.sh down <dir>           stop the server, keep its data (an outage, for tests)
#   scripts/pg-cluster.sh up <dir> [port]      start the stopped server again on its data (and its port)
#   scripts/pg-cluster.sh ports                print the first and last port tried when none is named
#
# Installs Debian's postgresql package when no server is installed; uses the newest version found
# (15 or later). As root the server runs as the postgres user (initdb refuses root).
set -euo pipefail

usage () { echo "usage: $0 start <dir> [port] | stop <dir> | down <dir> | up <dir> [port] | ports" >&2; exit 2; }

# The newest installed server's bin directory (15 or later), or nothing.
bin_dir () {
  local best='' best_version=0 dir version
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] || continue
    version=$(basename "$(dirname "$dir")")
    [[ $version =~ ^[0-9]+$ ]] || continue
    if [ "$version" -ge 15 ] && [ "$version" -gt "$best_version" ]; then best=$dir; best_version=$version; fi
  done
  if [ -n "$best" ]; then echo "$best"; fi
}

# Runs a command as the postgres user when we are root, as ourselves otherwise.
as_owner () {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# True when something on loopback accepts connections on the port.
in_use () { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ports with no port named: the first of 25432 to 25531 that nothing listens on (a cluster left
# running, another job's). They lie below the kernel's ephemeral range (32768 and up on Linux, 49152
# and up on macOS): inside it, any outgoing connection (the suite's, to another cluster) can hold a
# port as its local end, where nothing listens, so the port looks free, yet the server cannot bind
# it. Below it only a listener can hold a port; a start that loses the race for one to another
# listener moves on to the next.
first_port=25432
last_port=25531

start () {
  local dir=$1 port=${2:-} bin
  [[ -z $port || $port =~ ^[0-9]+$ ]] || usage
  bin=$(bin_dir)
  if [ -z "$bin" ]; then
    if [ "$(id -u)" -ne 0 ]; then echo "PostgreSQL 15+ is not installed and installing it needs root" >&2; exit 1; fi
    echo "installing postgresql" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
    bin=$(bin_dir)
    if [ -z "$bin" ]; then echo "no PostgreSQL 15 or later after installing postgresql" >&2; exit 1; fi
  fi

  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "${PG_CLUSTER_DURABLE:-}" = 1 ]; then touch "$dir/durable"; else rm -f "$dir/durable"; fi
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  if [ -n "$port" ]; then serve "$dir" "$port"; return; fi
  for port in $(seq "$first_port" "$last_port"); do
    in_use "$port" && continue
    try_serve "$dir" "$port" && return
    # Another listener took the port between the look and the bind: the next one.
    grep -q 'could not create any TCP/IP sockets' "$dir/log" 2>/dev/null || { cat "$dir/log" >&2; exit 1; }
  done
  echo "no free port between $first_port and $last_port" >&2
  exit 1
}

# Starts the server on an initialised <dir> (start, or up after down), on that port or not at all.
try_serve () {
  local dir=$1 port=$2 bin durability='-c fsync=off -c synchronous_commit=off -c full_page_writes=off'
  bin=$(bin_dir)
  if [ -f "$dir/durable" ]; then durability='-c fsync=on -c synchronous_commit=on -c full_page_writes=on'; fi
  echo "$port" >"$dir/port"
  rm -f "$dir/log"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $durability -c max_connections=300" \
    start >&2 || return 1
  echo "postgres://postgres@127.0.0.1:$port/postgres"
}

serve () {
  try_serve "$1" "$2" || { cat "$1/log" >&2; exit 1; }
}

down () {
  local dir=$1 bin
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
}

stop () {
  local dir=$1 bin
  bin=$(bin_dir)
  if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >&2 || true
  fi
  rm -rf "$dir"
}

[ $# -ge 1 ] || usage
case $1 in
  start) [ $# -ge 2 ] && [ $# -le 3 ] || usage; start "$2" "${3:-}" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  down) [ $# -eq 2 ] || usage; down "$2" ;;
  # A cluster started before the port was kept in <dir>/port ran on 55432.
  up) [ $# -ge 2 ] && [ $# -le 3 ] || usage; serve "$(cd "$2" && pwd)" "${3:-$(cat "$2/port" 2>/dev/null || echo 55432)}" ;;
  ports) [ $# -eq 1 ] || usage; echo "$first_port $last_port" ;;
  *) usage ;;
esac
