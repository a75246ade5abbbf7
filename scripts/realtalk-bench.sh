#!/usr/bin/env bash
# Recall quality on REALTALK through the default host from dist/ (build it first:
# ./mvnw -B package -DskipTests): starts it as the README does (java -jar, default heap) on a
# temporary data folder with a configured admin token, waits until it is UP (which includes the
# embedding model being warm), runs bench/realtalk/realtalk_bench.py (ingest every message as a
# turn, wait for the outbox, ask every question, score recall@5/@10), then stops the host.
#
#   scripts/realtalk-bench.sh <REALTALK data dir> [harness options] [-- host arguments]
#
# Harness options: see bench/realtalk/README.md (e.g. --passes 5, --feedback, --conversations 1,2,
# --out results.json). Everything after "--" goes to the host, e.g.
#   scripts/realtalk-bench.sh /data/realtalk --out base.json -- \
#       --memstack.providers.vector.config.lifecycle-enabled=false
#
# Environment: PORT (18394); HOLD=1 keeps the host running after the harness (prints its URL and
# token, for reruns with --skip-ingest) until interrupted; DATA_DIR=<folder> uses (and keeps) that
# data folder instead of a temporary one, so one ingest can serve several runs (--skip-ingest);
# JAVA_OPTS: JVM options of the host (e.g. a flight recording); DIST: the distribution folder
# (dist/).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
PORT="${PORT:-18394}"
TOKEN="realtalk-bench-admin-token-$RANDOM$RANDOM$RANDOM"
BASE="http://127.0.0.1:$PORT"
HARNESS="$ROOT/bench/realtalk/realtalk_bench.py"

[[ $# -ge 1 ]] || { echo "usage: $0 <REALTALK data dir> [harness options] [-- host arguments]" >&2; exit 2; }
DATA="$1"; shift
[[ -d "$DATA" ]] || { echo "not a folder: $DATA" >&2; exit 2; }
HARNESS_ARGS=()
while [[ $# -gt 0 && "$1" != "--" ]]; do HARNESS_ARGS+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
HOST_ARGS=("$@")

[[ -f "$DIST/memstack.jar" ]] || { echo "dist/ not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }
if curl -s -o /dev/null "$BASE/actuator/health"; then echo "port $PORT is in use: set PORT" >&2; exit 2; fi
WORK="$(mktemp -d /tmp/memstack-realtalk.XXXXXX)"
HOST_DATA="${DATA_DIR:-$WORK/data}"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

java ${JAVA_OPTS:-} -jar "$DIST/memstack.jar" --server.port="$PORT" --memstack.plugins.dir="$DIST/plugins" \
  --memstack.data-dir="$HOST_DATA" \
  --memstack.security.tokens[0].token="$TOKEN" --memstack.security.tokens[0].role=admin \
  ${HOST_ARGS[@]+"${HOST_ARGS[@]}"} >"$WORK/host.log" 2>&1 &
HOST_PID=$!
STARTED=$(date +%s)
STATUS=""
for _ in $(seq 1 240); do
  STATUS=$(curl -s "$BASE/actuator/health" | jq -r '.status // empty' 2>/dev/null || true)
  [[ "$STATUS" == "UP" ]] && break
  kill -0 "$HOST_PID" 2>/dev/null || { tail -30 "$WORK/host.log" >&2; exit 2; }
  sleep 0.5
done
[[ "$STATUS" == "UP" ]] || { echo "host not UP: $STATUS" >&2; tail -30 "$WORK/host.log" >&2; exit 2; }
echo "== REALTALK from $DATA against $BASE (host from dist, UP in $(( $(date +%s) - STARTED )) s, host arguments: ${HOST_ARGS[*]:-none}); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
STATUS=0
python3 "$HARNESS" "$DATA" --base-url "$BASE" --token "$TOKEN" ${HARNESS_ARGS[@]+"${HARNESS_ARGS[@]}"} || STATUS=$?
echo "== done in $(( $(date +%s) - STARTED )) s; load $(cut -d' ' -f1-3 /proc/loadavg); data folder: $(du -sh "$HOST_DATA" | cut -f1)"
grep -E "ERROR|Exception" "$WORK/host.log" | head -5 || true
if [[ "${HOLD:-0}" == "1" ]]; then
  echo "host still running: --base-url $BASE --token $TOKEN (Ctrl-C stops it)"
  wait "$HOST_PID" || true
fi
exit "$STATUS"
