#!/usr/bin/env bash
# Shared mode on one machine: one host on its embedded defaults as the reference (BASELINE=0 leaves
# it out), then one host, then two hosts, on one fresh PostgreSQL database (from
# dist/; build it first: ./mvnw -B package -DskipTests). For each: ingest TURNS turns through
# IngestHarness (accept rate, delivery rate per provider, CPU seconds per turn summed over the
# hosts), then LoadHarness (CLIENTS clients mixing context calls and turns for LOAD_SECONDS;
# p50/p90/p99 per request type). With two hosts the clients take the hosts in turn.
#
# Needs MEMSTACK_PG_URL (and MEMSTACK_PG_USER / MEMSTACK_PG_PASSWORD), as set by
#   eval "$(scripts/pgvector-setup.sh)"
# Environment: TURNS (3000), CLIENTS (8), LOAD_SECONDS (30), OWNERS (200), PORT (18421; the second
# host takes PORT+1). HOLD=1 keeps both hosts up at the end (prints their URLs and the token).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="$ROOT/dist"
TURNS="${TURNS:-3000}"
CLIENTS="${CLIENTS:-8}"
SECONDS_RUN="${LOAD_SECONDS:-30}"
OWNERS="${OWNERS:-200}"
PORT="${PORT:-18421}"
TOKEN="two-hosts-admin-token-$RANDOM$RANDOM$RANDOM"
PROOF="$ROOT/host-app/src/test/java/dev/memstack/host/proof"

[[ -f "$DIST/memstack.jar" ]] || { echo "dist/ not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }
[[ -n "${MEMSTACK_PG_URL:-}" ]] || { echo 'MEMSTACK_PG_URL is not set: eval "$(scripts/pgvector-setup.sh)"' >&2; exit 2; }
PGUSER_="${MEMSTACK_PG_USER:-postgres}"
export PGPASSWORD="${MEMSTACK_PG_PASSWORD:-}"
# host and port of the server in MEMSTACK_PG_URL (jdbc:postgresql://host:port/db?...)
HOSTPORT="${MEMSTACK_PG_URL#jdbc:postgresql://}"; HOSTPORT="${HOSTPORT%%/*}"
PGHOST_="${HOSTPORT%%:*}"; PGPORT_="${HOSTPORT##*:}"; [[ "$PGPORT_" == "$HOSTPORT" ]] && PGPORT_=5432
DB="memstack_two_hosts_$$"
SQL=(psql -q -h "$PGHOST_" -p "$PGPORT_" -U "$PGUSER_")
"${SQL[@]}" -d postgres -c "CREATE DATABASE $DB"
"${SQL[@]}" -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector"
URL="jdbc:postgresql://$PGHOST_:$PGPORT_/$DB"

WORK="$(mktemp -d /tmp/memstack-two-hosts.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  "${SQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

start_host() { # name port [extra host arguments...]
  local name="$1" port="$2"; shift 2
  mkdir -p "$WORK/$name"
  cp -r "$DIST/plugins" "$WORK/$name/plugins"
  java -Xmx1g -jar "$DIST/memstack.jar" --server.port="$port" \
    --memstack.plugins.dir="$WORK/$name/plugins" --memstack.data-dir="$WORK/$name/data" \
    --memstack.security.tokens[0].token="$TOKEN" --memstack.security.tokens[0].role=admin \
    "$@" >"$WORK/$name/host.log" 2>&1 &
  PIDS+=($!)
  local status=""
  for _ in $(seq 1 240); do
    status=$(curl -s "http://127.0.0.1:$port/actuator/health" | jq -r '.status // empty' 2>/dev/null || true)
    [[ "$status" == "UP" ]] && break
    sleep 0.5
  done
  [[ "$status" == "UP" ]] || { echo "$name not UP: $status" >&2; tail -30 "$WORK/$name/host.log" >&2; exit 2; }
  # one warm-up call of each kind
  curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"ownerKey":"load:warm","query":"warm up","limit":5}' "http://127.0.0.1:$port/api/v1/agents/load-agent-0/memory/context"
}

measure() { # label bases pids
  echo "== $1: ingest $TURNS turns ($OWNERS owners, 4 clients); load $CLIENTS clients for ${SECONDS_RUN}s; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  java "$PROOF/IngestHarness.java" "$2" "$TOKEN" "$3" "$TURNS" 4 "$OWNERS"
  java "$PROOF/LoadHarness.java" "$2" "$TOKEN" "$CLIENTS" "$SECONDS_RUN"
}

SHARED=(--memstack.shared.jdbc-url="$URL" --memstack.shared.username="$PGUSER_")
[[ -n "${MEMSTACK_PG_PASSWORD:-}" ]] && SHARED+=(--memstack.shared.password="$MEMSTACK_PG_PASSWORD")
A="http://127.0.0.1:$PORT"; B="http://127.0.0.1:$((PORT + 1))"
if [[ "${BASELINE:-1}" == 1 ]]; then
  start_host embedded "$PORT"
  measure "one host on its embedded defaults (no database; the reference)" "$A" "${PIDS[0]}"
  kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true; PIDS=()
fi
start_host a "$PORT" "${SHARED[@]}"
measure "one host on the shared database" "$A" "${PIDS[0]}"
start_host b "$((PORT + 1))" "${SHARED[@]}"
measure "two hosts on the shared database" "$A,$B" "${PIDS[0]},${PIDS[1]}"
echo "== outbox leases: $("${SQL[@]}" -d "$DB" -Atc "SELECT provider || ' ' || count(*) || ' lanes by ' || count(DISTINCT holder) || ' hosts' FROM memstack_outbox_lane GROUP BY provider" | paste -sd';')"
if [[ "${HOLD:-0}" == 1 ]]; then
  echo "hosts up at $A and $B, token $TOKEN, database $URL; Ctrl-C stops them"
  wait
fi
