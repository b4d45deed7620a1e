#!/usr/bin/env bash
# Checks the hand-written contracts without touching gen/: bundles and converts them into a private
# folder, validates them (specbundle), generates code from them with the pinned oapi-codegen and compiles it.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/loopwork-spec-check.XXXXXX")
status=0
go run ./internal/tools/specbundle -out "$work/gen" -codegen "$work/codegen" || status=1
for iface in v1api platformapi; do
  spec="$work/codegen/$iface.json"
  [ -f "$spec" ] || continue
  case $iface in v1api) cfg=openapi/v1/oapi-codegen.yaml ;; *) cfg=openapi/api/oapi-codegen.yaml ;; esac
  sed "s#^output: .*#output: $work/gen/$iface/$iface.gen.go#" "$cfg" > "$work/$iface.cfg.yaml"
  if go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config "$work/$iface.cfg.yaml" "$spec"; then
    go run ./internal/tools/stubgen -in "$work/gen/$iface/$iface.gen.go" -out "$work/gen/$iface/unimplemented.gen.go" || status=1
  else
    status=1
  fi
done
# Compile the generated packages as part of a copy of this module, so imports resolve from go.sum.
mkdir -p "$work/mod" "$work/gen"
cp go.mod go.sum "$work/mod/"
cp -r "$work/gen" "$work/mod/gen"
(cd "$work/mod" && GOFLAGS=-mod=mod go build ./gen/... ) || status=1
echo "merged/converted documents: $work/gen/platformapi/openapi.json $work/gen/v1api/openapi.json $work/gen/v1api/swagger.json"
if [ $status -eq 0 ]; then echo "spec-check: OK"; else echo "spec-check: FAILED"; fi
exit $status
