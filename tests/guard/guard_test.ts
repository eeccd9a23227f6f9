import assert from "node:assert/strict";
import { join } from "node:path";
import { formatRefusals, guardOperations, guardRead, type Refusal } from "../../lib/guard/guard.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import type { FileOperation } from "../../lib/reply/operations.ts";
import { withProject, writeFiles } from "../support/project.ts";

const write = (path: string, content = "x"): FileOperation => ({ kind: "write", path, content });
const del = (path: string): FileOperation => ({ kind: "delete", path });

Deno.test("guardOperations passes a harmless reply through, with normalized paths", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "src/a.ts": "old", "src/old.ts": "old", ".gitignore": "/logs/\n" });
    const ops = [write("./src/a.ts", "new"), write("src/new/b.ts"), del("src/old.ts"), del("gone")];
    const result = await guardOperations(root, ops);
    assert.deepEqual(result, {
      ok: true,
      operations: [
        { kind: "write", path: "src/a.ts", content: "new" },
        { kind: "write", path: "src/new/b.ts", content: "x" },
        { kind: "delete", path: "src/old.ts" },
        { kind: "delete", path: "gone" },
      ],
    });
  });
});

Deno.test("guardOperations accepts an empty reply", async () => {
  await withProject({}, async (root) => {
    assert.deepEqual(await guardOperations(root, []), { ok: true, operations: [] });
  });
});

Deno.test("guardOperations reports every refused path, in reply order, each with its reason", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { ".gitignore": "*.pem\n", "src/a.ts": "" });
    await Deno.symlink("src", join(root, "lnk"));
    const result = await guardOperations(root, [
      write("../x"),
      write("fine.ts"),
      write("BUILD.SH"),
      write("keys/server.pem"),
      del("lnk"),
      write("src"),
      write("src/fine.ts"),
    ]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    const reasons = result.refusals.map((r: Refusal) => [r.path, r.reason.split(/[:,;(]/)[0]]);
    assert.deepEqual(reasons, [
      ["../x", "contains a `..` segment"],
      ["BUILD.SH", "is protected"],
      ["keys/server.pem", "is ignored by .gitignore"],
      ["lnk", "is a symbolic link "],
      ["src", "names an existing folder"],
    ]);
  });
});

Deno.test("guardOperations names the protected rule and the ignore rule", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { ".gitignore": "secrets/\n", "src/.gitignore": "*.gen.ts\n" });
    const result = await guardOperations(root, [
      write("agent-config/gemini-key.txt"),
      write("src/x/y.gen.ts"),
      write("Secrets/key"),
    ]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.match(result.refusals[0].reason, /`agent-config\/` in the project root/);
    assert.equal(
      result.refusals[1].reason,
      "is ignored by .gitignore: the rule `*.gen.ts` in src/.gitignore",
    );
    assert.match(result.refusals[2].reason, /matches the folder `Secrets` \(comparing names/);
  });
});

Deno.test("guardOperations refuses paths through a file the same reply writes", async () => {
  await withProject({}, async (root) => {
    const result = await guardOperations(root, [write("a"), write("A/b.ts"), write("c/d.ts")]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.refusals.map((r) => r.path), ["A/b.ts"]);
    assert.match(result.refusals[0].reason, /this reply writes as a file \(`a`\)/);
  });
});

Deno.test("guardOperations refuses a path whose grandparent the same reply writes as a file", async () => {
  await withProject({}, async (root) => {
    const result = await guardOperations(root, [write("a"), write("a/b/c.ts"), write("d/e/f.ts")]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.refusals, [
      { path: "a/b/c.ts", reason: "passes through `a`, which this reply writes as a file (`a`)" },
    ]);
  });
});

Deno.test("guardOperations names the topmost file a path passes through, folded, and only files it writes", async () => {
  await withProject({}, async (root) => {
    const result = await guardOperations(root, [
      write("x/Y"),
      write("x/y/z"),
      write("x/y/z/w.ts"),
      del("q"),
      write("q/r.ts"),
      write("./m/n.ts"),
      write("M/N.TS/o.ts"),
    ]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.refusals, [
      { path: "x/y/z", reason: "passes through `x/y`, which this reply writes as a file (`x/Y`)" },
      {
        path: "x/y/z/w.ts",
        reason: "passes through `x/y`, which this reply writes as a file (`x/Y`)",
      },
      {
        path: "M/N.TS/o.ts",
        reason: "passes through `M/N.TS`, which this reply writes as a file (`m/n.ts`)",
      },
    ]);
  });
});

