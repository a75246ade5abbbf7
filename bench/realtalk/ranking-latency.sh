#!/usr/bin/env bash
# What the learned ranking adds to a context call: one data folder (a finished REALTALK ingest),
# the host started alternately with the fusion (model none) and with the shipped model, ROUNDS
# times each, every question asked once per start at limit 5 by one client (no provider-alone
# calls); prints the client p50/p95 of each start and the medians of each mode.
#
#   DATA_DIR=<ingested data folder> bench/realtalk/ranking-latency.sh <REALTALK data dir> [ROUNDS]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DATA="$1"; ROUNDS="${2:-2}"
: "${DATA_DIR:?set DATA_DIR to an ingested data folder}"
OUT=$(mktemp -d)
for round in $(seq 1 "$ROUNDS"); do
  for mode in none shipped; do
    args=(--memstack.stack.ranking.model=none)
    [[ "$mode" == shipped ]] && args=()
    "$ROOT/scripts/realtalk-bench.sh" "$DATA" --skip-ingest --no-alone --out "$OUT/$mode-$round.json" \
      -- ${args[@]+"${args[@]}"} >/dev/null
    python3 - "$OUT/$mode-$round.json" "$mode" "$round" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["passes"][0]
lat = r["latency_ms_limit5"]
print(f"round {sys.argv[3]} {sys.argv[2]:8} p50 {lat['p50']:.1f} ms  p95 {lat['p95']:.1f} ms  "
      f"load {r['load_average']}  @5 {100 * r['summary']['stack']['all']['@5']:.1f}")
EOF
  done
done
python3 - "$OUT" <<'EOF'
import glob, json, statistics, sys
for mode in ("none", "shipped"):
    runs = [json.load(open(p))["passes"][0]["latency_ms_limit5"]
            for p in sorted(glob.glob(f"{sys.argv[1]}/{mode}-*.json"))]
    print(f"{mode:8} median of p50 {statistics.median(r['p50'] for r in runs):.1f} ms, "
          f"median of p95 {statistics.median(r['p95'] for r in runs):.1f} ms")
EOF
rm -rf "$OUT"
