import assert from "node:assert/strict";
import { findOutsideRefusal } from "../../lib/build/sandbox_refusal.ts";

const ROOTS = ["/home/me/project", "/srv/real/project"];

Deno.test("findOutsideRefusal: a read-only file system or permission denied outside the project", () => {
  const cases: [string, string][] = [
    ["npm ERR! EROFS: read-only file system, mkdir '/root/.npm'", "/root/.npm"],
    ["Error: EACCES: permission denied, open '/root/.config/tool.json'", "/root/.config/tool.json"],
    ["mkdir: cannot create directory '/root/.cache': Read-only file system", "/root/.cache"],
    ["OSError: [Errno 30] Read-only file system: '/usr/lib/python3/x'", "/usr/lib/python3/x"],
    ["PermissionError: [Errno 13] Permission denied: '/etc/app.conf'", "/etc/app.conf"],
    ["./build.sh: line 3: /var/log/app.log: Permission denied", "/var/log/app.log"],
    // macOS's sandbox-exec refuses with EPERM.
    ["touch: /Users/me/.cache/x: Operation not permitted", "/Users/me/.cache/x"],
    ["\x1b[31mnpm ERR!\x1b[0m EROFS: read-only file system, open '/root/.npmrc'", "/root/.npmrc"],
    // A path beside the project whose name starts like it is outside it.
    ["EROFS: read-only file system, mkdir '/home/me/project-cache'", "/home/me/project-cache"],
  ];
  for (const [line, path] of cases) {
    const found = findOutsideRefusal(`building\n${line}\nexit 1\n`, ROOTS);
    assert.equal(found?.path, path, line);
    assert(found.line.includes(path));
    assert(!found.line.includes("\x1b"));
  }
});

Deno.test("findOutsideRefusal: refusals inside the project, and other failures, are not", () => {
  for (
    const output of [
      "EROFS: read-only file system, open '/home/me/project/build.sh'",
      "touch: cannot touch '/srv/real/project/.git/x': Read-only file system",
      "EACCES: permission denied, open 'relative/path.txt'",
      "bash: ./run.sh: Permission denied",
      "Error: ENOENT: no such file or directory, open '/root/missing'",
      "not ok 1 - expected /usr/bin/env to exist",
      "fetch https://registry.npmjs.org/x failed: permission denied by policy",
    ]
  ) {
    assert.equal(findOutsideRefusal(output, ROOTS), undefined, output);
  }
});
