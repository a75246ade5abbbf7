#!/usr/bin/env bash
# Leave-one-conversation-out evaluation of the learned ranking THROUGH THE HOST: for each of
# REALTALK's conversations a model trained on the other ones (bench/realtalk/ranker.py train
# --exclude N) serves a host holding all of them (one data folder, ingested once), and only the
# held-out conversation's questions are asked (realtalk_bench.py --conversations N, with each
# provider alone through the same ranking stage). Then, on the same data folder, every question
# with today's fusion (model none) and with the model trained on all conversations. Prints the
# fold table and writes every result under OUT.
#
#   bench/realtalk/cv-ranker.sh <REALTALK data dir> OUT [ranker.py train options]
#
# Environment: DATA_DIR (a data folder; ingested first when it does not exist yet), DUMP (the
# candidates file of train-ranker.sh; made first when missing). Needs python3 with numpy.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -ge 2 ]] || { echo "usage: $0 <REALTALK data dir> OUT [train options]" >&2; exit 2; }
DATA="$1"; OUT="$2"; shift 2
: "${DATA_DIR:?set DATA_DIR to the host data folder to use (ingested once)}"
: "${DUMP:=$OUT/candidates.jsonl}"
export DATA_DIR DUMP
mkdir -p "$OUT"
# the candidates (and the ingest, when DATA_DIR is new) and the model trained on everything
"$ROOT/bench/realtalk/train-ranker.sh" "$DATA" --out "$OUT/model-all.json" "$@"
chats=$(ls "$DATA" | sed -n -E 's/^Chat_([0-9]+)_.*\.json$/\1/p' | sort -n)
for n in $chats; do
  python3 "$ROOT/bench/realtalk/ranker.py" train "$DUMP" --exclude "$n" --out "$OUT/model-without-$n.json" "$@"
done
run() { # label, harness args..., -- host args...
  local label="$1"; shift
  echo "== $label"
  "$ROOT/scripts/realtalk-bench.sh" "$DATA" --skip-ingest --out "$OUT/$label.json" "$@" | grep -E "^(  |pass|context latency)" || true
}
for n in $chats; do
  run "fold-$n" --conversations "$n" -- --memstack.stack.ranking.model="$OUT/model-without-$n.json"
done
run fusion -- --memstack.stack.ranking.model=none
run shipped-all -- --memstack.stack.ranking.model="$OUT/model-all.json"
python3 "$ROOT/bench/realtalk/ranker.py" report "$OUT"
