/**
 * The text of `--help`, `--version` and `--completion` (the shell completion scripts for bash, zsh
 * and fish), their workflows, options and values from the tables.
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };
import { DEFAULT_MODEL, MODEL_NAMES, MODELS } from "../llm/models.ts";
import { PRICES_DATE } from "../llm/prices.ts";
import { COMMANDS, WORKFLOWS, workflowsTaking } from "./workflows.ts";
import { OPTIONS } from "./options.ts";
import type { Shell } from "./args.ts";

const VERSION: string = config.version;
const TEXT_COLUMN = 27;

/** The `--version` line (`-V` too). Never throws. */
export function versionText(): string {
  return `code-commit ${VERSION}`;
}

/** `flag` and its `lines` as `--help` shows them, the first beside the flag when it fits. */
function entry(flag: string, lines: readonly string[]): string {
  const head = `  ${flag}`;
  const body = lines.map((line) => `${" ".repeat(TEXT_COLUMN)}${line}`);
  if (head.length < TEXT_COLUMN - 1) body[0] = `${head.padEnd(TEXT_COLUMN)}${lines[0]}`;
  else body.unshift(head);
  return body.join("\n");
}

/** The `--help` text. Never throws. */
export function helpText(): string {
  const models = MODEL_NAMES.map((name) => {
    const mark = name === DEFAULT_MODEL ? " (default)" : "";
    return `  ${name.padEnd(22)} key in ${MODELS[name].keyFile}${mark}`;
  }).join("\n");
  const workflows = WORKFLOWS.map((spec) =>
    entry(spec.flags.map((flag) => `--${flag}`).join(", "), spec.help)
  ).join("\n");
  const options = OPTIONS.map((option) => {
    const value = option.value ? ` ${option.value.placeholder}` : "";
    // The workflows that take it, when not all do: `(--cc, --aw)`.
    const takers = workflowsTaking(option.flag).map((spec) => spec.title);
    const by = takers.length === WORKFLOWS.length ? [] : [`(${takers.join(", ")})`];
    return entry(`--${option.flag}${value}`, [...option.help, ...by]);
  }).join("\n");
  const commands = COMMANDS.map((command) => {
    const short = "short" in command ? `-${command.short}, ` : "";
    const value = "placeholder" in command ? ` ${command.placeholder}` : "";
    return entry(`${short}--${command.flag}${value}`, [command.help]);
  }).join("\n");
  return `code-commit ${VERSION} — let an LLM change your code, then build it, unattended

Usage: code-commit [--model NAME] [WORKFLOW] [OPTIONS]
Run it from the root of your project (a git repository). To start: code-commit --init.

Workflows (one at most):
${workflows}

Models (--model NAME):
${models}
  local:NAME             NAME on an OpenAI-compatible server on this machine (Ollama, llama.cpp,
                         vLLM) at CODE_COMMIT_OPENAI_BASE_URL (or localBaseUrl in
                         agent-config/settings.json), which must be a loopback address;
                         no key is read or sent
Each call and each run print an estimated cost in US dollars, from list prices read ${PRICES_DATE}
(input, cached input, output and thinking tokens); your provider's bill is what counts.

Options (in parentheses: the workflows that take one, when not all do):
${options}
${commands}

Settings: agent-config/settings.json may set the model, localBaseUrl, the context window, the
timeouts, the sandbox, the build network and the last phase for every run; a flag beats it.
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

/** Every flag as completion offers it, with the values offered after it (none: the user types). */
function completedFlags() {
  const entry = (
    flag: string,
    brief: string,
    value?: { choices?: readonly string[] },
    short?: string,
  ) => ({
    flag,
    short,
    brief,
    takesValue: value !== undefined,
    choices: value?.choices ?? [],
  });
  return [
    ...WORKFLOWS.flatMap((spec) => spec.flags.map((flag) => entry(flag, spec.brief))),
    ...OPTIONS.map((option) => entry(option.flag, option.brief, option.value)),
    ...COMMANDS.map((command) =>
      entry(
        command.flag,
        command.help,
        "placeholder" in command ? command : undefined,
        "short" in command ? command.short : undefined,
      )
    ),
  ];
}

type CompletedFlag = ReturnType<typeof completedFlags>[number];

function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `text` in single quotes for fish (which escapes `\` and `'` inside them). */
function fishQuoted(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function bashScript(flags: readonly CompletedFlag[]): string {
  const words = flags.flatMap((flag) =>
    flag.short ? [`--${flag.flag}`, `-${flag.short}`] : [`--${flag.flag}`]
  );
  const cases = flags.filter((flag) => flag.takesValue).map((flag) =>
    `    --${flag.flag}) COMPREPLY=(${
      flag.choices.length > 0 ? `$(compgen -W ${quoted(flag.choices.join(" "))} -- "$cur")` : ""
    }); return 0 ;;`
  );
  return `# bash completion for code-commit (code-commit --completion bash)
_code_commit() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev=""
  if [[ \${COMP_CWORD} -gt 0 ]]; then prev="\${COMP_WORDS[COMP_CWORD-1]}"; fi
  case "$prev" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W ${quoted(words.join(" "))} -- "$cur"))
}
complete -F _code_commit code-commit
`;
}

function zshScript(flags: readonly CompletedFlag[]): string {
  const described = flags.flatMap((flag) => [
    `    ${quoted(`--${flag.flag}:${flag.brief}`)}`,
    ...(flag.short ? [`    ${quoted(`-${flag.short}:${flag.brief}`)}`] : []),
  ]);
  const cases = flags.filter((flag) => flag.takesValue).map((flag) =>
    flag.choices.length > 0
      ? `    --${flag.flag}) compadd -- ${flag.choices.map(quoted).join(" ")}; return ;;`
      : `    --${flag.flag}) _message ${quoted(flag.brief)}; return ;;`
  );
  return `#compdef code-commit
# zsh completion for code-commit (code-commit --completion zsh)
_code_commit() {
  local prev="\${words[CURRENT-1]}"
  case "$prev" in
${cases.join("\n")}
  esac
  local -a flags
  flags=(
${described.join("\n")}
  )
  _describe -t flags 'code-commit flag' flags
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _code_commit "$@"
else
  compdef _code_commit code-commit
fi
`;
}

function fishScript(flags: readonly CompletedFlag[]): string {
  const lines = flags.map((flag) =>
    [
      "complete -c code-commit",
      ...(flag.short ? [`-s ${flag.short}`] : []),
      `-l ${flag.flag}`,
      ...(flag.takesValue ? ["-x"] : []),
      ...(flag.choices.length > 0 ? [`-a ${fishQuoted(flag.choices.join(" "))}`] : []),
      `-d ${fishQuoted(flag.brief)}`,
    ].join(" ")
  );
  return `# fish completion for code-commit (code-commit --completion fish)
complete -c code-commit -f
${lines.join("\n")}
`;
}

/** The completion script for `shell`. Never throws. */
export function completionScript(shell: Shell): string {
  return { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](completedFlags());
}
