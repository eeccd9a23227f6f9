#!/usr/bin/env bash
# Makes ./code-commit as a launcher script: it runs main.ts with exactly the
# flags of lib/permissions/permissions.ts (permissions, V8 flag), from the
# folder the launcher is in, found at every start through its own path with
# symbolic links resolved (so a link to it in ~/bin works, and the folder may
# be moved), with the dependency cache build.sh filled there (.tools/deno_dir),
# so that it works from any account and any HOME (sudo, a CI user) without
# fetching anything.
#
# The Deno it runs is .tools/node_modules/deno/deno of that folder when the
# build used that one, else the Deno the build used, by its absolute path.
#
# Usage: scripts/make_launcher.sh DENO [NAME]
#   DENO  the deno executable the build used
#   NAME  the launcher's file name in the tool's folder (default: code-commit);
#         made executable and checked with --version
set -euo pipefail
DENO=$1
NAME=${2:-code-commit}
case "$NAME" in */*)
  echo "make_launcher.sh: $NAME: give a file name; the launcher is made in the tool's folder" >&2
  exit 2
  ;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT="$ROOT/$NAME"
case "$DENO" in /*) ;; *) DENO="$(cd "$(dirname "$DENO")" && pwd)/$(basename "$DENO")" ;; esac

# Quotes a word for /bin/sh: inside single quotes, each ' written as '\''.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

mapfile -t FLAGS < <("$DENO" run --no-prompt --config "$ROOT/deno.json" "$ROOT/lib/permissions/permissions.ts")
# The Deno in the tool's folder moves with it: named from there.
case "$DENO" in
"$ROOT"/.tools/*) RUN_DENO="\"\$HERE\"/$(quote "${DENO#"$ROOT"/}")" ;;
*) RUN_DENO=$(quote "$DENO") ;;
esac
{
  echo '#!/bin/sh'
  echo '# Made by build.sh (scripts/make_launcher.sh). Runs code-commit with the flags of'
  echo '# lib/permissions/permissions.ts from the folder this file is in, found through its own'
  echo '# path with symbolic links resolved, and the dependency cache build.sh filled there.'
  echo 'self=$(readlink -f -- "$0") && HERE=$(dirname -- "$self") || {'
  echo '  echo "code-commit: cannot find the folder of $0 (readlink -f failed)" >&2'
  echo '  exit 3'
  echo '}'
  echo 'DENO_DIR="$HERE/.tools/deno_dir"; export DENO_DIR'
  # --quiet: Deno's own notes (such as "bwrap" not found for --allow-run) stay out of the output.
  printf 'exec %s run --quiet --cached-only --frozen --config "$HERE/deno.json"' "$RUN_DENO"
  for flag in "${FLAGS[@]}"; do printf ' %s' "$(quote "$flag")"; done
  printf ' "$HERE/main.ts" "$@"\n'
} >"$OUTPUT"
chmod +x "$OUTPUT"
# The configuration's URL goes through the environment: a quote in the path stays out of the code.
VERSION_LINE="code-commit $(CODE_COMMIT_CONFIG="file://$ROOT/deno.json" "$DENO" eval \
  'const c = await import(Deno.env.get("CODE_COMMIT_CONFIG"), { with: { type: "json" } }); console.log(c.default.version)')"
if [ "$("$OUTPUT" --version </dev/null)" != "$VERSION_LINE" ]; then
  echo "make_launcher.sh: the launcher $OUTPUT does not answer --version with $VERSION_LINE" >&2
  exit 1
fi
