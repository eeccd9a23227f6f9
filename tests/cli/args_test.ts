import assert from "node:assert/strict";
import { wantsJson } from "../../lib/cli/args.ts";
import { type Command, parseCommandLine } from "../support/command_line.ts";
import { WORKFLOWS } from "../../lib/cli/workflows.ts";
import { OPTIONS } from "../../lib/cli/options.ts";
import { UsageError } from "../../lib/errors/errors.ts";

function run(args: string[]): Extract<Command, { kind: "run" }> {
  const command = parseCommandLine(args);
  assert.equal(command.kind, "run");
  return command as Extract<Command, { kind: "run" }>;
}

Deno.test("no flags: committing code with gemini-2.5-pro and the default limits", () => {
  const command = run([]);
  assert.equal(command.workflow, "commit");
  assert.deepEqual({ ...command.options }, {
    model: "gemini-2.5-pro",
    buildContext: false,
    buildTimeoutMs: 1800 * 1000,
    llmTimeoutMs: 900 * 1000,
    maxPhase: 1,
    sandbox: "auto",
    buildNetwork: "on",
    force: false,
    dryRun: false,
    json: false,
  });
});

Deno.test("every workflow flag selects its workflow", () => {
  const cases: [string, string][] = [
    ["--commit", "commit"],
    ["--consistency-check", "consistency"],
    ["--consistency", "consistency"],
    ["--cc", "consistency"],
    ["--auto-workflow", "auto"],
    ["--aw", "auto"],
    ["--init", "init"],
    ["--rollup", "rollup"],
    ["--undo", "undo"],
    ["--check-build", "check-build"],
  ];
  for (const [flag, workflow] of cases) assert.equal(run([flag]).workflow, workflow, flag);
});

Deno.test("--model takes the four models of the table and local:NAME, in either spelling of the value", () => {
  assert.equal(run(["--model", "gpt-5"]).options.model, "gpt-5");
  assert.equal(run(["--model=gpt-5"]).options.model, "gpt-5");
  assert.equal(run(["--model", "gemini-2.5-pro", "--cc"]).options.model, "gemini-2.5-pro");
  assert.equal(run(["--model", "gemini-3-pro-preview"]).options.model, "gemini-3-pro-preview");
  assert.equal(run(["--model=gpt-5.2", "--aw"]).options.model, "gpt-5.2");
  assert.equal(run(["--model", "local:llama3.1:8b"]).options.model, "local:llama3.1:8b");
});

Deno.test("options are read", () => {
  const command = run(["--build-context", "--build-timeout", "90", "--llm-timeout", "1.5"]);
  assert.equal(command.options.buildContext, true);
  assert.equal(command.options.buildTimeoutMs, 90_000);
  assert.equal(command.options.llmTimeoutMs, 1_500);
  assert.equal(run(["--aw", "--max-phase", "3"]).options.maxPhase, 3);
});

Deno.test("--sandbox and --build-network take their values, for the workflows that run a build", () => {
  for (const sandbox of ["auto", "on", "off"]) {
    assert.equal(run(["--sandbox", sandbox]).options.sandbox, sandbox);
  }
  assert.equal(run(["--aw", "--sandbox=on"]).options.sandbox, "on");
  assert.equal(run(["--build-network", "off"]).options.buildNetwork, "off");
  assert.equal(run(["--sandbox", "on", "--build-network", "off"]).options.buildNetwork, "off");
  assert.equal(run(["--sandbox", "off", "--build-network", "on"]).options.sandbox, "off");
  assert.equal(run(["--commit", "--build-network=on"]).options.buildNetwork, "on");
  assert.equal(run(["--dry-run", "--sandbox", "on"]).options.sandbox, "on");
  const check = run(["--check-build", "--sandbox", "on", "--build-network", "off"]);
  assert.equal(check.workflow, "check-build");
  assert.equal(check.options.sandbox, "on");
  assert.equal(check.options.buildNetwork, "off");
  assert.equal(run(["--check-build", "--build-timeout", "60"]).options.buildTimeoutMs, 60_000);
});

Deno.test("--force (committing code, the auto workflow, --undo) and --dry-run (committing code) are read", () => {
  assert.equal(run(["--force"]).options.force, true);
  assert.equal(run(["--aw", "--force"]).options.force, true);
  assert.equal(run(["--undo", "--force"]).options.force, true);
  assert.equal(run(["--dry-run"]).options.dryRun, true);
  assert.equal(run(["--commit", "--dry-run", "--build-context"]).options.dryRun, true);
  assert.equal(run(["--dry-run", "--force"]).options.force, true);
});

