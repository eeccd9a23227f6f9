/**
 * Tests of key redaction: every occurrence of every
 * key becomes `********` and its last two characters, keys inside other
 * text and other keys included, and an API's own masked echo of a key
 * (OpenAI's `sk-proj-****…abcd`) is masked the same way.
 */

import assert from "node:assert/strict";
import { encodedForms, Redactor, unalignedBase64Forms } from "../../lib/secrets/redact.ts";
import { loadLlmFixture } from "../support/fake_llm_server.ts";
import { GEMINI_KEY, OPENAI_KEY } from "../support/project.ts";

const G = GEMINI_KEY; // ends in "XY"
const O = OPENAI_KEY; // ends in "ZW"
const GM = "********XY";
const OM = "********ZW";

/** How a key looks masked: eight asterisks and its last two characters. */
const mask = (key: string) => `********${key.slice(-2)}`;

Deno.test("a key is masked as eight asterisks and its last two characters", () => {
  assert.equal(new Redactor([G]).redact(G), GM);
  assert.equal(new Redactor([O]).redact(O), OM);
  assert.equal(new Redactor(["abcdefgh"]).redact("abcdefgh"), "********gh");
});

/** Text in, text out, with both test keys known. */
const CASES: [string, string, string][] = [
  ["a key alone", G, GM],
  ["a key in a sentence", `the key is ${G}.`, `the key is ${GM}.`],
  ["every occurrence", `${G} and ${G} and again ${G}`, `${GM} and ${GM} and again ${GM}`],
  ["the same key twice, adjacent", `${G}${G}`, `${GM}${GM}`],
  ["two keys, adjacent", `${G}${O}`, `${GM}${OM}`],
  ["two keys, adjacent the other way", `${O}${G}`, `${OM}${GM}`],
  ["both keys on several lines", `a=${G}\nb=${O}\r\nc=${G}`, `a=${GM}\nb=${OM}\r\nc=${GM}`],
  ["in a header line", `x-goog-api-key: ${G}`, `x-goog-api-key: ${GM}`],
  ["in a Bearer header", `Authorization: Bearer ${O}`, `Authorization: Bearer ${OM}`],
  [
    "in a URL query",
    `https://x.example/v1?key=${G}&alt=json`,
    `https://x.example/v1?key=${GM}&alt=json`,
  ],
  [
    "in JSON text",
    JSON.stringify({ key: G, nested: { k: O } }),
    JSON.stringify({ key: GM, nested: { k: OM } }),
  ],
  [
    "in JSON text with escapes around it",
    JSON.stringify(`line\n"${G}"\t`),
    JSON.stringify(`line\n"${GM}"\t`),
  ],
  ["text without any key", "nothing secret here\n", "nothing secret here\n"],
  ["a key's prefix is masked, showing nothing of it", G.slice(0, -1), "********"],
  ["a key's suffix is masked, showing nothing of it", G.slice(1), "********"],
  ["12 characters of a key are masked", `key ${G.slice(5, 17)} invalid`, "key ******** invalid"],
  [
    "11 characters of a key are not",
    `key ${G.slice(5, 16)} invalid`,
    `key ${G.slice(5, 16)} invalid`,
  ],
  [
    "an API error quoting a key's first characters",
    `API key ${G.slice(0, 16)}... is invalid`,
    "API key ********... is invalid",
  ],
  ["empty text", "", ""],
];

for (const [name, text, expected] of CASES) {
  Deno.test(`redact: ${name}`, () => {
    const redactor = new Redactor([G, O]);
    assert.equal(redactor.redact(text), expected);
    assert.equal(redactor.containsKey(text), text !== expected, "containsKey agrees");
  });
}

Deno.test("a key that contains another is masked whole, whatever the order given", () => {
  const long = `sk-proj-${"A".repeat(20)}-tail99`;
  const short = `${"A".repeat(20)}-tail99`; // the end of `long`
  for (const keys of [[long, short], [short, long]]) {
    const redactor = new Redactor(keys);
    assert.equal(redactor.redact(`k=${long};`), `k=${mask(long)};`);
    assert.equal(redactor.redact(`k=${short};`), `k=${mask(short)};`);
    assert.equal(redactor.redact(`${long} ${short}`), `${mask(long)} ${mask(short)}`);
  }
  const inner = "AAAAAAAAAAAA"; // inside `long`, not at its end
  const redactor = new Redactor([inner, long]);
  assert.equal(redactor.redact(long), mask(long));
  assert.equal(redactor.redact(`x${inner}x`), `x${mask(inner)}x`);
});

