/**
 * Environment variables set for the length of one test body, then put
 * back: for code that hands the process's environment to a child (git
 * takes `HOME`, `PATH` and `GIT_CONFIG_GLOBAL` from it).
 */

/** Runs `body` with the environment variables `vars` set (undefined: removed), then puts them back. */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, Deno.env.get(name)]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
  set(vars);
  try {
    return await body();
  } finally {
    set(before);
  }
}
