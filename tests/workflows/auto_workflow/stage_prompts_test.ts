/**
 * Tests of the auto-workflow prompts: the `[label]` layout for
 * every phase-1 step, the cached and uncached variants, the placeholders,
 * and what the response-format instructions must tell the model.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Module } from "../../../lib/workflows/auto_workflow/graph.ts";
import {
  changeQuery,
  type PromptInputs,
  reviewPrompt,
} from "../../../lib/workflows/auto_workflow/stage_prompts.ts";
import { type StageName, STAGES } from "../../../lib/workflows/auto_workflow/stages.ts";
import { importsOf } from "../../support/imports.ts";
import { stageNamed } from "./helpers.ts";

const PROMPT_DIR = fileURLToPath(
  new URL("../../../lib/workflows/auto_workflow/stage_prompts/", import.meta.url),
);

/** The text of one prompt file, as the user can read it. */
function promptFile(name: string): string {
  return Deno.readTextFileSync(`${PROMPT_DIR}${name}`);
}

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
  assert.ok(prompt.includes(promptFile("reply-format-review.txt")));
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
  assert.ok(fresh.includes(promptFile("implemented-no-cache.txt").slice(0, 60)));
  assert.ok(again.includes(promptFile("implemented-with-cache.txt").slice(0, 60)));
  assert.ok(fresh.includes(promptFile("reply-format-change.txt")));
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

/** The text of the section `label` of `prompt`: from its `[label]` line to the next one. */
function sectionText(prompt: string, label: string): string {
  const at = prompt.indexOf(`\n[${label}]\n`);
  assert.ok(at >= 0, `no section [${label}]`);
  const start = at + label.length + 4;
  const next = prompt.slice(start).search(/\n\[[^\]\n]+\]\n/);
  return next < 0 ? prompt.slice(start) : prompt.slice(start, start + next);
}

Deno.test("later phases: every stage has a prompt of its own, in the change layout", () => {
  const texts = new Set<string>();
  for (const stage of STAGES) {
    const prompt = stage.kind === "review"
      ? reviewPrompt(inputs(stage.name, "src/core"))
      : changeQuery(inputs(stage.name, "src/core"));
    const label = labels(prompt)[1];
    texts.add(sectionText(prompt, label.slice(1, -1)));
    if (stage.kind === "change") {
      const query = changeQuery(inputs(stage.name, "src/core", "OLD\n"));
      const cachedLabel = stage.name === "implemented" ? "implementation-with-cache" : stage.name;
      assert.equal(labels(query)[1], `[${cachedLabel} prompt]`);
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
    const text of [promptFile("reply-format-review.txt"), promptFile("reply-format-change.txt")]
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
    promptFile("reply-format-change.txt"),
    /\^\^\^ file block syntax described\s+earlier in this prompt/,
  );
  assert.match(promptFile("reply-format-review.txt"), /never use this tag here/);
});

Deno.test("every prompt file is loaded by stage_prompts.ts, and none holds a tab", async () => {
  const files: string[] = [];
  for await (const entry of Deno.readDir(PROMPT_DIR)) files.push(entry.name);
  assert.equal(files.length, 18);
  const loaded = (await importsOf(["lib/workflows/auto_workflow/stage_prompts.ts"]))
    .map((i) => i.to)
    .filter((path) => path.endsWith(".txt"));
  assert.deepEqual(
    loaded.sort(),
    files.map((file) => `lib/workflows/auto_workflow/stage_prompts/${file}`).sort(),
  );
  for (const file of files) assert.ok(!promptFile(file).includes("\t"), `${file} holds a tab`);
});

Deno.test("every placeholder of every prompt is filled, for a nested module and the root", () => {
  for (const path of ["src/llm", ""]) {
    for (const stage of STAGES) {
      for (const cached of [undefined, "OLD\n"]) {
        const prompt = stage.kind === "review"
          ? reviewPrompt(inputs(stage.name, path, cached))
          : changeQuery(inputs(stage.name, path, cached));
        assert.ok(!/\{\{|\}\}|undefined/.test(prompt), `${stage.name} of ${path || "root"}`);
      }
    }
  }
  assert.ok(
    changeQuery(inputs("documented", "src/llm")).includes(
      "- The module: src/llm\n" +
        "- Its specification: src/llm/UserSpecification.md\n" +
        "- Its files: the files under src/llm/, except those of any module nested inside it\n" +
        "- The modules it depends on are listed in: src/llm/ModuleDependencies.md\n" +
        "- The interface it offers to other modules is described in: src/llm/APISignatures.md\n",
    ),
  );
  assert.ok(changeQuery(inputs("documented", "src/llm")).includes("- src/core\n- src/llm\n"));
});
