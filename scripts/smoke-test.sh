#!/usr/bin/env bash
# Smoke test of the distribution (issue 2's "done when"), on a copy of dist/ in a temporary
# working folder, started with no memstack configuration at all, as README command (1) does:
#
#   ./mvnw -B package -DskipTests && scripts/smoke-test.sh
#
# Checks, each printed as PASS or FAIL:
#   - GET /actuator/health turns UP (it is OUT_OF_SERVICE until the embedding model is warm), and
#     its `models` component is UP
#   - GET /api/v1/plugins lists memstack-builtin, memstack-vector and memstack-mem0 as started
#   - POST /api/v1/agents/a1/memory/context {"ownerKey":"user:1","conversationId":"c1","query":"hello"}
#     answers 200 with "--- AGENTS.md ---" in systemPrompt and builtin reported ok
#   - POST /api/v1/agents/a1/memory/turns answers 202 with a turnId
#   - "ownerKey":"no spaces allowed" answers 400 naming ownerKey
# The API token is the one the host generates on first start in <working folder>/data/api-token
# (no token is sent when the host wrote none). The host is stopped at the end; the working folder
# is removed unless a check failed (then its path and the host log's tail are printed) or KEEP=1.
#
# Options: --build runs ./mvnw -B package -DskipTests first. Environment: MEMSTACK_DIST (the dist
# folder, default <project>/dist), STARTUP_SECONDS (how long to wait for UP, default 180), KEEP=1
# (keep the working folder and the host log even when every check passed).
# Needs java (17+), curl and jq. Exit status: 0 all passed, 1 a check failed, 2 could not run.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${MEMSTACK_DIST:-$ROOT/dist}"
STARTUP_SECONDS="${STARTUP_SECONDS:-180}"

for tool in java curl jq; do
  command -v "$tool" >/dev/null || { echo "smoke-test: $tool is required" >&2; exit 2; }
done
if [[ "${1:-}" == "--build" ]]; then
  (cd "$ROOT" && ./mvnw -B -q package -DskipTests)
fi
[[ -f "$DIST/memstack.jar" ]] || {
  echo "smoke-test: $DIST/memstack.jar not found: run ./mvnw -B package -DskipTests" >&2
  exit 2
}

WORK="$(mktemp -d /tmp/memstack-smoke.XXXXXX)"
HOST_PID=""
FAILED=0
cleanup() {
  if [[ -n "$HOST_PID" ]] && kill -0 "$HOST_PID" 2>/dev/null; then
    kill "$HOST_PID" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$HOST_PID" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$HOST_PID" 2>/dev/null || true
    wait "$HOST_PID" 2>/dev/null || true
  fi
  if [[ "$FAILED" == 0 && "${KEEP:-0}" != 1 ]]; then
    rm -rf "$WORK"
  else
    echo "smoke-test: working folder kept: $WORK (host log: $WORK/host.log)" >&2
  fi
}
trap cleanup EXIT

