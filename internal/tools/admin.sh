#!/usr/bin/env bash
# `make admin ARGS='…'`: run `loopwork admin …` with the settings `make run` keeps (the private cluster,
# started when stopped, and the secrets in DATA/secrets.env), or with DATABASE_URL when it is set.
set -euo pipefail
bin=${1:?binary}; data=${2:?data dir}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dev-env.sh"
# The private cluster is the one `make run` migrates; a database named by DATABASE_URL is left as it is.
if [ -n "$private_cluster" ]; then "$bin" migrate up >/dev/null; fi
exec "$bin" admin "$@"
