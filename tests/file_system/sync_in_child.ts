/**
 * Runs one synced atomic write in a process of its own, for the test that
 * watches its system calls with `strace` (`write_atomically_test.ts`):
 * `writeAtomically` with `sync` of `name` under `root`, then an
 * `AtomicFileWriter` of `streamed` committed there.
 *
 * Arguments: `root name streamed`.
 *
 * @module
 */
import { denoFileSystem } from "../../lib/file_system/file_system.ts";
import { AtomicFileWriter, writeAtomically } from "../../lib/file_system/write_atomically.ts";

const [root, name, streamed] = Deno.args;
await writeAtomically(denoFileSystem, root, name, new TextEncoder().encode("synced\n"), {
  sync: true,
});
const writer = new AtomicFileWriter(root, streamed);
writer.append(new TextEncoder().encode("streamed\n"));
writer.commit();
