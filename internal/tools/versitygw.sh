#!/usr/bin/env bash
# Builds the S3 server the tests run (versitygw, see testkit.S3) into the cache where they look for it,
# unless it is on PATH or there already. make test starts it in the background first, so that the few
# minutes of compiling it on a fresh machine overlap the Debian packages' download and the test binaries'
# build instead of holding up the export tests that need it. It takes the same lock as testkit's own
# build, so the two never build it at once: whichever comes second finds it built.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v versitygw >/dev/null && exit 0
version=$(sed -n 's/^const versityVersion = "\(.*\)"$/\1/p' internal/testkit/s3.go)
[ -n "$version" ] || { echo "versitygw.sh: no versityVersion in internal/testkit/s3.go" >&2; exit 1; }
dir="${XDG_CACHE_HOME:-$HOME/.cache}/loopwork/versitygw-$version"
[ -x "$dir/versitygw" ] && exit 0
mkdir -p "$dir"
exec flock "$dir/.lock" sh -c '[ -x "$1/versitygw" ] || { cd "$1" && GOBIN="$1" GOFLAGS=-mod=mod "$3" install "github.com/versity/versitygw/cmd/versitygw@$2"; }' \
	sh "$dir" "$version" "${GO:-go}"
