/**
 * A write past the file size limit (`ulimit -f`), in real subprocesses:
 * silent death by SIGXFSZ by default; with `reportOversizeWrites`, an
 * error ("File too large") the program can report.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Runs a script that writes 17 MiB under a 16 MiB limit; `listen` installs the listener first. */
async function writePastLimit(
  listen: boolean,
): Promise<{ code: number; signal: Deno.Signal | null; text: string }> {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-limit-" });
  try {
    const script = `${folder}/script.ts`;
    await Deno.writeTextFile(
      script,
      `import { reportOversizeWrites } from "${TOOL_ROOT}lib/cli/signals.ts";
${listen ? "reportOversizeWrites();" : ""}
try {
  Deno.writeFileSync("${folder}/big", new Uint8Array(17 * 1024 * 1024));
  console.log("written");
} catch (error) {
  console.log(String(error));
}
`,
    );
    // Deno writes its own caches as it starts: a cache folder of its own keeps them small, under
    // the limit (a shared one may have grown past it), and the script needs nothing cached.
    const output = await new Deno.Command("sh", {
      env: { DENO_DIR: `${folder}/deno_dir` },
      args: [
        "-c",
        `ulimit -f ${16 * 1024} && exec "$@"`,
        "sh",
        Deno.execPath(),
        "run",
        "--quiet",
        "--cached-only",
        "--config",
        `${TOOL_ROOT}deno.json`,
        "-A",
        script,
      ],
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    return { code: output.code, signal: output.signal, text };
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test("with reportOversizeWrites, a write past the file size limit is an error naming the file, not SIGXFSZ", async () => {
  const silent = await writePastLimit(false);
  assert.equal(silent.signal ?? `exit ${silent.code}`, "SIGXFSZ", "by default the kernel kills");
  assert.equal(silent.text, "");
  const reported = await writePastLimit(true);
  assert.equal(reported.code, 0);
  assert.match(reported.text, /File too large \(os error 27\).*\/big/);
});
