/**
 * The text of `--help` and `--version`.
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };
import { DEFAULT_BUILD_TIMEOUT_SECONDS, DEFAULT_LLM_TIMEOUT_SECONDS } from "./args.ts";
import { DEFAULT_MODEL, LOCAL_CONTEXT_WINDOW, MODEL_NAMES, MODELS } from "../llm/models.ts";
import { formatCount } from "../text/numbers.ts";
import { PRICES_DATE } from "../llm/prices.ts";

/** The version of code-commit, from deno.json. */
const VERSION: string = config.version;

/** The `--version` line. Never throws. */
export function versionText(): string {
  return `code-commit ${VERSION}`;
}

/** The `--help` text. Never throws. */
export function helpText(): string {
  const models = MODEL_NAMES.map((name) =>
    `  ${name.padEnd(22)} key in ${MODELS[name].keyFile}${
      name === DEFAULT_MODEL ? " (default)" : ""
    }`
  ).join("\n");
  return `code-commit ${VERSION} — let an LLM change your code, then build it, unattended

Usage: code-commit [--model NAME] [WORKFLOW] [OPTIONS]
Run it from the root of your project (a git repository). To start: code-commit --init.

Workflows (one at most):
  --commit                 committing code (the default): send agent-config/query.txt and the
                           codebase, apply the reply's file replacements, run ./build.sh, and ask
                           for up to three repairs while the build fails
  --consistency-check, --consistency, --cc
                           write agent-config/consistency-report.txt: where the specification
                           disagrees with itself or with the code; changes no file
  --auto-workflow, --aw    take every module (a folder with UserSpecification.md) through the
                           phases, one task at a time, until a task needs you
  --init                   set the project up: /agent-config, /logs and the dependency folders
                           in .gitignore, the lock files in .codecommitignore, an empty
                           agent-config/query.txt, a starter build script; no key, no LLM call
  --rollup                 write agent-config/codeRollup.txt from every file git tracks or would
                           track (remade before each run from then on); no key, no LLM call
  --undo                   take back the most recent run that changed files, as a whole (all its
                           attempts, or all its auto-workflow tasks); no LLM call, no key needed
  --check-build            run ./build.sh once exactly as a run would (same sandbox, network and
                           time limit), show how it ended; no key, no LLM call; exit 0 if it
                           passes, 1 if it fails

Models (--model NAME):
${models}
  local:NAME             NAME on an OpenAI-compatible server on this machine (Ollama, llama.cpp,
                         vLLM) at CODE_COMMIT_OPENAI_BASE_URL, which must be a loopback address;
                         no key is read or sent
Each call and each run print an estimated cost in US dollars, from list prices read ${PRICES_DATE}
(input, cached input, output and thinking tokens); your provider's bill is what counts.

Options:
  --build-context          build a focused codebase with a preprocessing LLM call instead of
                           reading agent-config/codeRollup.txt (committing code, consistency)
  --build-timeout SECONDS  stop ./build.sh after this long (default ${DEFAULT_BUILD_TIMEOUT_SECONDS})
  --llm-timeout SECONDS    give up on one LLM request after this long (default ${DEFAULT_LLM_TIMEOUT_SECONDS})
  --context-window TOKENS  a local:NAME model's context window, prompt and answer together
                           (default ${
    formatCount(LOCAL_CONTEXT_WINDOW)
  }); a prompt that cannot fit is not sent
  --max-phase N            auto workflow: go up to phase N (default 1; phases 2-4
                           use code-commit's own prompts)
  --dry-run                committing code: make the first call, show what its reply would
                           change (the whole diff goes to the log), change nothing, run no build
  --force                  committing code, auto workflow: run even though git shows uncommitted
                           changes; --undo: restore even paths edited since the run
  --sandbox auto|on|off    committing code, auto workflow, --check-build: run ./build.sh in a
                           sandbox: the project writable, agent-config/ hidden, .git/ and the
                           protected files read-only, the rest of the system read-only, its
                           processes ended with it (bubblewrap on Linux, sandbox-exec on macOS).
                           auto (default): where available, else warn; on: refuse to start
                           without it; off: run it with your rights
  --build-network on|off   committing code, auto workflow, --check-build: off: a contained build
                           gets no network at all, not even loopback (default on)
  --json                   print one JSON object on stdout when the run ends, whatever the
                           outcome (exit status, files changed, tokens, cost, logs, the model's
                           words, the error); everything else goes to stderr
  -h, --help               print this help
  --version                print the version

Exit status, the same for every workflow:
  0 done             the build passed, the report or set-up step was made, nothing left to do
  1 build fails      the build still fails after the last repair
  2 usage            the command line is wrong
  3 set-up           something to fix in the project or its set-up: keys, query, rollup,
                     .gitignore, build.sh, a prompt too large, uncommitted changes, a file
                     code-commit cannot read or write
  4 model            the model or its API failed: HTTP errors, quota, a refusal, an unusable reply
  5 safety           stopped for safety: build.sh or protected files changed by a build, a key
                     in a prompt, a folder swapped while code-commit wrote into it
  6 locked           another code-commit holds this project
  7 needs you        the auto workflow stopped on a task that needs you
  130 interrupted    Ctrl-C, SIGTERM, SIGHUP or SIGQUIT
Logs: logs/<date>-<workflow>/ in the project. Endpoints: CODE_COMMIT_GEMINI_BASE_URL,
CODE_COMMIT_OPENAI_BASE_URL (https://, or http:// to a loopback address).
`;
}
