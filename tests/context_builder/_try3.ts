const root = "/tmp/walktree";
let n = 0;
async function walk(dir: string) {
  const subs: string[] = [];
  for await (const e of Deno.readDir(root + "/" + dir)) {
    n++;
    if (e.isDirectory && e.name !== "node_modules" && e.name !== ".git") subs.push(dir ? dir + "/" + e.name : e.name);
  }
  await Promise.all(subs.map(walk));
}
function walkSync(dir: string) {
  for (const e of Deno.readDirSync(root + "/" + dir)) {
    n++;
    if (e.isDirectory && e.name !== "node_modules" && e.name !== ".git") walkSync(dir ? dir + "/" + e.name : e.name);
  }
}
for (let i = 0; i < 3; i++) {
let t = performance.now(); n = 0; await walk(""); console.log("async", (performance.now() - t).toFixed(0), n);
t = performance.now(); n = 0; walkSync(""); console.log("sync", (performance.now() - t).toFixed(0), n);
}
