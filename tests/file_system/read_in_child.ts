/**
 * Runs one bounded read in a process of its own, for the tests that need
 * what an in-process test cannot give: Deno's permissions as code-commit has
 * them (`--allow-read=<folder>`), and an open that never returns (a fifo
 * with no writer), which must not keep the process alive once `Deno.exit`
 * is called, as `main.ts` calls it.
 *
 * Arguments (JSON): `{ path, follow, timeoutMs, limit?, swap?: { from, to } }` (the
 * limit in bytes, 1024 by default): between the
 * check and the open, `from` is renamed to `to` (a fifo, a link made
 * beforehand: with path-scoped permissions Deno cannot make links).
 * Prints the outcome as one JSON line and exits 0 when the read succeeded,
 * 1 when it threw.
 *
 * @module
 */
import { FileReadError, readBounded } from "../../lib/file_system/bounded_read.ts";

interface Request {
  readonly path: string;
  readonly follow: boolean;
  readonly timeoutMs: number;
  readonly limit?: number;
  readonly swap?: { readonly from: string; readonly to: string };
}

const request = JSON.parse(Deno.args[0]) as Request;
try {
  const bytes = await readBounded(request.path, {
    limit: { bytes: request.limit ?? 1024, what: "a test file" },
    followSymlink: request.follow,
    openTimeoutMs: request.timeoutMs,
    beforeOpen: async () => {
      if (request.swap !== undefined) await Deno.rename(request.swap.from, request.swap.to);
    },
  });
  console.log(JSON.stringify({ text: bytes && new TextDecoder().decode(bytes) }));
  Deno.exit(0);
} catch (error) {
  const problem = error instanceof FileReadError ? error.problem : "other";
  console.log(JSON.stringify({ problem, message: (error as Error).message }));
  Deno.exit(1);
}
