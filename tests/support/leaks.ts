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

/** Undoes JSON string escapes wherever they stand, three times over (JSON in JSON in JSON). */
export function unescapeJson(text: string): string {
  const short: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
  let out = text;
  for (let level = 0; level < 3; level++) {
    out = out.replace(
      /\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g,
      (_, escape: string) =>
        escape.length === 5
          ? String.fromCharCode(parseInt(escape.slice(1), 16))
          : short[escape] ?? escape,
    );
  }
  return out;
}

/** Every string of a JSON value (keys and values), joined by line feeds. */
function jsonStrings(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return "";
  return Object.entries(value).map(([key, item]) => `${key}\n${jsonStrings(item)}`).join("\n");
}

/**
 * Fails when `text` holds any 12 characters of a key: as it stands, with
 * its JSON escapes undone, or (when it parses as JSON) in any of its
 * strings, decoded. `name` says where the text is from.
 */
export function assertNoKeyInAnyForm(text: string, name: string): void {
  const forms = [text, unescapeJson(text)];
  try {
    forms.push(jsonStrings(JSON.parse(text)));
  } catch {
    // Not JSON (an error body, a cut stream): its escapes were undone above.
  }
  for (const form of forms) {
    for (const key of KEYS) {
      for (let at = 0; at + 12 <= key.length; at++) {
        const run = key.slice(at, at + 12);
        assert(!form.includes(run), `${name} holds ${run}, part of a key`);
      }
    }
  }
}

/**
 * Fails when a log file under `root/logs`, or what `runs` printed, holds
 * any form of a key {@link assertNoKeyInAnyForm} looks for. Returns the
 * log files it read.
 */
export async function assertNoKeyInLogs(root: string, runs: readonly ToolRun[]): Promise<string[]> {
  const read: string[] = [];
  for (const path of await listFiles(root, "logs")) {
    assertNoKeyInAnyForm(await Deno.readTextFile(join(root, path)), path);
    read.push(path);
  }
  for (const run of runs) {
    assertNoKeyInAnyForm(run.stdout, "stdout");
    assertNoKeyInAnyForm(run.stderr, "stderr");
  }
  return read;
}
