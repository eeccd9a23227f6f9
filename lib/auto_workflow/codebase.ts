/**
 * The codebase of an auto-workflow task, assembled mechanically (seed 003):
 * no LLM chooses the files. Each file is a `--- path ---` line followed by
 * its content, the block format of the code rollup.
 *
 * The files of a module are the files under its folder, except:
 * - nested modules (folders holding their own `UserSpecification.md`) — they
 *   are modules of their own; for the root module, this leaves the top-level
 *   files and every folder that is not (inside) a module;
 * - anything git ignores, and the folders the tool may never read
 *   (`.git`, `agent-config/`, `agent-state/`, `app-data/`, `logs/`: the
 *   protected table's unreadable entries);
 * - symbolic links, which are never followed, and special files.
 *
 * A file that is not UTF-8 text (or holds a NUL byte), or is larger than
 * {@link MAX_FILE_BYTES}, is listed with a note instead of its content.
 *
 * @module
 */
import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { protectedRuleFor } from "../guard/protected_paths.ts";
import type { Module } from "./graph.ts";
import { compareCodePoints, type ModuleInfo, ROOT_MODULE, SPEC_FILE } from "./module_paths.ts";
import type { CodebaseKind } from "./stages.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Files larger than this (1 MiB) are listed with a note, not pasted into the prompt. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** One file as a codebase shows it: `--- path ---`, then the content, ending with a newline. Never throws. */
export function formatFileBlock(path: string, bytes: Uint8Array): string {
  let content: string;
  try {
    content = decoder.decode(bytes);
    if (content.includes("\0")) throw new TypeError("NUL byte");
  } catch {
    content = `(a binary file of ${bytes.length} bytes: not shown)\n`;
  }
  if (content !== "" && !content.endsWith("\n")) content += "\n";
  return `--- ${path} ---\n${content}`;
}

/**
 * The files of `module` (see the module doc), relative to `root`, in
 * code-point order. `modulePaths` holds the path of every module.
 *
 * @throws {CodeCommitError} when a folder cannot be listed or the ignore
 * rules cannot be read.
 */
export async function moduleFiles(
  root: string,
  module: ModuleInfo,
  modulePaths: ReadonlySet<string>,
  rules?: IgnoreRules,
): Promise<string[]> {
  const ignoreRules = rules ?? await IgnoreRules.load(root);
  const files: string[] = [];
  await collect(root, module.path, modulePaths, ignoreRules, files);
  return files.sort(compareCodePoints);
}

async function collect(
  root: string,
  folder: string,
  modulePaths: ReadonlySet<string>,
  rules: IgnoreRules,
  files: string[],
): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(join(root, folder))) entries.push(entry);
  } catch (error) {
    throw new CodeCommitError(
      `cannot list the folder ${folder === "" ? "." : folder} for the codebase: ${
        messageOf(error)
      }`,
      undefined,
      { cause: error },
    );
  }
  for (const entry of entries) {
    if (entry.isSymlink) continue;
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (protectedRuleFor(path)?.readable === false) continue;
    if (entry.isDirectory) {
      if (modulePaths.has(path)) continue;
      if (await rules.isIgnored(path, true)) continue;
      await collect(root, path, modulePaths, rules, files);
    } else if (entry.isFile) {
      if (await rules.isIgnored(path, false)) continue;
      files.push(path);
    }
  }
}

/**
 * The block of a regular file that is not a link; undefined when it is
 * missing or of another kind. A file over {@link MAX_FILE_BYTES} is not read.
 */
async function readBlock(root: string, path: string): Promise<string | undefined> {
  try {
    const info = await Deno.lstat(join(root, path));
    if (!info.isFile) return undefined;
    if (info.size > MAX_FILE_BYTES) {
      return `--- ${path} ---\n(a file of ${info.size} bytes, over the limit of ${MAX_FILE_BYTES}: not shown)\n`;
    }
    return formatFileBlock(path, await Deno.readFile(join(root, path)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw new CodeCommitError(
      `cannot read ${path} for the codebase: ${messageOf(error)}`,
      undefined,
      {
        cause: error,
      },
    );
  }
}

/**
 * The paths a task's codebase shows, in order, each once:
 * - `full`: the top-level `UserSpecification.md`, every file of the module,
 *   then for each dependency (in path order) its `UserSpecification.md` and
 *   its `APISignatures.md` when it has one;
 * - `module`: every file of the module only.
 *
 * @throws {CodeCommitError} as {@link moduleFiles} does.
 */
export async function codebasePaths(
  root: string,
  module: Module,
  modules: readonly Module[],
  kind: CodebaseKind,
): Promise<string[]> {
  const modulePaths = new Set(modules.map((m) => m.path).filter((path) => path !== ROOT_MODULE));
  modulePaths.delete(module.path);
  const own = await moduleFiles(root, module, modulePaths);
  if (kind === "module") return own;
  const paths = [SPEC_FILE, ...own];
  for (const dependencyPath of module.dependencies) {
    const dependency = modules.find((m) => m.path === dependencyPath);
    if (dependency === undefined) continue;
    paths.push(dependency.specPath, dependency.apiFile);
  }
  return [...new Set(paths)];
}

/**
 * Assembles the codebase of a task on `module` (see {@link codebasePaths}):
 * one file block per path, joined as the code rollup joins them, a missing
 * optional file (a dependency's `APISignatures.md`) left out.
 *
 * @throws {CodeCommitError} when a folder or file cannot be read.
 */
export async function assembleCodebase(
  root: string,
  module: Module,
  modules: readonly Module[],
  kind: CodebaseKind,
): Promise<string> {
  const blocks: string[] = [];
  for (const path of await codebasePaths(root, module, modules, kind)) {
    const block = await readBlock(root, path);
    if (block !== undefined) blocks.push(block);
  }
  return blocks.join("");
}