# A copy of the distribution: the jar and the plugin zips (not any folders a run expanded).
mkdir -p "$WORK/plugins"
cp "$DIST/memstack.jar" "$WORK/"
cp "$DIST"/plugins/*.zip "$WORK/plugins/"

pass() { printf 'PASS  %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; [[ -n "${2:-}" ]] && printf '      %s\n' "$2"; FAILED=1; }

# Port 0: the host picks a free port and logs it; nothing else is configured.
START_NANOS=$(date +%s%N)
(cd "$WORK" && exec java -jar memstack.jar --server.port=0 >"$WORK/host.log" 2>&1) &
HOST_PID=$!

PORT=""
for _ in $(seq 1 $((STARTUP_SECONDS * 4))); do
  PORT="$(grep -oE 'started on port [0-9]+' "$WORK/host.log" 2>/dev/null | head -1 | grep -oE '[0-9]+$' || true)"
  [[ -n "$PORT" ]] && break
  if ! kill -0 "$HOST_PID" 2>/dev/null; then
    FAILED=1
    echo "FAIL  the host stopped during start; last log lines:"
    tail -30 "$WORK/host.log"
    exit 1
  fi
  sleep 0.25
done
if [[ -z "$PORT" ]]; then
  fail "the host listens within ${STARTUP_SECONDS}s"
  tail -30 "$WORK/host.log"
  exit 1
fi
BASE="http://127.0.0.1:$PORT"
LISTEN_MS=$(( ($(date +%s%N) - START_NANOS) / 1000000 ))

HEALTH=""
for _ in $(seq 1 $((STARTUP_SECONDS * 4))); do
  HEALTH="$(curl -s --max-time 5 "$BASE/actuator/health" || true)"
  [[ "$(jq -r '.status? // empty' <<<"$HEALTH" 2>/dev/null)" == "UP" ]] && break
  kill -0 "$HOST_PID" 2>/dev/null || break
  sleep 0.25
done
UP_MS=$(( ($(date +%s%N) - START_NANOS) / 1000000 ))
echo "host from $DIST on $BASE (working folder $WORK): listening after ${LISTEN_MS} ms, health answered after ${UP_MS} ms"

AUTH=()
if [[ -s "$WORK/data/api-token" ]]; then
  AUTH=(-H "Authorization: Bearer $(tr -d '\r\n' <"$WORK/data/api-token")")
  echo "using the generated API token from data/api-token"
fi

# call METHOD PATH [JSON]: sets STATUS and BODY
call() {
  local out
  out="$(mktemp "$WORK/answer.XXXXXX")"
  if [[ $# -ge 3 ]]; then
    STATUS="$(curl -s --max-time 30 -o "$out" -w '%{http_code}' -X "$1" "${AUTH[@]}" \
      -H 'Content-Type: application/json' --data-binary "$3" "$BASE$2" || true)"
  else
    STATUS="$(curl -s --max-time 30 -o "$out" -w '%{http_code}' -X "$1" "${AUTH[@]}" "$BASE$2" || true)"
  fi
  BODY="$(cat "$out")"
  rm -f "$out"
}

# 1. health
if [[ "$(jq -r '.status? // empty' <<<"$HEALTH" 2>/dev/null)" == "UP" ]]; then
  pass "GET /actuator/health is UP"
else
  fail "GET /actuator/health is UP" "last answer: ${HEALTH:-none}"
fi
call GET /actuator/health
MODELS="$(jq -r '.components.models.status? // empty' <<<"$BODY" 2>/dev/null || true)"
if [[ "$MODELS" == "UP" ]]; then
  pass "the health's models component is UP ($(jq -r '.components.models.details.embeddingModel? // "?"' <<<"$BODY"))"
elif [[ -z "$MODELS" && "$(jq -r '.status? // empty' <<<"$BODY")" == "UP" && ${#AUTH[@]} -eq 0 ]]; then
  pass "the health is UP (components are not shown without a token)"
else
  fail "the health's models component is UP" "$BODY"
fi

# 2. plugins
call GET /api/v1/plugins
STARTED="$(jq -r '[.plugins[]? | select(.state == "started") | .id] | sort | join(",")' <<<"$BODY" 2>/dev/null || true)"
if [[ "$STATUS" == 200 && "$STARTED" == *memstack-builtin* && "$STARTED" == *memstack-mem0* \
      && "$STARTED" == *memstack-vector* ]]; then
  pass "GET /api/v1/plugins lists the three plugins as started ($STARTED)"
else
  fail "GET /api/v1/plugins lists the three plugins as started" "$STATUS $BODY"
fi

# 3. context call
call POST /api/v1/agents/a1/memory/context '{"ownerKey":"user:1","conversationId":"c1","query":"hello"}'
PROMPT_OK="$(jq -r '.systemPrompt // "" | contains("--- AGENTS.md ---")' <<<"$BODY" 2>/dev/null || echo false)"
BUILTIN="$(jq -r '.providers[]? | select(.id == "builtin") | .status' <<<"$BODY" 2>/dev/null || true)"
if [[ "$STATUS" == 200 && "$PROMPT_OK" == true && "$BUILTIN" == ok ]]; then
  pass "the context call answers 200 with '--- AGENTS.md ---' and builtin ok ($(jq -c '[.providers[] | {(.id): "\(.status) \(.tookMs) ms"}] | add' <<<"$BODY"))"
else
  fail "the context call answers 200 with '--- AGENTS.md ---' and builtin ok" "$STATUS ${BODY:0:600}"
  # for the diagnosis only: does a later call succeed (a slow first call) or not (a broken provider)?
  sleep 2.5
  call POST /api/v1/agents/a1/memory/context '{"ownerKey":"user:1","conversationId":"c1","query":"hello"}'
  printf 'INFO  the same call 2.5 s later: %s %s\n' "$STATUS" \
    "$(jq -c '{prompt: (.systemPrompt // "" | contains("--- AGENTS.md ---")), providers: [.providers[] | {(.id): "\(.status) \(.tookMs) ms"}] | add}' <<<"$BODY" 2>/dev/null || echo "${BODY:0:300}")"
fi

# 4. turn
call POST /api/v1/agents/a1/memory/turns \
  '{"ownerKey":"user:1","conversationId":"c1","userMessage":"I like green tea","assistantReply":"Noted.","triggerSource":"web"}'
TURN_ID="$(jq -r '.turnId? // empty' <<<"$BODY" 2>/dev/null || true)"
if [[ "$STATUS" == 202 && -n "$TURN_ID" ]]; then
  pass "POST .../memory/turns answers 202 with turnId $TURN_ID"
else
  fail "POST .../memory/turns answers 202 with a turnId" "$STATUS $BODY"
fi

# 5. bad owner key
call POST /api/v1/agents/a1/memory/context '{"ownerKey":"no spaces allowed","conversationId":"c1","query":"hello"}'
FIELD="$(jq -r '.field? // empty' <<<"$BODY" 2>/dev/null || true)"
if [[ "$STATUS" == 400 && "$FIELD" == ownerKey ]]; then
  pass "\"ownerKey\":\"no spaces allowed\" answers 400 naming ownerKey ($(jq -r '.message' <<<"$BODY"))"
else
  fail "\"ownerKey\":\"no spaces allowed\" answers 400 naming ownerKey" "$STATUS $BODY"
fi

if [[ "$FAILED" == 0 ]]; then
  echo "smoke-test: all checks passed"
else
  echo "smoke-test: FAILED"
  tail -20 "$WORK/host.log"
fi
exit "$FAILED"
