#!/usr/bin/env bash
# Runs a command (the test suite) with TEST_DATABASE_URL pointing at a PostgreSQL server the tests may
# create databases on: TEST_DATABASE_URL or DATABASE_URL when set, otherwise a throwaway cluster that is
# started here and stopped and removed afterwards. It never silently uses a server it did not start.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "tests use TEST_DATABASE_URL" >&2
elif [ -n "${DATABASE_URL:-}" ]; then
  echo "tests use DATABASE_URL" >&2
  export TEST_DATABASE_URL="$DATABASE_URL"
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/loopwork-test-pg.XXXXXX")
  chmod 755 "$dir"
  cleanup() { "$here/pg.sh" stop "$dir" || true; rm -rf "$dir"; }
  trap cleanup EXIT INT TERM
  TEST_DATABASE_URL=$("$here/pg.sh" start "$dir" test)
  export TEST_DATABASE_URL
  echo "tests use a throwaway PostgreSQL cluster at $TEST_DATABASE_URL" >&2
fi
status=0
"$@" || status=$?
exit $status
