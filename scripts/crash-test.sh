#!/usr/bin/env bash
# Crash test of the host's durable turn outbox.
#
# Starts the host from dist/ (build it first: ./mvnw -B package -DskipTests) on a temporary data
# folder with a configured admin token, sends turns from several concurrent clients (each turn has a
# unique phrase; the turn ids that got 202 are recorded), kills the JVM with kill -9 in the middle
# of the stream, starts it again on the same data folder, waits until GET /api/v1/outbox shows
# nothing pending, and checks that every accepted turn is recallable from builtin and vector through
# a context call with its phrase. Prints accepted / delivered per provider; exits 1 if a turn is
# missing.
#
# Environment: CLIENTS (4), RUN_SECONDS before the kill (10), PORT (18391), KEEP=1 keeps the folder.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="$ROOT/dist"
CLIENTS="${CLIENTS:-4}"
RUN_SECONDS="${RUN_SECONDS:-10}"
PORT="${PORT:-18391}"
TOKEN="crash-test-admin-token-$RANDOM$RANDOM$RANDOM"
BASE="http://127.0.0.1:$PORT"
AGENT="crash-agent"

[[ -f "$DIST/memstack.jar" && -d "$DIST/plugins" ]] \
  || { echo "dist/ not found: run ./mvnw -B package -DskipTests first" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is required" >&2; exit 2; }

WORK="$(mktemp -d /tmp/memstack-crash.XXXXXX)"
DATA="$WORK/data"
HOST_PID=""
cleanup() {
  [[ -n "$HOST_PID" ]] && kill "$HOST_PID" 2>/dev/null && wait "$HOST_PID" 2>/dev/null || true
  [[ "${KEEP:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

start_host() {
  java -Xmx1g -jar "$DIST/memstack.jar" \
    --server.port="$PORT" \
    --memstack.plugins.dir="$DIST/plugins" \
    --memstack.data-dir="$DATA" \
    --memstack.security.tokens[0].token="$TOKEN" \
    --memstack.security.tokens[0].role=admin \
    >>"$WORK/host-$1.log" 2>&1 &
  HOST_PID=$!
  for _ in $(seq 1 240); do
    if curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/outbox"; then
      return 0
    fi
    kill -0 "$HOST_PID" 2>/dev/null || { echo "host died, see $WORK/host-$1.log" >&2; tail -30 "$WORK/host-$1.log" >&2; exit 2; }
    sleep 0.5
  done
  echo "host did not start within 120 s" >&2
  exit 2
}

api() { # method path [body]
  if [[ $# -ge 3 ]]; then
    curl -s -m 30 -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      --data-binary "$3" "$BASE$2"
  else
    curl -s -m 30 -X "$1" -H "Authorization: Bearer $TOKEN" "$BASE$2"
  fi
}

client() { # id
  local id=$1 n=0 out="$WORK/accepted-$1.txt"
  : >"$out"
  while [[ ! -f "$WORK/stop" ]]; do
    n=$((n + 1))
    local phrase="crashphrase${id}x${n}q"
    local turn="crash-c${id}-n${n}"
    local body
    body=$(printf '{"ownerKey":"crash:c%s","conversationId":"conv-%s","turnId":"%s","userMessage":"Please remember the code word %s for later","assistantReply":"Noted the code word.","triggerSource":"api"}' \
      "$id" "$id" "$turn" "$phrase")
    local status
    status=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X POST \
      -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      --data-binary "$body" "$BASE/api/v1/agents/$AGENT/memory/turns" || true)
    if [[ "$status" == 202 ]]; then
      echo "$turn $id $phrase" >>"$out"
    elif [[ "$status" == 000 ]]; then
      sleep 0.2 # host gone
    fi
  done
}

echo "== starting host from $DIST (data $DATA)"
start_host 1
echo "== $CLIENTS clients sending turns for ${RUN_SECONDS}s, then kill -9"
CLIENT_PIDS=()
for c in $(seq 1 "$CLIENTS"); do
  client "$c" &
  CLIENT_PIDS+=($!)
done
sleep "$RUN_SECONDS"
kill -9 "$HOST_PID"
wait "$HOST_PID" 2>/dev/null || true
HOST_PID=""
echo "== host killed with kill -9 while clients were sending"
sleep 1
touch "$WORK/stop"
wait "${CLIENT_PIDS[@]}"
cat "$WORK"/accepted-*.txt >"$WORK/accepted.txt"
ACCEPTED=$(wc -l <"$WORK/accepted.txt")
echo "== accepted (202) turns: $ACCEPTED"

echo "== restarting on the same data folder"
start_host 2
echo "== waiting for the outbox to drain"
for i in $(seq 1 600); do
  OUTBOX=$(api GET /api/v1/outbox)
  PENDING=$(echo "$OUTBOX" | jq '[.providers[].pending] | add // 0')
  [[ "$PENDING" == 0 ]] && break
  sleep 0.5
done
echo "$OUTBOX" | jq -c '.providers[] | {id, pending, delivered, failedAttempts}'
[[ "$PENDING" == 0 ]] || { echo "outbox still has $PENDING pending after 300 s" >&2; exit 1; }

echo "== checking every accepted turn through a context call with its phrase"
declare -A FOUND=([builtin]=0 [vector]=0)
MISSING=0
while read -r turn id phrase; do
  body=$(printf '{"ownerKey":"crash:c%s","query":"%s","limit":50}' "$id" "$phrase")
  answer=$(api POST "/api/v1/agents/$AGENT/memory/context" "$body")
  for p in builtin vector; do
    if echo "$answer" | jq -e --arg p "$p" --arg ph "$phrase" \
      '[.recall[] | select(.provider == $p and (.text | contains($ph)))] | length > 0' >/dev/null; then
      FOUND[$p]=$((FOUND[$p] + 1))
    else
      MISSING=$((MISSING + 1))
      echo "MISSING in $p: $turn ($phrase) providers=$(echo "$answer" | jq -c '.providers')"
    fi
  done
done <"$WORK/accepted.txt"

echo "== result"
echo "accepted: $ACCEPTED"
for p in builtin vector; do
  echo "delivered to $p (recallable): ${FOUND[$p]} / $ACCEPTED"
done
if [[ "$MISSING" -gt 0 || "$ACCEPTED" -eq 0 ]]; then
  echo "FAIL: $MISSING missing recalls (accepted $ACCEPTED)"
  exit 1
fi
echo "PASS: every accepted turn survived kill -9 and reached builtin and vector"
