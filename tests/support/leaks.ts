/**
 * The check every end-to-end test ends with: no API key anywhere it must
 * not be — in the name or content of any file of the project outside
 * agent-config/, in what the tool printed, or in any URL it requested.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { FakeLlmServer } from "./fake_llm_server.ts";
import { listFiles } from "./project.ts";
import type { ToolRun } from "./run_tool.ts";
import { GEMINI_KEY, OPENAI_KEY } from "./project.ts";

const KEYS = [GEMINI_KEY, OPENAI_KEY];

/**
 * Fails when a key appears in the path or content of any file under `root`
 * (agent-config/ and .git/ aside), in the run's stdout or stderr, or in a
 * requested URL.
 * Returns how many files it scanned, so a test can check it scanned some.
 */
export async function assertNoKeyLeak(
  root: string,
  runs: readonly ToolRun[],
  server?: FakeLlmServer,
): Promise<number> {
  let scanned = 0;
  for (const path of await listFiles(root)) {
    if (path.startsWith("agent-config/") || path.startsWith(".git/")) continue;
    for (const key of KEYS) assert(!path.includes(key), `the key leaked into the path ${path}`);
    const bytes = await Deno.readFile(join(root, path));
    const text = new TextDecoder().decode(bytes);
    for (const key of KEYS) assert(!text.includes(key), `the key leaked into ${path}`);
    scanned++;
  }
  for (const run of runs) {
    for (const key of KEYS) {
      assert(!run.stdout.includes(key), "a key leaked to stdout");
      assert(!run.stderr.includes(key), "a key leaked to stderr");
    }
  }
  for (const request of server?.requests ?? []) {
    for (const key of KEYS) {
      assert(!request.path.includes(key), `a key was sent in the URL ${request.path}`);
      assert(!request.bodyText.includes(key), "a key was sent in a request body");
    }
  }
  return scanned;
}
