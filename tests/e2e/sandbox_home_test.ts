/**
 * The home folder of a contained build, with the real tool, a real
 * `build.sh` and a home folder of the test's own (`HOME`): the build writes
 * its caches there and they vanish when it ends; the credential stores
 * (`lib/sandbox/bubblewrap.ts`) are not there at all; a project that
 * lives in the home folder keeps its read-only and hidden parts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

/** Where Deno keeps its cache (under HOME by default: the child must find it elsewhere). */
const DENO_DIR = await (async () => {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  return JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
})();

/** A home folder of the test's own, with credential stores and one ordinary file. */
async function makeHome(): Promise<string> {
  // Not under /tmp: a contained build has a /tmp of its own, where any write would vanish too.
  const home = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-home-" }),
  );
  const files: Record<string, string> = {
    ".aws/credentials": "[default]\naws_secret_access_key = AWS-SECRET\n",
    ".ssh/id_ed25519": "SSH-PRIVATE-KEY\n",
    ".ssh/config": "Host example\n",
    ".netrc": "machine example login me password NETRC-SECRET\n",
    ".config/gh/hosts.yml": "oauth_token: GH-SECRET\n",
    ".docker/config.json": '{"auths":{"x":{"auth":"DOCKER-SECRET"}}}\n',
    ".cargo/credentials.toml": "token = CARGO-SECRET\n",
    "notes.txt": "ordinary\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(home, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(home, path), content);
  }
  return home;
}

/** A build that writes caches in the home folder and tries to read its credential stores. */
const HOME_BUILD = `#!/bin/sh
mkdir -p "$HOME/.cache/tool" && echo cached > "$HOME/.cache/tool/x" &&
  echo "cache: $(cat "$HOME/.cache/tool/x")"
echo wrapped > "$HOME/.node-spawn-wrap-1-x" && echo "spawn-wrap: written"
for f in .aws/credentials .ssh/id_ed25519 .ssh/config .netrc .config/gh/hosts.yml .docker/config.json .cargo/credentials.toml; do
  if grep -q . "$HOME/$f" 2>/dev/null; then echo "$f: READ"; else echo "$f: hidden"; fi
done
ls -A "$HOME/.ssh" 2>/dev/null | wc -l | sed 's/^ */.ssh entries: /'
echo "notes: $(cat "$HOME/notes.txt")"
(echo more >> "$HOME/notes.txt") 2>/dev/null || true
exit 0
`;

/** Runs the tool once in `project` with HOME at `home`; the run and the first build's log. */
async function runWithHome(
  project: Project,
  home: string,
  args: string[],
): Promise<{ run: ToolRun; buildLog: string }> {
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    const run = await runTool(project.root, args, {
      server,
      env: { HOME: home, DENO_DIR },
    });
    const folder = (await project.logRuns()).at(-1);
    const buildLog = await project.read(`logs/${folder}/1-initial-query-build.txt`);
    await assertNoKeyLeak(project.root, [run], server);
    return { run, buildLog };
  } finally {
    await server.close();
  }
}

/** Whether `path` exists. */
function exists(path: string): Promise<boolean> {
  return Deno.lstat(path).then(() => true, () => false);
}

/** Checks what a contained build of {@link HOME_BUILD} saw, and that the home folder is as it was. */
async function assertHomeContained(home: string, buildLog: string): Promise<void> {
  assert.match(buildLog, /^cache: cached$/m, "a cache written in the home folder");
  assert.match(buildLog, /^spawn-wrap: written$/m, "a new file in the home folder");
  for (
    const path of [
      ".aws/credentials",
      ".ssh/id_ed25519",
      ".ssh/config",
      ".netrc",
      ".config/gh/hosts.yml",
      ".docker/config.json",
      ".cargo/credentials.toml",
    ]
  ) {
    assert.match(buildLog, new RegExp(`^${path.replaceAll(".", "\\.")}: hidden$`, "m"), path);
  }
  assert.match(buildLog, /^\.ssh entries: 0$/m);
  assert.match(buildLog, /^notes: ordinary$/m, "the rest of the home folder is readable");
  assert.doesNotMatch(buildLog, /SECRET|PRIVATE-KEY/);
  // Nothing of it stayed.
  assert(!(await exists(join(home, ".cache"))), "~/.cache was left behind");
  assert(!(await exists(join(home, ".node-spawn-wrap-1-x"))), "a spawn-wrap file was left behind");
  assert.equal(await Deno.readTextFile(join(home, "notes.txt")), "ordinary\n");
}

