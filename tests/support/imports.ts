/**
 * The tool's own modules (every `.ts` file of `lib/`, and `main.ts`) and
 * what they import and export, as Deno itself reads them: `deno info` gives
 * each module's imports, type-only ones included, with where each stands;
 * `deno doc` gives each module's exports. The layering test and the
 * test-only-export test read the code through this module, so neither
 * depends on a hand-written parser of TypeScript.
 *
 * @module
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { join, relative } from "node:path";

/** The repository's root folder, absolute, with a trailing `/`. */
export const REPOSITORY: string = fileURLToPath(new URL("../../", import.meta.url));

/** One import of one module. */
export interface Import {
  /** The importing file, relative to the repository: `lib/guard/guard.ts`. */
  readonly from: string;
  /**
   * What it imports: a file relative to the repository (`lib/errors/errors.ts`,
   * `deno.json`), or the specifier itself when it is not a file of the
   * repository (`node:path`, `npm:zod@3.25.76`).
   */
  readonly to: string;
  /** The line of the import in `from`, 1-based. */
  readonly line: number;
  /** True when only types are imported (`import type`, or `type` on every name). */
  readonly typeOnly: boolean;
  /** The names imported: `*` for a namespace or a re-export of everything, `default` for a default import; none for a bare `import "x"`. */
  readonly names: readonly string[];
}

/** One export of one module. */
export interface Export {
  /** The exporting file, relative to the repository. */
  readonly file: string;
  /** The exported name. */
  readonly name: string;
  /** What `deno doc` says it is: `function`, `variable`, `class`, `enum`, `interface`, `typeAlias`, ... */
  readonly kind: string;
}

/** Every `.ts` file of `lib/`, and `main.ts`, relative to the repository, sorted. */
export async function toolModules(): Promise<string[]> {
  const files = ["main.ts"];
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(REPOSITORY, folder))) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) await visit(path);
      else if (entry.isFile && path.endsWith(".ts")) files.push(path);
    }
  };
  await visit("lib");
  return files.sort();
}

/** Runs the `deno` that runs the tests with `args`; returns its stdout, parsed as JSON. */
async function denoJson(args: string[]): Promise<unknown> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPOSITORY,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`deno ${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** A position `deno info` reports: 0-based line and character. */
interface Position {
  readonly line: number;
  readonly character: number;
}

interface InfoDependency {
  readonly specifier: string;
  readonly code?: { readonly specifier?: string; readonly span: { readonly start: Position } };
  readonly type?: { readonly specifier?: string; readonly span: { readonly start: Position } };
}

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly InfoDependency[];
}

/** The repository path of a resolved specifier, or the specifier itself when it is not a file here. */
function repositoryPath(specifier: string): string {
  if (!specifier.startsWith("file:")) return specifier;
  const path = relative(REPOSITORY, fileURLToPath(specifier));
  return path.startsWith("..") ? specifier : path.replaceAll("\\", "/");
}

/**
 * The names an import statement brings in, read from `source` backwards from
 * the start of its specifier (where `deno info` says it stands) to the
 * statement's `import` or `export` keyword.
 */
function namesAt(source: string, at: Position): { names: string[]; typeOnly: boolean } {
  const lines = source.split("\n");
  let offset = at.character;
  for (let line = 0; line < at.line; line++) offset += lines[line].length + 1;
  const before = source.slice(0, offset);
  let keyword: RegExpExecArray | undefined;
  for (const match of before.matchAll(/\b(?:import|export)\b/g)) keyword = match;
  if (keyword === undefined) throw new Error(`no import before ${JSON.stringify(at)}`);
  const clause = before.slice(keyword.index + keyword[0].length).replace(/\s+from\s*$/, "").trim();
  if (clause === "" || clause === "(") {
    return { names: clause === "(" ? ["*"] : [], typeOnly: false };
  }
  const typeOnly = /^type\b/.test(clause);
  const body = clause.replace(/^type\b\s*/, "");
  const names: string[] = [];
  let allTypes = true;
  const braces = /\{([^}]*)\}/.exec(body);
  const outside = braces === null ? body : body.slice(0, braces.index);
  for (const part of outside.split(",").map((item) => item.trim()).filter(Boolean)) {
    names.push(/^\*/.test(part) ? "*" : "default");
    allTypes = false;
  }
  for (const item of braces?.[1].split(",").map((name) => name.trim()).filter(Boolean) ?? []) {
    const isType = /^type\s/.test(item);
    if (!isType) allTypes = false;
    names.push(item.replace(/^type\s+/, "").split(/\s+as\s+/)[0]);
  }
  return { names, typeOnly: typeOnly || (names.length > 0 && allTypes) };
}

/**
 * Every import of every file of `files` (relative to the repository), in
 * file order, then line order. Runs `deno info` once, on a temporary module
 * that imports them all.
 *
 * @throws {Error} when `deno info` fails.
 */
export async function importsOf(files: readonly string[]): Promise<Import[]> {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-imports-" });
  try {
    const entry = join(folder, "all.ts");
    const urls = files.map((file) => pathToFileURL(join(REPOSITORY, file)).href);
    await Deno.writeTextFile(entry, urls.map((url) => `import ${JSON.stringify(url)};\n`).join(""));
    const info = await denoJson([
      "info",
      "--json",
      "--config",
      join(REPOSITORY, "deno.json"),
      entry,
    ]) as { modules: InfoModule[] };
    const wanted = new Set(urls);
    const imports: Import[] = [];
    for (const module of info.modules) {
      if (!wanted.has(module.specifier)) continue;
      const from = repositoryPath(module.specifier);
      const source = await Deno.readTextFile(join(REPOSITORY, from));
      for (const dependency of module.dependencies ?? []) {
        const resolved = dependency.code ?? dependency.type;
        if (resolved === undefined) continue;
        const { names, typeOnly } = namesAt(source, resolved.span.start);
        imports.push({
          from,
          to: repositoryPath(resolved.specifier ?? dependency.specifier),
          line: resolved.span.start.line + 1,
          typeOnly: dependency.code === undefined || typeOnly,
          names,
        });
      }
    }
    return imports.sort((a, b) => a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

/**
 * Every export of every file of `files` (relative to the repository), as
 * `deno doc` lists them.
 *
 * @throws {Error} when `deno doc` fails.
 */
export async function exportsOf(files: readonly string[]): Promise<Export[]> {
  const doc = await denoJson(["doc", "--json", ...files]) as {
    nodes: Record<
      string,
      { symbols?: { name: string; declarations: { kind: string; declarationKind: string }[] }[] }
    >;
  };
  const exports: Export[] = [];
  for (const [specifier, node] of Object.entries(doc.nodes)) {
    const file = repositoryPath(specifier);
    for (const symbol of node.symbols ?? []) {
      for (const declaration of symbol.declarations) {
        if (declaration.declarationKind !== "export") continue;
        exports.push({ file, name: symbol.name, kind: declaration.kind });
      }
    }
  }
  return exports;
}
