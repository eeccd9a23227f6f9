/**
 * THE layer table of code-commit, lowest layer first, and the rule the
 * layering test holds every import of `lib/` and `main.ts` to: a module
 * imports only from its own folder and from lower layers (never from a
 * folder of its own layer, unless {@link SIDEWAYS} names that import as a
 * real dependency). docs/architecture.md shows the same table;
 * tests/docs_test.ts keeps the two in step.
 *
 * @module
 */
import type { Import } from "./imports.ts";

/** One layer: the folders in it (or `main.ts`), and what they are. */
export interface Layer {
  /** The layer's name, as docs/architecture.md and the messages give it. */
  readonly name: string;
  /** Its folders, relative to the repository (`lib/workflows/*` is every folder under `lib/workflows/`). */
  readonly folders: readonly string[];
}

/** The layers, lowest first. */
export const LAYERS: readonly Layer[] = [
  { name: "vocabulary", folders: ["lib/errors", "lib/text"] },
  { name: "file system", folders: ["lib/file_system"] },
  { name: "leaves", folders: ["lib/permissions", "lib/reply", "lib/secrets"] },
  { name: "output", folders: ["lib/console", "lib/logger"] },
  { name: "path guard", folders: ["lib/guard"] },
  {
    name: "capabilities",
    folders: [
      "lib/apply",
      "lib/build",
      "lib/llm",
      "lib/project_files",
      "lib/project_lock",
      "lib/prompts",
    ],
  },
  { name: "build sandbox", folders: ["lib/sandbox"] },
  { name: "run set-up", folders: ["lib/cli", "lib/preconditions"] },
  { name: "session", folders: ["lib/session", "lib/rollup"] },
  { name: "context builder", folders: ["lib/context_builder"] },
  { name: "workflows", folders: ["lib/workflows/*"] },
  { name: "command line", folders: ["main.ts"] },
];

/** Imports between two folders of the same layer that are real dependencies, with the reason. */
export const SIDEWAYS: readonly { from: string; to: string; why: string }[] = [
  {
    from: "lib/workflows/auto_workflow",
    to: "lib/workflows/committing_code",
    why: "the auto workflow runs its code-changing stages through the committing-code loop",
  },
];

/**
 * Files outside `lib/` a module of the tool may import, and why. Anything
 * else outside `lib/` (a test helper, a fixture) is a violation.
 */
export const OUTSIDE_LIB: ReadonlyMap<string, string> = new Map([
  ["deno.json", "the version --version prints"],
]);

/**
 * The folder a file belongs to, as the table names folders:
 * `lib/workflows/auto_workflow/task.ts` → `lib/workflows/auto_workflow`,
 * `lib/guard/guard.ts` → `lib/guard`, `main.ts` → `main.ts`; `undefined`
 * for a file outside `lib/` other than `main.ts`.
 */
export function folderOf(file: string): string | undefined {
  if (file === "main.ts") return file;
  const segments = file.split("/");
  if (segments[0] !== "lib" || segments.length < 3) return undefined;
  return segments[1] === "workflows" && segments.length >= 4
    ? segments.slice(0, 3).join("/")
    : segments.slice(0, 2).join("/");
}

/** The index of the layer (0 is the lowest) that holds `folder`, or `undefined`. */
export function layerOf(folder: string): number | undefined {
  const index = LAYERS.findIndex((layer) =>
    layer.folders.some((entry) =>
      entry.endsWith("/*") ? folder.startsWith(entry.slice(0, -1)) : entry === folder
    )
  );
  return index < 0 ? undefined : index;
}

/** `layer 5, path guard`. */
function describe(layer: number): string {
  return `layer ${layer + 1}, ${LAYERS[layer].name}`;
}

/**
 * Every import of `imports` that breaks the rule, one line each naming the
 * importing file and line, the imported file, and both layers. Imports of
 * `node:` and `npm:` modules are not judged. Never throws.
 */
export function layerViolations(imports: readonly Import[]): string[] {
  const problems: string[] = [];
  for (const { from, to, line } of imports) {
    if (/^(node|npm|jsr):/.test(to)) continue;
    const fromFolder = folderOf(from);
    const fromLayer = fromFolder === undefined ? undefined : layerOf(fromFolder);
    if (fromFolder === undefined || fromLayer === undefined) {
      const problem =
        `${from} is in no layer: add its folder to LAYERS in tests/support/layers.ts ` +
        "(and to the layer table of docs/architecture.md)";
      if (!problems.includes(problem)) problems.push(problem);
      continue;
    }
    const where = `${from}:${line} (${describe(fromLayer)})`;
    if (OUTSIDE_LIB.has(to)) continue;
    const toFolder = folderOf(to);
    const toLayer = toFolder === undefined ? undefined : layerOf(toFolder);
    if (toFolder === undefined || toLayer === undefined) {
      problems.push(`${where} imports ${to}, which is outside the tool's layers`);
      continue;
    }
    if (toFolder === fromFolder || toLayer < fromLayer) continue;
    if (SIDEWAYS.some((entry) => entry.from === fromFolder && entry.to === toFolder)) continue;
    problems.push(
      `${where} imports ${to} (${describe(toLayer)}): ` +
        (toLayer === fromLayer
          ? "a folder may import another folder of its own layer only where SIDEWAYS names it"
          : "a module may import only from its own folder and from lower layers"),
    );
  }
  return problems;
}
