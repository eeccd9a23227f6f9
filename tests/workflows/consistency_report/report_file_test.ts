import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkReportDestination,
  REPORT_FILE,
  writeReport,
} from "../../../lib/workflows/consistency_report/report_file.ts";
import { CodeCommitError } from "../../../lib/errors/errors.ts";
import { withProject } from "../../support/project.ts";

/** Every project here has an `agent-config/` folder. */
const WITH_AGENT_CONFIG = { folders: ["agent-config"] };

async function names(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) found.push(entry.name);
  return found.sort();
}

Deno.test("writeReport creates the report, then replaces it, leaving no temporary file", async () => {
  await withProject({}, async (root) => {
    await writeReport(root, "first\n");
    assert.equal(await Deno.readTextFile(join(root, REPORT_FILE)), "first\n");
    await writeReport(root, "second\n");
    assert.equal(await Deno.readTextFile(join(root, REPORT_FILE)), "second\n");
    assert.deepEqual(await names(join(root, "agent-config")), ["consistency-report.txt"]);
  }, WITH_AGENT_CONFIG);
});

Deno.test("writeReport replaces the report by renaming: a reader holding the old file keeps it whole", async () => {
  await withProject({}, async (root) => {
    await writeReport(root, "old report\n");
    const before = await Deno.stat(join(root, REPORT_FILE));
    await writeReport(root, "new report\n");
    const after = await Deno.stat(join(root, REPORT_FILE));
    assert.notEqual(after.ino, before.ino, "a new file was renamed into place");
  }, WITH_AGENT_CONFIG);
});

const UNSAFE: {
  name: string;
  make: (root: string, outside: string) => Promise<void>;
  message: RegExp;
}[] = [
  {
    name: "the report is a symbolic link",
    make: (root, outside) => Deno.symlink(join(outside, "target.txt"), join(root, REPORT_FILE)),
    message: /agent-config\/consistency-report\.txt is a symbolic link; .* remove it/,
  },
  {
    name: "the report is a dangling symbolic link",
    make: (root, outside) => Deno.symlink(join(outside, "nowhere.txt"), join(root, REPORT_FILE)),
    message: /is a symbolic link/,
  },
  {
    name: "the report is a folder",
    make: (root) => Deno.mkdir(join(root, REPORT_FILE)),
    message: /consistency-report\.txt is a folder/,
  },
  {
    name: "agent-config is a symbolic link",
    make: async (root, outside) => {
      await Deno.remove(join(root, "agent-config"));
      await Deno.symlink(outside, join(root, "agent-config"));
    },
    message: /agent-config is a symbolic link; .* replace the link with a folder/,
  },
  {
    name: "agent-config is missing",
    make: (root) => Deno.remove(join(root, "agent-config")),
    message: /agent-config\/ not found/,
  },
];

for (const { name, make, message } of UNSAFE) {
  Deno.test(`writeReport refuses when ${name}, and writes nothing`, async () => {
    await withProject({}, async (root) => {
      const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
      try {
        await Deno.writeTextFile(join(outside, "target.txt"), "untouched\n");
        await make(root, outside);
        await assert.rejects(() => checkReportDestination(root), CodeCommitError);
        await assert.rejects(() => writeReport(root, "report\n"), message);
        assert.deepEqual(await names(outside), ["target.txt"]);
        assert.equal(await Deno.readTextFile(join(outside, "target.txt")), "untouched\n");
      } finally {
        await Deno.remove(outside, { recursive: true });
      }
    }, WITH_AGENT_CONFIG);
  });
}
