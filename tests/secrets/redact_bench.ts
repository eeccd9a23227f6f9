/** Redaction of large, hostile texts: it runs on every log write and every printed line. */
import { Redactor } from "../../lib/secrets/redact.ts";

const key = "AIzaSyTEST-gemini-0123456789abcdefghijkXY";
const redactor = new Redactor([key, "sk-proj-TEST-openai-0123456789abcdefghijkZW"]);
const words = `${"ab12".repeat(250_000)} *** ${key} ${"x".repeat(1_000_000)}`;
const stars = `${"*".repeat(1_000_000)}kZW ${key}`;
const log = `build ok\n${key}\n`.repeat(50_000);

Deno.bench("redact 2 MB of word characters next to a mask", () => {
  redactor.redact(words);
});
Deno.bench("redact 1 MB of asterisks", () => {
  redactor.redact(stars);
});
Deno.bench("redact a 2.5 MB build log holding the key 50,000 times", () => {
  redactor.redact(log);
});
const parts = `error: API key ${key.slice(0, 16)}... is invalid\n${
  "x = 1; // ok\n".repeat(150_000)
}`;
Deno.bench("redact 2 MB of code quoting part of a key once", () => {
  redactor.redact(parts);
});
// The worst case of the run scan: text made of 4-character pieces of a key, so that every look
// of the first filter hits and every window is hashed.
// Two texts, in turn: the redactor remembers the last text it found clean, and skips it.
const pieces = ["0123".repeat(500_000), "0123".repeat(499_999)];
let turn = 0;
Deno.bench("redact 2 MB made of pieces of a key (the run scan's worst case)", () => {
  redactor.redact(pieces[turn++ % 2]);
});
// A JSON reply body of 2 MB whose text holds `\u` escapes (non-ASCII written escaped): every
// escape is decoded, and the decoded text scanned, on every redaction.
const escapedBody = JSON.stringify({ text: "caf\u00e9 = 1; // ok\n".repeat(100_000) })
  .replaceAll("\u00e9", "\\u00e9");
const escapedKeyBody = escapedBody.replace(
  "caf",
  key.split("").map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
);
const bodies = [escapedBody, `${escapedBody} `];
Deno.bench("redact a 2 MB JSON body holding \\u escapes, no key", () => {
  redactor.redact(bodies[turn++ % 2]);
});
Deno.bench("redact a 2 MB JSON body holding \\u escapes and a key written with them", () => {
  redactor.redact(escapedKeyBody);
});
