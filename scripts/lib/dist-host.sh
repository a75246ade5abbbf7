# Sourced by the benchmarks that start the host from a distribution folder as the README does.
# dist_host_start DIST PORT WORK TOKEN [host arguments...]: checks DIST/memstack.jar, starts
# `java $JAVA_OPTS -jar DIST/memstack.jar` on WORK/data with TOKEN as an admin token (its log in
# WORK/host.log), sets HOST_PID, and waits until /actuator/health says UP (which includes the
# embedding model being warm); exits 2 with the log's tail when the host stops or is not UP after
# 120 s. The caller's EXIT trap stops HOST_PID and removes WORK.
dist_host_start() {
  local dist="$1" port="$2" work="$3" token="$4" status=""
  shift 4
  [[ -f "$dist/memstack.jar" ]] || { echo "$dist/memstack.jar not found: run ./mvnw -B package -DskipTests" >&2; exit 2; }
  java ${JAVA_OPTS:-} -jar "$dist/memstack.jar" --server.port="$port" --memstack.plugins.dir="$dist/plugins" \
    --memstack.data-dir="$work/data" \
    --memstack.security.tokens[0].token="$token" --memstack.security.tokens[0].role=admin \
    "$@" >"$work/host.log" 2>&1 &
  HOST_PID=$!
  for _ in $(seq 1 240); do
    status=$(curl -s "http://127.0.0.1:$port/actuator/health" | jq -r '.status // empty' 2>/dev/null || true)
    [[ "$status" == "UP" ]] && return 0
    kill -0 "$HOST_PID" 2>/dev/null || { tail -30 "$work/host.log" >&2; exit 2; }
    sleep 0.5
  done
  echo "host not UP: $status" >&2
  tail -30 "$work/host.log" >&2
  exit 2
}
