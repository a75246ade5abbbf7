#!/usr/bin/env bash
# Start time of two distributions side by side: single starts through each one's launcher
# (dist/memstack), alternating A, B, A, B ..., each on a fresh data folder with the plugin folders
# expanded afresh, timed from the launch to health UP (which needs the embedding model loaded),
# polled every 50 ms without starting a process (scripts/lib/health-up.sh). Prepare both launchers
# first (start each once). Prints every pair and the medians; on a shared machine the paired
# differences say more than either median.
#
#   scripts/start-pairs.sh DIST_A DIST_B [PAIRS]      (PAIRS: 8; PORT: 18420)
set -euo pipefail
# shellcheck source=lib/health-up.sh
source "$(dirname "$0")/lib/health-up.sh"
A="$1" B="$2" PAIRS="${3:-8}" PORT="${PORT:-18420}"
start_once() {
  local dist="$1" work pid t0 status=""
  work="$(mktemp -d /tmp/memstack-pairs.XXXXXX)"
  rm -rf "$dist"/plugins/*/
  t0=$(date +%s%N)
  "$dist/memstack" --server.port="$PORT" --memstack.data-dir="$work/data" >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do
    health_up "$PORT" && status=UP && break
    sleep 0.05
  done
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
  kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
  [[ "$status" == UP ]] || { echo "not healthy: $dist" >&2; exit 2; }
}
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
as=() bs=() diffs=()
for i in $(seq 1 "$PAIRS"); do
  a=$(start_once "$A"); b=$(start_once "$B")
  as+=("$a"); bs+=("$b"); diffs+=($((a - b)))
  echo "pair $i: A $a ms, B $b ms"
done
echo "median A $(median "${as[@]}") ms, B $(median "${bs[@]}") ms, of A - B $(median "${diffs[@]}") ms ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
