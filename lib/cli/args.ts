/**
 * The command line, read from the tables: one workflow flag at most, the options it takes, each
 * once. Two steps, so the settings file is read only for a right command line.
 *
 * @module
 */
import { CodeCommitError, EXIT, UsageError } from "../errors/errors.ts";
import { isLocalModel, type ModelId } from "../llm/models.ts";
import { COMMANDS, type Workflow, WORKFLOWS, workflowSpec, workflowsTaking } from "./workflows.ts";
import { oneOf, OPTIONS, type OptionSpec, type RunOptions, SETTINGS } from "./options.ts";

export type { RunOptions } from "./options.ts";
export type { Workflow } from "./workflows.ts";

/** The shells `--completion` writes a script for. */
export type Shell = (typeof COMMANDS)[2]["choices"][number];

/** Values of {@link RunOptions} given by flags or the settings file, by field. */
export type GivenOptions = Readonly<Partial<Record<keyof RunOptions, unknown>>>;

/** What the command line asked for, before the settings file is read. */
export type CommandLine =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | { readonly kind: "completion"; readonly shell: Shell }
  | { readonly kind: "run"; readonly workflow: Workflow; readonly given: GivenOptions };

/** How messages name the settings file. */
export const SETTINGS_FILE = "agent-config/settings.json";

const WORKFLOW_FLAGS: ReadonlyMap<string, Workflow> = new Map(
  WORKFLOWS.flatMap((spec) => spec.flags.map((flag) => [flag, spec.id] as const)),
);

/** Every flag (without dashes), with an example of its value for one that takes one. */
const FLAGS: ReadonlyMap<string, string | undefined> = new Map([
  ...COMMANDS.map((command) =>
    [command.flag, "placeholder" in command ? "bash" : undefined] as const
  ),
  ...OPTIONS.map((option) => [option.flag, option.value?.example] as const),
  ...[...WORKFLOW_FLAGS.keys()].map((flag) => [flag, undefined] as const),
]);

const SHORT_FLAGS: ReadonlyMap<string, string> = new Map(
  COMMANDS.flatMap((command) => "short" in command ? [[`-${command.short}`, command.flag]] : []),
);

/**
 * Whether `args` hold `--json` (or `--json=VALUE`) before a `--`, read without parsing them, so
 * that a wrong command line still ends with the JSON object. Never throws.
 */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) =>
    arg === "--json" || arg.startsWith("--json=")
  );
}

/**
 * Reads the arguments after the program name: the flags, which workflow, each option's value.
 * @throws {UsageError} for an unknown, repeated or misused flag, or a positional argument.
 */
export function readCommandLine(args: readonly string[]): CommandLine {
  const values = readFlags(args);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (values.completion !== undefined) {
    const shell = oneOf("completion", COMMANDS[2].choices, values.completion as string);
    return { kind: "completion", shell };
  }
  const workflowFlags = [...WORKFLOW_FLAGS.keys()].filter((flag) => values[flag] === true);
  if (workflowFlags.length > 1) {
    const named = workflowFlags.map((flag) => `--${flag}`).join(" and ");
    throw new UsageError(`${named} are two workflow flags; choose one workflow per run`);
  }
  // No workflow flag: the first of the table.
  const workflow = WORKFLOW_FLAGS.get(workflowFlags[0]) ?? WORKFLOWS[0].id;
  const spec = workflowSpec(workflow);
  const given: Partial<Record<keyof RunOptions, unknown>> = {};
  for (const option of OPTIONS) {
    const value = values[option.flag];
    if (value === undefined) continue;
    if (!spec.options.includes(option.flag)) throw notTaken(option, workflow);
    given[option.field] = option.value === undefined ? true : option.value.parse(value as string);
  }
  return { kind: "run", workflow, given };
}

/**
 * The options of a run of `workflow`: each from its flag, else from `settings` where the workflow
 * takes the option, else its default.
 * @throws {UsageError} for options that contradict (a setup error when one is a setting).
 */
