import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { PERMISSION_FLAGS } from "../../lib/permissions/permissions.ts";
import { MODEL_NAMES, MODELS } from "../../lib/llm/models.ts";

Deno.test("the code-commit task of deno.json runs with exactly the permission flags", () => {
  const command = config.tasks["code-commit"].command;
  const flags = command.split(/\s+/).filter((word) =>
    word.startsWith("--allow-") || word === "--no-prompt"
  );
  assert.deepEqual(flags, [...PERMISSION_FLAGS]);
  assert(!/--allow-all|\s-A\s/.test(command), "never all permissions");
});

Deno.test("the env permission covers exactly the variables the model table reads", () => {
  assert.deepEqual(
    PERMISSION_FLAGS.find((flag) => flag.startsWith("--allow-env="))!
      .slice("--allow-env=".length).split(",").sort(),
    [...new Set(MODEL_NAMES.map((name) => MODELS[name].baseUrlEnv))].sort(),
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
