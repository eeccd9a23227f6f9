#!/usr/bin/env bash
# Makes ./code-commit, and with "test" checks and tests code-commit too.
#
#   ./build.sh        install: Deno into .tools/ from npm unless PATH has Deno 2.9.6 or later, the
#                     dependencies into .tools/deno_dir as deno.lock pins them, and ./code-commit
#   ./build.sh test   the same, then format check, lint, type-check and every test
#
# ./code-commit is a launcher script that finds this folder through its own path (a symbolic
# link to it works, and the folder may be moved), or with DENORT_BIN set to a denort of the same
# Deno version, a compiled binary (deno compile). Exits 0 only if every step passed.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
DENO_VERSION=2.9.6
export NO_COLOR=1

case "${1:-}" in
"") TEST="" ;;
test) TEST=1 ;;
*)
  echo "usage: ./build.sh [test]  (no argument: make ./code-commit; test: also check and test)" >&2
  exit 2
  ;;
esac

step() { printf '\n==> %s\n' "$*"; }

# 1. Deno: the one on PATH if it is Deno 2 at DENO_VERSION or later (the code uses what that
# version has), else ours in .tools/ (installed from npm).
DENO_ON_PATH=$(command -v deno 2>/dev/null || true)
DENO=""
recent_enough() {
  local version
  version=$("$1" --version 2>/dev/null | sed -n '1s/^deno \(2\.[0-9.]*\).*/\1/p')
  [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$DENO_VERSION" "$version" | sort -V | head -n 1)" = "$DENO_VERSION" ]
}
if [ -n "$DENO_ON_PATH" ] && recent_enough "$DENO_ON_PATH"; then
  DENO=$DENO_ON_PATH
elif [ -x .tools/node_modules/deno/deno ] && recent_enough .tools/node_modules/deno/deno; then
  DENO="$ROOT/.tools/node_modules/deno/deno"
else
  step "installing Deno $DENO_VERSION into .tools/ from npm"
  if ! command -v npm >/dev/null 2>&1; then
    echo "build.sh: npm is not on PATH, nor Deno $DENO_VERSION or later; install Node.js (with npm)" >&2
    exit 1
  fi
  npm install --prefix .tools --no-audit --no-fund --no-update-notifier --loglevel=error "deno@$DENO_VERSION"
  DENO="$ROOT/.tools/node_modules/deno/deno"
fi
if ! "$DENO" --version >/dev/null 2>&1; then
  echo "build.sh: $DENO does not run; remove .tools/ and run ./build.sh again" >&2
  exit 1
fi
export PATH="$(dirname "$DENO"):$PATH"
step "using $("$DENO" --version | head -n 1) at $DENO"

# 2. Dependencies, exactly as deno.lock pins them, into the cache ./code-commit reads: inside
# this folder, so that it works from any HOME and moves with the folder.
export DENO_DIR="$ROOT/.tools/deno_dir"
step "caching dependencies (deno.lock) in .tools/deno_dir"
"$DENO" install --frozen

# 3. ./code-commit, with the flags of lib/permissions/permissions.ts (permissions, V8 flag).
step "making ./code-commit"
rm -f code-commit.tmp
made=""
reason=""
if [ -n "${DENORT_BIN:-}" ]; then
  mapfile -t FLAGS < <("$DENO" run lib/permissions/permissions.ts)
  VERSION_LINE="code-commit $("$DENO" eval 'import c from "./deno.json" with { type: "json" }; console.log(c.version)')"
  compile_log=$(mktemp)
  if "$DENO" compile --quiet --output code-commit.tmp "${FLAGS[@]}" main.ts >"$compile_log" 2>&1; then
    # A stand-in runtime (DENORT_BIN pointing at something else) can make a binary that does
    # not run code-commit: use the binary only if it answers --version as code-commit does.
    if [ "$(timeout 30 ./code-commit.tmp --version </dev/null 2>/dev/null || true)" = "$VERSION_LINE" ]; then
      made="binary"
    else
      echo "deno compile made a binary that does not run code-commit (is DENORT_BIN a denort for Deno $DENO_VERSION?)" >"$compile_log"
    fi
  fi
  [ -n "$made" ] || reason=$(scripts/compile_reason.sh "$compile_log")
  rm -f "$compile_log" code-commit.tmp.*
fi
if [ -z "$made" ]; then
  rm -f code-commit.tmp
  scripts/make_launcher.sh "$DENO" code-commit.tmp
  made="launcher"
fi
mv -f code-commit.tmp code-commit
if [ "$made" = "binary" ]; then
  echo "made ./code-commit: a compiled binary (deno compile, DENORT_BIN=$DENORT_BIN)"
else
  echo "made ./code-commit: a launcher script running main.ts with $DENO"
  if [ -n "$reason" ]; then echo "  (deno compile with DENORT_BIN=$DENORT_BIN failed: $reason)"; fi
fi

# 4. Format, lint, types and every test.
if [ -n "$TEST" ]; then
  step "checking format, lint and types"
  "$DENO" task check
  step "running the tests"
  "$DENO" task test
fi

if [ "$DENO_ON_PATH" != "$DENO" ]; then
  echo
  echo "Deno is not on your PATH, so 'deno task ...' will say 'deno: command not found'. Run:"
  echo "  export PATH=\"$(dirname "$DENO"):\$PATH\""
  echo "(./code-commit itself needs nothing on PATH.)"
fi
step "build passed${TEST:+ (checks and tests included)}"
