#!/usr/bin/env bash
# Start time of the default host from dist/ (build it first: ./mvnw -B package -DskipTests): RUNS
# starts (5), each on a fresh data folder with fresh copies of the plugin folders, timed from the
# `java -jar` to health UP, which needs the embedding model loaded (the `models` component is
# OUT_OF_SERVICE until it is), polled every 50 ms without starting a process
# (scripts/lib/health-up.sh); prints each start and the median, and the host's own "Started ... in"
# line. Extra arguments go to the host. Environment: RUNS (5), PORT (18394), DIST (dist/),
# JAVA_OPTS (options for the host's JVM), LAUNCHER=1 (start with the distribution's launcher,
# dist/memstack, instead of java -jar: its class-data-sharing archive is prepared before the first
# timed start, in a copy of the distribution).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/health-up.sh
source "$ROOT/scripts/lib/health-up.sh"
DIST="${DIST:-$ROOT/dist}"
RUNS="${RUNS:-5}"
PORT="${PORT:-18394}"
[[ -f "$DIST/memstack.jar" ]] || { echo "dist/ not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }
WORK="$(mktemp -d /tmp/memstack-start.XXXXXX)"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
LAUNCH=(java ${JAVA_OPTS:-} -jar "$DIST/memstack.jar")
if [[ "${LAUNCHER:-}" == 1 ]]; then
  mkdir -p "$WORK/dist" && cp "$DIST/memstack" "$DIST/memstack.jar" "$WORK/dist/"
  cp -r "$DIST/plugins" "$WORK/dist/plugins"
  rm -rf "$WORK/dist/plugins"/*/
  LAUNCH=("$WORK/dist/memstack")
  echo "preparing the launcher's archive (not timed)"
  prep_start=$(date +%s%N)
  # the launcher prepares the archive, then starts the host: stopped once the archive is there
  "$WORK/dist/memstack" --server.port="$PORT" --memstack.data-dir="$WORK/prep-data" >/dev/null 2>&1 &
  prep=$!
  for _ in $(seq 1 600); do [[ -f "$WORK/dist/.cds/stamp" ]] && break; sleep 0.2; done
  kill "$prep" 2>/dev/null; wait "$prep" 2>/dev/null || true
  [[ -f "$WORK/dist/.cds/app.jsa" ]] || { echo "the launcher prepared no archive" >&2; exit 2; }
  echo "archive prepared in $(( ($(date +%s%N) - prep_start) / 1000000 )) ms: $(du -h "$WORK/dist/.cds/app.jsa" | cut -f1)"
fi
times=()
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/run" && mkdir -p "$WORK/run" && cp -r "$DIST/plugins" "$WORK/run/plugins"
  start=$(date +%s%N)
  JAVA_OPTS="${JAVA_OPTS:-}" "${LAUNCH[@]}" --server.port="$PORT" \
    --memstack.plugins.dir="$WORK/run/plugins" --memstack.data-dir="$WORK/run/data" "$@" \
    >"$WORK/run/host.log" 2>&1 &
  HOST_PID=$!
  up=""
  for _ in $(seq 1 1200); do
    if health_up "$PORT"; then
      up=$(date +%s%N)
      break
    fi
    kill -0 "$HOST_PID" 2>/dev/null || { tail -30 "$WORK/run/host.log" >&2; exit 2; }
    sleep 0.05
  done
  [[ -n "$up" ]] || { echo "host not ready" >&2; tail -30 "$WORK/run/host.log" >&2; exit 2; }
  ms=$(( (up - start) / 1000000 ))
  times+=("$ms")
  echo "start $run: healthy after $ms ms; $(grep -o 'Started [A-Za-z]* in [0-9.]* seconds[^)]*)' "$WORK/run/host.log" | head -1)"
  kill "$HOST_PID" && wait "$HOST_PID" 2>/dev/null || true
  HOST_PID=""
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
echo "median of $RUNS starts: healthy after $median ms ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
