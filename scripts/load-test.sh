#!/usr/bin/env bash
# Loopback load on the default host from dist/ (build it first: ./mvnw -B package -DskipTests):
# starts it on a temporary data folder with a configured token (default providers: builtin and
# vector with the bundled embedding model), runs LoadHarness (CLIENTS concurrent clients mixing
# context calls and turns for LOAD_SECONDS), prints p50/p90/p99 per request type, waits for the outbox to
# drain and stops the host. Exits 1 on any error.
#
# Environment: CLIENTS (32), LOAD_SECONDS (60), PORT (18392).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="$ROOT/dist"
CLIENTS="${CLIENTS:-32}"
SECONDS_RUN="${LOAD_SECONDS:-60}"
PORT="${PORT:-18392}"
TOKEN="load-test-admin-token-$RANDOM$RANDOM$RANDOM"
BASE="http://127.0.0.1:$PORT"
HARNESS="$ROOT/host-app/src/test/java/dev/memstack/host/proof/LoadHarness.java"

[[ -f "$DIST/memstack.jar" ]] || { echo "dist/ not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }
WORK="$(mktemp -d /tmp/memstack-load.XXXXXX)"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

java -Xmx1g -jar "$DIST/memstack.jar" --server.port="$PORT" --memstack.plugins.dir="$DIST/plugins" \
  --memstack.data-dir="$WORK/data" \
  --memstack.security.tokens[0].token="$TOKEN" --memstack.security.tokens[0].role=admin \
  >"$WORK/host.log" 2>&1 &
HOST_PID=$!
for _ in $(seq 1 240); do
  curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/outbox" && break
  kill -0 "$HOST_PID" 2>/dev/null || { tail -30 "$WORK/host.log" >&2; exit 2; }
  sleep 0.5
done
# one warm-up call of each kind, so the first measured calls do not pay for cold code paths
curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"ownerKey":"load:warm","query":"warm up","limit":5}' "$BASE/api/v1/agents/load-agent-0/memory/context"

echo "== $CLIENTS clients, ${SECONDS_RUN}s, against $BASE (host from dist, default providers)"
STATUS=0
java "$HARNESS" "$BASE" "$TOKEN" "$CLIENTS" "$SECONDS_RUN" || STATUS=$?
START=$(date +%s)
for _ in $(seq 1 1200); do
  PENDING=$(curl -s -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/outbox" | jq '[.providers[].pending] | add // 0')
  [[ "$PENDING" == 0 ]] && break
  sleep 0.5
done
echo "outbox drained after the run in $(( $(date +%s) - START )) s (pending now: $PENDING)"
curl -s -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/outbox" | jq -c '.providers[] | {id, delivered, failedAttempts}'
exit "$STATUS"