Deno.test("guardOperations refuses a path it cannot inspect, and goes on", async () => {
  await withProject({}, async (root) => {
    await Deno.symlink("loop", join(root, "loop"));
    // `loop/x` stops at the link; `src/` exists but `src/.gitignore` is a folder: no rules there.
    await Deno.mkdir(join(root, "src/.gitignore"), { recursive: true });
    const result = await guardOperations(root, [write("loop/x"), write("src/a.ts")]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.refusals.map((r) => r.path), ["loop/x"]);
  });
});

Deno.test("guardOperations stays fast on a 2,000-file reply", async () => {
  await withProject({}, async (root) => {
    const ops: FileOperation[] = [];
    for (let folder = 0; folder < 100; folder++) {
      await writeFiles(root, { [`src/m${folder}/.gitignore`]: "*.tmp\n!keep.tmp\nbuild/\n" });
      for (let file = 0; file < 20; file++) {
        ops.push(write(`src/m${folder}/sub${file % 4}/f${file}.ts`));
      }
    }
    const started = performance.now();
    const result = await guardOperations(root, ops);
    const elapsed = performance.now() - started;
    assert.equal(result.ok, true);
    assert.ok(elapsed < 10_000, `took ${Math.round(elapsed)} ms`);
    console.log(`    2,000 paths guarded in ${Math.round(elapsed)} ms`);
  });
});

Deno.test("guardRead lets the context builder read ordinary and readable protected files", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      "src/a.ts": "",
      "build.sh": "",
      ".gitignore": "*.pem\n",
      "src/UserSpecification.md": "",
      "target/out.txt": "",
    });
    for (const path of ["src/a.ts", "./src/a.ts", "build.sh", ".gitignore", "target/out.txt"]) {
      assert.equal(await guardRead(root, path), undefined, path);
    }
    assert.equal(await guardRead(root, "src/UserSpecification.md"), undefined);
  });
});

Deno.test("guardRead refuses what the LLM may not read", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      ".git/config": "",
      "agent-config/gemini-key.txt": "k",
      "logs/x": "",
      "app-data/d": "",
      "agent-state/s": "",
      ".gitignore": "*.pem\n",
      "keys/a.pem": "",
      "src/a.ts": "",
      "target/.git/config": "",
      "target/debug/.git/HEAD": "",
      "src/.git/config": "",
      "UserSpecification.md/.git/x": "",
    });
    await Deno.symlink("src/a.ts", join(root, "link.ts"));
    const cases: [string, string][] = [
      [".git/config", "may not be read"],
      // An unreadable entry inside a readable one still refuses the read.
      ["target/.git/config", "may not be read: `.git`"],
      ["target/debug/.git/HEAD", "may not be read: `.git`"],
      ["src/.git/config", "may not be read: `.git`"],
      ["UserSpecification.md/.git/x", "may not be read: `.git`"],
      ["AGENT-CONFIG/gemini-key.txt", "may not be read"],
      ["logs/x", "may not be read"],
      ["app-data/d", "may not be read"],
      ["agent-state/s", "may not be read"],
      ["keys/a.pem", "ignored by .gitignore"],
      ["link.ts", "symbolic link"],
      ["src", "existing folder"],
      ["src/missing.ts", "does not exist"],
      ["missing/x.ts", "does not exist"],
      ["../etc/passwd", "`..` segment"],
      ["/etc/passwd", "absolute"],
    ];
    const rules = await IgnoreRules.load(root);
    for (const [path, reason] of cases) {
      for (const got of [await guardRead(root, path), await guardRead(root, path, rules)]) {
        assert.ok(got?.includes(reason), `${path}: ${got}`);
      }
    }
  });
});

Deno.test("guardRead refuses ignore rules loaded for another project", async () => {
  await withProject({}, async (root) => {
    const rules = await IgnoreRules.load(join(root, "other"));
    await assert.rejects(() => guardRead(root, "a.ts", rules), RangeError);
  });
});

Deno.test("formatRefusals: a count line, then one indented line per path", () => {
  assert.equal(
    formatRefusals([
      { path: "../x", reason: "contains a `..` segment" },
      { path: "build.sh", reason: "is protected" },
    ]),
    "refused the reply: 2 paths may not be written\n" +
      "  ../x: contains a `..` segment\n" +
      "  build.sh: is protected",
  );
  assert.equal(
    formatRefusals([{ path: "a b", reason: "r" }]),
    'refused the reply: 1 path may not be written\n  "a b": r',
  );
});
