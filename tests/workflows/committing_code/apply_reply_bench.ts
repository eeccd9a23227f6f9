/**
 * Parse + guard + apply for one large reply: 2,000 files, 20 MB, in nested
 * folders of a project with nested .gitignore files. Run with
 * `deno task bench`.
 */
import { join } from "node:path";
import { applyOperations } from "../../../lib/apply/apply.ts";
import { guardOperations } from "../../../lib/guard/guard.ts";
import { parseReply } from "../../../lib/reply/parse.ts";

const FILES = 2_000;
const BYTES_PER_FILE = 10_000; // 2,000 × 10 kB = 20 MB

const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
const content = line.repeat(Math.ceil(BYTES_PER_FILE / line.length)).slice(0, BYTES_PER_FILE - 1) +
  "\n";
const reply = Array.from(
  { length: FILES },
  (_, i) => `^^^src/module${i % 40}/part${i % 7}/file${i}.ts\n${content}^^^end\n`,
).join("");

async function project(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "code-commit-bench-" });
  await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\nnode_modules/\n*.log\n");
  for (let m = 0; m < 40; m++) {
    await Deno.mkdir(join(root, `src/module${m}`), { recursive: true });
    await Deno.writeTextFile(
      join(root, `src/module${m}/.gitignore`),
      "*.tmp\n!keep.tmp\n/build/\n",
    );
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
  name: `parse + guard + apply ${FILES} files, 20 MB (new folders, atomic writes)`,
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
    const applied = await applyOperations(root, guarded.operations);
    b.end();
    if (applied.changes.length !== FILES) throw new Error("apply incomplete");
  },
});

globalThis.addEventListener("unload", () => {
  for (const root of roots) Deno.removeSync(root, { recursive: true });
});
