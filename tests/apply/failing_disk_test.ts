/**
 * A disk that turns read-only in the middle of an apply, for real: the
 * project lives on a small tmpfs this test mounts, remounted read-only
 * after some of the reply's renames. The rollback then cannot write: it
 * makes one pass and stops (within seconds, however many files), names at
 * most 20 of the paths left and counts the rest, and keeps the journal's
 * record; once the disk takes writes again, the next start's recovery puts
 * every path back.
 */
import assert from "node:assert/strict";
import {
  ApplyError,
  type ApplyFileSystem,
  applyOperations,
  denoFileSystem,
} from "../../lib/apply/apply.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { recoverFirst } from "../../lib/apply/recovery.ts";
import { IN_CI } from "../support/ci.ts";

const FILES = 40;
const RENAMES_BEFORE_READ_ONLY = 30;

function mount(...args: string[]): boolean {
  const output = new Deno.Command("mount", { args, stdout: "null", stderr: "null" }).outputSync();
  return output.success;
}

/** Every file under `root` but the journal: path → content. */
function snapshot(root: string, folder = ""): Map<string, string> {
  const result = new Map<string, string>();
  for (const entry of Deno.readDirSync(`${root}/${folder}`)) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (path === "agent-config") continue;
    if (entry.isDirectory) {
      for (const [inner, text] of snapshot(root, path)) result.set(inner, text);
    } else {
      result.set(path, Deno.readTextFileSync(`${root}/${path}`));
    }
  }
  return result;
}

Deno.test("a disk turned read-only mid-apply: the rollback makes one pass, ends within seconds, names 20 paths and counts the rest; the next start restores them", async () => {
  const root = await Deno.makeTempDir({ prefix: "code-commit-read-only-" });
  if (!mount("-t", "tmpfs", "-o", "size=16m", "tmpfs", root)) {
    await Deno.remove(root);
    if (IN_CI) throw new Error("cannot mount a tmpfs in CI");
    console.log("skipped: cannot mount a tmpfs here (not root?)");
    return;
  }
  try {
    for (let i = 0; i < FILES; i++) {
      await Deno.mkdir(`${root}/src/m${i % 4}`, { recursive: true });
      await Deno.writeTextFile(`${root}/src/m${i % 4}/f${i}.txt`, `old ${i}\n`);
    }
    const before = snapshot(root);
    let renames = 0;
    const fs: ApplyFileSystem = {
      ...denoFileSystem,
      rename: async (from, to) => {
        if (++renames === RENAMES_BEFORE_READ_ONLY + 1) assert.ok(mount("-o", "remount,ro", root));
        await denoFileSystem.rename(from, to);
      },
    };
    const operations = Array.from({ length: FILES }, (_, i) => ({
      kind: "write" as const,
      path: `src/m${i % 4}/f${i}.txt`,
      content: `new ${i}\n`,
    }));
    const started = performance.now();
    const error = await applyOperations(root, operations, {
      fs,
      journal: new RunJournal(root, { workflow: "committing code" }),
    }).then(() => undefined, (error) => error);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(error instanceof ApplyError, String(error));
    assert.ok(seconds < 3, `the rollback took ${seconds.toFixed(1)} s`);
    assert.match(error.message, /Read-only file system/);
    // The 30 files renamed, and the 10 temporary files not renamed yet.
    assert.match(error.message, /Rolling back failed for 40 paths/);
    const named = error.message.match(/"src\/m\d\/f\d+\.txt" \(/g) ?? [];
    assert.equal(named.length, 20, error.message);
    assert.match(error.message, /; and 20 more\./);
    assert.match(error.message, /the next start of code-commit .* restores them first/);

    // Still read-only: the next start tries once, names what it cannot restore, and stops.
    const again = performance.now();
    const refused = await recoverFirst(root, () => {}).then(() => undefined, (error) => error);
    assert.ok((performance.now() - again) / 1000 < 3);
    assert.ok(refused instanceof Error);
    assert.match(
      refused.message,
      /could not finish rolling it back: 30 paths not restored \(its temporary files could not be removed first\): (src\/m\d\/f\d+\.txt, ){20}and 10 more; left: src\/m\d\/\.f\d+\.txt\.code-commit-[0-9a-f]{16}\.tmp \(Read-only file system/,
    );
    assert.equal(refused.message.match(/\.tmp \(Read-only file system/g)?.length, 10);
    assert.match(refused.message, /once the disk takes writes again, run code-commit again/);

    assert.ok(mount("-o", "remount,rw", root));
    const said: string[] = [];
    assert.equal(await recoverFirst(root, (line) => said.push(line)), true);
    assert.match(said.join("\n"), /so the project is exactly as it was before that apply/);
    assert.deepEqual(snapshot(root), before);
  } finally {
    new Deno.Command("umount", { args: ["-l", root] }).outputSync();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
