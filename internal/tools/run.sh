#!/usr/bin/env bash
# `make run`: start the built server with everything it needs.
# - DATABASE_URL unset: start (or reuse) a private PostgreSQL cluster under DATA/pg and use its `loopwork` database.
# - LOOPWORK_ENCRYPTION_KEY / LOOPWORK_ANON_KEY unset: generate them once and keep them in DATA/secrets.env,
#   so restarts keep working sessions, keys and sealed secrets.
# - An empty database gets a first administrator; its credentials are kept in DATA/first-admin.txt and printed.
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

secrets="$data/secrets.env"
if [ ! -f "$secrets" ]; then
  umask 077
  {
    echo "LOOPWORK_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64)"
    echo "LOOPWORK_ANON_KEY=lw-anon-$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  } > "$secrets"
fi
# Split at the first "=" only: base64 values end in "=" padding that read's field splitting would drop.
while IFS= read -r line; do
  k=${line%%=*}; v=${line#*=}
  [ -n "${!k:-}" ] || export "$k=$v"
done < "$secrets"

"$bin" migrate up >/dev/null
creds="$data/first-admin.txt"
if [ ! -f "$creds" ]; then
  email=admin@loopwork.local
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  out=$("$bin" admin create-user --if-no-users --email "$email" --password "$password" --role backoffice --org loopwork)
  if [[ "$out" == created* ]]; then
    umask 077
    printf 'email=%s\npassword=%s\n' "$email" "$password" > "$creds"
  fi
fi

addr=${LOOPWORK_ADDR:-127.0.0.1:8080}
echo "loopwork: http://$addr  (docs: http://$addr/api/docs · readiness: http://$addr/health/readiness)"
if [ -f "$creds" ]; then
  . "$creds"
  cat <<MSG
First administrator (backoffice): $email / $password   (kept in $creds)
Sign in:
  curl -s -X POST 'http://$addr/auth/v1/token?grant_type=password' -H 'apikey: $LOOPWORK_ANON_KEY' \\
       -H 'Content-Type: application/json' -d '{"email":"$email","password":"$password"}'
then send the access_token as 'Authorization: Bearer <token>' (or create an API key with POST /api/api-keys).
MSG
fi
exec "$bin" serve
