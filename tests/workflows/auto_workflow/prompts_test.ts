/**
 * Tests of the auto-workflow prompts: the `[label]` layout of seed 003 for
 * every phase-1 step, the cached and uncached variants, the placeholders,
 * and what the response-format instructions must tell the model.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Module } from "../../../lib/workflows/auto_workflow/graph.ts";
import {
  AUTO_WORKFLOW_TEXTS,
  changeQuery,
  fillTemplate,
  hasPrompts,
  PLACEHOLDERS,
  placeholderValues,
  type PromptInputs,
  reviewPrompt,
  STAGE_PROMPTS,
} from "../../../lib/workflows/auto_workflow/prompts.ts";
import { type StageName, STAGES } from "../../../lib/workflows/auto_workflow/stages.ts";
import { stageNamed } from "./helpers.ts";

const PROMPT_DIR = fileURLToPath(
  new URL("../../../lib/workflows/auto_workflow/prompts/", import.meta.url),
);

function module(path: string, dependencies: string[] = []): Module {
  const prefix = path === "" ? "src/" : `${path}/`;
  return {
    path,
    specPath: path === "" ? "UserSpecification.md" : `${path}/UserSpecification.md`,
    dependenciesFile: `${prefix}ModuleDependencies.md`,
    apiFile: `${prefix}APISignatures.md`,
    dependencies,
    depth: 0,
  };
}

const MODULES = [module("src/core"), module("src/llm", ["src/core"]), module("", ["src/llm"])];

function inputs(stage: StageName, path: string, cached?: string): PromptInputs {
  return {
    module: MODULES.find((m) => m.path === path)!,
    modules: MODULES,
    stage: stageNamed(stage),
    spec: `TARGET SPEC of ${path || "root"}\n`,
    topSpec: "TOP SPEC\n",
    cached,
  };
}

/** The `[label]` lines of a prompt, in order. */
function labels(prompt: string): string[] {
  return prompt.split("\n").filter((line) => /^\[[^\]]+\]$/.test(line));
}

Deno.test("self-consistent: [response format instructions][self consistent prompt][top level UserSpecification.md][target user specification]", () => {
  const prompt = reviewPrompt(inputs("self-consistent", "src/llm"));
  assert.deepEqual(labels(prompt), [
    "[response format instructions]",
    "[self consistent prompt]",
    "[top level UserSpecification.md]",
    "[target user specification]",
  ]);
  assert.ok(prompt.includes("[top level UserSpecification.md]\nTOP SPEC\n"));
  assert.ok(prompt.endsWith("[target user specification]\nTARGET SPEC of src/llm\n"));
  assert.ok(prompt.includes(AUTO_WORKFLOW_TEXTS.replyFormatReview));
  assert.ok(prompt.includes("- The module: src/llm\n"));
});

Deno.test("self-consistent of the root module skips the target section (it is the top-level one)", () => {
  const prompt = reviewPrompt(inputs("self-consistent", ""));
  assert.deepEqual(labels(prompt), [
    "[response format instructions]",
    "[self consistent prompt]",
    "[top level UserSpecification.md]",
  ]);
  assert.ok(!prompt.includes("TARGET SPEC"));
  assert.ok(prompt.includes("- The module: the root module (the project as a whole)\n"));
  assert.ok(
    prompt.includes("- The modules it depends on are listed in: src/ModuleDependencies.md\n"),
  );
});

Deno.test("implemented: the no-cache and with-cache variants", () => {
  const fresh = changeQuery(inputs("implemented", "src/llm"));
  assert.deepEqual(labels(fresh), [
    "[response format instructions]",
    "[implementation-no-cache prompt]",
    "[target user specification]",
  ]);
  const again = changeQuery(inputs("implemented", "src/llm", "OLD SPEC\n"));
  assert.deepEqual(labels(again), [
    "[response format instructions]",
    "[implementation-with-cache prompt]",
    "[cached target user specification]",
    "[target user specification]",
  ]);
  assert.ok(
    again.includes("[cached target user specification]\nOLD SPEC\n\n[target user specification]\n"),
  );
  assert.ok(fresh.includes(STAGE_PROMPTS.implemented!.uncached.text.slice(0, 60)));
  assert.ok(again.includes(STAGE_PROMPTS.implemented!.cached!.text.slice(0, 60)));
  assert.ok(fresh.includes(AUTO_WORKFLOW_TEXTS.replyFormatChange));
});

Deno.test("documented: no cached section even when the stage passed before; the module list filled in", () => {
  const query = changeQuery(inputs("documented", "src/llm", "OLD SPEC\n"));
  assert.deepEqual(labels(query), [
    "[response format instructions]",
    "[documented prompt]",
    "[target user specification]",
  ]);
  assert.ok(!query.includes("OLD SPEC"));
  assert.ok(query.includes("- src/core\n- src/llm\n"));
  assert.ok(query.includes("src/llm/ModuleDependencies.md lists the modules"));
});

