import assert from "node:assert/strict";
import {
  initialPrompt,
  repairPrompt,
} from "../../../lib/workflows/committing_code/prompt_layout.ts";
import type { FileOperation } from "../../../lib/reply/operations.ts";
import { codeModificationInstructions, systemPromptFile } from "../../support/expected_prompts.ts";

Deno.test("the initial prompt: three system prompts, [query], [codebase], exactly", () => {
  assert.equal(
    initialPrompt("Q\n", "C\n"),
    [
      systemPromptFile("project-structure"),
      codeModificationInstructions(),
      systemPromptFile("initial-query"),
      "[query]\nQ\n",
      "[codebase]\nC\n",
    ].join("\n"),
  );
});

Deno.test("without a codebase (the context builder's input) the codebase section is left out", () => {
  assert.equal(
    initialPrompt("Q"),
    [
      systemPromptFile("project-structure"),
      codeModificationInstructions(),
      systemPromptFile("initial-query"),
      "[query]\nQ\n",
    ].join("\n"),
  );
});

Deno.test("the repair prompt: three system prompts, build output, query, codebase, replacements", () => {
  assert.equal(
    repairPrompt(
      "B\n",
      "Q\n",
      "C\n",
      new Map([["r", { kind: "write", path: "r", content: "R\n" }]]),
    ),
    [
      systemPromptFile("project-structure"),
      codeModificationInstructions(),
      systemPromptFile("repair-query"),
      "[build.sh output]\nB\n",
      "[query]\nQ\n",
      "[codebase]\nC\n",
      "[file replacements]\n--- FILE REPLACEMENT r ---\nR\n",
    ].join("\n"),
  );
});

/** The `[file replacements]` section of a repair prompt listing `applied`. */
function replacements(applied: [string, FileOperation][]): string {
  const prompt = repairPrompt("B\n", "Q\n", "C\n", new Map(applied));
  return prompt.slice(prompt.indexOf("[file replacements]\n") + "[file replacements]\n".length);
}

Deno.test("no change yet says so", () => {
  assert.equal(replacements([]), "(none: no reply has been applied yet)\n");
});

Deno.test("only the latest change of each file is listed, in code-point order", () => {
  const applied = new Map<string, FileOperation>();
  const record = (operation: FileOperation) => applied.set(operation.path, operation);
  record({ kind: "write", path: "src/b.ts", content: "b1\n" });
  record({ kind: "write", path: "src/a.ts", content: "a1\n" });
  record({ kind: "write", path: "README.md", content: "r\n" });
  record({ kind: "write", path: "src/b.ts", content: "b2\n" });
  record({ kind: "delete", path: "src/a.ts" });
  record({ kind: "write", path: "src/empty.ts", content: "" });
  assert.equal(
    replacements([...applied]),
    "--- FILE REPLACEMENT README.md ---\nr\n" +
      "--- FILE REMOVED src/a.ts ---\n" +
      "--- FILE REPLACEMENT src/b.ts ---\nb2\n" +
      "--- FILE REPLACEMENT src/empty.ts ---\n",
  );
});

Deno.test("a file removed and then written again is listed as written", () => {
  const applied = new Map<string, FileOperation>([["x", { kind: "delete", path: "x" }]]);
  applied.set("x", { kind: "write", path: "x", content: "back\n" });
  assert.equal(replacements([...applied]), "--- FILE REPLACEMENT x ---\nback\n");
});
