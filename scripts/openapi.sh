#!/usr/bin/env bash
# Rewrites docs/openapi.json from a running host: starts one (through OpenApiDocumentTest, which
# compares the two otherwise), reads GET /v3/api-docs and writes it in canonical form (keys sorted,
# two-space indentation). Review the diff and commit it with the API change. Extra arguments go to
# Maven (e.g. -o, -Dmaven.repo.local=...). Needs the plugin zips installed (./mvnw install -DskipTests).
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q "$@" -pl host-app test -Dtest=OpenApiDocumentTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dmemstack.openapi.write=true
git --no-pager diff --stat -- docs/openapi.json
