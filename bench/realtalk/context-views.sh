#!/usr/bin/env bash
# Recall part 3, item "views of a message that carry its context", measured offline: embeds every
# REALTALK message with the turn before it and with the turn after it using the host's model (from
# dist/), then adds the question's cosine to those views to the learned ranking's features of a
# candidates dump made with texts (`ranker.py dump ... --texts`) and cross-validates by
# conversation with and without them; and reports the candidate recall the views would add as
# extra search keys. Needs python3 with numpy, a JDK, and dist/ built.
#
#   bench/realtalk/context-views.sh <REALTALK data dir> <dump with texts> [WORK]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -ge 2 ]] || { echo "usage: $0 <REALTALK data dir> <dump with texts> [WORK]" >&2; exit 2; }
DATA="$1"; DUMP="$2"; WORK="${3:-$(mktemp -d)}"
mkdir -p "$WORK/app" "$WORK/classes"
python3 "$ROOT/bench/realtalk/context_views.py" texts "$DATA" "$WORK"
if [[ ! -s "$WORK/views.f32" ]]; then
  java -Djarmode=tools -jar "$ROOT/dist/memstack.jar" extract --destination "$WORK/app" --force >/dev/null
  CP="$WORK/app/memstack.jar:$(ls "$WORK"/app/lib/*.jar | tr '\n' ':')"
  javac -proc:none -cp "$CP" -d "$WORK/classes" "$ROOT/bench/realtalk/EmbedTexts.java"
  java -cp "$WORK/classes:$CP" EmbedTexts "$WORK/views.txt" "$WORK/views.f32"
fi
python3 "$ROOT/bench/realtalk/context_views.py" eval "$DATA" "$WORK" "$DUMP"
