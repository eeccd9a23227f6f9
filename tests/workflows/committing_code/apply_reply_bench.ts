/**
 * Parse + guard + apply for one large reply: 2,000 files, 20 MB, in nested
 * folders of a project with nested .gitignore files; and the apply alone,
 * with the journal kept in memory or on disk (written and synced before the
 * first write), for new files and for replaced ones (whose 20 MB of
 * pre-images the journal copies), each pair measured side by side. Run with
 * `deno task bench`.
 */
import { join } from "node:path";
import { applyOperations } from "../../../lib/apply/apply.ts";
import { memoryJournal, RunJournal } from "../../../lib/apply/journal.ts";
import { guardOperations } from "../../../lib/guard/guard.ts";
import { parseReply } from "../../../lib/reply/parse.ts";

const FILES = 2_000;
const BYTES_PER_FILE = 10_000; // 2,000 × 10 kB = 20 MB

const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
const content = line.repeat(Math.ceil(BYTES_PER_FILE / line.length)).slice(0, BYTES_PER_FILE - 1) +
  "\n";
const pathOf = (i: number) => `src/module${i % 40}/part${i % 7}/file${i}.ts`;
const reply = Array.from({ length: FILES }, (_, i) => `^^^${pathOf(i)}\n${content}^^^end\n`)
  .join("");

/** A project with nested .gitignore files; with `existing`, the reply's files are there already. */
async function project(existing = false): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "code-commit-bench-" });
  await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\nnode_modules/\n*.log\n");
  for (let m = 0; m < 40; m++) {
    await Deno.mkdir(join(root, `src/module${m}`), { recursive: true });
    await Deno.writeTextFile(
      join(root, `src/module${m}/.gitignore`),
      "*.tmp\n!keep.tmp\n/build/\n",
    );
  }
  if (existing) {
    for (let i = 0; i < FILES; i++) {
      const path = join(root, pathOf(i));
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, `old ${i}\n`.repeat(1_000));
    }
  }
  return root;
}

const roots: string[] = [];

Deno.bench({
  name: `parse a ${FILES}-file, ${(reply.length / 1e6).toFixed(0)} MB reply`,
  group: "apply",
  fn() {
    const parsed = parseReply(reply);
    if (!parsed.ok || parsed.operations.length !== FILES) throw new Error("parse failed");
  },
});

const parsed = parseReply(reply);
if (!parsed.ok) throw new Error(parsed.reason);

Deno.bench({
  name: `guard ${FILES} paths (nested .gitignore, lstat of every folder)`,
  group: "apply",
  async fn(b) {
    const root = await project();
    roots.push(root);
    b.start();
    const guarded = await guardOperations(root, parsed.operations);
    b.end();
    if (!guarded.ok) throw new Error("guard refused");
  },
});

Deno.bench({
  name: `parse + guard + apply ${FILES} files, 20 MB (new folders, atomic writes, the journal)`,
  group: "apply",
  baseline: true,
  async fn(b) {
    const root = await project();
    roots.push(root);
    b.start();
    const again = parseReply(reply);
    if (!again.ok) throw new Error(again.reason);
    const guarded = await guardOperations(root, again.operations);
    if (!guarded.ok) throw new Error("guard refused");
    const journal = new RunJournal(root, { workflow: "bench" });
    const applied = await applyOperations(root, guarded.operations, { journal });
    b.end();
    if (applied.changes.length !== FILES) throw new Error("apply incomplete");
  },
});

/** The journal's cost, side by side: [in memory, on disk] per iteration, for new and replaced files. */
const pairs: Record<"created" | "replaced", [number, number][]> = { created: [], replaced: [] };

for (const kind of ["created", "replaced"] as const) {
  Deno.bench({
    name: `apply ${FILES} ${kind} files: the journal in memory, then on disk (side by side)`,
    group: "journal",
    n: 6,
    warmup: 1,
    async fn(b) {
      const [memory, disk] = [
        await project(kind === "replaced"),
        await project(kind === "replaced"),
      ];
      roots.push(memory, disk);
      b.start();
      let started = performance.now();
      await applyOperations(memory, parsed.operations, { journal: memoryJournal() });
      const inMemory = performance.now() - started;
      started = performance.now();
      const journal = new RunJournal(disk, { workflow: "bench" });
      await applyOperations(disk, parsed.operations, { journal });
      const onDisk = performance.now() - started;
      b.end();
      pairs[kind].push([inMemory, onDisk]);
    },
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
}

globalThis.addEventListener("unload", () => {
  for (const kind of ["created", "replaced"] as const) {
    if (pairs[kind].length === 0) continue;
    const ratio = median(pairs[kind].map(([memory, disk]) => disk / memory));
    console.log(
      `journal, ${FILES} ${kind} files: in memory ${
        median(pairs[kind].map(([m]) => m)).toFixed(0)
      } ms, ` +
        `on disk ${median(pairs[kind].map(([, d]) => d)).toFixed(0)} ms: ${ratio.toFixed(2)} × ` +
        `(median of the side-by-side ratios; goal ≤ 1.5× of an apply without it)`,
    );
  }
  for (const root of roots) Deno.removeSync(root, { recursive: true });
});
