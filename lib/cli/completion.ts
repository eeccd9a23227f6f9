/**
 * Shell completion scripts for bash, zsh and fish, from the tables: every flag, and the values
 * of those that take one of a known few.
 *
 * @module
 */
import type { Shell } from "./args.ts";
import { COMMANDS, WORKFLOWS } from "./workflows.ts";
import { OPTIONS } from "./options.ts";

/** Every flag as completion offers it, with the values offered after it (none: the user's to type). */
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
