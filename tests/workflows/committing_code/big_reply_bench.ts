/**
 * A 2,000-file / 20 MB reply, end to end, beside its yardstick in the same
 * run: the real tool (a subprocess with its production permissions, the
 * fake LLM server on loopback) applies the reply, journal and all, and
 * `tar -x` unpacks the same 2,000 files. The bench prints the extra time of
 * the big reply over a 1-file one as a multiple of `tar -x`, and its extra
 * peak memory (`/usr/bin/time`'s maximum resident size, where installed) as
 * a multiple of the reply's size. Run with `deno task bench`.
 */
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../../support/fake_llm_server.ts";
import { makeProject } from "../../support/project.ts";
import { PERMISSION_FLAGS } from "../../../lib/permissions/permissions.ts";
import { fileURLToPath } from "node:url";

const TOOL_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FILES = 2_000;
const BYTES_PER_FILE = 10_000; // 2,000 × 10 kB = 20 MB
const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
const content = line.repeat(Math.ceil(BYTES_PER_FILE / line.length)).slice(0, BYTES_PER_FILE - 1) +
  "\n";
const pathOf = (i: number) => `src/module${i % 40}/part${i % 7}/file${i}.ts`;
const bigReply = Array.from({ length: FILES }, (_, i) => `^^^${pathOf(i)}\n${content}^^^end\n`)
  .join("");
const smallReply = `^^^src/one.ts\n${content}^^^end\n`;
const hasTime = await Deno.lstat("/usr/bin/time").then(() => true, () => false);

/** The same files, packed once, for `tar -x`. */
const tarball = await (async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-bench-tar-" });
  for (let i = 0; i < FILES; i++) {
    const path = join(folder, "tree", pathOf(i));
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
  const file = join(folder, "reply.tar");
  const packed = await new Deno.Command("tar", {
    args: ["-cf", file, "-C", join(folder, "tree"), "src"],
  })
    .output();
  if (!packed.success) throw new Error("tar -c failed");
  await Deno.remove(join(folder, "tree"), { recursive: true });
  return { folder, file };
})();

const roots: string[] = [tarball.folder];
const times = { tar: [] as number[], small: [] as number[], big: [] as number[] };
const peaks = { small: [] as number[], big: [] as number[] };

/** Runs the real tool once with `reply` in a fresh project; returns its time and peak memory (KiB). */
async function runOnce(reply: string): Promise<{ ms: number; kib: number | undefined }> {
  // Keys as random as real ones, for both models (the tool reads every key file, to mask them
  // all): the test keys share 10- and 11-character runs with the content (`0123456789`,
  // `abcdefghijk`), which makes the key scan look closely at most of it.
  const project = await makeProject({
    rollup: "--- src/one.ts ---\n\n",
    keys: { gemini: `AIzaSy${randomHex(16)}`, openai: `sk-proj-${randomHex(32)}` },
  });
  roots.push(project.root);
  const server = await startFakeLlmServer([geminiReply(reply)]);
  try {
    const tool = [
      Deno.execPath(),
      "run",
      "--quiet",
      "--cached-only",
      "--config",
      `${TOOL_ROOT}deno.json`,
      ...PERMISSION_FLAGS,
      `${TOOL_ROOT}main.ts`,
    ];
    const [program, ...args] = hasTime ? ["/usr/bin/time", "-f", "%M", ...tool] : tool;
    const started = performance.now();
    const output = await new Deno.Command(program, {
      args,
      cwd: project.root,
      env: { NO_COLOR: "1", ...server.env },
      stdout: "null",
      stderr: "piped",
    }).output();
    const ms = performance.now() - started;
    const stderr = new TextDecoder().decode(output.stderr);
    if (!output.success) throw new Error(`the run failed:\n${stderr.slice(-2000)}`);
    const kib = hasTime ? Number(stderr.trim().split("\n").at(-1)) : undefined;
    return { ms, kib };
  } finally {
    await server.close();
  }
}

/** `bytes` random bytes in hexadecimal. */
function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** `tar -x` of the same files into a fresh folder; returns its time. */
async function untar(): Promise<number> {
  const into = await Deno.makeTempDir({ prefix: "code-commit-bench-untar-" });
  roots.push(into);
  const started = performance.now();
  const unpacked = await new Deno.Command("tar", { args: ["-xf", tarball.file, "-C", into] })
    .output();
  const ms = performance.now() - started;
  if (!unpacked.success) throw new Error("tar -x failed");
  return ms;
}

/** Per iteration: the big reply's extra time over the small one, and tar -x, measured side by side. */
const ratios: number[] = [];

Deno.bench({
  name: `code-commit with the ${FILES}-file, 20 MB reply (journal, checks, logs and all)`,
  group: "big reply",
  n: 5,
  warmup: 1,
  async fn(b) {
    // The yardstick and the 1-file run right before the measured run, every time: this
    // machine's disk is shared, so only measurements taken side by side compare.
    const tar = await untar();
    const small = await runOnce(smallReply);
    b.start();
    const big = await runOnce(bigReply);
    b.end();
    times.tar.push(tar);
    times.small.push(small.ms);
    times.big.push(big.ms);
    ratios.push((big.ms - small.ms) / tar);
    if (small.kib !== undefined) peaks.small.push(small.kib);
    if (big.kib !== undefined) peaks.big.push(big.kib);
  },
});

Deno.bench({
  name: `tar -x of the same ${FILES} files (${(bigReply.length / 1e6).toFixed(0)} MB)`,
  group: "big reply",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn(b) {
    b.start();
    await untar();
    b.end();
  },
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
}

globalThis.addEventListener("unload", () => {
  const tar = median(times.tar);
  const extra = median(times.big) - median(times.small);
  if (ratios.length > 0) {
    console.log(
      `\nbig reply: extra time over a 1-file run ${extra.toFixed(0)} ms, tar -x ${
        tar.toFixed(0)
      } ms (medians); side by side, the extra time is ${median(ratios).toFixed(2)} × tar -x ` +
        `(median of ${ratios.length}; ${
          ratios.map((ratio) => ratio.toFixed(1)).join(", ")
        }; goal ≤ 2×)`,
    );
  }
  if (peaks.big.length > 0 && peaks.small.length > 0) {
    const mib = (median(peaks.big) - median(peaks.small)) / 1024;
    const reply = bigReply.length / 2 ** 20;
    console.log(
      `big reply: extra peak memory ${mib.toFixed(0)} MiB = ${(mib / reply).toFixed(2)} × the ` +
        `reply's ${reply.toFixed(0)} MiB (peak ${(median(peaks.big) / 1024).toFixed(0)} MiB, ` +
        `a 1-file run ${(median(peaks.small) / 1024).toFixed(0)} MiB; goal ≤ 3×)`,
    );
  }
  for (const root of roots) {
    try {
      Deno.removeSync(root, { recursive: true });
    } catch {
      // gone
    }
  }
});
