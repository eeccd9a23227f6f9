/**
 * Tests of RunLog on real temporary folders: the folder name
 * (`logs/YYYY-MM-DD-hh-mm-ss-<slug>`, local time), `-2`, `-3`… on a
 * collision, refusal of a `logs` that is a symbolic link or a file, and
 * redaction of every byte written.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { RunLog } from "../../lib/logger/run_log.ts";
import { Redactor } from "../../lib/secrets/redact.ts";
import { GEMINI_KEY, OPENAI_KEY, tempProject } from "../support/project.ts";

async function entries(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

const REDACTOR = new Redactor([GEMINI_KEY, OPENAI_KEY]);
/** 22 November 2026, 09:30:05, local time. */
const WHEN = new Date(2026, 10, 22, 9, 30, 5);

// ---------------------------------------------------------------------------
// The folder name

/** Local date parts and the run folder's timestamp. */
const STAMPS: [number[], string][] = [
  [[2026, 10, 22, 9, 30, 5], "2026-11-22-09-30-05"],
  [[2026, 0, 1, 0, 0, 0], "2026-01-01-00-00-00"],
  [[2025, 11, 31, 23, 59, 59], "2025-12-31-23-59-59"],
  [[2024, 1, 29, 12, 7, 9], "2024-02-29-12-07-09"],
];

for (const [[y, mo, d, h, mi, s], expected] of STAMPS) {
  Deno.test(`the run folder of ${expected} (local time, minutes included)`, async () => {
    await using project = await tempProject();
    const log = await RunLog.create(project.root, "x", REDACTOR, new Date(y, mo, d, h, mi, s, 999));
    assert.equal(log.dir, `logs/${expected}-x`);
  });
}

Deno.test("the run folder's time is local, not UTC", async () => {
  // Run in child processes with a fixed TZ: the same instant, two local times.
  const instant = Date.UTC(2026, 0, 1, 0, 0, 0);
  const module = new URL("../../lib/logger/run_log.ts", import.meta.url).href;
  const redact = new URL("../../lib/secrets/redact.ts", import.meta.url).href;
  await using project = await tempProject();
  const stamp = async (tz: string) => {
    const code = `import { RunLog } from ${JSON.stringify(module)};` +
      `import { Redactor } from ${JSON.stringify(redact)};` +
      `const log = await RunLog.create(${JSON.stringify(project.root)}, "tz", ` +
      `new Redactor(), new Date(${instant}));` +
      `console.log(log.dir.slice("logs/".length, "logs/".length + 19));`;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", code],
      env: { TZ: tz },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    return new TextDecoder().decode(output.stdout).trim();
  };
  assert.equal(await stamp("UTC"), "2026-01-01-00-00-00");
  assert.equal(await stamp("Asia/Kathmandu"), "2026-01-01-05-45-00");
  assert.equal(await stamp("America/New_York"), "2025-12-31-19-00-00");
});

Deno.test("create: logs/ made if needed, the run folder named from the date and slug", async () => {
  await using project = await tempProject();
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  assert.equal(log.dir, "logs/2026-11-22-09-30-05-committing-code");
  assert.ok((await Deno.lstat(join(project.root, log.dir))).isDirectory);
  assert.deepEqual(await entries(join(project.root, "logs")), [
    "2026-11-22-09-30-05-committing-code",
  ]);
  assert.deepEqual(await entries(join(project.root, log.dir)), [], "an empty folder");
  assert.equal(log.path("1-initial-query.txt"), `${log.dir}/1-initial-query.txt`);
});

Deno.test("create: an auto-workflow slug with + and . is used as it is", async () => {
  await using project = await tempProject();
  const slug = "auto-workflow-src+llm+UserSpecification.md-implemented";
  const log = await RunLog.create(project.root, slug, REDACTOR, WHEN);
  assert.equal(log.dir, `logs/2026-11-22-09-30-05-${slug}`);
});

Deno.test("create: an existing logs/ with other runs is kept", async () => {
  await using project = await tempProject();
  await Deno.mkdir(join(project.root, "logs/2020-01-01-00-00-00-committing-code"), {
    recursive: true,
  });
  await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  assert.deepEqual(await entries(join(project.root, "logs")), [
    "2020-01-01-00-00-00-committing-code",
    "2026-11-22-09-30-05-committing-code",
  ]);
});

