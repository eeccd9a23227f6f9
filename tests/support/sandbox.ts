/**
 * Tests that need bubblewrap: run where it works, and where it does not,
 * skipped on a developer's machine but FAILED when the `CI` environment
 * variable is set (`.ci/run` installs bubblewrap; a CI without it must not
 * pass by skipping the sandbox's tests).
 *
 * @module
 */
import { runProbe } from "../../lib/sandbox/containment.ts";
import { bubblewrapProbeArgs, BWRAP } from "../../lib/sandbox/bubblewrap.ts";

/** Why bubblewrap cannot contain a build here, or undefined when it can. */
export const BWRAP_MISSING: string | undefined = await (async () => {
  if (Deno.build.os !== "linux") return `not Linux (${Deno.build.os})`;
  const result = await runProbe(BWRAP, bubblewrapProbeArgs("off"));
  if (!result.started) return `${BWRAP} is not on PATH (${result.stderr})`;
  if (result.code !== 0) return `${BWRAP} cannot make a sandbox here: ${result.stderr.trim()}`;
  return undefined;
})();

/** Whether the tests run in CI (the `CI` environment variable is set). */
export const IN_CI = Deno.env.get("CI") !== undefined && Deno.env.get("CI") !== "";

/**
 * Registers a test that needs bubblewrap: ignored when it is missing
 * outside CI, failed with the reason when it is missing in CI.
 */
export function bwrapTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name: `[bubblewrap] ${name}`,
    ignore: BWRAP_MISSING !== undefined && !IN_CI,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      if (BWRAP_MISSING !== undefined) {
        throw new Error(
          `this test needs bubblewrap and CI is set, but ${BWRAP_MISSING}: install it (apt-get install -y bubblewrap)`,
        );
      }
      await fn();
    },
  });
}

/**
 * A folder holding a link to every program of `/usr/bin` and `/bin` but
 * `bwrap`: a `PATH` on which bubblewrap is missing and everything else a
 * build uses is there. Removed with the returned disposer.
 */
export async function pathWithoutBwrap(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "code-commit-no-bwrap-" });
  for (const source of ["/usr/local/bin", "/usr/bin", "/bin"]) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(source));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === BWRAP) continue;
      try {
        await Deno.symlink(`${source}/${entry.name}`, `${dir}/${entry.name}`);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
    }
  }
  return {
    path: dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
