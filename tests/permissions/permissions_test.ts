import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import config from "../../deno.json" with { type: "json" };
import {
  NO_PROXY_VARS,
  PERMISSION_FLAGS,
  PROXY_VARS,
  RUN_FLAGS,
} from "../../lib/permissions/permissions.ts";
import { MODEL_NAMES, MODELS } from "../../lib/llm/models.ts";
import { tempProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function deno(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  // A clean environment: under `deno task test`, INIT_CWD is set already, and a nested
  // `deno task` keeps it (as npm does), so the task would run in the tool's own folder.
  const env: Record<string, string> = { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" };
  for (const name of ["HOME", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

Deno.test("the code-commit task of deno.json takes its flags from permissions.ts alone", () => {
  const command = config.tasks["code-commit"].command;
  assert.match(
    command,
    /\$\(deno run --quiet --no-prompt --config "\$TOOL\/deno\.json" "\$TOOL\/lib\/permissions\/permissions\.ts"\)/,
  );
  const outside = command.replace(/\$\(deno run .*?permissions\.ts"\)/, "");
  assert(!/--allow-|--no-prompt|\s-A\s|\s-P/.test(outside), outside);
  assert.match(outside, /deno run --quiet --config/, "Deno's own notes stay out of the output");
});

Deno.test("permissions.ts run as a script prints exactly the flags the tool runs with", async () => {
  const run = await deno(["run", "--no-prompt", "lib/permissions/permissions.ts"], TOOL_ROOT);
  assert.equal(run.code, 0);
  assert.equal(run.out, RUN_FLAGS.join("\n") + "\n");
});

Deno.test("the tool runs with its permissions and one V8 flag, none of them unscoped", () => {
  assert.deepEqual(RUN_FLAGS.slice(0, PERMISSION_FLAGS.length), PERMISSION_FLAGS);
  assert.deepEqual(RUN_FLAGS.slice(PERMISSION_FLAGS.length), [
    "--v8-flags=--no-concurrent-recompilation",
  ]);
  // No flag that widens what the tool may do rides along with the V8 flag.
  assert(
    !RUN_FLAGS.some((flag) => /^(-A|--allow-all|--allow-[a-z]+$)/.test(flag)),
    RUN_FLAGS.join(" "),
  );
});

Deno.test("deno task code-commit runs the tool in the folder the task was started from", async () => {
  await using project = await tempProject();
  const folder = project.root;
  const task = ["task", "--config", `${TOOL_ROOT}deno.json`, "code-commit"];
  const version = await deno([...task, "--version"], folder);
  assert.equal(version.code, 0, version.out);
  assert.match(version.out, new RegExp(`^code-commit ${config.version}$`, "m"));
  // Started in a folder that is no repository, the tool says so about that folder.
  const init = await deno([...task, "--init"], folder);
  assert.equal(init.code, 3, init.out);
  assert(init.out.includes(`${await Deno.realPath(folder)} is not a git repository`), init.out);
});

Deno.test("deno.json holds the test and bench permissions; a bare deno test says to add -P", async () => {
  assert.deepEqual(config.test.permissions, {
    read: true,
    write: true,
    run: true,
    env: true,
    net: ["127.0.0.1"],
  });
  // The benches that run the real tool answer it from the fake model on loopback.
  assert.deepEqual(config.bench.permissions, {
    read: true,
    write: true,
    run: true,
    env: true,
    net: ["127.0.0.1"],
  });
  assert.equal(config.tasks.test.command, "deno test -P --parallel tests/");
  // The yardsticks need loopback too (the fake model of the one-shot run), then the micro benches.
  assert.equal(
    config.tasks.bench.command,
    "deno run --allow-read --allow-write --allow-run --allow-env --allow-net=127.0.0.1 " +
      "tests/bench/yardsticks.ts && deno bench -P tests/",
  );
  const bare = await deno(["test", "tests/text/"], TOOL_ROOT);
  assert.notEqual(bare.code, 0);
  assert.match(bare.out, /Did you mean to run with `-P`/);
});

Deno.test("the env permission covers exactly the variables the model table reads, and the proxy ones", () => {
  assert.deepEqual(
    PERMISSION_FLAGS.find((flag) => flag.startsWith("--allow-env="))!
      .slice("--allow-env=".length).split(",").sort(),
    [
      ...new Set(MODEL_NAMES.map((name) => MODELS[name].baseUrlEnv)),
      ...PROXY_VARS,
      ...NO_PROXY_VARS,
    ].sort(),
  );
});

Deno.test("file access is limited to the project directory, net to the APIs and loopback", () => {
  assert(PERMISSION_FLAGS.includes("--allow-read=."));
  assert(PERMISSION_FLAGS.includes("--allow-write=."));
  const net = PERMISSION_FLAGS.find((flag) => flag.startsWith("--allow-net="))!;
  const hosts = net.slice("--allow-net=".length).split(",");
  for (const name of MODEL_NAMES) {
    assert(hosts.includes(`${new URL(MODELS[name].defaultBaseUrl).host}:443`), name);
  }
  assert.deepEqual(
    hosts.filter((host) => !host.endsWith(":443")).sort(),
    ["127.0.0.1", "[::1]", "localhost"],
  );
});
