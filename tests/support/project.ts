/**
 * Temporary projects for every test that needs a real folder: the one
 * helper that makes them ({@link tempProject}, {@link withProject}), the
 * end-to-end preset on top of it ({@link makeProject}: a real git
 * repository, a `.gitignore` that protects agent-config/, API keys, a query,
 * a rollup and a `build.sh`), and `git` run in isolation from the machine's
 * own configuration.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { type ChildRun, runChild } from "./child.ts";

/** The fake Gemini key every test project holds. */
export const GEMINI_KEY = "AIzaSyTEST-gemini-0123456789abcdefghijkXY";
/** The fake OpenAI key every test project holds. */
export const OPENAI_KEY = "sk-proj-TEST-openai-0123456789abcdefghijkZW";

/** A build script that passes. */
export const PASSING_BUILD = "#!/bin/sh\necho 'build ok'\nexit 0\n";

/**
 * A build script that passes iff `src/status.txt` holds the line `ok`,
 * printing to both stdout and stderr.
 */
export const STATUS_BUILD = `#!/bin/sh
echo "checking src/status.txt"
if [ "$(cat src/status.txt 2>/dev/null)" = "ok" ]; then
  echo "build ok"
  exit 0
fi
echo "error: src/status.txt is not ok" >&2
exit 1
`;

/** A file to write: its text or bytes, or both with the permission bits it gets. */
export type FileSpec = string | Uint8Array | {
  readonly content: string | Uint8Array;
  readonly mode?: number;
};

/** Files to write, path (relative, `/`-separated) → content; parent folders are created. */
export type Files = Readonly<Record<string, FileSpec>>;

/** Writes every file of `files` under `root` (mode 0o644 unless given), creating the folders on the way. */
export async function writeFiles(root: string, files: Files): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    const absolute = join(root, path);
    await Deno.mkdir(dirname(absolute), { recursive: true });
    const content = typeof spec === "string" || spec instanceof Uint8Array ? spec : spec.content;
    if (typeof content === "string") await Deno.writeTextFile(absolute, content);
    else await Deno.writeFile(absolute, content);
    const mode = typeof spec === "object" && !(spec instanceof Uint8Array) ? spec.mode : undefined;
    await Deno.chmod(absolute, mode ?? 0o644);
  }
}

/** How to make a temporary project beyond its files. */
export interface TempProjectOptions {
  /** Empty folders to make. */
  readonly folders?: readonly string[];
  /** Make it a git repository (`git init`, before the files are written; default false). */
  readonly git?: boolean;
  /** The folder to make it in (default: the system's temporary folder). */
  readonly dir?: string;
}

/** A temporary project: a real folder, removed when disposed. */
export interface TempProject extends AsyncDisposable {
  /** Its absolute path, with no symbolic link in it. */
  readonly root: string;
  /** Writes a file (folders are created). */
  write(path: string, content: string): Promise<void>;
  /** Reads a file. */
  read(path: string): Promise<string>;
  /** Tells whether a path exists (without following a final link). */
  exists(path: string): Promise<boolean>;
  /** Every file under the root except `.git/`, path → content, sorted. */
  snapshot(): Promise<Map<string, string>>;
}

