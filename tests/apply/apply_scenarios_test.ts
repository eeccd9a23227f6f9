/**
 * Replies applied to real projects, end to end, from the data folders of
 * `tests/fixtures/apply_scenarios/` (see the README there): each copies its
 * `before/` tree into a temporary git project, runs the reply through the
 * parser, the guard and the applier, and compares the whole tree with
 * `after/` (contents, links, folders and, where the scenario says, modes).
 * A refused reply must leave the project, and the folder outside it, exactly
 * as they were.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ApplyError, applyOperations } from "../../lib/apply/apply.ts";
import { formatRefusals, guardOperations } from "../../lib/guard/guard.ts";
import { parseReply } from "../../lib/reply/parse.ts";
import { tempProject, writeFiles } from "../support/project.ts";

const SCENARIOS = new URL("../fixtures/apply_scenarios/", import.meta.url);

const Scenario = z.object({
  why: z.string().min(10),
  expect: z.enum(["applied", "refused"]),
  error: z.string().min(5).optional(),
  warnings: z.array(z.string()).optional(),
  files: z.record(z.string()).optional(),
  folders: z.array(z.string()).optional(),
  emptyAfter: z.array(z.string()).optional(),
  modes: z.record(z.string().regex(/^[0-7]{3,4}$/)).optional(),
  symlinks: z.record(z.string()).optional(),
  outside: z.record(z.string()).optional(),
}).strict().refine((s) => (s.expect === "refused") === (s.error !== undefined), {
  message: "a refused scenario names its error fragment, an applied one does not",
});

type Scenario = z.infer<typeof Scenario>;

/** One entry of a tree: a file's bytes, a link's target, or a folder. */
type Entry = { kind: "file"; text: string } | { kind: "link"; target: string } | {
  kind: "folder";
};

/** A tree: path (relative, `/`-separated) → entry, sorted by path. */
type Tree = Record<string, Entry>;

function sorted(tree: Tree): Tree {
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** Every entry under `root`, not following links; `skip` leaves a top-level name out. */
async function readTree(
  root: string,
  skip: (path: string) => boolean = () => false,
): Promise<Tree> {
  const tree: Tree = {};
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (skip(path)) continue;
      const absolute = join(root, path);
      const info = await Deno.lstat(absolute);
      if (info.isSymlink) tree[path] = { kind: "link", target: await Deno.readLink(absolute) };
      else if (info.isDirectory) {
        tree[path] = { kind: "folder" };
        await visit(path);
      } else tree[path] = { kind: "file", text: await Deno.readTextFile(absolute) };
    }
  };
  await visit("");
  return sorted(tree);
}

