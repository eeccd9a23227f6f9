#!/usr/bin/env bash
# Prints the one line that says why deno compile failed, from its log: the
# failed download of denort, else the first error line. A line longer than 200
# characters keeps its start and its end (the root cause, such as "Name or
# service not known"), each cut between words, joined by " … ".
#
# Usage: scripts/compile_reason.sh LOG
set -euo pipefail
reason=$(grep -m 1 -E 'error sending request|does not run code-commit' "$1" ||
  grep -m 1 -iE 'error' "$1" || true)
reason=$(sed -E 's/^ *[0-9]+: //; s/^error: //' <<<"$reason")
if [ "${#reason}" -gt 200 ]; then
  reason=$(awk '{
    head = substr($0, 1, 100); sub(/ [^ ]*$/, "", head)
    tail = substr($0, length($0) - 99); sub(/^[^ ]* /, "", tail)
    print head " … " tail
  }' <<<"$reason")
fi
printf '%s\n' "$reason"
