/**
 * A folder swapped for a link while a reply is applied, for real: a
 * concurrent process (`tests/support/flipper.ts`) flips `src/d` between
 * itself and a symbolic link to a folder outside the project as soon as
 * the applier starts writing into it. The applier must notice (its checks
 * right after each temporary file is created and before each rename), stop,
 * remove every file it made wherever it landed, roll back, and refuse the
 * reply naming the link: afterwards the folder outside holds exactly what
 * it held, and the project is exactly as before.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { geminiError, geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { listFiles, makeProject, tempProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const FLIPPER = fileURLToPath(new URL("../support/flipper.ts", import.meta.url));

/** Every file under `root` but `.git/`, `logs/` and the journal, path → content. */
async function files(root: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  for (const path of await listFiles(root)) {
    if (path.startsWith(".git/") || path.startsWith("logs/")) continue;
    if (path.startsWith("agent-config/journal/")) continue;
    result.set(path, await Deno.readTextFile(join(root, path)));
  }
  return result;
}

/**
 * Runs a 1,540-file reply (a third of it in `src/d`, which holds 40 files
 * the reply replaces) while the flipper flips `src/d` once it sees
 * `trigger` there (a temporary file when undefined), and checks the
 * outcome.
 */
async function flippedRun(trigger: string | undefined): Promise<void> {
  await using outside = await tempProject({ "theirs.txt": "not yours\n" });
  const start: Record<string, string> = {};
  for (let i = 0; i < 40; i++) start[`src/d/existing${i}.ts`] = `export const e${i} = ${i};\n`;
  await using project = await makeProject({ files: start });
  const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n";
  const reply = Array.from({ length: 1_500 }, (_, i) => {
    const path = i % 3 === 0 ? `src/d/file${i}.ts` : `src/other${i % 20}/file${i}.ts`;
    return `^^^${path}\n${line.repeat(30)}^^^end\n`;
  }).join("") + Array.from({ length: 40 }, (_, i) =>
    `^^^src/d/existing${i}.ts\n// replaced\n^^^end\n`).join("");
  const before = await files(project.root);
  const server = await startFakeLlmServer([
    geminiReply(reply),
    geminiError(400, "no more replies in this test", "INVALID_ARGUMENT"),
  ]);
  let flipper: Deno.ChildProcess | undefined;
  let flips = "";
  try {
    const run = await runTool(project.root, [], {
      server,
      onSpawn: () => {
        flipper = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--quiet",
            FLIPPER,
            project.root,
            "src/d",
            outside.root,
            ...(trigger === undefined ? [] : [trigger]),
          ],
          stdout: "piped",
          stderr: "inherit",
        }).spawn();
      },
    });
    flipper!.kill("SIGTERM");
    flips = new TextDecoder().decode((await flipper!.output()).stdout).trim();
    assert.ok(Number(flips) > 0, `the flipper never flipped (${flips}): ${run.stderr}`);

    if (Deno.env.get("SHOW_FLIPS")) console.log(`flips: ${flips}\n${run.stderr}`);
    // The script holds one reply: the repair call gets the fake server's error (exit 4).
    assert.equal(run.code, 4, run.stderr);
    assert.match(
      run.stderr,
      /the reply was not applied, nothing from it was written: could not write "src\/d\/[^"]+": "src\/d" was (swapped for a symbolic link|swapped for another folder|moved away)[^.]* while code-commit was writing into it .*code-commit never writes through a link\. Every change already made by this reply was rolled back: the project is exactly as it was before/,
    );
    // Nothing of the reply outside, not even an empty temporary file.
    assert.deepEqual(await listFiles(outside.root), ["theirs.txt"]);
    assert.equal(await outside.read("theirs.txt"), "not yours\n");
    // The project as it was (the folder is back in place: the flipper ends that way).
    assert.ok((await Deno.lstat(join(project.root, "src/d"))).isDirectory);
    const after = await files(project.root);
    // The run's object (runTool checks it) is the one new file.
    assert.deepEqual([...after.keys()], [...before.keys(), LAST_RUN_FILE].sort());
    for (const [path, content] of before) assert.equal(after.get(path), content, path);
  } finally {
    try {
      flipper?.kill("SIGTERM");
      await flipper?.status;
    } catch {
      // ended already
    }
    await server.close();
  }
}

Deno.test("a folder flipped to a link out of the project while the temporary files are written: nothing lands outside, everything is rolled back, the reply is refused naming the link", async () => {
  await flippedRun(undefined);
});

Deno.test("a folder flipped to a link out of the project once the renames began: the renamed files are taken back through the flips, nothing lands outside, the reply is refused naming the link", async () => {
  await flippedRun("file0.ts");
});
