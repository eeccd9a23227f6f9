#!/usr/bin/env bash
# Runs code-commit once, unattended, in the repository checked out in the current folder (the
# "Run code-commit" step of docs/ci/code-commit.yml; docs/ci.md explains it), then:
#   - writes the run's --json result and exit status to $GITHUB_STEP_SUMMARY;
#   - when the run changed files and ended 0 (build passes) or 1 (build still fails), commits them
#     and pushes the commit to the branch code-commit/run-<run id>-<attempt> of origin (never to
#     the branch checked out, never to main);
#   - writes status=, changed= and branch= to $GITHUB_OUTPUT;
#   - exits with code-commit's exit status.
#
# Environment:
#   CODE_COMMIT          the code-commit command (default: code-commit on PATH)
#   CODE_COMMIT_KEY      the API key; written to agent-config/, never printed nor passed on
#   CODE_COMMIT_MODEL    the model (default gemini-2.5-pro; gpt-* models take an OpenAI key)
#   CODE_COMMIT_QUERY    the query; when empty, CODE_COMMIT_QUERY_FILE (a file of the repository,
#                        default .github/code-commit-query.txt) is the query
#   CODE_COMMIT_ARGS     more arguments for code-commit, split at spaces (such as "--sandbox on")
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT  as GitHub Actions sets them
set -euo pipefail
umask 077

tool=${CODE_COMMIT:-code-commit}
model=${CODE_COMMIT_MODEL:-gemini-2.5-pro}
branch="code-commit/run-${GITHUB_RUN_ID:?GITHUB_RUN_ID is not set}-${GITHUB_RUN_ATTEMPT:-1}"
summary=${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}
read -r -a extra <<<"${CODE_COMMIT_ARGS:-}"

# code-commit's own folders stay out of every commit: they hold the key, the query and the logs.
exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
printf '%s\n' /agent-config/ /agent-state/ /logs/ >>"$exclude"

mkdir -p agent-config
case "$model" in
gpt-*) key_file=agent-config/openai-key.txt ;;
*) key_file=agent-config/gemini-key.txt ;;
esac
if [ -z "${CODE_COMMIT_KEY:-}" ]; then
  echo "code-commit-run.sh: CODE_COMMIT_KEY is empty: set the repository secret the workflow names" >&2
  exit 3
fi
printf '%s\n' "$CODE_COMMIT_KEY" >"$key_file" # printf is built in: the key is on no command line
unset CODE_COMMIT_KEY                         # neither code-commit nor the build inherits it

if [ -n "${CODE_COMMIT_QUERY:-}" ]; then
  printf '%s\n' "$CODE_COMMIT_QUERY" >agent-config/query.txt
else
  query_file=${CODE_COMMIT_QUERY_FILE:-.github/code-commit-query.txt}
  if [ ! -s "$query_file" ]; then
    echo "code-commit-run.sh: no query: CODE_COMMIT_QUERY is empty and $query_file is missing or empty" >&2
    exit 3
  fi
  cp "$query_file" agent-config/query.txt
fi

result=$(mktemp)
trap 'rm -f "$result"' EXIT
status=0
# The code rollup first (what the model is sent; its summary line goes to the job's log), then the run.
"$tool" --rollup >&2 || status=$?
if [ "$status" -eq 0 ]; then
  "$tool" --model "$model" --json "${extra[@]}" >"$result" || status=$?
fi

{
  echo "## code-commit: exit status $status"
  echo
  echo '```json'
  cat "$result"
  echo '```'
} >>"$summary"

changed=false
if [ "$status" -le 1 ]; then
  git add -A
  git reset -q HEAD -- agent-config agent-state logs # even where the project tracks them
  if ! git diff --cached --quiet; then
    changed=true
    subject="code-commit: $(head -n 1 agent-config/query.txt | cut -c 1-60)"
    [ "$status" -eq 0 ] || subject="$subject (build still fails)"
    git -c user.name="code-commit" -c user.email="code-commit@users.noreply.github.com" \
      commit -q -m "$subject" -m "Made by code-commit in run $GITHUB_RUN_ID; the result is in the job summary."
    git push -q origin "HEAD:refs/heads/$branch"
    echo "pushed the changes to $branch" >&2
    printf '\nThe changes are on the branch `%s`.\n' "$branch" >>"$summary"
  fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'status=%s\nchanged=%s\nbranch=%s\n' "$status" "$changed" "$branch" >>"$GITHUB_OUTPUT"
fi
exit "$status"
