#!/usr/bin/env bash
# The one command for set-up and tests of code-commit. On a machine with only
# Node and npm it installs Deno into .tools/, caches the dependencies, checks
# formatting, lints, type-checks, runs every test, and makes ./code-commit.
# It exits 0 only if every step passed.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
DENO_VERSION=2.9.6
export NO_COLOR=1

step() { printf '\n==> %s\n' "$*"; }

# 1. Deno: the one on PATH if it is Deno 2, else ours in .tools/ (installed from npm).
DENO_ON_PATH=$(command -v deno 2>/dev/null || true)
DENO=""
if command -v deno >/dev/null 2>&1 && deno --version 2>/dev/null | grep -q '^deno 2\.'; then
  DENO=$(command -v deno)
elif [ -x .tools/node_modules/deno/deno ]; then
  DENO="$ROOT/.tools/node_modules/deno/deno"
else
  step "installing Deno $DENO_VERSION into .tools/ from npm"
  if ! command -v npm >/dev/null 2>&1; then
    echo "build.sh: neither deno nor npm is on PATH; install Node.js (with npm) or Deno 2" >&2
    exit 1
  fi
  npm install --prefix .tools --no-audit --no-fund --loglevel=error "deno@$DENO_VERSION"
  DENO="$ROOT/.tools/node_modules/deno/deno"
fi
if ! "$DENO" --version >/dev/null 2>&1; then
  echo "build.sh: $DENO does not run; remove .tools/ and run ./build.sh again" >&2
  exit 1
fi
export PATH="$(dirname "$DENO"):$PATH"
step "using $("$DENO" --version | head -n 1) at $DENO"

# 2. Dependencies, exactly as deno.lock pins them.
step "caching dependencies (deno.lock)"
"$DENO" install --frozen

# 3. Format, lint, type-check.
step "checking format, lint and types"
"$DENO" task check

# 4. Tests.
step "running the tests"
"$DENO" task test

# 5. ./code-commit, with the permissions of lib/permissions/permissions.ts baked in.
step "making ./code-commit"
mapfile -t FLAGS < <("$DENO" run lib/permissions/permissions.ts)
VERSION_LINE="code-commit $("$DENO" eval 'import c from "./deno.json" with { type: "json" }; console.log(c.version)')"
rm -f code-commit.tmp
compile_log=$(mktemp)
made=""
if "$DENO" compile --quiet --output code-commit.tmp "${FLAGS[@]}" main.ts >"$compile_log" 2>&1; then
  # A stand-in runtime (DENORT_BIN pointing at something else) can make a binary that does not
  # run code-commit: use the binary only if it answers --version as code-commit does.
  if [ "$(timeout 30 ./code-commit.tmp --version </dev/null 2>/dev/null || true)" = "$VERSION_LINE" ]; then
    made="binary"
  else
    echo "deno compile made a binary that does not run code-commit (is DENORT_BIN a denort for Deno $DENO_VERSION?)" >"$compile_log"
  fi
fi
if [ -z "$made" ]; then
  reason=$(scripts/compile_reason.sh "$compile_log")
  scripts/make_launcher.sh "$DENO" code-commit.tmp
  made="launcher"
fi
rm -f "$compile_log"
mv -f code-commit.tmp code-commit
if [ "$made" = "binary" ]; then
  echo "made ./code-commit: a compiled binary (deno compile) with the flags ${FLAGS[*]}"
else
  entry="main.ts"
  # make_launcher.sh leaves dist/ only when the launcher runs it.
  if [ -f dist/main.js ]; then entry="the bundle in dist/ (deno bundle of main.ts)"; fi
  echo "made ./code-commit: a launcher script running $DENO on $entry with the flags ${FLAGS[*]}"
  echo "  (deno compile needs a denort runtime it could not get${reason:+: $reason};"
  echo "   set DENORT_BIN to a denort binary of Deno $DENO_VERSION to make a compiled binary)"
fi
if [ "$DENO_ON_PATH" != "$DENO" ]; then
  echo
  echo "Deno is not on your PATH, so 'deno task ...' will say 'deno: command not found'. Run:"
  echo "  export PATH=\"$(dirname "$DENO"):\$PATH\""
  echo "(./code-commit itself needs nothing on PATH.)"
fi
step "build passed"
