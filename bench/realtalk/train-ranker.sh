#!/usr/bin/env bash
# Trains the stack's learned ranking on REALTALK (the data is read at run time, never committed):
# starts the host from dist/ ranking by the fusion with a context budget that shows every
# candidate, ingests the chats (unless DATA_DIR already holds them), asks every question once
# with explain (limit 200: each candidate with the features the host ranks by), then fits the
# model and writes the host's model file (memstack.stack.ranking.model=FILE).
#
#   bench/realtalk/train-ranker.sh <REALTALK data dir> [--exclude Chat_N[,Chat_M]] --out FILE
#                                  [--hidden N] [--l2 X] [--steps N]
#
# Environment: DATA_DIR=<folder> keeps the host's data folder (and reuses it: no second ingest
# when it holds a finished ingest); DUMP=<file> keeps the candidates (and reuses them when the file
# exists: training again costs seconds); DUMP_TEXTS=1 keeps each candidate's text and the question
# in the dump (for error analysis); PORT (18395). Needs python3 with numpy.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -ge 1 ]] || { echo "usage: $0 <REALTALK data dir> [--exclude Chat_N] --out FILE" >&2; exit 2; }
DATA="$1"; shift
EXCLUDE=""; OUT=""; TRAIN_ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --exclude) EXCLUDE="$(echo "$2" | sed -E 's/Chat_([0-9]+)[^,]*/\1/g')"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --hidden|--l2|--steps) TRAIN_ARGS+=("$1" "$2"); shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[[ -n "$OUT" ]] || { echo "--out FILE is required" >&2; exit 2; }
python3 -c 'import numpy' 2>/dev/null || { echo "needs python3 with numpy (Debian: python3-numpy)" >&2; exit 2; }
DUMP="${DUMP:-$(mktemp /tmp/memstack-ranker-dump.XXXXXX.jsonl)}"
if [[ ! -s "$DUMP" ]]; then
  PORT="${PORT:-18395}"
  DATA_DIR="${DATA_DIR:-}"
  TOKEN="ranker-admin-token-$RANDOM$RANDOM$RANDOM"
  export PORT
  # the bench script starts the host; HOLD keeps it up for the dump
  tmp=$(mktemp -d)
  trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
  INGEST=(--ingest-only)
  if [[ -n "$DATA_DIR" && -d "$DATA_DIR" ]]; then INGEST=(--ingest-only --skip-ingest); fi
  HOLD=1 DATA_DIR="$DATA_DIR" "$ROOT/scripts/realtalk-bench.sh" "$DATA" "${INGEST[@]}" -- \
    --memstack.stack.ranking.model=none --memstack.stack.context.budget=2000000 >"$tmp/host.out" 2>&1 &
  for _ in $(seq 1 1200); do
    grep -q "host still running" "$tmp/host.out" && break
    if ! kill -0 %1 2>/dev/null; then cat "$tmp/host.out" >&2; exit 2; fi
    sleep 1
  done
  grep -q "host still running" "$tmp/host.out" || { cat "$tmp/host.out" >&2; exit 2; }
  cat "$tmp/host.out"
  BASE=$(sed -n 's/.*--base-url \([^ ]*\) --token.*/\1/p' "$tmp/host.out" | tail -1)
  TOKEN=$(sed -n 's/.*--token \([^ )]*\).*/\1/p' "$tmp/host.out" | tail -1)
  python3 "$ROOT/bench/realtalk/ranker.py" dump "$DATA" --base-url "$BASE" --token "$TOKEN" --out "$DUMP" ${DUMP_TEXTS:+--texts}
  kill %1 2>/dev/null || true
  wait 2>/dev/null || true
fi
python3 "$ROOT/bench/realtalk/ranker.py" train "$DUMP" --out "$OUT" ${EXCLUDE:+--exclude "$EXCLUDE"} \
  ${TRAIN_ARGS[@]+"${TRAIN_ARGS[@]}"}
