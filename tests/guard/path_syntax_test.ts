import assert from "node:assert/strict";
import { checkPathSyntax, normalizeProjectPath } from "../../lib/guard/path_syntax.ts";

Deno.test("checkPathSyntax accepts ordinary relative paths", () => {
  for (
    const path of [
      "a.ts",
      "src/a.ts",
      "./src/a.ts",
      ".github/workflows/ci.yml",
      "src/.eslintrc.json",
      "my file.ts",
      "src/café.ts",
      "src/~backup.ts",
      "file.txt~",
      "a-b_c.d.e",
      "日本/語.md",
      "a".repeat(255),
    ]
  ) {
    assert.equal(checkPathSyntax(path), undefined, JSON.stringify(path));
  }
});

Deno.test("checkPathSyntax refuses each hostile shape with a reason naming it", () => {
  const cases: [string, string][] = [
    ["", "is empty"],
    ["../x", "`..` segment"],
    ["a/../../x", "`..` segment"],
    ["a/..", "`..` segment"],
    ["..", "`..` segment"],
    ["./../x", "`..` segment"],
    ["/etc/passwd", "absolute"],
    ["//x", "absolute"],
    ["~", "`~`"],
    ["~/x", "`~`"],
    ["~root/x", "`~`"],
    ["a\\b", "backslash"],
    ["C:/x", "`:`"],
    ["c:x", "`:`"],
    ["a.txt:stream", "`:`"],
    ["a\u0000b", "control character U+0000"],
    ["a\nb", "control character U+000A"],
    ["a\u001fb", "control character U+001F"],
    ["a\u007fb", "control character U+007F"],
    ["a\u0080b", "control character U+0080"],
    ["a\u009fb", "control character U+009F"],
    ["a\u2028b", "control character U+2028"],
    ["a\u2029b", "control character U+2029"],
    [".g\u200cit/x", "invisible formatting character U+200C"],
    ["a\u202eb", "invisible formatting character U+202E"],
    ["\ufeffa", "invisible formatting character U+FEFF"],
    ["a\u00adb", "invisible formatting character U+00AD"],
    ["a\ud800b", "not valid Unicode"],
    ["a//b", "empty segment"],
    ["a/./b", "`.` segment"],
    [".", "`.` segment"],
    ["././a", "`.` segment"],
    ["./", "project root"],
    ["a/", "ends with `/`"],
    [" a", "white space"],
    ["a ", "white space"],
    ["src/a /b", "white space"],
    ["\u00a0a", "white space"],
    ["a\u3000", "white space"],
    ["build.sh.", "ends with `.`"],
    ["a./b", "ends with `.`"],
    ["...", "ends with `.`"],
    ["BUILD~1.SH", "short (8.3) name"],
    ["GIT~1/config", "short (8.3) name"],
    ["a".repeat(256), "longer than 255 bytes"],
    ["é".repeat(128), "longer than 255 bytes"],
    [Array.from({ length: 20 }, () => "a".repeat(250)).join("/"), "longer than 4096 bytes"],
  ];
  for (const [path, reason] of cases) {
    const got = checkPathSyntax(path);
    assert.ok(got?.includes(reason), `${JSON.stringify(path)}: ${JSON.stringify(got)}`);
  }
});

Deno.test("checkPathSyntax never repeats a control character in its reason", () => {
  for (let code = 0; code < 0x20; code++) {
    const reason = checkPathSyntax(`a${String.fromCharCode(code)}b`) ?? "";
    const raw = [...reason].some((c) => c.charCodeAt(0) < 0x20);
    assert.ok(!raw, `U+${code.toString(16)}`);
  }
});

Deno.test("normalizeProjectPath strips exactly one leading ./", () => {
  assert.equal(normalizeProjectPath("./src/a.ts"), "src/a.ts");
  assert.equal(normalizeProjectPath("src/a.ts"), "src/a.ts");
  assert.equal(normalizeProjectPath("././a"), "./a");
  assert.equal(normalizeProjectPath(".gitignore"), ".gitignore");
  assert.equal(normalizeProjectPath("./"), "");
});

Deno.test("checkPathSyntax with lengths: false leaves long names and paths to the file system", () => {
  const longName = "x".repeat(256);
  const longPath = Array.from({ length: 20 }, () => "y".repeat(250)).join("/");
  assert.match(checkPathSyntax(longName)!, /longer than 255 bytes/);
  assert.match(checkPathSyntax(longPath)!, /longer than 4096 bytes/);
  assert.equal(checkPathSyntax(longName, { lengths: false }), undefined);
  assert.equal(checkPathSyntax(longPath, { lengths: false }), undefined);
  assert.equal(checkPathSyntax(`é${longName}`, { lengths: false }), undefined);
  // Every other refusal stands.
  assert.match(checkPathSyntax(`${longName}/a:b`, { lengths: false })!, /contains `:`/);
  assert.match(checkPathSyntax(`${longName}//b`, { lengths: false })!, /empty segment/);
  assert.match(checkPathSyntax(`${longName}/BUILD~1.SH`, { lengths: false })!, /short/);
});
