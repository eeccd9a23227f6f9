import assert from "node:assert/strict";
import { formatBytes } from "../../lib/text/sizes.ts";

for (
  const [bytes, expected] of [
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1,023 bytes"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [1024 * 1024, "1 MiB"],
    [3 * 1024 ** 3, "3 GiB"],
    [5000 * 1024 ** 3, "5000 GiB"],
  ] as const
) {
  Deno.test(`formatBytes(${bytes}) is ${expected}`, () =>
    assert.equal(formatBytes(bytes), expected));
}