Deno.test("--help and --version win over everything else given with them", () => {
  assert.deepEqual(parseCommandLine(["--help"]), { kind: "help" });
  assert.deepEqual(parseCommandLine(["-h"]), { kind: "help" });
  assert.deepEqual(parseCommandLine(["--cc", "--help"]), { kind: "help" });
  assert.deepEqual(parseCommandLine(["--version"]), { kind: "version" });
  assert.deepEqual(parseCommandLine(["-V"]), { kind: "version" });
  assert.deepEqual(parseCommandLine(["--aw", "-V"]), { kind: "version" });
  assert.deepEqual(parseCommandLine(["--completion", "zsh"]), { kind: "completion", shell: "zsh" });
  assert.deepEqual(parseCommandLine(["--completion=fish", "--cc"]), {
    kind: "completion",
    shell: "fish",
  });
});

Deno.test("-- ends the flags", () => {
  assert.equal(run(["--cc", "--"]).workflow, "consistency");
  assert.equal(run(["--"]).workflow, "commit");
});

/** Each bad command line, and a fragment its one-line message must contain. */
const USAGE_ERRORS: [string[], string][] = [
  [["--frobnicate"], "unknown flag --frobnicate"],
  [["-x"], "unknown flag -x"],
  [["--model"], "--model needs a value"],
  [
    ["--model", "gpt-4o"],
    '--model "gpt-4o" is not a supported model; use gemini-2.5-pro, gpt-5, gemini-3-pro-preview, ' +
    "gpt-5.2, or local:NAME for a model on a local OpenAI-compatible server",
  ],
  [["--model", "local:"], "is not a supported model"],
  [["--model", "local:two words"], "is not a supported model"],
  [["--model", "GPT-5"], "is not a supported model"],
  [["--model", ""], "is not a supported model"],
  [["--cc", "--aw"], "--cc and --aw are two workflow flags"],
  [["--commit", "--consistency"], "two workflow flags"],
  [["--cc", "--consistency"], "two workflow flags"],
  [["--commit", "--commit"], "--commit is given twice"],
  [["--model", "gpt-5", "--model", "gpt-5"], "--model is given twice"],
  [["query.txt"], 'unexpected argument "query.txt"'],
  [["--cc=yes"], "--cc takes no value"],
  [["--build-timeout", "soon"], '--build-timeout "soon" is not a duration'],
  [["--build-timeout", "0"], "is not a duration"],
  [["--llm-timeout", "-5"], "--llm-timeout"],
  [["--max-phase", "2"], "--max-phase applies only to --auto-workflow"],
  [["--aw", "--max-phase", "5"], '--max-phase "5" is not a phase'],
  [["--aw", "--build-context"], "--build-context applies to committing code"],
  [["--sandbox", "yes"], '--sandbox "yes" is not one of auto, on, off'],
  [["--sandbox"], "--sandbox needs a value, for example --sandbox on"],
  [["--build-network", "none"], '--build-network "none" is not one of on, off'],
  [["--build-network"], "--build-network needs a value, for example --build-network off"],
  [["--sandbox", "on", "--sandbox", "off"], "--sandbox is given twice"],
  [["--sandbox", "off", "--build-network", "off"], "--build-network off needs the sandbox"],
  [["--build-network=off", "--sandbox=off"], "--build-network off needs the sandbox"],
  [["--init", "--build-context"], "not to --init"],
  [["--rollup", "--build-context"], "not to --rollup"],
  [["--init", "--rollup"], "--init and --rollup are two workflow flags"],
  [["--rollup", "--max-phase", "2"], "--max-phase applies only to --auto-workflow"],
  [["--undo", "--cc"], "--cc and --undo are two workflow flags"],
  [["--undo", "--build-context"], "--build-context applies to committing code"],
  [["--undo", "--max-phase", "2"], "--max-phase applies only to --auto-workflow"],
  [["--cc", "--force"], "--force applies to committing code, --auto-workflow and --undo"],
  [["--aw", "--dry-run"], "--dry-run applies only to committing code"],
  [["--cc", "--dry-run"], "--dry-run applies only to committing code"],
  [["--undo", "--dry-run"], "--dry-run applies only to committing code"],
  [["--force", "--force"], "--force is given twice"],
  [
    ["--cc", "--sandbox", "on"],
    "--sandbox applies to committing code, --auto-workflow and --check-build, which run ./build.sh, not to the consistency report, which runs no build",
  ],
  [["--consistency", "--build-network", "off"], "--build-network applies to committing code"],
  [["--init", "--sandbox=off"], "--sandbox applies to committing code, --auto-workflow and"],
  [["--rollup", "--build-network", "on"], "not to --rollup, which runs no build"],
  [["--undo", "--sandbox", "auto"], "not to --undo, which runs no build"],
  [["--undo", "--build-network", "off"], "--build-network applies to committing code"],
  [["--dry-run=yes"], "--dry-run takes no value"],
  [["--check-build", "--build-context"], "not to --check-build"],
  [["--check-build", "--force"], "not to --check-build"],
  [["--check-build", "--dry-run"], "--dry-run applies only to committing code"],
  [["--check-build", "--cc"], "are two workflow flags"],
  [["--frobnicate=1"], "unknown flag --frobnicate;"],
  [["-hv"], "unknown flag -hv;"],
  [["--model", "--cc"], "--model needs a value, for example --model gpt-5"],
  [["--llm-timeout=-5"], '--llm-timeout "-5" is not a duration'],
  [["--model=-x"], '--model "-x" is not a supported model'],
  [["--", "query.txt"], 'unexpected argument "query.txt"'],
  [["--cc", "-"], 'unexpected argument "-"'],
  [["-h", "--help"], "--help is given twice"],
  [
    ["--init", "--force"],
    "--force applies to committing code, --auto-workflow and --undo, not to --init",
  ],
];

