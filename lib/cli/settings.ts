/**
 * `agent-config/settings.json`, a project's standing choices (one key per setting of the options
 * table; a flag beats it). In `agent-config/`: git ignores it and builds never see it.
 *
 * @module
 */
import { z } from "zod";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { under } from "../file_system/file_system.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { type GivenOptions, SETTINGS_FILE } from "./args.ts";
import { type Workflow, workflowSpec } from "./workflows.ts";
import { type RunOptions, SETTINGS } from "./options.ts";

const EXAMPLE = `{"model": "gpt-5"}`;

const SCHEMA = z.object(
  Object.fromEntries(SETTINGS.map((setting) => [setting.key, setting.schema.optional()])),
).strict();

/**
 * Whether `workflow` takes an option the settings file sets (`--init`, `--rollup`, `--undo` do
 * not: a broken file never stands in the way of setting up or taking a run back). Never throws.
 */
export function readsSettings(workflow: Workflow): boolean {
  const options = workflowSpec(workflow).options;
  return SETTINGS.some((setting) => options.includes(setting.with));
}

/**
 * Reads `agent-config/settings.json` in `root` (nothing when absent) by field of
 * {@link RunOptions}: bounded, and never through a symbolic link.
 * @throws {CodeCommitError} (`EXIT.setup`) naming the file and what is wrong in it.
 */
export async function readSettings(root: string): Promise<GivenOptions> {
  const bytes = await readBounded(under(root, SETTINGS_FILE), {
    limit: READ_LIMITS.settings,
    followSymlink: false,
    name: SETTINGS_FILE,
  }).catch((error) => {
    if (!(error instanceof FileReadError)) throw error;
    throw new CodeCommitError(error.message, EXIT.setup, { cause: error });
  });
  if (bytes === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    const why = (error as Error).message;
    throw setupError(
      `${SETTINGS_FILE} is not JSON: ${why}; write one object such as ${EXAMPLE}, or delete the file`,
    );
  }
  const parsed = SCHEMA.safeParse(json);
  if (!parsed.success) throw settingsError(parsed.error, json as Record<string, unknown>);
  const values: Partial<Record<keyof RunOptions, unknown>> = {};
  for (const setting of SETTINGS) {
    const value = (parsed.data as Record<string, unknown>)[setting.key];
    if (value !== undefined) values[setting.field] = value;
  }
  return values;
}

function setupError(message: string): CodeCommitError {
  return new CodeCommitError(message, EXIT.setup);
}

function settingsError(error: z.ZodError, json: Record<string, unknown>): CodeCommitError {
  const issue = error.issues[0];
  if (issue.path.length === 0 && issue.code === z.ZodIssueCode.invalid_type) {
    return setupError(`${SETTINGS_FILE} must hold one JSON object such as ${EXAMPLE}`);
  }
  if (issue.code === z.ZodIssueCode.unrecognized_keys) {
    const keys = SETTINGS.map((setting) => setting.key).join(", ");
    const key = JSON.stringify(issue.keys[0]);
    return setupError(
      `${SETTINGS_FILE} has the unknown key ${key}; the keys it may hold are ${keys}`,
    );
  }
  // A key's own check says what is wrong and what to do.
  if (issue.code === z.ZodIssueCode.custom && issue.message !== "Invalid input") {
    return setupError(issue.message);
  }
  const key = String(issue.path[0]);
  const allowed = SETTINGS.find((entry) => entry.key === key)?.allowed ?? "nothing";
  return setupError(
    `${SETTINGS_FILE}: ${JSON.stringify(key)} is ${JSON.stringify(json[key])}; it takes ${allowed}`,
  );
}
