# Sourced by the start benchmarks. health_up PORT: whether the host on 127.0.0.1:PORT answers
# /actuator/health with status UP. Asked with bash's own /dev/tcp, no process started: a `curl | jq`
# a poll costs ~50 ms of CPU (measured: 20 polls, 1.04 s user + sys), which on two cores takes a
# share of the start it is timing (polled every 50 ms, most of a core).
health_up() {
  local line body=""
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'GET /actuator/health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  while IFS= read -r -t 5 line <&3; do body+="$line"; done
  body+="$line"
  exec 3<&- 3>&-
  # without a token the answer holds the overall status only
  [[ "$body" == *'"status":"UP"'* ]]
}
