/**
 * The macOS Seatbelt profile, by its text: it cannot run on the Linux
 * machines code-commit is built and tested on (docs/sandbox.md says so).
 */
import assert from "node:assert/strict";
import type { SandboxPlan } from "../../lib/sandbox/sandbox_plan.ts";
import {
  SANDBOX_EXEC,
  seatbeltArgs,
  seatbeltProbeArgs,
  seatbeltProfile,
} from "../../lib/sandbox/seatbelt.ts";
import { PERMISSION_FLAGS } from "../../lib/permissions/permissions.ts";
import { BUILD_WRAPPER } from "../../lib/sandbox/bubblewrap.ts";
import { HOME_SECRETS } from "../../lib/sandbox/home_secrets.ts";

const PLAN: SandboxPlan = {
  root: "/Users/u/project",
  mountPoints: [],
  readOnly: ["/Users/u/project/.git", "/Users/u/project/build.sh"],
  hidden: [
    { path: "/Users/u/keys/gemini", isDirectory: false },
    { path: "/Users/u/project/agent-config", isDirectory: true },
  ],
};

/** The profile without comments, as one line of words. */
function flat(text: string): string {
  return text.split("\n").filter((line) => !line.startsWith(";")).join(" ").replace(/\s+/g, " ");
}

Deno.test("the profile allows by default and only denies, so no rule's order matters", () => {
  const { text } = seatbeltProfile(PLAN, "on");
  const rules = flat(text);
  assert(rules.startsWith("(version 1) (allow default) "), rules);
  assert.equal((rules.match(/\(allow /g) ?? []).length, 1, "one allow: the default");
});

Deno.test("writes: only inside the project and the temporary folders", () => {
  const { text, params } = seatbeltProfile(PLAN, "on");
  assert.equal(params.get("ROOT"), PLAN.root);
  assert.match(
    flat(text),
    /\(deny file-write\* \(require-all \(require-not \(subpath \(param "ROOT"\)\)\) \(require-not \(subpath "\/private\/tmp"\)\) \(require-not \(subpath "\/private\/var\/folders"\)\)/,
  );
  assert.match(flat(text), /\(require-not \(literal "\/dev\/null"\)\)/);
});

Deno.test("the read-only entries may not be written, the hidden ones not even read", () => {
  const { text, params } = seatbeltProfile(PLAN, "on");
  assert.equal(params.get("READ_ONLY_0"), "/Users/u/project/.git");
  assert.equal(params.get("READ_ONLY_1"), "/Users/u/project/build.sh");
  assert.equal(params.get("HIDDEN_0"), "/Users/u/keys/gemini");
  assert.equal(params.get("HIDDEN_1"), "/Users/u/project/agent-config");
  const rules = flat(text);
  assert.match(
    rules,
    /\(deny file-write\* \(subpath \(param "READ_ONLY_0"\)\) \(subpath \(param "READ_ONLY_1"\)\)\)/,
  );
  assert.match(
    rules,
    /\(deny file-read\* file-write\* \(subpath \(param "HIDDEN_0"\)\) \(subpath \(param "HIDDEN_1"\)\)\)/,
  );
});

Deno.test("no way out through the system's services: Apple Events, LaunchServices, launchctl", () => {
  for (const network of ["on", "off"] as const) {
    const rules = flat(seatbeltProfile(PLAN, network).text);
    assert.match(rules, /\(deny appleevent-send\)/);
    assert.match(
      rules,
      /\(deny mach-lookup \(global-name "com\.apple\.coreservices\.launchservicesd"\) \(global-name "com\.apple\.coreservices\.appleevents"\)\)/,
    );
    assert.match(
      rules,
      /\(deny process-exec \(literal "\/bin\/launchctl"\) \(literal "\/usr\/bin\/open"\) \(literal "\/usr\/bin\/osascript"\)\)/,
    );
  }
});

Deno.test("network: on leaves it, off denies every network operation (loopback too)", () => {
  assert.doesNotMatch(seatbeltProfile(PLAN, "on").text, /network/);
  assert.match(flat(seatbeltProfile(PLAN, "off").text), /\(deny network\*\)/);
});

Deno.test("paths go in as parameters: a hostile folder name cannot change the profile", () => {
  const hostile = '/Users/u/x") (allow file-write* (subpath "/';
  const { text, params } = seatbeltProfile({
    root: hostile,
    mountPoints: [],
    readOnly: [],
    hidden: [],
  }, "off");
  assert(!text.includes(hostile) && !text.includes("/Users/u/x"), text);
  assert.equal(params.get("ROOT"), hostile);
  // Parentheses balance: the profile is well formed.
  let depth = 0;
  for (const char of text.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (char === "(") depth++;
    if (char === ")") depth--;
    assert(depth >= 0, text);
  }
  assert.equal(depth, 0, text);
});

Deno.test("no read-only or hidden entries: no empty rule", () => {
  const { text } = seatbeltProfile({ root: "/p", mountPoints: [], readOnly: [], hidden: [] }, "on");
  assert.doesNotMatch(text, /\(deny file-write\*\s*\)|\(deny file-read\* file-write\*\s*\)/);
  assert.doesNotMatch(text, /READ_ONLY|HIDDEN/);
});

Deno.test("sandbox-exec arguments: the profile, each parameter with -D, then ./build.sh", () => {
  const profile = seatbeltProfile(PLAN, "off");
  const args = seatbeltArgs(profile);
  assert.deepEqual(args.slice(0, 2), ["-p", profile.text]);
  // Through the shell that closes inherited file descriptors, then runs ./build.sh in its place.
  assert.deepEqual(args.slice(-4), ["/bin/sh", "-c", BUILD_WRAPPER, "sh"]);
  assert.match(BUILD_WRAPPER, /\nexec \.\/build\.sh$/);
  assert.deepEqual(args.slice(2, 4), ["-D", `ROOT=${PLAN.root}`]);
  assert.equal(args.filter((arg) => arg === "-D").length, profile.params.size);
  assert.deepEqual(seatbeltProbeArgs().slice(-1), ["/usr/bin/true"]);
});

Deno.test("sandbox-exec is named by its absolute path in the permission list", () => {
  const run = PERMISSION_FLAGS.find((flag) => flag.startsWith("--allow-run="))!;
  assert(run.slice("--allow-run=".length).split(",").includes(SANDBOX_EXEC));
});

/** The home folders the profile names: every account's, and root's. */
const SEATBELT_HOMES = "^(/Users/[^/]+|/var/root|/private/var/root)/";

Deno.test("seatbeltProfile: every home folder's credential stores denied, by a pattern each", () => {
  const profile = seatbeltProfile(
    { root: "/Users/u/project", mountPoints: [], readOnly: [], hidden: [] },
    "on",
  );
  for (const secret of HOME_SECRETS) {
    const escaped = secret.path.replaceAll(".", "\\\\.");
    assert(
      profile.text.includes(`(regex "${SEATBELT_HOMES}${escaped}(/|$)")`),
      secret.path,
    );
  }
  const rule = profile.text.slice(profile.text.indexOf("(deny file-read* file-write*\n  (regex"));
  assert(rule.startsWith("(deny file-read* file-write*"), profile.text);
  // The patterns match what they name, and nothing beside it.
  const pattern = (path: string) =>
    new RegExp(`${SEATBELT_HOMES}${path.replaceAll(".", "\\.")}(/|$)`);
  assert(pattern(".ssh").test("/Users/u/.ssh/id_ed25519"));
  assert(pattern(".ssh").test("/var/root/.ssh"));
  assert(!pattern(".ssh").test("/Users/u/.sshx"));
  assert(!pattern(".ssh").test("/Users/u/project/.ssh"));
});
