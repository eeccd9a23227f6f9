/**
 * A concurrent process for tests: waits until a temporary file of
 * code-commit appears in `<root>/<folder>` (or, given `<name>`, until a file
 * of that name does), then flips that folder between
 * itself and a symbolic link to `<outside>` (the folder moved aside to
 * `<folder>.parked` meanwhile), a few milliseconds each way, until SIGTERM;
 * then leaves the folder in place and prints how many flips it made.
 *
 * Run: `deno run -A tests/support/flipper.ts <root> <folder> <outside> [<name>]`.
 *
 * @module
 */
const [root, folder, outside, name] = Deno.args;
const path = `${root}/${folder}`;
const parked = `${path}.parked`;
let stopping = false;
Deno.addSignalListener("SIGTERM", () => (stopping = true));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function writing(): boolean {
  try {
    for (const entry of Deno.readDirSync(path)) {
      if (name === undefined ? entry.name.includes(".code-commit-") : entry.name === name) {
        return true;
      }
    }
  } catch {
    // not there yet
  }
  return false;
}

while (!stopping && !writing()) await sleep(1);
let flips = 0;
while (!stopping) {
  Deno.renameSync(path, parked);
  Deno.symlinkSync(outside, path);
  await sleep(1 + Math.random() * 3);
  Deno.removeSync(path);
  Deno.renameSync(parked, path);
  flips++;
  await sleep(1 + Math.random() * 3);
}
console.log(flips);
Deno.exit(0);
