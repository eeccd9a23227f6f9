/**
 * Tests that need bubblewrap: run where it works, and where it does not,
 * skipped on a developer's machine but FAILED when the `CI` environment
 * variable is set (`.ci/run` installs bubblewrap; a CI without it must not
 * pass by skipping the sandbox's tests).
 *
 * @module
 */
import { runProbe } from "../../lib/sandbox/containment.ts";
import { bubblewrapProbeArgs } from "../../lib/sandbox/bubblewrap.ts";
import { systemProgramCandidates } from "../../lib/permissions/system_programs.ts";
import { IN_CI } from "./ci.ts";

export { IN_CI };

/** Where bubblewrap is on this machine (the first system path that holds it), if anywhere. */
export const BWRAP: string | undefined = await (async () => {
  for (const path of systemProgramCandidates("bwrap")) {
    if (await Deno.lstat(path).then(() => true, () => false)) return path;
  }
  return undefined;
})();

/** Why bubblewrap cannot contain a build here, or undefined when it can. */
export const BWRAP_MISSING: string | undefined = await (async () => {
  if (Deno.build.os !== "linux") return `not Linux (${Deno.build.os})`;
  if (BWRAP === undefined) return `bwrap is not installed (${systemProgramCandidates("bwrap")})`;
  const result = await runProbe(BWRAP, bubblewrapProbeArgs("off"));
  if (!result.started) return `${BWRAP} cannot be started (${result.stderr})`;
  if (result.code !== 0) return `${BWRAP} cannot make a sandbox here: ${result.stderr.trim()}`;
  return undefined;
})();

let toldWhy = false;

/** Says once, in one line, why the bubblewrap tests are skipped. */
function tellWhySkipped(): void {
  if (toldWhy) return;
  toldWhy = true;
  console.log(`skipping the tests that need bubblewrap (CI is unset): ${BWRAP_MISSING}`);
}

/**
 * Registers a test that needs bubblewrap: ignored when it is missing
 * outside CI (saying why once), failed with the reason when it is missing
 * in CI.
 */
export function bwrapTest(name: string, fn: () => Promise<void>): void {
  const ignore = BWRAP_MISSING !== undefined && !IN_CI;
  if (ignore) tellWhySkipped();
  Deno.test({
    name: `[bubblewrap] ${name}`,
    ignore,
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
 * Registers a test that runs the tool as if bubblewrap were not installed
 * ({@link withSwappedProgram}): it runs where bubblewrap works (the swap is
 * made with it) or where there is none at all (nothing to swap); where
 * bubblewrap is there but cannot make a sandbox, the swap cannot be made:
 * ignored outside CI (saying why once), failed in CI.
 */
export function noBwrapTest(name: string, fn: () => Promise<void>): void {
  const cannotSwap = BWRAP !== undefined && BWRAP_MISSING !== undefined;
  if (cannotSwap && !IN_CI) tellWhySkipped();
  Deno.test({
    name,
    ignore: cannotSwap && !IN_CI,
    async fn() {
      if (cannotSwap) {
        throw new Error(
          `this test hides bubblewrap with bubblewrap and CI is set, but ${BWRAP_MISSING}`,
        );
      }
      await fn();
    },
  });
}

/**
 * A command prefix for `runTool` that starts the tool in a mount namespace
 * of its own where each system path of `program` holds `replacement`
 * instead (made with the machine's bubblewrap, which must be there): the
 * tool then finds no bubblewrap, or a fake one, wherever it looks. With
 * `replacement` undefined, a script whose interpreter does not exist: to
 * the tool, as if the program were not installed.
 */
export async function withSwappedProgram(
  program: "bwrap" | "kill" | "git",
  replacement?: string,
): Promise<{ wrapper: string[] } & AsyncDisposable> {
  if (BWRAP === undefined) {
    // Nothing to hide it with; and without bubblewrap, nothing to hide.
    if (program === "bwrap" && replacement === undefined) {
      return { wrapper: [], [Symbol.asyncDispose]: () => Promise.resolve() };
    }
    throw new Error("withSwappedProgram needs bubblewrap on the machine");
  }
  const dir = await Deno.makeTempDir({ prefix: "code-commit-swap-" });
  let source = replacement;
  if (source === undefined) {
    source = `${dir}/${program}`;
    await Deno.writeTextFile(source, "#!/nonexistent/interpreter\n");
    await Deno.chmod(source, 0o755);
  }
  const binds: string[] = [];
  const seen = new Set<string>();
  for (const path of systemProgramCandidates(program)) {
    const real = await Deno.realPath(path).catch(() => undefined);
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    binds.push("--ro-bind", source, path);
  }
  return {
    wrapper: [BWRAP, "--dev-bind", "/", "/", ...binds, "--"],
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
