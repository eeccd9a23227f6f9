import assert from "node:assert/strict";
import {
  initialPrompt,
  repairPrompt,
} from "../../../lib/workflows/committing_code/prompt_layout.ts";
import {
  codeModificationInstructions,
  SYSTEM_PROMPTS,
} from "../../../lib/prompts/system_prompts.ts";

Deno.test("the initial prompt is the layout of seed 002, exactly", () => {
  assert.equal(
    initialPrompt("Q\n", "C\n"),
    [
      SYSTEM_PROMPTS.projectStructure,
      codeModificationInstructions(),
      SYSTEM_PROMPTS.initialQuery,
      "[query]\nQ\n",
      "[codebase]\nC\n",
    ].join("\n"),
  );
});

Deno.test("without a codebase (the context builder's input) the codebase section is left out", () => {
  const prompt = initialPrompt("Q\n");
  assert(prompt.endsWith("[query]\nQ\n"));
  assert(!prompt.includes("[codebase]"));
});

Deno.test("the repair prompt is the layout of seed 002, exactly", () => {
  assert.equal(
    repairPrompt("B\n", "Q\n", "C\n", "R\n"),
    [
      SYSTEM_PROMPTS.projectStructure,
      codeModificationInstructions(),
      SYSTEM_PROMPTS.repairQuery,
      "[build.sh output]\nB\n",
      "[query]\nQ\n",
      "[codebase]\nC\n",
      "[file replacements]\nR\n",
    ].join("\n"),
  );
});
