import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { type OptionConfig, parseStrictArgs } from "../../lib/cli/strict_args.ts";

/** Options of every shape code-commit's have, and a short string one besides. */
const OPTIONS: Record<string, OptionConfig> = {
  "help": { type: "boolean", short: "h" },
  "version": { type: "boolean" },
  "model": { type: "string" },
  "build-timeout": { type: "string" },
  "cc": { type: "boolean" },
  "dry-run": { type: "boolean" },
  "output": { type: "string", short: "o" },
};

/** What node:util's parseArgs says, in the shape compared. */
function reference(args: string[]): unknown {
  try {
    const parsed = parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    return { values: { ...parsed.values }, tokens: parsed.tokens };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

function ours(args: string[]): unknown {
  try {
    const parsed = parseStrictArgs(args, OPTIONS);
    return {
      values: { ...parsed.values },
      tokens: parsed.tokens.map((token) =>
        Object.fromEntries(Object.entries(token).filter(([, value]) => value !== undefined))
      ),
    };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

/** parseArgs leaves `value` and `inlineValue` out of a token that has none; ours sets them undefined. */
function withoutUndefined(result: unknown): unknown {
  const value = result as { tokens?: Record<string, unknown>[] };
  if (value.tokens === undefined) return result;
  return {
    ...value,
    tokens: value.tokens.map((token) =>
      Object.fromEntries(Object.entries(token).filter(([, field]) => field !== undefined))
    ),
  };
}

const WORDS = [
  "--help",
  "-h",
  "--version",
  "--model",
  "gpt-5",
  "--model=x",
  "--model=",
  "--cc",
  "--cc=1",
  "--dry-run",
  "-hx",
  "-xh",
  "-hh",
  "-ho",
  "-oh",
  "-ofile",
  "-o",
  "--output=-",
  "--",
  "-",
  "pos",
  "--build-timeout",
  "600",
  "--build-timeout=-1",
  "-1",
  "-h=1",
  "--=x",
  "---x",
  "--constructor",
  "--__proto__",
  "--toString=1",
  "-x",
  "",
  "--unknown",
  "--unknown=3",
];

Deno.test("parseStrictArgs reads every command line as parseArgs does: tokens, values, errors", () => {
  const lines: string[][] = WORDS.map((word) => [word]);
  for (const a of WORDS) for (const b of WORDS) lines.push([a, b]);
  let state = 7;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < 3000; i++) {
    lines.push(
      Array.from(
        { length: 1 + Math.floor(random() * 5) },
        () => WORDS[Math.floor(random() * WORDS.length)],
      ),
    );
  }
  for (const args of [[], ...lines]) {
    assert.deepEqual(ours(args), withoutUndefined(reference(args)), JSON.stringify(args));
  }
});