export function resolveOptions(
  workflow: Workflow,
  given: GivenOptions,
  settings: GivenOptions = {},
): RunOptions {
  const spec = workflowSpec(workflow);
  const values: Record<string, unknown> = {};
  const fromFile = new Set<string>();
  for (const option of OPTIONS) {
    const field = option.field;
    if (given[field] !== undefined) {
      values[field] = given[field];
    } else if (spec.options.includes(option.flag) && settings[field] !== undefined) {
      values[field] = settings[field];
      fromFile.add(field);
    } else if (option.fallback !== undefined) {
      values[field] = option.fallback;
    }
  }
  for (const setting of SETTINGS) {
    // A key without a flag of its own (localBaseUrl) is read where its option is taken.
    if (values[setting.field] !== undefined || settings[setting.field] === undefined) continue;
    if (spec.options.includes(setting.with)) values[setting.field] = settings[setting.field];
  }
  if (!isLocalModel(values.model as ModelId)) {
    // The window of a model of the table is known: a flag asking for another is a mistake,
    // a setting kept for a local model is simply not used this run.
    if (given.contextWindow !== undefined) {
      throw new UsageError(
        `--context-window applies only to a local:NAME model; the window of ${values.model} is known`,
      );
    }
    delete values.contextWindow;
    delete values.localBaseUrl;
  }
  if (values.sandbox === "off" && values.buildNetwork === "off") {
    const name = (flag: string, field: string) =>
      fromFile.has(field) ? `"${field}": "off" in ${SETTINGS_FILE}` : `--${flag} off`;
    const network = name("build-network", "buildNetwork");
    const sandbox = name("sandbox", "sandbox");
    const message = `${network} needs the sandbox, and ${sandbox} turns it off; drop one of them`;
    if (fromFile.has("sandbox") || fromFile.has("buildNetwork")) {
      throw new CodeCommitError(message, EXIT.setup);
    }
    throw new UsageError(message);
  }
  return values as unknown as RunOptions;
}

function notTaken(option: OptionSpec, workflow: Workflow): UsageError {
  const takers = workflowsTaking(option.flag).map((spec) => spec.title);
  const to = takers.length === 1
    ? `only to ${takers[0]}`
    : `to ${takers.slice(0, -1).join(", ")} and ${takers[takers.length - 1]}`;
  const { takes, refuses } = option.because ?? {};
  const title = workflowSpec(workflow).title;
  return new UsageError(
    `--${option.flag} applies ${to}${takes ? `, ${takes}` : ""}, not to ${title}` +
      (refuses ? `, ${refuses}` : ""),
  );
}

type FlagValues = Record<string, string | boolean | undefined>;

/** Reads the flags of `args`, each at most once: `--name`, `--name VALUE`, `--name=VALUE`, `-h`. */
function readFlags(args: readonly string[]): FlagValues {
  const values: FlagValues = {};
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      if (index + 1 < args.length) throw unexpected(args[index + 1]);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") throw unexpected(arg);
    const equals = arg.startsWith("--") ? arg.indexOf("=", 3) : -1;
    const given = equals === -1 ? arg : arg.slice(0, equals);
    const name = given.startsWith("--") ? given.slice(2) : SHORT_FLAGS.get(given);
    if (name === undefined || !FLAGS.has(name)) {
      throw new UsageError(`unknown flag ${given}; run code-commit --help for the flags`);
    }
    if (Object.hasOwn(values, name)) throw new UsageError(`--${name} is given twice; give it once`);
    const example = FLAGS.get(name);
    if (example === undefined) {
      if (equals !== -1) throw new UsageError(`${given} takes no value`);
      values[name] = true;
    } else if (equals !== -1) {
      values[name] = arg.slice(equals + 1);
    } else {
      // A value that starts with a dash is given as --name=-value.
      const value = args[index + 1];
      if (value === undefined || (value.startsWith("-") && value !== "-")) {
        throw new UsageError(`${given} needs a value, for example --${name} ${example}`);
      }
      values[name] = value;
      index++;
    }
  }
  return values;
}

function unexpected(arg: string): UsageError {
  const shown = JSON.stringify(arg);
  return new UsageError(
    `unexpected argument ${shown}; code-commit reads its query from agent-config/query.txt`,
  );
}
