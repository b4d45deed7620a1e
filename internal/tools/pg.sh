#!/usr/bin/env bash
# Private PostgreSQL clusters for `make run` and `make test`, built from the installed PostgreSQL binaries.
#
#   pg.sh start DIR [dev|test]   initialise DIR if needed, start it on a free 127.0.0.1 port, print its URL
#   pg.sh stop DIR               stop the cluster in DIR (no error when it is not running)
#   pg.sh url DIR                print the URL of the running cluster in DIR
#   pg.sh createdb DIR NAME      create database NAME in the running cluster unless it exists
#
# PG_PRELOAD (say pg_stat_statements) is passed to a cluster that starts as shared_preload_libraries.
# A test cluster runs without fsync and synchronous commits unless PG_DURABLE is set.
#
# PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user (created
# by Debian's package) or, failing that, a dedicated `loopwork-pg` user. When no binaries are found and
# apt-get is usable, Debian's `postgresql` package is installed.
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

find_bindir() {
  if [ -n "${PG_BINDIR:-}" ] && [ -x "$PG_BINDIR/pg_ctl" ]; then echo "$PG_BINDIR"; return; fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  done
  if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then dirname "$(readlink -f "$(command -v pg_ctl)")"; return; fi
  return 1
}

ensure_bindir() {
  local d
  if d=$(find_bindir); then echo "$d"; return; fi
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "pg.sh: no PostgreSQL binaries found; installing Debian's postgresql package" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    d=$(find_bindir) || die "postgresql installed but pg_ctl/initdb still not found"
    echo "$d"; return
  fi
  die "no PostgreSQL binaries (pg_ctl, initdb) found; install PostgreSQL or set PG_BINDIR, or set DATABASE_URL"
}

# run_pg runs a command as the cluster's owner: ourselves, or a non-root user when we are root.
PG_USER=""
choose_user() {
  if [ "$(id -u)" -ne 0 ]; then return; fi
  if id postgres >/dev/null 2>&1; then PG_USER=postgres; return; fi
  if ! id loopwork-pg >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin loopwork-pg 2>/dev/null ||
      adduser --system --no-create-home loopwork-pg >/dev/null || die "cannot create a non-root user for PostgreSQL"
  fi
  PG_USER=loopwork-pg
}
run_pg() {
  if [ -z "$PG_USER" ]; then "$@"; return; fi
  if command -v runuser >/dev/null; then runuser -u "$PG_USER" -- "$@"; else su -s /bin/sh "$PG_USER" -c "$(printf '%q ' "$@")"; fi
}

free_port() {
  local p
  for p in $(seq "${1:-55432}" 65000); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free TCP port found"
}

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: pg.sh start|stop|url DIR [dev|test]"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data="$dir/data"

case "$cmd" in
start)
  mode=${3:-dev}
  bindir=$(ensure_bindir)
  choose_user
  if [ -n "$PG_USER" ]; then
    chown -R "$PG_USER" "$dir"
    run_pg test -w "$dir" || die "$dir is not reachable by user $PG_USER (PostgreSQL cannot run as root); use a checkout outside /root or set DATABASE_URL"
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    run_pg "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  if run_pg "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 && [ -f "$dir/port" ]; then
    port=$(cat "$dir/port")
  else
    # Test clusters start side by side (packages run at once, each may start one): they probe from a
    # random port, and one that loses the port it probed to another between the probe and the start
    # tries again with another.
    for attempt in 1 2 3 4 5; do
      if [ "$mode" = test ]; then port=$(free_port $((56432 + RANDOM % 4000))); else port=$(free_port "${LOOPWORK_PG_PORT:-55432}"); fi
      opts="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=''"
      if [ "$mode" = test ]; then
        opts="$opts -c max_connections=300"
        # A throwaway cluster: durability buys nothing, speed does. Except for make bench (PG_DURABLE=1):
        # its baselines are durable commits, and a figure against one is a production machine's only when
        # the server's commits are durable too.
        if [ -z "${PG_DURABLE:-}" ]; then opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
      fi
      # PG_PRELOAD names libraries to load at start (shared_preload_libraries): make soak loads
      # pg_stat_statements, to print the statements that took the database's time.
      if [ -n "${PG_PRELOAD:-}" ]; then opts="$opts -c shared_preload_libraries=$PG_PRELOAD"; fi
      rm -f "$dir/postgres.log" # this attempt's log alone, for the check below
      if run_pg "$bindir/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 -o "$opts" start >/dev/null; then
        break
      fi
      if [ "$attempt" -eq 5 ] || ! grep -q "Address already in use" "$dir/postgres.log"; then
        tail -n 30 "$dir/postgres.log" >&2; die "PostgreSQL did not start"
      fi
    done
    echo "$port" > "$dir/port"
  fi
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
stop)
  bindir=$(find_bindir) || exit 0
  choose_user
  if [ -f "$data/PG_VERSION" ]; then
    run_pg "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -f "$dir/port"
  ;;
url)
  [ -f "$dir/port" ] || die "no cluster running in $dir"
  echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres?sslmode=disable"
  ;;
createdb)
  name=${3:?database name}
  [ -f "$dir/port" ] || die "no cluster running in $dir"
  bindir=$(find_bindir) || die "no PostgreSQL binaries"
  exists=$("$bindir/psql" -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'")
  [ "$exists" = 1 ] || "$bindir/psql" -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres -d postgres -qc "CREATE DATABASE \"$name\"" >/dev/null
  ;;
*) die "unknown command $cmd" ;;
esac
