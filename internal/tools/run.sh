#!/usr/bin/env bash
# `make run`: start the built server with everything it needs (dev-env.sh: the database, kept secrets).
# - An empty database gets a first administrator; its credentials are kept in DATA/first-admin.txt and printed.
set -euo pipefail
bin=${1:?binary}; data=${2:?data dir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dev-env.sh"

"$bin" migrate up >/dev/null
# The offline speech-to-text default (POST /api/agent/transcription) needs several hundred MB of Debian
# packages; the server does not wait for them. Without them that one operation answers 501 naming
# `make speech`, and everything else works.
if [ -n "${SPEECH_PACKAGES:-}" ] && ! "$here/packages.sh" --check $SPEECH_PACKAGES 2>/dev/null; then
  echo "loopwork: offline transcription off until its packages are installed: make speech, then restart" >&2
fi
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
# Links the server e-mails (invitations, password resets) and download links are built from this
# address only, never from a request's Host header.
export LOOPWORK_PUBLIC_URL=${LOOPWORK_PUBLIC_URL:-http://$addr}
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
