#!/usr/bin/env bash
# `make run`: start the built server with everything it needs. With no DATABASE_URL it starts (or reuses)
# a private PostgreSQL cluster under DATA/pg and uses its `loopwork` database; `loopwork serve` then
# migrates and seeds a first admin on an empty database.
set -euo pipefail
bin=${1:?binary}; data=${2:?data dir}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$data"
if [ -z "${DATABASE_URL:-}" ]; then
  "$here/pg.sh" start "$data/pg" dev >/dev/null
  "$here/pg.sh" createdb "$data/pg" loopwork
  base=$("$here/pg.sh" url "$data/pg")
  export DATABASE_URL="${base%/postgres?sslmode=disable}/loopwork?sslmode=disable"
  echo "PostgreSQL: private cluster in $data/pg ($DATABASE_URL); stop it with: make db-stop"
fi
addr=${LOOPWORK_ADDR:-127.0.0.1:8080}
echo "loopwork: http://$addr  (docs: http://$addr/api/docs · readiness: http://$addr/health/readiness)"
exec "$bin" serve