/** The tree of a scenario's `before/` or `after/` folder, empty when it is absent. */
async function fixtureTree(folder: URL): Promise<Tree> {
  try {
    return await readTree(fileURLToPath(folder));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

/** `tree` with `entries` added, and every folder on the way to each. */
function withEntries(tree: Tree, entries: Tree): Tree {
  const result: Tree = { ...tree, ...entries };
  for (const path of Object.keys(result)) {
    const segments = path.split("/");
    for (let depth = 1; depth < segments.length; depth++) {
      result[segments.slice(0, depth).join("/")] = { kind: "folder" };
    }
  }
  return sorted(result);
}

/** The entries a scenario's manifest makes in the project, beyond its tree. */
function manifestEntries(scenario: Scenario, outside: string): Tree {
  const entries: Tree = {};
  for (const [path, text] of Object.entries(scenario.files ?? {})) {
    entries[path] = { kind: "file", text };
  }
  for (const folder of scenario.folders ?? []) entries[folder] = { kind: "folder" };
  for (const [link, target] of Object.entries(scenario.symlinks ?? {})) {
    entries[link] = { kind: "link", target: target.replace(/^@outside/, outside) };
  }
  return entries;
}

/** What the reply did: the warnings, or the reason nothing was written. */
type Outcome = { ok: true; warnings: string[] } | { ok: false; reason: string };

/** Parses, guards and applies `reply` in the project at `root`, as committing code does. */
async function applyReplyText(root: string, reply: string): Promise<Outcome> {
  const parsed = parseReply(reply);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const guarded = await guardOperations(root, parsed.operations);
  if (!guarded.ok) return { ok: false, reason: formatRefusals(guarded.refusals) };
  try {
    const applied = await applyOperations(root, guarded.operations);
    return { ok: true, warnings: [...parsed.warnings, ...applied.warnings] };
  } catch (error) {
    if (!(error instanceof ApplyError)) throw error;
    assert.deepEqual(error.notRestored, [], "the rollback restored everything");
    return { ok: false, reason: error.message };
  }
}

const names: string[] = [];
for (const entry of Deno.readDirSync(SCENARIOS)) if (entry.isDirectory) names.push(entry.name);
names.sort();

Deno.test("the scenario folders: each well formed, the attacks and the rules both there", async () => {
  let refused = 0;
  for (const name of names) {
    const folder = new URL(`${name}/`, SCENARIOS);
    const files = [...Deno.readDirSync(folder)].map((entry) => entry.name).sort();
    const scenario = Scenario.parse(
      JSON.parse(await Deno.readTextFile(new URL("scenario.json", folder))),
    );
    assert.ok(files.includes("reply.txt"), `${name} has no reply.txt`);
    for (const file of files) {
      assert.ok(
        ["after", "before", "reply.txt", "scenario.json"].includes(file),
        `${name}/${file}`,
      );
    }
    if (scenario.expect === "refused") {
      refused++;
      assert.ok(!files.includes("after"), `${name}: a refused reply changes nothing, so no after/`);
    }
  }
  assert.ok(names.length >= 50, `only ${names.length} scenarios`);
  assert.ok(refused >= 35 && names.length - refused >= 15, `${refused} of ${names.length} refused`);
});

for (const name of names) {
  const folder = new URL(`${name}/`, SCENARIOS);
  const scenario = Scenario.parse(
    JSON.parse(Deno.readTextFileSync(new URL("scenario.json", folder))),
  );
  Deno.test(`apply scenario ${name}: ${scenario.why}`, async () => {
    await using project = await tempProject({}, { git: true });
    await using outsideProject = await tempProject(scenario.outside ?? {});
    const { root } = project;
    const outside = outsideProject.root;

    // The project before: the tree, then what the manifest adds.
    const before = await fixtureTree(new URL("before/", folder));
    for (const [path, entry] of Object.entries(before)) {
      if (entry.kind === "file") await writeFiles(root, { [path]: entry.text });
    }
    await writeFiles(root, scenario.files ?? {});
    for (const folderPath of scenario.folders ?? []) {
      await Deno.mkdir(join(root, folderPath), { recursive: true });
    }
    for (const [path, mode] of Object.entries(scenario.modes ?? {})) {
      await Deno.chmod(join(root, path), parseInt(mode, 8));
    }
    for (const [link, target] of Object.entries(scenario.symlinks ?? {})) {
      await Deno.symlink(target.replace(/^@outside/, outside), join(root, link));
    }
    const outsideBefore = await readTree(outside);

    const reply = new TextDecoder().decode(await Deno.readFile(new URL("reply.txt", folder)));
    const outcome = await applyReplyText(root, reply);

    // What the reply did, and what it said.
    if (scenario.expect === "refused") {
      assert.ok(!outcome.ok, `the reply was applied: ${JSON.stringify(outcome)}`);
      assert.ok(
        outcome.reason.includes(scenario.error!),
        `the reason lacks ${JSON.stringify(scenario.error)}:\n${outcome.reason}`,
      );
    } else {
      assert.ok(outcome.ok, `the reply was refused: ${!outcome.ok && outcome.reason}`);
      const expected = scenario.warnings ?? [];
      assert.equal(outcome.warnings.length, expected.length, outcome.warnings.join("\n"));
      outcome.warnings.forEach((warning, index) => {
        assert.ok(warning.includes(expected[index]), `${warning}\nlacks ${expected[index]}`);
      });
    }

    // The whole tree after: git's own folder aside, except the files the manifest put there.
    const afterFolder = new URL("after/", folder);
    const changed = scenario.expect === "applied" &&
      (await Deno.stat(afterFolder).then(() => true, () => false));
    const expectedTree = withEntries(changed ? await fixtureTree(afterFolder) : before, {
      ...manifestEntries(scenario, outside),
      ...Object.fromEntries(
        (changed ? scenario.emptyAfter ?? [] : []).map((path) => [path, { kind: "folder" }]),
      ),
    });
    const gitFiles = Object.keys(scenario.files ?? {}).filter((path) => path.startsWith(".git/"));
    const actual = await readTree(root, (path) => path === ".git");
    for (const path of gitFiles) {
      Object.assign(
        actual,
        withEntries({}, { [path]: { kind: "file", text: await project.read(path) } }),
      );
    }
    assert.deepEqual(sorted(actual), expectedTree);

    // Modes where the scenario sets them; no other file became executable.
    for (const [path, entry] of Object.entries(actual)) {
      if (entry.kind !== "file" || path.startsWith(".git/")) continue;
      const mode = (await Deno.lstat(join(root, path))).mode! & 0o7777;
      const expected = scenario.modes?.[path];
      if (expected !== undefined) assert.equal(mode.toString(8), expected, `the mode of ${path}`);
      else assert.equal(mode & 0o111, 0, `${path} is executable`);
    }

    // Nothing outside the project changed.
    assert.deepEqual(await readTree(outside), outsideBefore);
  });
}
