/**
 * Reading API keys from `agent-config/`.
 *
 * @module
 */
import { join } from "node:path";
import { CodeCommitError } from "../errors/errors.ts";
import { codePointName, findControlCharacter } from "../text/characters.ts";
import { plural } from "../text/plural.ts";

/** Shortest key accepted: a shorter one could not be masked and is surely a mistake. */
const MIN_KEY_LENGTH = 8;

/**
 * Reads the key in `keyFile` (relative to `root`), white space around it
 * trimmed.
 *
 * @throws {CodeCommitError} naming the file when it is missing, empty,
 * shorter than {@link MIN_KEY_LENGTH}, or has anything but printable ASCII
 * inside the key (a key sent in a header must be one plain token: a
 * zero-width space copied along with it would make every request fail).
 */
export async function readApiKey(root: string, keyFile: string, vendor: string): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(root, keyFile));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new CodeCommitError(
        `${keyFile} not found: put your ${vendor} API key in it (agent-config/ is ignored by git)`,
      );
    }
    throw new CodeCommitError(`${keyFile} cannot be read: ${(error as Error).message}`);
  }
  const key = text.trim();
  if (key === "") {
    throw new CodeCommitError(`${keyFile} is empty: put your ${vendor} API key in it`);
  }
  if (/\s/.test(key) || findControlCharacter(key) !== undefined) {
    throw new CodeCommitError(
      `${keyFile} has white space or control characters inside the key; the file must hold the key alone`,
    );
  }
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(key);
  if (assignment || /^["']|["']$/.test(key)) {
    throw new CodeCommitError(
      `${keyFile} holds ${
        assignment ? `an assignment (${assignment[1]}=…)` : "a quoted value"
      }; the file must hold the key alone, with nothing around it`,
    );
  }
  const foreign = /[^\x21-\x7e]/.exec(key);
  if (foreign) {
    throw new CodeCommitError(
      `${keyFile} holds ${codePointName(foreign[0])} at character ${
        foreign.index + 1
      }, which no API key has ` +
        `(keys are plain ASCII): copy the key into the file again`,
    );
  }
  if (key.length < MIN_KEY_LENGTH) {
    throw new CodeCommitError(
      `${keyFile} holds only ${
        plural(key.length, "character")
      }, too short for an API key; check the file`,
    );
  }
  return key;
}

/** Shortest token of a key file taken for a key when redacting: real keys are 39+ characters. */
const MIN_REDACTED_TOKEN = 20;

/**
 * Reads every key file that exists among `keyFiles`, for redaction: a key
 * of a model not used in this run must not leak either. The whole trimmed
 * content counts as a key, and so does every key-shaped token in it (20 or
 * more characters with no quote, and the value of a `NAME=value` line), so
 * a file holding a key and a note still has its key masked, while ordinary
 * words in the note are not. Missing or unreadable files are skipped (the
 * chosen model's file is checked strictly by {@link readApiKey}).
 */
export async function readKnownKeys(root: string, keyFiles: readonly string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const keyFile of keyFiles) {
    let text: string;
    try {
      text = await Deno.readTextFile(join(root, keyFile));
    } catch {
      continue; // Not there, or not readable: nothing to redact.
    }
    const trimmed = text.trim();
    if (trimmed.length >= MIN_KEY_LENGTH) keys.push(trimmed);
    for (const word of trimmed.split(/\s+/)) {
      const token = word.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, "").replace(/^["']+|["']+$/g, "");
      if (token.length >= MIN_REDACTED_TOKEN) keys.push(token);
    }
  }
  return keys;
}
