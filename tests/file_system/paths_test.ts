import assert from "node:assert/strict";
import { dirname, relative, resolve } from "node:path";
import { folderOf, linkTarget, relativeUnder } from "../../lib/file_system/paths.ts";

Deno.test("folderOf: the folder that holds an absolute path, as node:path's dirname says", () => {
  for (const path of ["/a/b", "/a", "/", "/a/b/", "/a//b", "/a/b.c/d"]) {
    assert.equal(folderOf(path), dirname(path), path);
  }
});

Deno.test("linkTarget resolves a link's text as node:path's resolve does", () => {
  const cases: [string, string][] = [
    ["/p/a", "b"],
    ["/p/a", "../b"],
    ["/p/a", "../../../../b"],
    ["/p/a", "/etc/passwd"],
    ["/p/a", "./x/./y/../z/"],
    ["/p", "a//b"],
    ["/", ".."],
    ["/p/a", "/x/../y"],
  ];
  for (const [folder, target] of cases) {
    assert.equal(linkTarget(folder, target), resolve(folder, target), `${folder} + ${target}`);
  }
  assert.equal(linkTarget("/", "//a/./b/../c/"), "/a/c");
});

Deno.test("relativeUnder: the path below the root, nothing for the root itself or outside it", () => {
  assert.equal(relativeUnder("/p", "/p/a/b"), "a/b");
  assert.equal(relativeUnder("/p", "/p"), undefined);
  assert.equal(relativeUnder("/p", "/pq/a"), undefined);
  assert.equal(relativeUnder("/p", "/q"), undefined);
  assert.equal(relativeUnder("/", "/a"), "a");
  for (const path of ["/p/a/b", "/p/x"]) {
    assert.equal(relativeUnder("/p", path), relative("/p", path));
  }
});
