#!/usr/bin/env bash
# The accept path of POST .../memory/turns as conversations grow (AcceptHarness): starts the host
# from dist/ (build it first: ./mvnw -B package -DskipTests) with no provider, so only the outbox
# and the conversation log take the turns, on a temporary data folder; one client posts DEPTH turns
# into one conversation of each of OWNERS owners and prints the latency p50/p90/p99 by depth band
# and the host's CPU a turn.
#
# Environment: OWNERS (20), DEPTH (200), WORDS (150 words a message pair), PORT (18394),
# DIST (the distribution folder; dist/ by default, another build for a same-run pair).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
PORT="${PORT:-18394}"
TOKEN="accept-bench-admin-token-$RANDOM$RANDOM$RANDOM"
BASE="http://127.0.0.1:$PORT"
HARNESS="$ROOT/host-app/src/test/java/dev/memstack/host/proof/AcceptHarness.java"

source "$ROOT/scripts/lib/dist-host.sh"
WORK="$(mktemp -d /tmp/memstack-accept.XXXXXX)"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

dist_host_start "$DIST" "$PORT" "$WORK" "$TOKEN" \
  --memstack.providers.builtin.enabled=false --memstack.providers.vector.enabled=false "$@"
echo "== accept path against $BASE (host from $DIST, no provider); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
java "$HARNESS" "$BASE" "$TOKEN" "$HOST_PID" "${OWNERS:-20}" "${DEPTH:-200}" "${WORDS:-150}"
echo "conversation files: $(du -sh "$WORK/data/conversations" | cut -f1)"
grep -E "ERROR|Exception" "$WORK/host.log" | head -5 || true
