#!/usr/bin/env bash
# Load test of a running loopwork (for example `make run`) with hey: job submission and the job list at
# 16 concurrent clients. It signs in as the first administrator that `make run` created (or the
# account in LOAD_EMAIL/LOAD_PASSWORD), makes an API key, grants credits, creates an app, and runs:
#   internal/tools/load.sh [base URL, default http://127.0.0.1:8080] [requests per run, default 20000]
# hey comes from Debian (`apt-get install hey`); the script installs it when it can.
set -euo pipefail
base=${1:-http://127.0.0.1:8080}; n=${2:-20000}; c=16
here=$(cd "$(dirname "$0")" && pwd); data="$here/../../.data"
command -v hey >/dev/null || { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hey >/dev/null; } ||
  { echo "load.sh: hey is required (apt-get install hey)" >&2; exit 1; }
if [ -z "${LOAD_EMAIL:-}" ]; then . "$data/first-admin.txt"; LOAD_EMAIL=$email; LOAD_PASSWORD=$password; fi
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

anon=$(curl -sf "$base/api/auth/anon-key" | json '["anon_key"]')
token=$(curl -sf -X POST "$base/auth/v1/token?grant_type=password" -H "apikey: $anon" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$LOAD_EMAIL\",\"password\":\"$LOAD_PASSWORD\"}" | json '["access_token"]')
auth=(-H "Authorization: Bearer $token")
org=$(curl -sf "$base/api/profile/me" "${auth[@]}" | json '["organization_id"]')
curl -sf -X POST "$base/api/admin/organizations/$org/credit-grants" "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"amount": 100000000, "reason": "load test"}' >/dev/null
key=$(curl -sf -X POST "$base/api/api-keys" "${auth[@]}" -H 'Content-Type: application/json' -d '{"name":"load test"}' | json '["token"]')
app=$(curl -sf -X POST "$base/v1/apps" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d "{\"name\":\"load $(date +%s%N)\"}" | json '["id"]')

echo "== job submission: $n requests, $c clients (POST /v1/apps/$app/jobs)"
hey -n "$n" -c "$c" -m POST -H "Authorization: Bearer $key" -T application/json \
  -d '{"input":{"text":"hello","n":1},"tags":["t1","t3"]}' "$base/v1/apps/$app/jobs" | sed -n '/Summary/,/Status code/p'
echo "== job list, size 10, statusIn + tags: $n requests, $c clients"
hey -n "$n" -c "$c" -H "Authorization: Bearer $key" \
  "$base/v1/apps/$app/jobs?statusIn=SCHEDULED&tags=t3&size=10&sortBy=id" | sed -n '/Summary/,/Status code/p'
echo "== job count (counters): $n requests, $c clients"
hey -n "$n" -c "$c" -H "Authorization: Bearer $key" "$base/v1/apps/$app/jobs/count" | sed -n '/Summary/,/Status code/p'
