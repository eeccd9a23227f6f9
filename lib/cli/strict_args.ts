/**
 * The command line read as `node:util`'s `parseArgs` reads it with
 * `strict: true`, `allowPositionals: false` and `tokens: true`: the same
 * tokens, values and errors (each with its `code` and message), for the
 * options code-commit has. It stands in for `parseArgs` because loading
 * `node:util` costs every run about 11 ms and 4 MiB (Deno's Node layer),
 * which alone kept a one-shot run above its goals; `tests/cli/strict_args_test.ts`
 * holds it to `parseArgs` itself on thousands of command lines. Pure.
 *
 * What it reads: `--name` (a string option takes the next argument, whatever
 * it starts with; strict mode then refuses one that starts with `-`),
 * `--name=value`, `-x` and groups of short booleans (`-hv`), `--` ending
 * the options (anything after it is a positional, which is refused).
 *
 * @module
 */

/** One option: a flag, or a flag with a value; `short` is its one-letter form. */
export interface OptionConfig {
  /** `boolean`: a flag; `string`: a flag that takes a value. */
  readonly type: "boolean" | "string";
  /** The one-letter form (`h` for `-h`), if any. */
  readonly short?: string;
}

/** A token of the command line, as `parseArgs` gives them. */
export type ArgsToken =
  | {
    readonly kind: "option";
    readonly name: string;
    readonly rawName: string;
    readonly index: number;
    readonly value: string | undefined;
    readonly inlineValue: boolean | undefined;
  }
  | { readonly kind: "positional"; readonly index: number; readonly value: string }
  | { readonly kind: "option-terminator"; readonly index: number };

/** A command line `parseArgs` would refuse: `code` is its error code. */
export class ArgsError extends Error {
  /** `ERR_PARSE_ARGS_UNKNOWN_OPTION`, `ERR_PARSE_ARGS_INVALID_OPTION_VALUE` or `ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL`. */
  readonly code: string;

  /** Makes the error `parseArgs` would throw. */
  constructor(code: string, message: string) {
    super(message);
    this.name = "TypeError";
    this.code = code;
  }
}

/**
 * Reads `args` against `options` (see the module doc).
 *
 * @throws {ArgsError} where `parseArgs` throws, with its code and message:
 * an unknown option, a string option without a value or with one that
 * looks like an option, a boolean given a value, a positional argument.
 */
export function parseStrictArgs(
  args: readonly string[],
  options: Readonly<Record<string, OptionConfig>>,
): { values: Record<string, string | boolean>; tokens: ArgsToken[] } {
  const tokens = toTokens(args, options);
  const values: Record<string, string | boolean> = Object.create(null);
  for (const token of tokens) {
    if (token.kind === "positional") {
      throw new ArgsError(
        "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL",
        `Unexpected argument '${token.value}'. This command does not take positional arguments`,
      );
    }
    if (token.kind !== "option") continue;
    checkUsage(token, options);
    if (token.name !== "__proto__") values[token.name] = token.value ?? true;
  }
  return { values, tokens };
}

/** The type of option `name`, when it is one (own property only). */
function typeOf(options: Readonly<Record<string, OptionConfig>>, name: string): string | undefined {
  return Object.hasOwn(options, name) ? options[name].type : undefined;
}

/** The option whose one-letter form is `short`, or `short` itself. */
function longFor(options: Readonly<Record<string, OptionConfig>>, short: string): string {
  return Object.entries(options).find(([, config]) => config.short === short)?.[0] ?? short;
}

/** The tokens of `args`, as `parseArgs` makes them. */
function toTokens(
  args: readonly string[],
  options: Readonly<Record<string, OptionConfig>>,
): ArgsToken[] {
  const tokens: ArgsToken[] = [];
  const remaining = [...args];
  let index = -1;
  let groupCount = 0;
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    const next = remaining[0];
    if (groupCount > 0) groupCount--;
    else index++;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index });
      for (const value of remaining) tokens.push({ kind: "positional", index: ++index, value });
      break;
    }
    const dashes = arg.startsWith("--");
    if (arg.length === 2 && arg[0] === "-" && arg[1] !== "-") {
      // -x
      const name = longFor(options, arg[1]);
      const takes = typeOf(options, name) === "string" && next !== undefined;
      const value = takes ? remaining.shift() : undefined;
      tokens.push({
        kind: "option",
        name,
        rawName: arg,
        index,
        value,
        inlineValue: takes ? false : undefined,
      });
      if (value !== undefined) index++;
      continue;
    }
    if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const name = longFor(options, arg[1]);
      if (typeOf(options, name) !== "string") {
        // -hv: each letter an option of its own (a string one takes the rest as its value).
        const expanded: string[] = [];
        for (let at = 1; at < arg.length; at++) {
          const letter = longFor(options, arg[at]);
          if (typeOf(options, letter) !== "string" || at === arg.length - 1) {
            expanded.push(`-${arg[at]}`);
          } else {
            expanded.push(`-${arg.slice(at)}`);
            break;
          }
        }
        remaining.unshift(...expanded);
        groupCount = expanded.length;
        continue;
      }
      // -xVALUE, x a string option
      tokens.push({
        kind: "option",
        name,
        rawName: `-${arg[1]}`,
        index,
        value: arg.slice(2),
        inlineValue: true,
      });
      continue;
    }
    if (arg.length > 2 && dashes && !arg.includes("=", 3)) {
      // --name
      const name = arg.slice(2);
      const takes = typeOf(options, name) === "string" && next !== undefined;
      const value = takes ? remaining.shift() : undefined;
      tokens.push({
        kind: "option",
        name,
        rawName: arg,
        index,
        value,
        inlineValue: takes ? false : undefined,
      });
      if (value !== undefined) index++;
      continue;
    }
    if (arg.length > 2 && dashes) {
      // --name=value
      const equals = arg.indexOf("=");
      const name = arg.slice(2, equals);
      tokens.push({
        kind: "option",
        name,
        rawName: `--${name}`,
        index,
        value: arg.slice(equals + 1),
        inlineValue: true,
      });
      continue;
    }
    tokens.push({ kind: "positional", index, value: arg });
  }
  return tokens;
}

/** Refuses what strict mode refuses about one option token. */
function checkUsage(
  token: Extract<ArgsToken, { kind: "option" }>,
  options: Readonly<Record<string, OptionConfig>>,
): void {
  if (!Object.hasOwn(options, token.name)) {
    throw new ArgsError("ERR_PARSE_ARGS_UNKNOWN_OPTION", `Unknown option '${token.rawName}'`);
  }
  const { type, short } = options[token.name];
  const both = `${short ? `-${short}, ` : ""}--${token.name}`;
  if (type === "string" && typeof token.value !== "string") {
    throw new ArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${both} <value>' argument missing`,
    );
  }
  if (type === "boolean" && token.value !== undefined) {
    throw new ArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${both}' does not take an argument`,
    );
  }
  if (
    !token.inlineValue && token.value !== undefined && token.value.length > 1 &&
    token.value[0] === "-"
  ) {
    const example = token.rawName.startsWith("--")
      ? `'${token.rawName}=-XYZ'`
      : `'--${token.name}=-XYZ' or '${token.rawName}-XYZ'`;
    throw new ArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${token.rawName}' argument is ambiguous.\n` +
        `Did you forget to specify the option argument for '${token.rawName}'?\n` +
        `To specify an option argument starting with a dash use ${example}.`,
    );
  }
}
