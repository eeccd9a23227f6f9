/**
 * A 2,000-file / 20 MB reply, end to end, beside its yardstick: the real
 * tool (as `./code-commit`'s launcher runs it, against the fake LLM server
 * on loopback) applies the reply, journal, checks, logs and build and all,
 * and `tar -x` unpacks the same 2,000 files. Each round measures, side by
 * side (this machine's disk is shared, so only measurements taken together
 * compare): `tar -x` into a fresh folder, a run whose reply is one file, and
 * the run with the big reply. The figures: the big run's extra time over
 * the 1-file run as a multiple of `tar -x`, and its extra peak memory
 * (`/usr/bin/time`'s maximum resident size) as a multiple of the reply's
 * size. `tests/bench/yardsticks.ts` prints them in its table.
 *
 * @module
 */
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";

/** How many files the big reply writes. */
export const BIG_REPLY_FILES = 2_000;
const BYTES_PER_FILE = 10_000; // 2,000 × 10 kB = 20 MB
const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
const content = line.repeat(Math.ceil(BYTES_PER_FILE / line.length)).slice(0, BYTES_PER_FILE - 1) +
  "\n";
const pathOf = (i: number) => `src/module${i % 40}/part${i % 7}/file${i}.ts`;

/** The big reply's text: 2,000 files of 10 kB in 280 folders. */
export const BIG_REPLY = Array.from(
  { length: BIG_REPLY_FILES },
  (_, i) => `^^^${pathOf(i)}\n${content}^^^end\n`,
).join("");
const SMALL_REPLY = `^^^src/one.ts\n${content}^^^end\n`;

/** What the rounds measured, each a median. */
export interface BigReplyFigures {
  /** `tar -x` of the same files, in milliseconds. */
  readonly tarMs: number;
  /** The 1-file run, in milliseconds. */
  readonly smallMs: number;
  /** The big run, in milliseconds. */
  readonly bigMs: number;
  /**
   * The big run's extra time over the 1-file run, as a multiple of `tar -x`
   * measured in the same round: the median of the rounds'.
   */
  readonly ratio: number;
  /** Each round's ratio, in order. */
  readonly ratios: readonly number[];
  /** The big run's peak memory, in MiB (undefined without /usr/bin/time). */
  readonly bigMiB?: number;
  /** The 1-file run's peak memory, in MiB (undefined without /usr/bin/time). */
  readonly smallMiB?: number;
  /** The reply's size, in MiB. */
  readonly replyMiB: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `bytes` random bytes in hexadecimal. */
function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * Measures `rounds` rounds (after one warm-up round) of the big reply
 * against `tar -x`, running the tool with `tool` (a launcher path), with
 * scratch folders made under `base`.
 *
 * @throws {Error} when a run or `tar` fails.
 */
export async function measureBigReply(
  tool: string,
  base: string,
  rounds: number,
): Promise<BigReplyFigures> {
  const hasTime = await Deno.lstat("/usr/bin/time").then(() => true, () => false);
  // The same files, packed once, for `tar -x`.
  const tarFolder = await Deno.makeTempDir({ dir: base, prefix: "tar-" });
  for (let i = 0; i < BIG_REPLY_FILES; i++) {
    const path = join(tarFolder, "tree", pathOf(i));
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
  const tarball = join(tarFolder, "reply.tar");
  const packed = await new Deno.Command("tar", {
    args: ["-cf", tarball, "-C", join(tarFolder, "tree"), "src"],
  }).output();
  if (!packed.success) throw new Error("tar -c failed");
  await Deno.remove(join(tarFolder, "tree"), { recursive: true });

  const untar = async (): Promise<number> => {
    const into = await Deno.makeTempDir({ dir: base, prefix: "untar-" });
    const started = performance.now();
    const unpacked = await new Deno.Command("tar", { args: ["-xf", tarball, "-C", into] })
      .output();
    const ms = performance.now() - started;
    if (!unpacked.success) throw new Error("tar -x failed");
    await Deno.remove(into, { recursive: true });
    return ms;
  };

  /** One run of the tool with `reply` in a fresh project: its time and peak memory (KiB). */
  const runOnce = async (reply: string): Promise<{ ms: number; kib?: number }> => {
    // Keys as random as real ones (the tool masks every key file it finds).
    const project = await makeProject({
      rollup: "--- src/one.ts ---\n\n",
      keys: { gemini: `AIzaSy${randomHex(16)}`, openai: `sk-proj-${randomHex(32)}` },
    });
    const server = await startFakeLlmServer([geminiReply(reply)]);
    try {
      const [program, ...args] = hasTime ? ["/usr/bin/time", "-f", "%M", tool] : [tool];
      const started = performance.now();
      const output = await new Deno.Command(program, {
        args,
        cwd: project.root,
        env: { NO_COLOR: "1", ...server.env },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      const ms = performance.now() - started;
      const stderr = new TextDecoder().decode(output.stderr);
      if (!output.success) throw new Error(`the run failed:\n${stderr.slice(-2000)}`);
      return { ms, kib: hasTime ? Number(stderr.trim().split("\n").at(-1)) : undefined };
    } finally {
      await server.close();
      await Deno.remove(project.root, { recursive: true });
    }
  };

  const tar: number[] = [];
  const small: number[] = [];
  const big: number[] = [];
  const ratios: number[] = [];
  const smallKib: number[] = [];
  const bigKib: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    // The yardstick and the 1-file run right before the big run, every round.
    const tarMs = await untar();
    const one = await runOnce(SMALL_REPLY);
    const all = await runOnce(BIG_REPLY);
    if (round === 0) continue; // the warm-up
    tar.push(tarMs);
    small.push(one.ms);
    big.push(all.ms);
    ratios.push((all.ms - one.ms) / tarMs);
    if (one.kib !== undefined && all.kib !== undefined) {
      smallKib.push(one.kib);
      bigKib.push(all.kib);
    }
  }
  await Deno.remove(tarFolder, { recursive: true });
  return {
    tarMs: median(tar),
    smallMs: median(small),
    bigMs: median(big),
    ratio: median(ratios),
    ratios,
    bigMiB: bigKib.length > 0 ? median(bigKib) / 1024 : undefined,
    smallMiB: smallKib.length > 0 ? median(smallKib) / 1024 : undefined,
    replyMiB: BIG_REPLY.length / 2 ** 20,
  };
}