Deno.test("every bad command line is a usage error (exit 2) naming the flag", () => {
  for (const [args, fragment] of USAGE_ERRORS) {
    assert.throws(
      () => parseCommandLine(args),
      (error: unknown) => {
        assert(error instanceof UsageError, `${args.join(" ")}: not a UsageError`);
        assert.equal(error.exitCode, 2);
        assert(
          error.message.includes(fragment),
          `${args.join(" ")}: ${JSON.stringify(error.message)} lacks ${JSON.stringify(fragment)}`,
        );
        assert(!error.message.includes("\n"), "one line");
        return true;
      },
    );
  }
});

Deno.test("--context-window: a local model's window in tokens; refused with a model of the table", () => {
  const command = parseCommandLine(["--model", "local:qwen", "--context-window", "32768"]);
  assert(command.kind === "run");
  assert.equal(command.options.contextWindow, 32_768);
  const plain = parseCommandLine(["--model", "local:qwen"]);
  assert(plain.kind === "run" && plain.options.contextWindow === undefined);
  assert.throws(
    () => parseCommandLine(["--context-window", "32768"]),
    /--context-window applies only to a local:NAME model/,
  );
  for (const bad of ["0", "12.5", "1k", "99999999999"]) {
    assert.throws(
      () => parseCommandLine(["--model", "local:q", "--context-window", bad]),
      /is not a number of tokens from 1024 to 16777216/,
      bad,
    );
  }
});

/** A value each option that takes one accepts with a local model. */
const SAMPLE: Record<string, string> = {
  model: "local:qwen",
  "build-timeout": "60",
  "llm-timeout": "60",
  "context-window": "32768",
  "max-phase": "2",
  sandbox: "on",
  "build-network": "off",
};

Deno.test("each workflow takes exactly the options of its row of the table; another is a usage error naming it", () => {
  for (const spec of WORKFLOWS) {
    for (const option of OPTIONS) {
      const args = [`--${spec.flags[0]}`, `--${option.flag}`];
      if (option.value) args.push(SAMPLE[option.flag]);
      if (option.flag === "context-window" && spec.options.includes("model")) {
        args.push("--model", "local:qwen");
      }
      if (spec.options.includes(option.flag)) {
        const command = parseCommandLine(args);
        assert(command.kind === "run", args.join(" "));
        assert.equal(command.workflow, spec.id);
        assert.notDeepEqual(command.options[option.field], option.fallback, args.join(" "));
      } else {
        assert.throws(
          () => parseCommandLine(args),
          (error: unknown) =>
            error instanceof UsageError &&
            error.message.startsWith(`--${option.flag} applies `) &&
            error.message.includes(`not to ${spec.title}`) && !error.message.includes("\n"),
          args.join(" "),
        );
      }
    }
  }
});

Deno.test("--json is taken by every workflow and read as json: true", () => {
  for (const spec of WORKFLOWS) {
    for (const flag of spec.flags) {
      const command = run([`--${flag}`, "--json"]);
      assert.equal(command.options.json, true, flag);
      assert.equal(run([`--${flag}`]).options.json, false, flag);
    }
  }
});

Deno.test("--json is found in a command line that does not parse, and not after --", () => {
  assert.equal(wantsJson(["--bogus", "--json"]), true);
  assert.equal(wantsJson(["--json", "--cc", "--aw"]), true);
  assert.equal(wantsJson(["--cc"]), false);
  assert.equal(wantsJson(["--", "--json"]), false, "after --, it is no flag");
  assert.equal(wantsJson(["--json=yes"]), true, "--json=yes is a usage error, answered in JSON");
  assert.equal(wantsJson(["--jsonx"]), false);
});

Deno.test("the options of a workflow that talks to no model are refused with it: --model, --llm-timeout", () => {
  assert.throws(
    () => parseCommandLine(["--init", "--model", "gpt-5"]),
    /^UsageError: --model applies to committing code, the consistency report and --auto-workflow, which call a model, not to --init, which calls no model$/,
  );
  assert.throws(() => parseCommandLine(["--undo", "--llm-timeout", "5"]), /not to --undo/);
  assert.throws(
    () => parseCommandLine(["--completion", "tcsh"]),
    /--completion "tcsh" is not one of bash, zsh, fish/,
  );
  assert.throws(
    () => parseCommandLine(["--completion"]),
    /--completion needs a value, for example --completion bash/,
  );
});