/** Makes a temporary project holding `files` (and `options.folders`), optionally a git repository. */
export async function tempProject(
  files: Files = {},
  options: TempProjectOptions = {},
): Promise<TempProject> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "code-commit-project-", dir: options.dir }),
  );
  if (options.git) await git(root, "init", "-q");
  for (const folder of options.folders ?? []) {
    await Deno.mkdir(join(root, folder), { recursive: true });
  }
  await writeFiles(root, files);
  return {
    root,
    write: (path, content) => writeFiles(root, { [path]: content }),
    read: (path) => Deno.readTextFile(join(root, path)),
    async exists(path) {
      try {
        await Deno.lstat(join(root, path));
        return true;
      } catch {
        return false;
      }
    },
    async snapshot() {
      const snapshot = new Map<string, string>();
      for (const path of await listFiles(root)) {
        if (path === ".git" || path.startsWith(".git/")) continue;
        snapshot.set(path, await Deno.readTextFile(join(root, path)));
      }
      return snapshot;
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Runs `body` in a temporary project holding `files`, removed afterwards; returns what `body` returns. */
export async function withProject<T>(
  files: Files,
  body: (root: string) => Promise<T>,
  options: TempProjectOptions = {},
): Promise<T> {
  await using project = await tempProject(files, options);
  return await body(project.root);
}

/** How to make a project; everything has a default. */
export interface ProjectOptions {
  /** The folder to make it in (default: the system's temporary folder). */
  readonly dir?: string;
  /** Files to write, path → content (folders are created). */
  readonly files?: Record<string, string>;
  /** The root `.gitignore` (default ignores /agent-config, /logs and node_modules/). */
  readonly gitignore?: string | null;
  /** `build.sh` (executable), or null for none. Default: {@link PASSING_BUILD}. */
  readonly buildScript?: string | null;
  /** `agent-config/query.txt`, or null for none. */
  readonly query?: string | null;
  /** `agent-config/codeRollup.txt`, or null for none. */
  readonly rollup?: string | null;
  /** Key files to write; default both keys. Null leaves a file out. */
  readonly keys?: { readonly gemini?: string | null; readonly openai?: string | null };
  /** Make it a git repository with a first commit (default true). */
  readonly git?: boolean;
}

/** An end-to-end project. */
export interface Project extends TempProject {
  /** Names of the run folders in logs/, sorted. */
  logRuns(): Promise<string[]>;
}

/** Makes an end-to-end project (a {@link tempProject} with the files a run needs). */
export async function makeProject(options: ProjectOptions = {}): Promise<Project> {
  const project = await tempProject({}, { dir: options.dir });
  const { root, write } = project;
  const gitignore = options.gitignore === undefined
    ? "/agent-config\n/logs\nnode_modules/\n"
    : options.gitignore;
  if (gitignore !== null) await write(".gitignore", gitignore);
  const buildScript = options.buildScript === undefined ? PASSING_BUILD : options.buildScript;
  if (buildScript !== null) {
    await write("build.sh", buildScript);
    await Deno.chmod(join(root, "build.sh"), 0o755);
  }
  const query = options.query === undefined ? "Make the build pass.\n" : options.query;
  if (query !== null) await write("agent-config/query.txt", query);
  const rollup = options.rollup === undefined ? "--- src/status.txt ---\nbroken\n" : options.rollup;
  if (rollup !== null) await write("agent-config/codeRollup.txt", rollup);
  const gemini = options.keys?.gemini === undefined ? GEMINI_KEY : options.keys.gemini;
  if (gemini !== null) await write("agent-config/gemini-key.txt", `${gemini}\n`);
  const openai = options.keys?.openai === undefined ? OPENAI_KEY : options.keys.openai;
  if (openai !== null) await write("agent-config/openai-key.txt", `${openai}\n`);
  for (const [path, content] of Object.entries(options.files ?? {})) await write(path, content);
  if (options.git ?? true) {
    await git(root, "init", "-q");
    await git(root, "add", "-A");
    await git(root, "commit", "-q", "--allow-empty", "-m", "start");
  }

  return {
    ...project,
    async logRuns() {
      try {
        const names: string[] = [];
        for await (const entry of Deno.readDir(join(root, "logs"))) names.push(entry.name);
        return names.sort();
      } catch {
        return [];
      }
    },
  };
}

/** Every regular file under `root`, relative, sorted (links are not followed). */
export async function listFiles(root: string, prefix = ""): Promise<string[]> {
  const paths: string[] = [];
  for await (const entry of Deno.readDir(join(root, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    // A name that is not UTF-8 comes decoded lossily (U+FFFD), and cannot be opened by it.
    if (entry.name.includes("\uFFFD")) continue;
    if (entry.isDirectory) paths.push(...await listFiles(root, path));
    else if (entry.isFile) paths.push(path);
  }
  return paths.sort();
}

/** What one `git` run printed and how it ended. */
export type GitResult = ChildRun;

/** A home folder that does not exist: git finds no user configuration and no global excludes there. */
const NO_HOME = "/nonexistent/code-commit-test-home";

/** The folders the tests' own git is found in: the system's, as on every machine here. */
const FIXTURE_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Runs `git args...` in `root` isolated from the machine: no system or
 * global configuration, no global excludes file, a fixed identity, the C
 * locale and a fixed `PATH`; `stdin` is fed to it. Returns whatever git did.
 */
export async function runGit(
  root: string,
  args: readonly string[],
  stdin?: string,
): Promise<GitResult> {
  return await runChild(
    "git",
    ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args],
    {
      cwd: root,
      env: {
        // Never the runner's PATH: tests run side by side in one process, and one that puts a
        // planted program first on PATH for a moment would have it run here in git's place.
        PATH: FIXTURE_PATH,
        HOME: NO_HOME,
        XDG_CONFIG_HOME: NO_HOME,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        LANG: "C",
        LC_ALL: "C",
      },
      stdin,
    },
  );
}

/** Runs git in `root` as {@link runGit} does; returns its stdout, throws with its stderr when it fails. */
export async function git(root: string, ...args: string[]): Promise<string> {
  const result = await runGit(root, args);
  if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}
