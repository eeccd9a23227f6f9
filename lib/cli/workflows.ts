/**
 * The table of workflows (flags, options taken, needs, how each starts) and the flags that run
 * none: parsing, `--help`, the set-up checks, `main.ts`, completion and `docs/cli.md` read it.
 *
 * @module
 */
/** The workflows code-commit runs. */
export type Workflow =
  | "commit"
  | "consistency"
  | "auto"
  | "init"
  | "rollup"
  | "undo"
  | "check-build";

/** The flags that print something and run no workflow; `--help` wins over all. */
export const COMMANDS = [
  { flag: "help", short: "h", help: "print this help" },
  { flag: "version", short: "V", help: "print the version" },
  {
    flag: "completion",
    placeholder: "bash|zsh|fish",
    choices: ["bash", "zsh", "fish"],
    help: "print the shell completion script (see docs/cli.md)",
  },
] as const;

/** One workflow. */
export interface WorkflowSpec {
  readonly id: Workflow;
  /** Its flags without dashes, the main one first. */
  readonly flags: readonly string[];
  /** How a message names it: `committing code`, `--init`. */
  readonly title: string;
  /** Its lines in `--help`, and one short line for completion and docs/cli.md. */
  readonly help: readonly string[];
  readonly brief: string;
  /** The options it takes, in table order; `--json` is taken by all. */
  readonly options: readonly string[];
  /**
   * What it needs before its first call besides `.gitignore`, checked together: the model's key
   * (not a local model's), a non-empty query.txt, codeRollup.txt, a `./build.sh` not `--init`'s.
   */
  readonly needs: Readonly<Record<"key" | "query" | "rollup" | "buildScript", boolean>>;
  /** It runs `./build.sh`: it decides how builds are contained. */
  readonly runsBuilds: boolean;
  /** It talks to a model: it runs in a session (keys, client, redactor). */
  readonly callsModel: boolean;
  /** How a second code-commit, refused by the lock, names it (`--cc`; `a run` for the default). */
  readonly holder: string;
  /**
   * Who rolls back an apply a killed run left unfinished: `main` first (Ctrl-C then trapped only
   * while it recovers), or the workflow `itself` (Ctrl-C trapped for the whole run).
   */
  readonly recovers: "main" | "itself";
}

/** What most workflows are: no needs, no build, no model; recovers itself. */
const USUAL = {
  needs: { key: false, query: false, rollup: false, buildScript: false },
  runsBuilds: false,
  callsModel: false,
  recovers: "itself",
} as const;

/** Every workflow, in the order `--help` shows them; the first is the default. */
export const WORKFLOWS: readonly WorkflowSpec[] = [
  {
    ...USUAL,
    id: "commit",
    flags: ["commit"],
    title: "committing code",
    help: [
      "committing code (the default): send agent-config/query.txt and the",
      "codebase, apply the reply's file replacements, run ./build.sh, and ask",
      "for up to three repairs while the build fails",
    ],
    brief: "committing code (the default)",
    options: [
      "model",
      "build-context",
      "build-timeout",
      "llm-timeout",
      "context-window",
      "dry-run",
      "force",
      "sandbox",
      "build-network",
      "json",
    ],
    needs: { key: true, query: true, rollup: true, buildScript: true },
    runsBuilds: true,
    callsModel: true,
    holder: "a run",
  },
  {
    ...USUAL,
    id: "consistency",
    flags: ["consistency-check", "consistency", "cc"],
    title: "the consistency report",
    help: [
      "write agent-config/consistency-report.txt: where the specification",
      "disagrees with itself or with the code; changes no file",
    ],
    brief: "the consistency report",
    options: ["model", "build-context", "llm-timeout", "context-window", "json"],
    needs: { key: true, query: true, rollup: true, buildScript: false },
    callsModel: true,
    holder: "--cc",
  },
  {
    ...USUAL,
    id: "auto",
    flags: ["auto-workflow", "aw"],
    title: "--auto-workflow",
    help: [
      "take every module (a folder with UserSpecification.md) through the",
      "phases, one task at a time, until a task needs you",
    ],
    brief: "the auto workflow",
    options: [
      "model",
      "build-timeout",
      "llm-timeout",
      "context-window",
      "max-phase",
      "force",
      "sandbox",
      "build-network",
      "json",
    ],
    // It checks build.sh itself, once it has a task that builds.
    needs: { key: true, query: false, rollup: false, buildScript: false },
    runsBuilds: true,
    callsModel: true,
    holder: "--aw",
  },
  {
    ...USUAL,
    id: "init",
    flags: ["init"],
    title: "--init",
    help: [
      "set the project up: /agent-config, /logs and the dependency folders",
      "in .gitignore, the lock files in .codecommitignore, an empty",
      "agent-config/query.txt, a starter build script; no key, no LLM call",
    ],
    brief: "set the project up",
    options: ["json"],
    holder: "--init",
    recovers: "main",
  },
  {
    ...USUAL,
    id: "rollup",
    flags: ["rollup"],
    title: "--rollup",
    help: [
      "write agent-config/codeRollup.txt from every file git tracks or would",
      "track (remade before each run from then on); no key, no LLM call",
    ],
    brief: "write the code rollup",
    options: ["json"],
    holder: "--rollup",
    recovers: "main",
  },
  {
    ...USUAL,
    id: "undo",
    flags: ["undo"],
    title: "--undo",
    help: [
      "take back the most recent run that changed files, as a whole (all its",
      "attempts, or all its auto-workflow tasks); no LLM call, no key needed",
    ],
    brief: "take back the last run that changed files",
    options: ["force", "json"],
    holder: "--undo",
  },
  {
    ...USUAL,
    id: "check-build",
    flags: ["check-build"],
    title: "--check-build",
    help: [
      "run ./build.sh once exactly as a run would (same sandbox, network and",
      "time limit), show how it ended; no key, no LLM call; exit 0 if it",
      "passes, 1 if it fails",
    ],
    brief: "run ./build.sh once as a run would",
    options: ["build-timeout", "sandbox", "build-network", "json"],
    runsBuilds: true,
    holder: "--check-build",
  },
];

/** The entry of `workflow`. Never throws (every workflow has one). */
export function workflowSpec(workflow: Workflow): WorkflowSpec {
  return WORKFLOWS.find((spec) => spec.id === workflow) as WorkflowSpec;
}

/** The workflows that take the option `flag`, in table order. Never throws. */
export function workflowsTaking(flag: string): readonly WorkflowSpec[] {
  return WORKFLOWS.filter((spec) => spec.options.includes(flag));
}
