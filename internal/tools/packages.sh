#!/usr/bin/env bash
# packages.sh PKG... — installs the Debian packages that are missing, when this is a Debian machine and
# we may (root with apt-get). The offline speech recogniser (pocketsphinx, pocketsphinx-en-us, ffmpeg)
# and the recordings its tests use (pocketsphinx-testdata) come this way for `make speech`, `make test`
# and CI, as PostgreSQL does. Exits 0 when everything is there afterwards, 1 otherwise.
# packages.sh --check PKG... only reports (exit 0 when all are installed), installing nothing.
set -uo pipefail
check=""
[ "${1:-}" = "--check" ] && { check=1; shift; }
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ -n "$check" ] && exit 1
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "packages.sh: installing ${missing[*]}" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; }; } >&2
  exit $?
fi
echo "packages.sh: missing ${missing[*]} (apt-get install them as root)" >&2
exit 1
