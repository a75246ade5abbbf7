#!/usr/bin/env bash
# Repeated blocks in main code: each module's src/main copied into one folder (a sub-folder per
# module), then `duplicates` over it. Usage: scripts/main-duplicates.sh [--most N]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for main in $(git ls-files | grep '/src/main/' | sed 's#/src/main/.*##' | sort -u); do
  mkdir -p "$tmp/$main"
  cp -r "$main/src/main" "$tmp/$main/"
done
if [[ $# -eq 0 ]]; then set -- --most 1; fi
duplicates --repo "$tmp" --seconds 300 "$@"
