/**
 * A Deno cache folder of its own, for a child Deno run under a file size
 * limit (`ulimit -f`): Deno writes its caches as it starts and ends, and
 * a shared cache that has grown past the limit would kill the child by
 * SIGXFSZ for reasons of its own. The dependencies already fetched (`npm/`,
 * `remote/`) are linked in, so `--cached-only` still finds them.
 */
import { join } from "node:path";

/** A fresh cache folder, removed when disposed. */
export interface OwnDenoDir extends AsyncDisposable {
  /** Its path, for `DENO_DIR`. */
  readonly path: string;
}

/** The cache folder the test runner's Deno uses. */
async function sharedDenoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout)).denoDir;
}

/** Makes a cache folder of its own, with the shared one's dependencies linked in. */
export async function ownDenoDir(): Promise<OwnDenoDir> {
  const shared = await sharedDenoDir();
  const path = await Deno.makeTempDir({ prefix: "code-commit-deno-dir-" });
  for (const name of ["npm", "remote"]) {
    await Deno.symlink(join(shared, name), join(path, name)).catch(() => {});
  }
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}