Deno.test("a key file's whole text and its token both masked (as readKnownKeys gives them)", () => {
  const redactor = new Redactor([`${G} # my key`, G]);
  assert.equal(redactor.redact(`${G} # my key`), mask(`${G} # my key`));
  assert.equal(redactor.redact(`use ${G} here`), `use ${GM} here`);
});

Deno.test("overlapping keys at the end of a word: the echo pass masks the second key's rest", () => {
  // a ends where b starts. Masking a leaves "********11-BBBBBBBB-zz", which
  // the masked-echo pattern of b (stars … b's last four) then masks.
  const a = "sk-AAAAAAAA-1111";
  const b = "1111-BBBBBBBB-zz";
  assert.equal(new Redactor([a, b]).redact(`${a}-BBBBBBBB-zz`), "********zz");
  assert.equal(new Redactor([a, b]).redact(`x ${a}-BBBBBBBB-zz.`), "x ********zz.");
});

// Occurrences of every key are found in the original text first, so overlapping keys are masked whole.
Deno.test({
  name: "overlapping keys inside a word: neither key shows more than its last two characters",

  fn() {
    const a = "sk-AAAAAAAA-1111";
    const b = "1111-BBBBBBBB-zz";
    const out = new Redactor([a, b]).redact(`${a}-BBBBBBBB-zzQ`); // today "********11-BBBBBBBB-zzQ"
    assert.ok(!out.includes("BBBBBBBB"), `most of key b is visible: ${out}`);
  },
});

Deno.test("overlapping keys: at least no whole key survives (what holds today)", () => {
  const a = "sk-AAAAAAAA-1111";
  const b = "1111-BBBBBBBB-zz";
  const out = new Redactor([a, b]).redact(`${a}-BBBBBBBB-zzQ`);
  assert.ok(!out.includes(a) && !out.includes(b), out);
});

// ---------------------------------------------------------------------------
// The masked echo

Deno.test("OpenAI's 401 echo of the key (first 8, stars, last 4) is masked", async () => {
  const fixture = await loadLlmFixture("openai/401-invalid-key.json");
  const body = JSON.stringify(fixture.body, null, 2).replace("abcd.", `${O.slice(-4)}.`);
  const out = new Redactor([G, O]).redact(body);
  assert.ok(out.includes(`"message": "Incorrect API key provided: ${OM}. You can find`), out);
  assert.ok(!out.includes(O.slice(-4)), "the last four characters are gone");
  assert.ok(!out.includes("sk-proj-*"), "the prefix is gone too");
  // Everything else is untouched.
  assert.equal(out.replace(OM, "<KEY>"), body.replace(/sk-proj-\*+jkZW/, "<KEY>"));
});

/** Echo forms of the OpenAI test key (tail "jkZW") and what they become. */
const ECHOES: [string, string, string][] = [
  ["prefix, stars, tail", "key sk-proj-****jkZW rejected", `key ${OM} rejected`],
  ["at the very end", "sk-proj-*****************jkZW", OM],
  ["followed by a period", "provided: sk-****jkZW.", `provided: ${OM}.`],
  ["no prefix", "***jkZW", OM],
  ["some middle characters kept", "sk-proj-ab***cd.jkZW", OM],
  ["in JSON", '{"m":"sk-proj-********jkZW"}', `{"m":"${OM}"}`],
  ["twice", "sk-***jkZW and sk-***jkZW", `${OM} and ${OM}`],
  // Not echoes: left alone.
  ["two stars are markdown, not an echo", "sk-**jkZW", "sk-**jkZW"],
  ["the tail followed by more word characters", "sk-****jkZWx", "sk-****jkZWx"],
  ["another key's echo", "sk-proj-****abcd", "sk-proj-****abcd"],
  ["stars without the tail", "***bold*** text", "***bold*** text"],
  ["the tail without stars", "see jkZW here", "see jkZW here"],
];