Deno.test("happy-path-tested: the same prompt, with the cached section when there is one", () => {
  assert.deepEqual(labels(changeQuery(inputs("happy-path-tested", "src/core"))), [
    "[response format instructions]",
    "[happy-path-tested prompt]",
    "[target user specification]",
  ]);
  assert.deepEqual(labels(changeQuery(inputs("happy-path-tested", "src/core", "OLD\n"))), [
    "[response format instructions]",
    "[happy-path-tested prompt]",
    "[cached target user specification]",
    "[target user specification]",
  ]);
});

Deno.test("later phases: every stage has a prompt of its own, in the change layout", () => {
  const texts = new Set<string>();
  for (const stage of STAGES) {
    assert.ok(hasPrompts(stage), stage.name);
    const prompts = STAGE_PROMPTS[stage.name]!;
    texts.add(prompts.uncached.text);
    if (stage.kind === "change") {
      const query = changeQuery(inputs(stage.name, "src/core", "OLD\n"));
      const label = stage.name === "implemented" ? "implementation-with-cache" : stage.name;
      assert.equal(labels(query)[1], `[${label} prompt]`);
    }
  }
  assert.equal(texts.size, 14, "two stages share a prompt text");
});

Deno.test("review and change layouts refuse the wrong kind of stage", () => {
  assert.throws(() => reviewPrompt(inputs("implemented", "src/core")), RangeError);
  assert.throws(() => changeQuery(inputs("self-consistent", "src/core")), RangeError);
});

Deno.test("response-format instructions name the three tags exactly and the comment syntax", () => {
  for (
    const text of [
      AUTO_WORKFLOW_TEXTS.replyFormatReview,
      AUTO_WORKFLOW_TEXTS.replyFormatChange,
    ]
  ) {
    for (
      const tag of [
        "@@@@task-success@@@@",
        "@@@@changes-requested@@@@",
        "@@@@changes-attempted@@@@",
      ]
    ) {
      assert.ok(text.includes(`\n${tag}\n`), `${tag} is not on a line of its own`);
    }
    assert.ok(text.includes("\n%%%%comment%%%%\n"));
    assert.ok(text.includes("\n%%%%end%%%%\n"));
  }
  assert.match(
    AUTO_WORKFLOW_TEXTS.replyFormatChange,
    /\^\^\^ file block syntax described\s+earlier in this prompt/,
  );
  assert.match(AUTO_WORKFLOW_TEXTS.replyFormatReview, /never use this tag here/);
});

Deno.test("every prompt file is loaded, and holds only known placeholders", async () => {
  const files: string[] = [];
  for await (const entry of Deno.readDir(PROMPT_DIR)) files.push(entry.name);
  const loaded = [
    ...Object.values(AUTO_WORKFLOW_TEXTS),
    ...Object.values(STAGE_PROMPTS).flatMap((p) => [p!.uncached.text, p!.cached?.text ?? ""]),
  ];
  assert.equal(files.length, 18);
  for (const file of files) {
    const text = await Deno.readTextFile(`${PROMPT_DIR}${file}`);
    assert.ok(
      loaded.includes(text),
      `${file} is not loaded by lib/workflows/auto_workflow/prompts.ts`,
    );
    for (const [, name] of text.matchAll(/\{\{([^}]*)\}\}/g)) {
      assert.ok((PLACEHOLDERS as readonly string[]).includes(name), `${file}: {{${name}}}`);
    }
    assert.ok(!text.includes("\t"), `${file} holds a tab`);
  }
});

Deno.test("fillTemplate: fills every placeholder and refuses an unknown one", () => {
  const values = placeholderValues(MODULES[1], MODULES);
  const filled = fillTemplate(PLACEHOLDERS.map((p) => `{{${p}}}`).join("|"), values);
  assert.equal(
    filled,
    "src/llm|src/llm/UserSpecification.md|the files under src/llm/, except those of any module " +
      "nested inside it|src/llm/ModuleDependencies.md|src/llm/APISignatures.md|- src/core\n- src/llm",
  );
  assert.throws(() => fillTemplate("{{NOPE}}", values), RangeError);
  for (const stage of STAGES) {
    const prompt = stage.kind === "review"
      ? reviewPrompt(inputs(stage.name, "src/llm"))
      : changeQuery(inputs(stage.name, "src/llm", "OLD\n"));
    assert.ok(!prompt.includes("{{"), `${stage.name} left a placeholder`);
  }
});
