#!/usr/bin/env bash
# Context-call latency on REALTALK at 1, 4 and 16 concurrent clients, beside what the query
# embedding alone takes on the same cores: starts the host from dist/ on an ingested data folder
# (DATA_DIR, a finished REALTALK ingest: nothing is ingested here), embeds every question alone with
# the host's default model (dev.memstack.host.model.QueryEmbeddingLatency, a JVM of its own while
# the host idles), asks every question as a context call at each level after a warm-up
# (context_load.py; the warm-up goes on at 1 client until the JIT has settled, and the host's CPU is
# split by thread), embeds them alone again, stops the host and checks the bar: p95 at 1 client
# <= 2 x the query embedding's p95 + 3 ms, no error at any level.
#
#   DATA_DIR=<ingested data folder> bench/realtalk/context-bench.sh <REALTALK data dir> \
#       [context_load.py options] [-- host arguments]
#
# Environment: PORT (18396); DIST (dist/); JAVA_OPTS for the host (e.g.
# "-XX:StartFlightRecording=filename=/tmp/ctx.jfr,settings=profile"); OUT=<file> keeps the JSON.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -ge 1 ]] || { echo "usage: DATA_DIR=<folder> $0 <REALTALK data dir> [options] [-- host arguments]" >&2; exit 2; }
DATA="$1"; shift
: "${DATA_DIR:?set DATA_DIR to an ingested REALTALK data folder}"
[[ -d "$DATA_DIR" ]] || { echo "not a folder: $DATA_DIR" >&2; exit 2; }
LOAD_ARGS=()
while [[ $# -gt 0 && "$1" != "--" ]]; do LOAD_ARGS+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
HOST_ARGS=("$@")
export PORT="${PORT:-18396}"
DIST="${DIST:-$ROOT/dist}"
export DIST
WORK=$(mktemp -d /tmp/memstack-context-bench.XXXXXX)
HOLDER=""
cleanup() {
  [[ -n "$HOLDER" ]] && kill "$HOLDER" 2>/dev/null && wait "$HOLDER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

python3 "$ROOT/bench/realtalk/context_load.py" "$DATA" --write-queries "$WORK/queries.txt"
embedding_alone() {
  java -cp "$DIST/memstack.jar" -Dloader.main=dev.memstack.host.model.QueryEmbeddingLatency \
    org.springframework.boot.loader.launch.PropertiesLauncher "$WORK/queries.txt" 1 100 2>/dev/null \
    | grep "query embedding alone" || echo "query embedding alone: not measured"
}

# the REALTALK script starts the host on DATA_DIR and, with HOLD, keeps it up (nothing to ingest)
HOLD=1 DATA_DIR="$DATA_DIR" "$ROOT/scripts/realtalk-bench.sh" "$DATA" --ingest-only --skip-ingest \
  -- ${HOST_ARGS[@]+"${HOST_ARGS[@]}"} >"$WORK/host.out" 2>&1 &
HOLDER=$!
for _ in $(seq 1 600); do
  grep -q "host still running" "$WORK/host.out" && break
  kill -0 "$HOLDER" 2>/dev/null || { cat "$WORK/host.out" >&2; exit 2; }
  sleep 1
done
grep -q "host still running" "$WORK/host.out" || { cat "$WORK/host.out" >&2; exit 2; }
BASE=$(sed -n 's/.*--base-url \([^ ]*\) --token.*/\1/p' "$WORK/host.out" | tail -1)
TOKEN=$(sed -n 's/.*--token \([^ )]*\).*/\1/p' "$WORK/host.out" | tail -1)
echo "== context calls on $BASE (host from $DIST on $DATA_DIR, host arguments: ${HOST_ARGS[*]:-none}); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
embedding_alone | tee "$WORK/embed1.txt"
HOST_PID=$(pgrep -f -- "--server.port=$PORT" | head -1 || true)
python3 "$ROOT/bench/realtalk/context_load.py" "$DATA" --base-url "$BASE" --token "$TOKEN" \
  ${HOST_PID:+--host-pid "$HOST_PID"} --out "$WORK/levels.json" ${LOAD_ARGS[@]+"${LOAD_ARGS[@]}"}
embedding_alone | tee "$WORK/embed2.txt"
kill "$HOLDER" 2>/dev/null || true
wait "$HOLDER" 2>/dev/null || true
HOLDER=""
grep -E "ERROR|Exception" "$WORK/host.out" | head -5 || true
[[ -n "${OUT:-}" ]] && cp "$WORK/levels.json" "$OUT"
python3 - "$WORK/levels.json" "$WORK/embed1.txt" "$WORK/embed2.txt" <<'PY'
import json, re, statistics, sys
levels = json.load(open(sys.argv[1]))["levels"]
p95s = []
for path in sys.argv[2:]:
    m = re.search(r"p95 ([0-9.]+) ms", open(path).read())
    if m:
        p95s.append(float(m.group(1)))
if not p95s:
    print("bar: not checked (no embedding figure)")
    sys.exit(0)
embed = statistics.median(p95s)
one = next((row for row in levels if row["clients"] == 1), None)
errors = {row["clients"]: row["errors"] for row in levels}
bound = 2 * embed + 3
if one:
    verdict = "met" if one["p95"] <= bound and not any(errors.values()) else "not met"
    print(f"bar: p95 at 1 client {one['p95']:.1f} ms against 2 x {embed:.2f} + 3 = {bound:.1f} ms "
          f"({one['p95'] / embed:.2f} x the embedding's p95); errors per level {errors}: {verdict}")
PY