for (const [name, text, expected] of ECHOES) {
  Deno.test(`masked echo: ${name}`, () => {
    assert.equal(new Redactor([G, O]).redact(text), expected);
  });
}

Deno.test("text without asterisks is returned untouched, byte for byte", () => {
  const text = "const a = `x ${b}`; // über ✓ \u0000 \r\n" + "jkZW".repeat(3);
  assert.equal(new Redactor([G, O]).redact(text), text);
});

Deno.test("echoes are not looked for with keys shorter than 8 characters", () => {
  assert.equal(new Redactor(["short7x"]).redact("ab***rt7x"), "ab***rt7x");
  assert.equal(new Redactor(["short7x"]).redact("a short7x b"), "a ********7x b");
});

// The echo's mask is inserted literally: `$&` or `$'` at the end of a key is not a replacement pattern.
Deno.test({
  name: "a key ending in $& still has its echo masked",

  fn() {
    const key = "sk-proj-secret-value-x$&";
    const out = new Redactor([key]).redact("provided: sk-proj-****e-x$&.");
    assert.equal(out, "provided: ********$&.");
  },
});

// ---------------------------------------------------------------------------
// The keys known

Deno.test("an empty key list, or only empty keys, changes nothing", () => {
  for (const redactor of [new Redactor(), new Redactor([]), new Redactor(["", ""])]) {
    assert.equal(redactor.redact(`x ${G} ***jkZW`), `x ${G} ***jkZW`);
    assert.equal(redactor.containsKey(G), false);
    assert.equal(redactor.containsKey(""), false);
  }
});

Deno.test("a redactor masks exactly the keys it was given; duplicates are harmless", () => {
  const other = "sk-other-ZYXWVUTSRQPONMLK-99"; // nothing in common with G
  assert.equal(new Redactor([G]).redact(`${G} ${other}`), `${GM} ${other}`);
  assert.equal(new Redactor([G, other]).redact(`${G} ${other}`), `${GM} ********99`);
  assert.equal(new Redactor([G, G, G]).redact(G), GM, "duplicates are harmless");
});

Deno.test("containsKey finds a key anywhere, and nothing else", () => {
  const redactor = new Redactor([G, O]);
  assert.equal(redactor.containsKey(`prefix${G}suffix`), true);
  assert.equal(redactor.containsKey(`line 1\nline 2 ${O}`), true);
  assert.equal(redactor.containsKey(GM), false, "a masked key is no key");
  assert.equal(redactor.containsKey(G.toUpperCase()), false, "keys are case-sensitive");
  assert.equal(redactor.containsKey("sk-proj-****jkZW"), false, "an echo is no key");
});

Deno.test("redacting twice changes nothing more", () => {
  const redactor = new Redactor([G, O]);
  const once = redactor.redact(`${G} sk-proj-****jkZW ${O}`);
  assert.equal(redactor.redact(once), once);
});

// An echo pattern with unbounded quantifiers backtracks: on a long run of word characters (or of
// asterisks) next to a mask it takes minutes, freezing the tool. These inputs would show it.
Deno.test("redaction stays linear on long runs of word characters and asterisks", () => {
  const redactor = new Redactor([G, O]);
  const words = `${"ab12".repeat(50_000)} *** ${G} ${"x".repeat(100_000)}`;
  assert.ok(redactor.redact(words).includes(GM));
  const stars = `${"*".repeat(200_000)}${O.slice(-4)} ${O}`;
  assert.ok(redactor.redact(stars).endsWith(OM));
});

