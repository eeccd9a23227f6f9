import assert from "node:assert/strict";
import {
  initialPrompt,
  repairPrompt,
} from "../../../lib/workflows/committing_code/prompt_layout.ts";
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
    repairPrompt("B\n", "Q\n", "C\n", "R\n"),
    [
      systemPromptFile("project-structure"),
      codeModificationInstructions(),
      systemPromptFile("repair-query"),
      "[build.sh output]\nB\n",
      "[query]\nQ\n",
      "[codebase]\nC\n",
      "[file replacements]\nR\n",
    ].join("\n"),
  );
});