bwrapTest(
  "a contained build writes caches in the home folder that vanish, and finds no credential store",
  async () => {
    const home = await makeHome();
    try {
      await using project = await makeProject({ buildScript: HOME_BUILD });
      // Unconfined, the build reads everything and its writes stay: the probe works.
      const off = await runWithHome(project, home, ["--sandbox", "off"]);
      assert.equal(off.run.code, 0, off.run.stderr);
      assert.match(off.buildLog, /^\.aws\/credentials: READ$/m);
      assert(await exists(join(home, ".cache/tool/x")));
      await Deno.remove(join(home, ".cache"), { recursive: true });
      await Deno.remove(join(home, ".node-spawn-wrap-1-x"));
      await Deno.writeTextFile(join(home, "notes.txt"), "ordinary\n");

      for (const network of ["on", "off"]) {
        const on = await runWithHome(project, home, ["--build-network", network]);
        assert.equal(on.run.code, 0, on.run.stderr);
        await assertHomeContained(home, on.buildLog);
      }
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

bwrapTest(
  "a project inside the home folder keeps its read-only and hidden parts",
  async () => {
    const home = await makeHome();
    try {
      await Deno.mkdir(join(home, "src"));
      await using project = await makeProject({
        dir: join(home, "src"),
        buildScript: `${HOME_BUILD.replace(/\nexit 0\n$/, "\n")}
for f in build.sh .git/config agent-state/x; do
  if (echo changed >> "$f") 2>/dev/null; then echo "$f writable"; else echo "$f read-only"; fi
done
ls -A agent-config | wc -l | sed 's/^ */agent-config entries: /'
ls -A logs | wc -l | sed 's/^ */logs entries: /'
echo built > out.txt && echo "project writable"
exit 0
`,
        files: { "agent-state/x": "state\n" },
      });
      const { run, buildLog } = await runWithHome(project, home, ["--sandbox", "on"]);
      assert.equal(run.code, 0, run.stderr);
      await assertHomeContained(home, buildLog);
      for (const path of ["build.sh", ".git/config", "agent-state/x"]) {
        assert.match(buildLog, new RegExp(`^${path.replaceAll(".", "\\.")} read-only$`, "m"), path);
      }
      assert.match(buildLog, /^agent-config entries: 0$/m);
      assert.match(buildLog, /^logs entries: 0$/m);
      assert.match(buildLog, /^project writable$/m);
      // The project's writes stay: it is bound over the throwaway home folder.
      assert.equal(await project.read("out.txt"), "built\n");
      assert.equal(await project.read("agent-state/x"), "state\n");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

bwrapTest(
  "credential stores reached through links in the home folder are hidden at both paths",
  async () => {
    const home = await makeHome();
    try {
      // The user's dotfiles: ~/.aws and ~/.config are links into ~/dotfiles.
      await Deno.mkdir(join(home, "dotfiles"));
      for (const name of ["aws", "config"]) {
        await Deno.rename(join(home, `.${name}`), join(home, `dotfiles/${name}`));
        await Deno.symlink(join(home, `dotfiles/${name}`), join(home, `.${name}`));
      }
      await using project = await makeProject({
        buildScript: `#!/bin/sh
for f in .aws/credentials dotfiles/aws/credentials .config/gh/hosts.yml dotfiles/config/gh/hosts.yml; do
  if grep -q . "$HOME/$f" 2>/dev/null; then echo "$f: READ"; else echo "$f: hidden"; fi
done
exit 0
`,
      });
      const { run, buildLog } = await runWithHome(project, home, ["--sandbox", "on"]);
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(buildLog, /READ|SECRET/);
      assert.equal((buildLog.match(/: hidden$/gm) ?? []).length, 4, buildLog);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
