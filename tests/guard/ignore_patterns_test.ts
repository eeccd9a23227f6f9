import assert from "node:assert/strict";
import { parseIgnorePatterns } from "../../lib/guard/ignore_patterns.ts";
import { gitCheckIgnore } from "./helpers.ts";
import { withProject } from "../support/project.ts";

Deno.test("lines are read as git reads them: comments, blanks, CR, trailing spaces, escapes", () => {
  const rules = parseIgnorePatterns(
    "# a comment\n\n  lead\ntrail   \nescaped\\ \r\nwin\r\n\\#hash\n\\!bang\n!neg\ncut\0off\n",
  );
  const match = (path: string) => rules.lastMatch(path, false);
  assert.equal(match("# a comment"), undefined);
  assert.deepEqual(match("  lead"), { ...match("  lead")!, line: 3, text: "  lead" });
  assert.equal(match("trail")?.line, 4);
  assert.equal(match("trail")?.text, "trail   ");
  assert.equal(match("trail "), undefined);
  assert.equal(match("escaped ")?.line, 5);
  assert.equal(match("escaped"), undefined);
  assert.equal(match("win")?.text, "win");
  assert.equal(match("#hash")?.negated, false);
  assert.equal(match("!bang")?.negated, false);
  assert.equal(match("neg")?.negated, true);
  assert.equal(match("cut")?.line, 10);
  assert.equal(match("cut\0off"), undefined);
});

Deno.test("the last matching rule decides; a trailing / matches folders only", () => {
  const rules = parseIgnorePatterns("*.log\n!keep.log\nbuild/\n/only-root\nsrc/*.gen\n");
  assert.equal(rules.lastMatch("a/x.log", false)?.negated, false);
  assert.equal(rules.lastMatch("a/keep.log", false)?.negated, true);
  assert.equal(rules.lastMatch("build", false), undefined);
  assert.equal(rules.lastMatch("x/build", true)?.text, "build/");
  assert.equal(rules.lastMatch("only-root", false)?.text, "/only-root");
  assert.equal(rules.lastMatch("a/only-root", false), undefined);
  assert.equal(rules.lastMatch("src/a.gen", false)?.text, "src/*.gen");
  assert.equal(rules.lastMatch("x/src/a.gen", false), undefined);
  assert.equal(rules.lastMatch("src/a/b.gen", false), undefined);
});

Deno.test("ignores: a folder the rules ignore hides what is inside it, whatever a negation says", () => {
  const rules = parseIgnorePatterns("cache/\n!cache/keep\nlogs/*\n!logs/keep\n");
  assert.equal(rules.ignores("cache/keep", false), true);
  assert.equal(rules.ignores("logs/keep", false), false);
  assert.equal(rules.ignores("logs/other", false), true);
  assert.equal(rules.ignores("cache", false), false);
  assert.equal(rules.ignores("cache", true), true);
});

Deno.test("path and name rules, matched from any folder, agree with git", async () => {
  const text = [
    "/agent-config",
    "node_modules/",
    "*.log",
    "src/*/gen-*",
    "src/a/exact.ts",
    "/src/a/*.tmp",
    "docs/**/draft",
    "[Tt]mp",
    "!src/a/keep.log",
    "**/deep/x",
    "",
  ].join("\n");
  const rules = parseIgnorePatterns(text);
  const prefixes = ["", "src/", "src/a/", "src/a/b/", "docs/", "docs/x/y/", "other/deep/"];
  const names = ["agent-config", "x.log", "keep.log", "gen-1", "exact.ts", "y.tmp", "draft", "Tmp"];
  const files: Record<string, string> = { ".gitignore": text };
  for (const prefix of prefixes) for (const name of names) files[`${prefix}${name}`] = "";
  await withProject(files, async (root) => {
    const paths = Object.keys(files).filter((path) => path !== ".gitignore");
    const answers = await gitCheckIgnore(root, paths);
    for (const prefix of prefixes) {
      for (const name of names) {
        const match = rules.lastMatch(`${prefix}${name}`, false);
        const ignored = match !== undefined && !match.negated;
        assert.equal(ignored, answers.get(`${prefix}${name}`), `${prefix}${name}`);
      }
    }
  }, { git: true });
});

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  "a",
  "ab",
  "Abc",
  "a.b",
  "x.txt",
  "y.TXT",
  "é",
  "café",
  "caf",
  "a[b]",
  "a b",
  "f!",
  "#h",
  "z-9",
  "q?",
  "a*",
  "日本",
  "foo",
  "foobar",
];
const ATOMS = [
  "a",
  "b",
  "é",
  "*",
  "*",
  "?",
  "??",
  "**",
  "[ab]",
  "[!a]",
  "[^a]",
  "[a-c]",
  "[A-Z]",
  "[]a]",
  "[!]]",
  "[[:alpha:]]",
  "[[:digit:]]",
  "[[:upper:]]",
  "[[:punct:]]",
  "[[:bogus:]]",
  "[a-]",
  "[\\]]",
  "\\*",
  "\\?",
  "\\[",
  "\\a",
  ".",
  "txt",
  "TXT",
  "foo",
  "[",
  "[a",
  "日",
  "\\",
  " ",
  "\\ ",
  "!",
  "#",
  "[é]",
];

/** A random rule of glob syntax git supports, and some it refuses to match. */
function randomRule(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const segment = () =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(ATOMS)).join("");
  let rule = Array.from({ length: 1 + Math.floor(random() * 3) }, segment).join("/");
  if (random() < 0.2) rule = `/${rule}`;
  if (random() < 0.2) rule = `${rule}/`;
  if (random() < 0.15) rule = `**/${rule}`;
  if (random() < 0.2) rule = `!${rule}`;
  if (random() < 0.05) rule = `\\${rule}`;
  if (random() < 0.1) rule = `${rule}   `;
  if (random() < 0.05) rule = `${rule}\r`;
  return rule;
}

Deno.test("parseIgnorePatterns agrees with git check-ignore on random globs and names", async () => {
  let checked = 0;
  let ignored = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) {
      const segments = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(NAMES));
      const clash = segments.some((_, depth) =>
        segments.slice(0, depth + 1).join("/") in files ||
        Object.keys(files).some((file) => file.startsWith(`${segments.join("/")}/`))
      );
      if (!clash) files[segments.join("/")] = "";
    }
    const entries = new Set<string>();
    for (const file of Object.keys(files)) {
      const segments = file.split("/");
      segments.forEach((_, depth) => entries.add(segments.slice(0, depth + 1).join("/")));
    }
    const text = Array.from({ length: 6 + Math.floor(random() * 6) }, () => randomRule(random))
      .join("\n") + "\n";
    files[".gitignore"] = text;
    const paths = [...entries];
    await withProject(files, async (root) => {
      const answers = await gitCheckIgnore(root, paths);
      const rules = parseIgnorePatterns(text);
      for (const path of paths) {
        const ours = rules.ignores(path, !(path in files));
        assert.equal(ours, answers.get(path), `seed ${seed}: ${path} with ${JSON.stringify(text)}`);
        if (ours) ignored++;
      }
    }, { git: true });
    checked += paths.length;
  }
  // Both answers are tested, not agreement on "nothing is ignored".
  assert.ok(ignored > checked / 10 && ignored < (checked * 9) / 10, `${ignored} of ${checked}`);
});
