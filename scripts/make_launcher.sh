#!/usr/bin/env bash
# Makes ./code-commit as a launcher script, for when deno compile cannot get a
# Deno runtime: it runs code-commit with exactly the permissions a compiled
# binary would have (lib/permissions/permissions.ts), with the Deno this build
# used and the dependency cache (DENO_DIR) it filled, pinned, so that it works
# from any account and any HOME (sudo, a CI user) without fetching anything.
#
# What it runs is main.ts bundled (deno bundle, one module per workflow, loaded
# when a run asks for it): one file to load instead of about a hundred, which
# saves time and memory on every start. When
# deno bundle fails, the launcher runs main.ts itself, and says so.
#
# Usage: scripts/make_launcher.sh DENO OUTPUT [BUNDLE]
#   DENO    the deno executable the build used
#   OUTPUT  the launcher to write (made executable; checked with --version)
#   BUNDLE  the folder the bundle is written to (default: dist/ of the tool)
set -euo pipefail
DENO=$1
OUTPUT=$2
case "$OUTPUT" in */*) ;; *) OUTPUT="./$OUTPUT" ;; esac # run by path, never looked up on PATH
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUNDLE=${3:-$ROOT/dist}
mkdir -p "$(dirname "$BUNDLE")"
BUNDLE="$(cd "$(dirname "$BUNDLE")" && pwd)/$(basename "$BUNDLE")" # the launcher names it absolutely

# Quotes a word for /bin/sh: inside single quotes, each ' written as '\''.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

mapfile -t FLAGS < <("$DENO" run --no-prompt --config "$ROOT/deno.json" "$ROOT/lib/permissions/permissions.ts")
CACHE=$("$DENO" info --json |
  "$DENO" eval 'console.log(JSON.parse(await new Response(Deno.stdin.readable).text()).denoDir)')
if [ -z "$CACHE" ] || [ ! -d "$CACHE" ]; then
  echo "make_launcher.sh: deno info names no DENO_DIR that exists ($CACHE)" >&2
  exit 1
fi
# The bundle, made aside and put in place whole; main.ts itself when it cannot be made.
# Only a folder holding a bundle is ever replaced or removed.
if [ -e "$BUNDLE" ] && [ ! -f "$BUNDLE/main.js" ]; then
  echo "make_launcher.sh: $BUNDLE exists and holds no bundle (no main.js); move it away or name another folder" >&2
  exit 1
fi
# Every chunk a file of the bundle in $1 imports is there (a partial bundle would fail only when a
# run first loads the missing chunk).
complete_bundle() {
  [ -f "$1/main.js" ] || return 1
  local chunk
  for chunk in $(grep -ho '"\./[A-Za-z0-9_.-]*\.js"' "$1"/*.js | tr -d '"' | sort -u); do
    [ -f "$1/${chunk#./}" ] || return 1
  done
}
ENTRY="$ROOT/main.ts"
bundle_log=$(mktemp)
made=$(mktemp -d "$BUNDLE.new.XXXXXX")
if "$DENO" bundle --quiet --config "$ROOT/deno.json" --platform deno --code-splitting \
  --outdir "$made" "$ROOT/main.ts" >"$bundle_log" 2>&1 && complete_bundle "$made"; then
  chmod 755 "$made"
  old=""
  if [ -e "$BUNDLE" ]; then
    old=$(mktemp -d "$BUNDLE.old.XXXXXX")
    mv "$BUNDLE" "$old/bundle"
  fi
  mv "$made" "$BUNDLE"
  [ -z "$old" ] || rm -rf "$old"
  ENTRY="$BUNDLE/main.js"
else
  rm -rf "$made"
  # No bundle is left behind that could be taken for the code of this build.
  if [ -f "$BUNDLE/main.js" ]; then rm -rf "$BUNDLE"; fi
  echo "make_launcher.sh: deno bundle failed, so the launcher runs main.ts (about 40 ms slower to start):" >&2
  if [ "$(wc -l <"$bundle_log")" -le 12 ]; then
    cat "$bundle_log" >&2
  else
    head -n 6 "$bundle_log" >&2
    echo "  ..." >&2
    tail -n 6 "$bundle_log" >&2
  fi
  [ -s "$bundle_log" ] || echo "  (it printed nothing, but left no complete bundle)" >&2
fi
rm -f "$bundle_log"
{
  echo '#!/bin/sh'
  echo '# Made by build.sh: deno compile could not get a Deno runtime (denort) here.'
  echo '# Runs code-commit with exactly the permissions a compiled binary would have,'
  echo '# from the dependency cache the build filled, whatever HOME it is started with.'
  printf 'DENO_DIR=%s; export DENO_DIR\n' "$(quote "$CACHE")"
  # --quiet: Deno's own notes (such as "bwrap" not found for --allow-run) stay out of the output.
  printf 'exec %s run --quiet --cached-only --frozen --config %s' "$(quote "$DENO")" "$(quote "$ROOT/deno.json")"
  for flag in "${FLAGS[@]}"; do printf ' %s' "$(quote "$flag")"; done
  printf ' %s "$@"\n' "$(quote "$ENTRY")"
} >"$OUTPUT"
chmod +x "$OUTPUT"
# The configuration's URL goes through the environment: a quote in the path stays out of the code.
VERSION_LINE="code-commit $(CODE_COMMIT_CONFIG="file://$ROOT/deno.json" "$DENO" eval \
  'const c = await import(Deno.env.get("CODE_COMMIT_CONFIG"), { with: { type: "json" } }); console.log(c.default.version)')"
if [ "$("$OUTPUT" --version </dev/null)" != "$VERSION_LINE" ]; then
  echo "make_launcher.sh: the launcher $OUTPUT does not answer --version with $VERSION_LINE" >&2
  exit 1
fi