Deno.test("create without a date uses now", async () => {
  await using project = await tempProject();
  const two = (n: number) => String(n).padStart(2, "0");
  const local = (d: Date) =>
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${two(d.getHours())}-` +
    `${two(d.getMinutes())}-${two(d.getSeconds())}`;
  const before = local(new Date());
  const log = await RunLog.create(project.root, "consistency-report", REDACTOR);
  const after = local(new Date());
  const stamp = log.dir.slice("logs/".length, "logs/".length + 19);
  assert.ok(stamp >= before && stamp <= after, `${stamp} not within ${before}..${after}`);
  assert.ok(log.dir.endsWith("-consistency-report"));
});

// ---------------------------------------------------------------------------
// Collisions

Deno.test("the same second again: -2, then -3", async () => {
  await using project = await tempProject();
  const dirs = [];
  for (let i = 0; i < 4; i++) {
    dirs.push((await RunLog.create(project.root, "committing-code", REDACTOR, WHEN)).dir);
  }
  assert.deepEqual(dirs, [
    "logs/2026-11-22-09-30-05-committing-code",
    "logs/2026-11-22-09-30-05-committing-code-2",
    "logs/2026-11-22-09-30-05-committing-code-3",
    "logs/2026-11-22-09-30-05-committing-code-4",
  ]);
});

Deno.test("a free -2 after a taken -2: the first free number is used", async () => {
  await using project = await tempProject();
  const base = "2026-11-22-09-30-05-committing-code";
  for (const name of [base, `${base}-2`, `${base}-4`]) {
    await Deno.mkdir(join(project.root, "logs", name), { recursive: true });
  }
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  assert.equal(log.dir, `logs/${base}-3`);
});

Deno.test("a file or link already named like the folder counts as taken", async () => {
  await using project = await tempProject();
  const base = "2026-11-22-09-30-05-committing-code";
  await Deno.mkdir(join(project.root, "logs"));
  await Deno.writeTextFile(join(project.root, "logs", base), "not a folder");
  await Deno.symlink("/tmp", join(project.root, "logs", `${base}-2`));
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  assert.equal(log.dir, `logs/${base}-3`);
  assert.equal(await Deno.readTextFile(join(project.root, "logs", base)), "not a folder");
});

Deno.test("runs started together each get their own folder", async () => {
  await using project = await tempProject();
  const logs = await Promise.all(
    Array.from({ length: 8 }, () => RunLog.create(project.root, "committing-code", REDACTOR, WHEN)),
  );
  const dirs = logs.map((log) => log.dir);
  assert.equal(new Set(dirs).size, 8);
  assert.equal((await entries(join(project.root, "logs"))).length, 8);
});

Deno.test("a different slug in the same second does not collide", async () => {
  await using project = await tempProject();
  await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  const other = await RunLog.create(project.root, "consistency-report", REDACTOR, WHEN);
  assert.equal(other.dir, "logs/2026-11-22-09-30-05-consistency-report");
});

// ---------------------------------------------------------------------------
// A logs/ that is not a real folder

Deno.test("logs as a symbolic link to a folder is refused, and nothing is written there", async () => {
  await using project = await tempProject();
  await using elsewhere = await tempProject();
  await Deno.symlink(elsewhere.root, join(project.root, "logs"));
  await assert.rejects(
    RunLog.create(project.root, "committing-code", REDACTOR, WHEN),
    (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(error.message, /^logs is a symbolic link; .*real logs\/ folder/);
      return true;
    },
  );
  assert.deepEqual(await entries(elsewhere.root), [], "the link's target is untouched");
  assert.ok((await Deno.lstat(join(project.root, "logs"))).isSymlink, "the link is left as it is");
});

Deno.test("logs as a dangling symbolic link is refused, and nothing is created", async () => {
  await using project = await tempProject();
  const target = join(project.root, "nowhere");
  await Deno.symlink(target, join(project.root, "logs"));
  await assert.rejects(
    RunLog.create(project.root, "committing-code", REDACTOR, WHEN),
    /^CodeCommitError: logs is a symbolic link/,
  );
  await assert.rejects(Deno.lstat(target), Deno.errors.NotFound);
});

Deno.test("logs as a symbolic link to a file is refused", async () => {
  await using project = await tempProject();
  await Deno.writeTextFile(join(project.root, "target.txt"), "x");
  await Deno.symlink(join(project.root, "target.txt"), join(project.root, "logs"));
  await assert.rejects(
    RunLog.create(project.root, "committing-code", REDACTOR, WHEN),
    /logs is a symbolic link/,
  );
});

Deno.test("logs as a file is refused, the file left as it is", async () => {
  await using project = await tempProject();
  await Deno.writeTextFile(join(project.root, "logs"), "my notes");
  await assert.rejects(
    RunLog.create(project.root, "committing-code", REDACTOR, WHEN),
    (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(
        error.message,
        /^logs is not a folder; code-commit writes its logs only into a real logs\/ folder: move it away$/,
      );
      return true;
    },
  );
  assert.equal(await Deno.readTextFile(join(project.root, "logs")), "my notes");
});

Deno.test("a project root that does not exist: an error naming logs/", async () => {
  await using project = await tempProject();
  await assert.rejects(
    RunLog.create(join(project.root, "missing"), "committing-code", REDACTOR, WHEN),
    (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(error.message, /^cannot create logs\/: /);
      return true;
    },
  );
});

// ---------------------------------------------------------------------------
// Writing

Deno.test("write: the text, every key in it masked", async () => {
  await using project = await tempProject();
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  const text = `query with ${GEMINI_KEY} and ${OPENAI_KEY}\nand ${GEMINI_KEY} again\n` +
    `echo: sk-proj-*****${OPENAI_KEY.slice(-4)}.\n`;
  await log.write("1-initial-query.txt", text);
  const written = await Deno.readTextFile(join(project.root, log.path("1-initial-query.txt")));
  assert.equal(
    written,
    "query with ********XY and ********ZW\nand ********XY again\necho: ********ZW.\n",
  );
});

Deno.test("write: text without keys is written byte for byte, and a rewrite replaces it", async () => {
  await using project = await tempProject();
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  const text = "über ✓ \r\n\u0000 `${x}` $& ***\n".repeat(1000);
  await log.write("query.txt", text);
  assert.equal(await Deno.readTextFile(join(project.root, log.path("query.txt"))), text);
  await log.write("query.txt", "short");
  assert.equal(await Deno.readTextFile(join(project.root, log.path("query.txt"))), "short");
  await log.write("empty.txt", "");
  assert.equal(await Deno.readTextFile(join(project.root, log.path("empty.txt"))), "");
});

Deno.test("writeError: the line ERROR, then the message, redacted", async () => {
  await using project = await tempProject();
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  await log.writeError("1-initial-query-response.txt", `gpt-5: HTTP 401 bad key ${OPENAI_KEY}`);
  const written = await Deno.readTextFile(
    join(project.root, log.path("1-initial-query-response.txt")),
  );
  assert.equal(written, "ERROR\ngpt-5: HTTP 401 bad key ********ZW\n");
  assert.ok(written.startsWith("ERROR\n"));
});

Deno.test("a write that fails names the log file", async () => {
  await using project = await tempProject();
  const log = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  await assert.rejects(
    log.write("no-such-folder/x.txt", "text"),
    (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.ok(
        error.message.startsWith(`cannot write the log ${log.dir}/no-such-folder/x.txt: `),
        error.message,
      );
      return true;
    },
  );
});

Deno.test("two runs log side by side without mixing", async () => {
  await using project = await tempProject();
  const first = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  const second = await RunLog.create(project.root, "committing-code", REDACTOR, WHEN);
  await first.write("query.txt", "one");
  await second.write("query.txt", "two");
  assert.equal(await Deno.readTextFile(join(project.root, first.path("query.txt"))), "one");
  assert.equal(await Deno.readTextFile(join(project.root, second.path("query.txt"))), "two");
});
