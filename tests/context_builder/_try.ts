import { generateTree, BENCH_TREE, countFiles } from "/work/main/tests/context_builder/generated_tree.ts";
import { walkTree } from "/work/main/lib/context_builder/walk.ts";
import { IgnoreRules } from "/work/main/lib/guard/ignore_rules.ts";
const root = "/tmp/walktree";
try { await Deno.stat(root); } catch { await Deno.mkdir(root); let t=performance.now(); await generateTree(root, BENCH_TREE); console.log("gen", performance.now()-t, countFiles(BENCH_TREE)); 
 await new Deno.Command("git", { args: ["init", "-q"], cwd: root }).output(); }
for (let i = 0; i < 3; i++) {
  let t = performance.now();
  const rules = await IgnoreRules.load(root);
  const r = await walkTree(root, "", rules);
  console.log("walk", (performance.now() - t).toFixed(0), r.folders.reduce((n, f) => n + f.files.length, 0));
  t = performance.now();
  const g = await new Deno.Command("git", { args: ["ls-files", "--cached", "--others", "--exclude-standard"], cwd: root, stdout: "piped" }).output();
  console.log("git", (performance.now() - t).toFixed(0), new TextDecoder().decode(g.stdout).split("\n").length - 1);
}
