/**
 * The bounded read against Deno's plain `readFile`, for a key-sized file and a
 * 1 MiB project file: what the checks (lstat, open under a timer, fstat, a
 * bounded read loop) cost per file.
 */
import { readBounded } from "../../lib/file_system/bounded_read.ts";
import { READ_LIMITS } from "../../lib/file_system/read_limits.ts";

const dir = await Deno.makeTempDir({ prefix: "code-commit-bench-" });
const small = `${dir}/key.txt`;
const large = `${dir}/large.txt`;
await Deno.writeTextFile(small, "AIzaSyTEST-gemini-0123456789abcdefghijkXY\n");
await Deno.writeFile(large, new Uint8Array(1024 * 1024).fill(0x61));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.bench("Deno.readFile, 42 bytes", { group: "small", baseline: true }, async () => {
  await Deno.readFile(small);
});
Deno.bench("readBounded, 42 bytes", { group: "small" }, async () => {
  await readBounded(small, { limit: READ_LIMITS.apiKey, followSymlink: true });
});
Deno.bench("Deno.readFile, 1 MiB", { group: "large", baseline: true }, async () => {
  await Deno.readFile(large);
});
Deno.bench("readBounded, 1 MiB", { group: "large" }, async () => {
  await readBounded(large, { limit: READ_LIMITS.projectFile, followSymlink: false });
});
