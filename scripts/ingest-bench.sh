#!/usr/bin/env bash
# Ingest through the default host from dist/ (build it first: ./mvnw -B package -DskipTests):
# starts it as the README does (java -jar, default heap) on a temporary data folder with a
# configured token, waits until the embedding model is warm, runs IngestHarness (TURNS turns from
# CLIENTS clients over OWNERS owners, as fast as the host accepts them), which waits until every
# provider has every turn and prints the delivery rates, the embedding share and the host's
# resident memory; then stops the host and embeds the same passages with the model alone on the
# same cores (`model-alone rate: X turns/s`, and its CPU a turn, to set against the host's). Extra arguments go to the host (e.g.
# --memstack.outbox.delivery-batch=1).
#
# Environment: TURNS (50000 = 100,000 vector records), CLIENTS (4), OWNERS (1000), PORT (18393),
# WARMUP (0: turns posted and delivered first, their figures printed apart, so the measured run
# finds a JIT that has compiled the hot paths; the model-alone baseline embeds the measured run's
# passages only),
# DIST (the distribution folder; dist/ by default, another build for a same-run pair), JAVA_OPTS
# (options for the host's JVM, e.g. -XX:StartFlightRecording=filename=/tmp/ingest.jfr,settings=profile).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
TURNS="${TURNS:-50000}"
CLIENTS="${CLIENTS:-4}"
OWNERS="${OWNERS:-1000}"
PORT="${PORT:-18393}"
TOKEN="ingest-bench-admin-token-$RANDOM$RANDOM$RANDOM"
BASE="http://127.0.0.1:$PORT"
HARNESS="$ROOT/host-app/src/test/java/dev/memstack/host/proof/IngestHarness.java"

source "$ROOT/scripts/lib/dist-host.sh"
WORK="$(mktemp -d /tmp/memstack-ingest.XXXXXX)"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

dist_host_start "$DIST" "$PORT" "$WORK" "$TOKEN" "$@"
echo "== $TURNS turns, $CLIENTS clients, $OWNERS owners against $BASE (host from dist, default providers $*); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
STATUS=0
if [[ "${WARMUP:-0}" -gt 0 ]]; then
  echo "-- warm-up: $WARMUP turns (not the figures below it)"
  java -Dingest.seed=1 "$HARNESS" "$BASE" "$TOKEN" "$HOST_PID" "$WARMUP" "$CLIENTS" "$OWNERS" | sed 's/^/   warm-up: /' || STATUS=$?
  echo "-- measured: $TURNS turns"
fi
java "$HARNESS" "$BASE" "$TOKEN" "$HOST_PID" "$TURNS" "$CLIENTS" "$OWNERS" "$WORK/passages.txt" || STATUS=$?
echo "data folder: $(du -sh "$WORK/data" | cut -f1) ($(du -sh "$WORK/data"/* 2>/dev/null | tr '\t' ' ' | tr '\n' ';'))"
grep -E "ERROR|Exception" "$WORK/host.log" | head -5 || true
# the baseline on the same cores, the host stopped: the same passages through the model alone
kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
HOST_PID=""
java -cp "$DIST/memstack.jar" -Dloader.main=dev.memstack.host.model.ModelAloneRate \
  org.springframework.boot.loader.launch.PropertiesLauncher "$WORK/passages.txt" "$TURNS" 2>/dev/null \
  | grep "model-alone rate" || echo "model-alone rate: not measured" >&2
exit "$STATUS"
