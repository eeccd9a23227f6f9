/**
 * Temporary projects for end-to-end tests: a real folder with a real git
 * repository, a `.gitignore` that protects agent-config/, API keys, a query,
 * a rollup and a `build.sh`.
 *
 * @module
 */
import { dirname, join } from "node:path";

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

/** How to make a project; everything has a default. */
export interface ProjectOptions {
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

/** A temporary project. */
export interface Project {
  /** Its absolute path. */
  readonly root: string;
  /** Writes a file (folders are created). */
  write(path: string, content: string): Promise<void>;
  /** Reads a file. */
  read(path: string): Promise<string>;
  /** Tells whether a path exists (without following a final link). */
  exists(path: string): Promise<boolean>;
  /** Every file under the root except `.git/`, path → content, sorted. */
  snapshot(): Promise<Map<string, string>>;
  /** Names of the run folders in logs/, sorted. */
  logRuns(): Promise<string[]>;
  /** Removes the project. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Makes a temporary project. */
export async function makeProject(options: ProjectOptions = {}): Promise<Project> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-project-" }));
  const write = async (path: string, content: string) => {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  };
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
    root,
    write,
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
      const files = new Map<string, string>();
      for (const path of await listFiles(root)) {
        if (path === ".git" || path.startsWith(".git/")) continue;
        files.set(path, await Deno.readTextFile(join(root, path)));
      }
      return files;
    },
    async logRuns() {
      try {
        const names: string[] = [];
        for await (const entry of Deno.readDir(join(root, "logs"))) names.push(entry.name);
        return names.sort();
      } catch {
        return [];
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Every regular file under `root`, relative, sorted (links are not followed). */
export async function listFiles(root: string, prefix = ""): Promise<string[]> {
  const paths: string[] = [];
  for await (const entry of Deno.readDir(join(root, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) paths.push(...await listFiles(root, path));
    else if (entry.isFile) paths.push(path);
  }
  return paths.sort();
}

/** Runs git in `root` with a clean configuration; throws with its stderr when it fails. */
export async function git(root: string, ...args: string[]): Promise<string> {
  const result = await new Deno.Command("git", {
    args: ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args],
    cwd: root,
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!result.success) {
    throw new Error(`git ${args.join(" ")} failed: ${decoder.decode(result.stderr)}`);
  }
  return decoder.decode(result.stdout);
}
