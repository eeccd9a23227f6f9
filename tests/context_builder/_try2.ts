import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { checkPathSyntax } from "../../lib/guard/path_syntax.ts";
import { protectedRuleFor } from "../../lib/guard/protected_paths.ts";
const root = "/tmp/walktree";
const paths: [string, boolean][] = [];
async function walk(dir: string) {
  for await (const e of Deno.readDir(root + "/" + dir)) {
    const p = dir ? dir + "/" + e.name : e.name;
    if (e.name === "node_modules" || e.name === ".git") continue;
    paths.push([p, e.isDirectory]);
    if (e.isDirectory) await walk(p);
  }
}
let t = performance.now();
await walk("");
console.log("readDir only", (performance.now() - t).toFixed(0), paths.length);
t = performance.now(); for (const [p] of paths) checkPathSyntax(p); console.log("syntax", (performance.now() - t).toFixed(0));
t = performance.now(); for (const [p] of paths) protectedRuleFor(p); console.log("protected", (performance.now() - t).toFixed(0));
const rules = await IgnoreRules.load(root);
t = performance.now(); for (const [p, d] of paths) await rules.isIgnored(p, d); console.log("exact seq", (performance.now() - t).toFixed(0));
t = performance.now(); await Promise.all(paths.map(([p, d]) => rules.isIgnored(p, d))); console.log("exact again par", (performance.now() - t).toFixed(0));
const f = rules.withIgnoreCase(true);
t = performance.now(); for (const [p, d] of paths) await f.isIgnored(p, d); console.log("folded", (performance.now() - t).toFixed(0));