// A build runs code the model wrote: it can print the key file encoded.
Deno.test("the key's base64 and hex forms are masked too", () => {
  const redactor = new Redactor([G]);
  const b64 = (s: string) => btoa(s);
  const hex = Array.from(new TextEncoder().encode(G), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
  for (
    const text of [
      `debug: ${b64(G)}`, // base64 of the key
      `debug: ${b64(`${G}\n`)}`, // `base64 agent-config/gemini-key.txt`
      `debug: ${b64(G).replaceAll("+", "-").replaceAll("/", "_")}`,
      `debug: ${hex}`,
      `debug: ${hex.toUpperCase()}`,
    ]
  ) {
    const out = redactor.redact(text);
    assert.ok(out.startsWith("debug: ********"), `${text} → ${out}`);
    assert.ok(!out.includes(b64(G).replace(/=+$/, "").slice(0, 20)), out);
    assert.ok(
      !out.includes(hex.slice(0, 20).toLowerCase()) &&
        !out.includes(hex.slice(0, 20).toUpperCase()),
      out,
    );
  }
  assert.equal(
    redactor.containsKey(`x ${b64(G)} y`),
    true,
    "an encoded key in a prompt is refused too",
  );
});

Deno.test("encodedForms gives base64 (standard, URL-safe, with the file's line end) and hex", () => {
  const forms = encodedForms("AAAAAAAAAAA?");
  assert.ok(forms.includes(btoa("AAAAAAAAAAA?").replace(/=+$/, "")));
  assert.ok(forms.includes(btoa("AAAAAAAAAAA?\n").replace(/=+$/, "")));
  assert.ok(forms.includes(btoa("AAAAAAAAAAA?\r\n").replace(/=+$/, "")));
  assert.ok(forms.includes("41414141414141414141413f"));
  assert.ok(forms.includes("41414141414141414141413F"));
});

/** Base64 of `prefix` + the key + `suffix`, as a program that encodes a whole line would print it. */
function base64Of(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

// Base64 is cut in 3-byte groups: the key after `K=` (2 bytes) or `u:` in a Basic-auth value
// starts at another offset, and its aligned form is nowhere in the output.
Deno.test("base64 of a key at each of the three byte offsets is masked", () => {
  const redactor = new Redactor([G, O]);
  for (const key of [G, O]) {
    for (const prefix of ["", "K", "K=", "user:", "ab\n"]) {
      for (const suffix of ["", "\n", ";x", "==="]) {
        const encoded = base64Of(`${prefix}${key}${suffix}`);
        const out = redactor.redact(`Authorization: Basic ${encoded}`);
        assert.ok(out.includes("********"), `${prefix}|${suffix}: ${out}`);
        assert.ok(out.length < `Authorization: Basic ${encoded}`.length - 30, out);
        assert.equal(redactor.containsKey(`x ${encoded} y`), true, `${prefix}|${suffix}`);
        // What is left of the encoded text is at most the few characters mixed with the neighbours.
        const left = out.replace("Authorization: Basic ", "").replace(/\*{8}[\w+/-]{0,2}/, "");
        assert.ok(left.length <= 3 + Math.ceil(((prefix.length + suffix.length) * 4) / 3) + 3, out);
      }
    }
  }
});

Deno.test("unalignedBase64Forms: the characters that depend on the key alone", () => {
  const key = "AIzaSyTEST-key";
  const keyBytes = new TextEncoder().encode(key);
  const forms = unalignedBase64Forms(key);
  assert.equal(forms.length, 6);
  const encode = (bytes: number[]) => btoa(String.fromCharCode(...bytes));
  for (const [offset, form] of [[0, forms[0]], [1, forms[2]], [2, forms[4]]] as const) {
    for (const before of [0x00, 0x7a, 0xff]) {
      for (const after of [[], [0x00], [0x51], [0xff, 0xff]]) {
        const text = encode([...Array(offset).fill(before), ...keyBytes, ...after]);
        assert.ok(text.includes(form), `offset ${offset}, ${before}, ${after}: ${form}`);
      }
    }
  }
  assert.equal(forms[1], forms[0].replaceAll("+", "-").replaceAll("/", "_"));
});

Deno.test("a run of a key's hex or base64 form is masked too", () => {
  const redactor = new Redactor([G]);
  const hex = Array.from(new TextEncoder().encode(G), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  assert.equal(redactor.redact(`x ${hex.slice(10, 40)} y`), "x ******** y");
  assert.equal(redactor.redact(`x ${btoa(G).slice(4, 24)} y`), "x ******** y");
});

Deno.test("runs are looked for in key-shaped entries only, not in a key file's note", () => {
  const redactor = new Redactor([`${G} # the key for the shop`, G]);
  assert.equal(redactor.redact("key for the shop"), "key for the shop");
  assert.equal(redactor.redact(`see ${G.slice(3, 20)}`), "see ********");
});

Deno.test("a part of a key next to a whole one: the whole key's mask, no character more", () => {
  const redactor = new Redactor([G]);
  assert.equal(redactor.redact(`${G.slice(0, 20)}${G}`), `********${GM}`);
  assert.equal(redactor.redact(`${G}${G.slice(-15)}`), `${GM}********`);
  // Two parts that overlap in the key but not in the text: two masks.
  assert.equal(redactor.redact(`${G.slice(0, 30)}${G.slice(20)}`), "****************");
});

Deno.test("containsKey: a run of 12 characters of a key, or base64 at an offset, is a key", () => {
  const redactor = new Redactor([G, O]);
  assert.equal(redactor.containsKey(`const id = "${O.slice(8, 20)}";`), true);
  assert.equal(redactor.containsKey(`const id = "${O.slice(8, 19)}";`), false);
  assert.equal(redactor.containsKey(base64Of(`K=${G}`)), true);
  assert.equal(redactor.containsKey("ordinary code, nothing secret".repeat(100)), false);
});

Deno.test("a run is found at every place in long text: ASCII, not ASCII, and where one meets the other", () => {
  const redactor = new Redactor([G, O]);
  const run = O.slice(9, 21); // 12 characters of a key: the shortest run that is masked
  const ascii = "const value = compute(input); // plain ASCII code\n".repeat(1500); // 75,000
  // The scan reads ASCII text a chunk at a time and other text a character at a time: each
  // filler puts chunk edges and changes of kind at other places relative to the run.
  const fillers = {
    ascii,
    "not ASCII": ascii.replaceAll("plain", "plaîn"),
    "ASCII, then not": ascii.slice(0, 30_000) + ascii.slice(30_000).replaceAll("code", "cøde"),
    "not, then ASCII": ascii.slice(0, 30_000).replaceAll("code", "c—de") + ascii.slice(30_000),
    "one em dash": ascii.slice(0, 9_000) + "—" + ascii.slice(9_001),
  };
  for (const [name, filler] of Object.entries(fillers)) {
    assert.equal(redactor.containsKey(filler), false, name);
    for (let edge = 8192; edge <= 65_536; edge += 8192) {
      for (let at = edge - 14; at <= edge + 2; at++) {
        const text = filler.slice(0, at) + run + filler.slice(at + run.length);
        const where = `${name}, at ${at}`;
        assert.equal(redactor.containsKey(text), true, where);
        assert.equal(
          redactor.redact(text),
          filler.slice(0, at) + "********" + filler.slice(at + run.length),
          where,
        );
      }
    }
  }
});

Deno.test("a run is found after characters that take more than one byte, in short text and in a full chunk", () => {
  const redactor = new Redactor([G, O]);
  const run = O.slice(9, 21);
  // A character of 2, 3 or 4 bytes in UTF-8 (é, 中, an emoji of two UTF-16 units) puts every
  // later byte off its character: the chunk must not be read as bytes then, even where its
  // bytes still fit the buffer (short text, or a full chunk with one such character).
  for (const wide of ["é", "中", "\u{1F600}"]) {
    for (const before of ["", "x".repeat(16_000)]) {
      for (let filler = 0; filler <= 16; filler++) {
        const text = `${before}${wide}${"x".repeat(filler)}${run} and after`;
        const where = `${JSON.stringify(wide)} after ${before.length}, filler ${filler}`;
        assert.equal(redactor.containsKey(text), true, where);
        assert.equal(
          redactor.redact(text),
          `${before}${wide}${"x".repeat(filler)}******** and after`,
          where,
        );
      }
    }
  }
});

Deno.test("keys no run scan finds are looked for whole: short keys, and key files' text with white space", () => {
  const note = "my key\nfor the build"; // a key file's whole text: no run of it is looked for
  const redactor = new Redactor([note, "short7x", G]);
  for (
    const [text, masked] of [
      [`x ${note} y`, `x ********ld y`],
      [`a short7x b`, `a ********7x b`],
      [`${G.slice(0, 12)} and ${note}`, `******** and ********ld`],
    ]
  ) {
    assert.equal(redactor.containsKey(text), true, text);
    assert.equal(redactor.redact(text), masked, text);
  }
  assert.equal(redactor.containsKey("my key for the build"), false);
});

Deno.test("a text found clean once is known clean; another text is looked at again", () => {
  const redactor = new Redactor([G]);
  const prompt = `${"code ".repeat(1000)}`;
  assert.equal(redactor.redact(prompt), prompt);
  assert.equal(redactor.containsKey(prompt), false);
  assert.equal(redactor.containsKey(`${prompt}${G}`), true);
  assert.equal(redactor.containsKey(prompt), false);
});

/** `text` with the characters at the positions `which` picks written as `\uXXXX` (hex in `hexCase`). */
function uEscape(
  text: string,
  which: (index: number) => boolean = () => true,
  hexCase: "lower" | "upper" = "lower",
): string {
  return text.split("").map((unit, index) => {
    if (!which(index)) return unit;
    const hex = unit.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${hexCase === "upper" ? hex.toUpperCase() : hex}`;
  }).join("");
}

/** Undoes JSON string escapes, up to three levels (JSON in JSON), for the tests' own checks. */
function unescapeAll(text: string): string {
  let out = text;
  for (let level = 0; level < 3; level++) {
    out = out.replace(
      /\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g,
      (_, escape: string) =>
        escape.length === 5
          ? String.fromCharCode(parseInt(escape.slice(1), 16))
          : ({ b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" } as Record<string, string>)[escape] ??
            escape,
    );
  }
  return out;
}

/** Fails when `text`, as it stands or with its escapes undone, holds 12 characters of a key. */
function assertNoKeyForm(text: string, name: string): void {
  for (const form of [text, unescapeAll(text)]) {
    for (const key of [G, O]) {
      for (let at = 0; at + 12 <= key.length; at++) {
        assert(
          !form.includes(key.slice(at, at + 12)),
          `${name}: ${key.slice(at, at + 12)} in ${form}`,
        );
      }
    }
  }
}

/** A JSON error body whose message carries `written` (a key as it is written in JSON). */
const errorBody = (written: string) =>
  `{\n  "error": {\n    "code": 400,\n    "message": "API key ${written} not valid",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n`;

/** Each way a JSON text can write the Gemini key. */
const ESCAPED_FORMS: [string, string][] = [
  ["every character \\u-escaped, lower-case hex", uEscape(G)],
  ["every character \\u-escaped, upper-case hex", uEscape(G, () => true, "upper")],
  ["every third character \\u-escaped", uEscape(G, (i) => i % 3 === 0)],
  ["one character \\u-escaped", uEscape(G, (i) => i === 20)],
  ["the first and last characters \\u-escaped", uEscape(G, (i) => i === 0 || i === G.length - 1)],
  [
    "hex case mixed",
    uEscape(G, (i) => i % 2 === 0, "upper").replace(/\\u00([0-9a-f]{2})/g, "\\u00$1"),
  ],
];

for (const [name, written] of ESCAPED_FORMS) {
  Deno.test(`a key written in JSON with ${name} is masked, and the body stays JSON`, () => {
    assert.notEqual(written, G);
    const redactor = new Redactor([G, O]);
    const body = errorBody(written);
    assert.equal(
      JSON.parse(body).error.message,
      `API key ${G} not valid`,
      "the body holds the key",
    );
    assert.equal(redactor.containsKey(body), true);
    const redacted = redactor.redact(body);
    assert.equal(JSON.parse(redacted).error.message, `API key ${GM} not valid`);
    assertNoKeyForm(redacted, name);
  });
}

Deno.test("a part of a key (12 characters or more) written with \\u escapes is masked", () => {
  const redactor = new Redactor([G, O]);
  const body = errorBody(`${uEscape(G.slice(0, 16))}...`);
  assert.equal(redactor.containsKey(body), true);
  const redacted = redactor.redact(body);
  assert.equal(JSON.parse(redacted).error.message, "API key ********... not valid");
  assertNoKeyForm(redacted, "a part");
});

Deno.test("base64 of a key with its slashes written \\/ is masked", () => {
  // A key whose base64 holds a slash (`?` bytes): JSON may write it `\/`.
  const key = "sk-test-???-0123456789abcdefghij";
  const encoded = btoa(key);
  assert.match(encoded, /\//);
  const redactor = new Redactor([key]);
  const body = `{"auth":"${encoded.replaceAll("/", "\\/")}"}`;
  assert.equal(redactor.containsKey(body), true);
  const redacted = redactor.redact(body);
  // As the same base64 is masked written plainly: the unpadded form, its padding after.
  assert.equal(JSON.parse(redacted).auth, redactor.redact(encoded));
  assert.match(redactor.redact(encoded), /^\*{8}\w\w=$/);
});

Deno.test("a key in JSON quoted in a JSON string (escaped twice) is masked", () => {
  const redactor = new Redactor([G, O]);
  const inner = JSON.stringify({ message: `key ${G}` }).replace(G, uEscape(G));
  const body = JSON.stringify({ error: { message: inner } });
  assert.ok(!body.includes(G.slice(0, 12)));
  assert.equal(redactor.containsKey(body), true);
  const redacted = redactor.redact(body);
  assert.equal(JSON.parse(JSON.parse(redacted).error.message).message, `key ${GM}`);
  assertNoKeyForm(redacted, "twice");
});

Deno.test("a body that is not JSON, cut in the middle of an escaped key, shows none of it", () => {
  const redactor = new Redactor([G, O]);
  const written = uEscape(G);
  // Cut mid-key (past 12 characters) and mid-escape.
  const body = `{"candidates":[{"content":{"parts":[{"text":"the key ${
    written.slice(0, 6 * 20 + 3)
  }`;
  assert.throws(() => JSON.parse(body));
  assert.equal(redactor.containsKey(body), true);
  const redacted = redactor.redact(body);
  assertNoKeyForm(redacted, "cut");
  assert.match(redacted, /the key \*{8}\\u0/);
});

Deno.test("an API's masked echo written with \\u escapes is masked", () => {
  const redactor = new Redactor([G, O]);
  const echo = `sk-proj-${uEscape("*********")}${uEscape(O.slice(-4))}`;
  const body = `{"error":{"message":"Incorrect API key provided: ${echo}."}}`;
  assert.equal(
    JSON.parse(redactor.redact(body)).error.message,
    `Incorrect API key provided: ${OM}.`,
  );
});

Deno.test("escapes with no key behind them are left alone, and the text is not copied", () => {
  const redactor = new Redactor([G, O]);
  const text = '{"text":"caf\\u00e9 \\/ \\"quoted\\" line\\nnext \\\\u0041"}';
  assert.equal(redactor.redact(text), text);
  assert.equal(redactor.containsKey(text), false);
  // A key's characters each escaped but spread apart hold no run of it.
  const spread = uEscape(G).split("\\").join(" \\");
  assert.equal(redactor.containsKey(spread), false);
});

Deno.test("only the text around escapes that may write a key is decoded, and no key is cut at its edge", () => {
  const redactor = new Redactor([G, O]);
  // A plain key at every distance from an escape of a key's character: wherever the decoded
  // stretch ends, the key is masked whole.
  for (let gap = 0; gap < 1_600; gap++) {
    const text = `\\u0041${" ".repeat(gap)}${G} end`;
    assert.equal(redactor.redact(text), `\\u0041${" ".repeat(gap)}${GM} end`, `gap ${gap}`);
  }
  // Escaped keys far apart in a long text, among escapes that cannot write one.
  const filler = "caf\\u00e9 \\n ".repeat(20_000);
  const text = `{"a":"${filler}${uEscape(G)}${filler}${uEscape(O, (i) => i % 2 === 0)}${filler}"}`;
  const redacted = redactor.redact(text);
  assert.equal(JSON.parse(redacted).a, JSON.parse(`"${filler}${GM}${filler}${OM}${filler}"`));
  assert.equal(redactor.containsKey(text), true);
  assert.equal(redactor.containsKey(`{"a":"${filler}\\u0041${filler}"}`), false);
});
