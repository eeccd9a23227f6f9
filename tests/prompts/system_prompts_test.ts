import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describeProtectedPaths, PROTECTED_PATHS } from "../../lib/guard/protected_paths.ts";
import { codeModificationInstructions, SYSTEM_PROMPTS } from "../../lib/prompts/system_prompts.ts";
import { codeModificationInstructions as expectedInstructions } from "../support/expected_prompts.ts";

/**
 * The user's own prompts, to be kept word for word, pinned by SHA-256 of
 * the text exactly as the user wrote it: any edit, even of white space,
 * fails here.
 */
const VERBATIM = {
  initialQuery: "67d8a45542a4cef883fbf886e291f4f1447960ca2122b806435b3f2e96e70fb9",
  repairQuery: "f8db2e9a70f1ff98a6f5d39e8c6c198816fec3495112150636e0864437738a49",
  consistencyReport: "3482804354e98f3bfafcee38401ee068a4fa37b44c2693d2f9381df2aa70ccaa",
} as const;

Deno.test("the user's prompts are kept verbatim", () => {
  for (const [name, sha] of Object.entries(VERBATIM)) {
    const text = SYSTEM_PROMPTS[name as keyof typeof VERBATIM];
    assert.equal(createHash("sha256").update(text).digest("hex"), sha, name);
  }
  assert.match(
    SYSTEM_PROMPTS.initialQuery,
    /^You are taking the role of an expert software developer/,
  );
  assert.match(SYSTEM_PROMPTS.repairQuery, /Let's get the build working again\.\n$/);
  assert.match(SYSTEM_PROMPTS.consistencyReport, /word-wrapped to 80\ncharacters\.\n$/);
});

Deno.test("the code-modification instructions list every protected path the guard enforces", () => {
  const text = codeModificationInstructions();
  assert.equal(text, expectedInstructions());
  assert.doesNotMatch(text, /\{\{[A-Z_]+\}\}/, "a placeholder is left");
  assert.equal(describeProtectedPaths().length, PROTECTED_PATHS.length);
  for (const line of describeProtectedPaths()) assert(text.includes(`- ${line}`), line);
  for (const entry of PROTECTED_PATHS) assert(text.includes(entry.name), entry.name);
  // And the syntax the parser reads.
  for (const marker of ["^^^end", "^^^delete", "^^^src/"]) assert(text.includes(marker), marker);
});

Deno.test("code-commit's own prompts are non-empty and end with a newline", () => {
  for (const name of ["projectStructure", "contextQuery"] as const) {
    assert(SYSTEM_PROMPTS[name].trim().length > 200, name);
    assert(SYSTEM_PROMPTS[name].endsWith("\n"), name);
  }
  assert.match(SYSTEM_PROMPTS.contextQuery, /%%%files/);
  assert.match(SYSTEM_PROMPTS.contextQuery, /%%%end/);
});
