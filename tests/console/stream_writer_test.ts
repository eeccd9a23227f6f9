/** The stream writer: a reader that is gone (a broken pipe) ends its output quietly. */
import assert from "node:assert/strict";
import { streamWriter } from "../../lib/console/stream_writer.ts";

Deno.test("streamWriter: a broken pipe drops that write and every later one, quietly; other failures are thrown", () => {
  const written: string[] = [];
  let broken = false;
  const write = streamWriter({
    writeSync(bytes) {
      if (broken) throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
      // Half at a time: the writer goes on until all is written.
      const half = Math.max(1, bytes.length >> 1);
      written.push(new TextDecoder().decode(bytes.subarray(0, half)));
      return half;
    },
  });
  write("first line\n");
  assert.equal(written.join(""), "first line\n");
  broken = true;
  write("second\n");
  broken = false; // never asked again
  write("third\n");
  assert.equal(written.join(""), "first line\n");

  const failing = streamWriter({
    writeSync() {
      throw new Deno.errors.PermissionDenied("no");
    },
  });
  assert.throws(() => failing("x"), Deno.errors.PermissionDenied);
});
