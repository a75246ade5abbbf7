#!/usr/bin/env bash
# The console's memory list at the API, with 10,000 memories of one owner, on either store of the
# vector provider: starts the host from dist/ (build it first: ./mvnw -B package -DskipTests) with
# the vector provider alone (builtin off: its daily notes are not what is measured) on STORE
# (embedded: Lucene in a temporary data folder; pgvector: a fresh database on the server of
# MEMSTACK_PG_URL, eval "$(scripts/pgvector-setup.sh)" first), loads the memories through the host
# and times CALLS list calls with varied pages and filters (ConsoleListBench.java), then the owner
# list and the statistics; prints p50/p95. DATA_DIR keeps an embedded data folder between runs
# (loaded once); PG_DB names a database to keep between pgvector runs (created when missing).
#
# Environment: STORE (embedded), RECORDS (10000), CALLS (200), PORT (18431), DATA_DIR (temporary),
# PG_DB (a fresh database, dropped at the end).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
STORE="${STORE:-embedded}"
RECORDS="${RECORDS:-10000}"
CALLS="${CALLS:-200}"
PORT="${PORT:-18431}"
BASE="http://127.0.0.1:$PORT"
TOKEN="console-bench-admin-token-$RANDOM$RANDOM$RANDOM"
[[ -f "$DIST/memstack.jar" ]] || { echo "dist/ not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }

WORK="$(mktemp -d /tmp/memstack-console-bench.XXXXXX)"
DATA="${DATA_DIR:-$WORK/data}"
HOST_PID=""
DB=""
SQL=()
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  [[ -n "$DB" ]] && "${SQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

ARGS=(--memstack.providers.builtin.enabled=false)
case "$STORE" in
  embedded) ;;
  pgvector)
    [[ -n "${MEMSTACK_PG_URL:-}" ]] || { echo 'MEMSTACK_PG_URL is not set: eval "$(scripts/pgvector-setup.sh)"' >&2; exit 2; }
    PGUSER_="${MEMSTACK_PG_USER:-postgres}"
    export PGPASSWORD="${MEMSTACK_PG_PASSWORD:-}"
    HOSTPORT="${MEMSTACK_PG_URL#jdbc:postgresql://}"; HOSTPORT="${HOSTPORT%%/*}"
    PGHOST_="${HOSTPORT%%:*}"; PGPORT_="${HOSTPORT##*:}"; [[ "$PGPORT_" == "$HOSTPORT" ]] && PGPORT_=5432
    SQL=(psql -q -h "$PGHOST_" -p "$PGPORT_" -U "$PGUSER_")
    if [[ -n "${PG_DB:-}" ]]; then
      PGDB_="$PG_DB"
      "${SQL[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PGDB_'" | grep -q 1 \
        || "${SQL[@]}" -d postgres -c "CREATE DATABASE $PGDB_"
    else
      DB="memstack_console_bench_$$"  # dropped at the end
      PGDB_="$DB"
      "${SQL[@]}" -d postgres -c "CREATE DATABASE $DB"
    fi
    "${SQL[@]}" -d "$PGDB_" -c "CREATE EXTENSION IF NOT EXISTS vector"
    ARGS+=(--memstack.providers.vector.config.store=pgvector
      --memstack.providers.vector.config.jdbc-url="jdbc:postgresql://$PGHOST_:$PGPORT_/$PGDB_"
      --memstack.providers.vector.config.username="$PGUSER_")
    [[ -n "${MEMSTACK_PG_PASSWORD:-}" ]] && ARGS+=(--memstack.providers.vector.config.password="$MEMSTACK_PG_PASSWORD")
    ;;
  *) echo "STORE must be embedded or pgvector, got $STORE" >&2; exit 2 ;;
esac

mkdir -p "$DATA"
java -Xmx1g -jar "$DIST/memstack.jar" --server.port="$PORT" --memstack.plugins.dir="$DIST/plugins" \
  --memstack.data-dir="$DATA" \
  --memstack.security.tokens[0].token="$TOKEN" --memstack.security.tokens[0].role=admin \
  "${ARGS[@]}" >"$WORK/host.log" 2>&1 &
HOST_PID=$!
status=""
for _ in $(seq 1 240); do
  status=$(curl -s "$BASE/actuator/health" | jq -r '.status // empty' 2>/dev/null || true)
  [[ "$status" == "UP" ]] && break
  kill -0 "$HOST_PID" 2>/dev/null || { tail -30 "$WORK/host.log" >&2; exit 2; }
  sleep 0.5
done
[[ "$status" == "UP" ]] || { echo "host not UP: $status" >&2; tail -30 "$WORK/host.log" >&2; exit 2; }

echo "== store $STORE, $RECORDS memories of one owner, $CALLS list calls; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
BENCH=(java "$ROOT/bench/console/ConsoleListBench.java" "$BASE" "$TOKEN" console-bench api:bench "$RECORDS" "$CALLS")
"${BENCH[@]}" load
if [[ "$STORE" == pgvector ]]; then
  # this machine's PostgreSQL runs with autovacuum off; a deployment's autovacuum analyzes the
  # table after a bulk load, and the planner needs those statistics to take the full-text index
  "${SQL[@]}" -d "$PGDB_" -c "ANALYZE memstack.vector_memory"
fi
"${BENCH[@]}" time
echo "== done; load $(cut -d' ' -f1-3 /proc/loadavg)"
