/**
 * `code-commit --rollup`: writes `agent-config/codeRollup.txt` from every file git would track and
 * prints one summary line. No key, no LLM call.
 * @module
 */
import type { Console } from "../../console/console.ts";
import { EXIT, type ExitStatus } from "../../errors/errors.ts";
import { READ_LIMITS } from "../../file_system/read_limits.ts";
import { KEY_FILES } from "../../llm/models.ts";
import { describeLargest, shrinkAdvice } from "../../llm/budget.ts";
import { utf8Length } from "../../text/tokens.ts";
import { CODE_ROLLUP_FILE } from "../../preconditions/preconditions.ts";
import { formatBytes } from "../../text/sizes.ts";
import { checkRepositoryRoot } from "../../preconditions/repository.ts";
import { describeRollup, filesHolding, makeRollup, writeRollup } from "../../rollup/rollup.ts";
import { readKnownKeys } from "../../secrets/keys.ts";
import { Redactor } from "../../secrets/redact.ts";

/**
 * Writes the rollup of `root`, warns of each file holding a key (a prompt holding one is refused)
 * and prints the summary line; returns 0.
 * @throws {CodeCommitError} outside a repository's root, or when the rollup cannot be made or
 * written safely.
 */
export async function runRollup(root: string, console: Console): Promise<ExitStatus> {
  await checkRepositoryRoot(root, true);
  const keys = await readKnownKeys(root, KEY_FILES);
  console.useRedactor(new Redactor(keys));
  const rollup = await makeRollup(root);
  await writeRollup(root, rollup);
  for (const path of filesHolding(rollup, keys)) {
    console.warn(
      `${path} holds an API key from agent-config/: code-commit refuses to send a prompt that ` +
        `holds a key, so remove the key from ${path} (and change it, if it was ever committed)`,
    );
  }
  const bytes = utf8Length(rollup.text);
  if (bytes > READ_LIMITS.codeRollup.bytes) {
    console.warn(
      `${CODE_ROLLUP_FILE} is ${formatBytes(bytes)}, more than the ${
        formatBytes(READ_LIMITS.codeRollup.bytes)
      } a run reads from it; ${describeLargest(rollup.text)}: ${shrinkAdvice()}`,
    );
  }
  console.result(describeRollup(rollup));
  return EXIT.ok;
}
