/**
 * Reading API keys from `agent-config/`.
 * @module
 */
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { FileReadError, readBounded, type ReadProblem } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { codePointName, findControlCharacter } from "../text/characters.ts";
import { plural } from "../text/plural.ts";
import { under } from "../file_system/file_system.ts";

/** Shortest key accepted: a shorter one could not be masked and is surely a mistake. */
const MIN_KEY_LENGTH = 8;

/**
 * The key file's text (a link followed), or undefined when there is none. A hard-linked key file
 * is refused: the other name is neither hidden by the sandbox nor ignored by git.
 */
async function readKeyFile(root: string, keyFile: string): Promise<string | undefined> {
  const bytes = await readBounded(under(root, keyFile), {
    limit: READ_LIMITS.apiKey,
    followSymlink: true,
    refuseHardLinks: true,
    name: keyFile,
  }).catch((error) => {
    if (!(error instanceof FileReadError) || error.problem !== "hard-link") throw error;
    throw new FileReadError(
      `${keyFile} has more than one hard link: the key has another name, which a build may ` +
        `read or git may commit; delete that name (find / -samefile ${keyFile} lists them), ` +
        "or, to share one key file between projects, use a symbolic link",
      keyFile,
      "hard-link",
      { cause: error },
    );
  });
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/**
 * Reads the key in `keyFile` (relative to `root`), trimmed. @throws {CodeCommitError} naming the
 * file when missing, not a regular file, hard-linked, too large, empty, too short, or not one
 * printable ASCII token (a header takes one).
 */
export async function readApiKey(root: string, keyFile: string, vendor: string): Promise<string> {
  const text = await readKeyFile(root, keyFile).catch((error) => {
    if (!(error instanceof FileReadError) || error.problem !== "folder") throw error;
    throw new CodeCommitError(
      `${keyFile} cannot be read: it is a folder; put your ${vendor} API key in a file of that name`,
      EXIT.setup,
    );
  });
  if (text === undefined) {
    throw new CodeCommitError(
      `${keyFile} not found: put your ${vendor} API key in it (agent-config/ is ignored by git)`,
      EXIT.setup,
    );
  }
  const key = text.trim();
  const problem = keyProblem(key, vendor);
  if (problem !== undefined) throw new CodeCommitError(`${keyFile} ${problem}`, EXIT.setup);
  return key;
}

/** What is wrong with a key file's trimmed text, after its name; undefined for a key. */
function keyProblem(key: string, vendor: string): string | undefined {
  if (key === "") return `is empty: put your ${vendor} API key in it`;
  if (/\s/.test(key) || findControlCharacter(key) !== undefined) {
    return "has white space or control characters inside the key; the file must hold the key alone";
  }
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(key);
  if (assignment || /^["']|["']$/.test(key)) {
    return `holds ${
      assignment ? `an assignment (${assignment[1]}=…)` : "a quoted value"
    }; the file must hold the key alone, with nothing around it`;
  }
  const foreign = /[^\x21-\x7e]/.exec(key);
  if (foreign) {
    return `holds ${codePointName(foreign[0])} at character ${foreign.index + 1}, which no API ` +
      "key has (keys are plain ASCII): copy the key into the file again";
  }
  if (key.length < MIN_KEY_LENGTH) {
    const count = plural(key.length, "character");
    return `holds only ${count}, too short for an API key; check the file`;
  }
  return undefined;
}

const SKIPPED: ReadonlySet<ReadProblem> = new Set(["folder", "special", "unreadable"]);

/** Shortest token of a key file taken for a key when redacting: real keys are 39+ characters. */
const MIN_REDACTED_TOKEN = 20;

/**
 * Reads every key file among `keyFiles` for redaction (an unused model's key must not leak either):
 * the trimmed text and each key-shaped token in it. @throws {FileReadError} when one is too large,
 * swapped or hard-linked: a key not known cannot be masked.
 */
export async function readKnownKeys(root: string, keyFiles: readonly string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const keyFile of keyFiles) {
    const text = await readKeyFile(root, keyFile).catch((error) => {
      if (error instanceof FileReadError && SKIPPED.has(error.problem)) return undefined;
      throw error;
    });
    if (text === undefined) continue;
    const trimmed = text.trim();
    if (trimmed.length >= MIN_KEY_LENGTH) keys.push(trimmed);
    for (const word of trimmed.split(/\s+/)) {
      const token = word.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, "").replace(/^["']+|["']+$/g, "");
      if (token.length >= MIN_REDACTED_TOKEN) keys.push(token);
    }
  }
  return keys;
}
