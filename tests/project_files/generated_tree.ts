/**
 * A generated project tree for the walk's benchmark: many small files under
 * `src/` in nested module folders, ignored files and folders among them
 * (`*.log`, a nested `.gitignore`), and a large ignored `node_modules/` the
 * walk must never open.
 *
 * @module
 */
import { join } from "node:path";

/** The shape of a generated tree. */
export interface TreeShape {
  /** Module folders directly in `src/`. */
  readonly modules: number;
  /** Sub-folders in each module. */
  readonly subfolders: number;
  /** Files in each sub-folder (one in twenty is a `*.log`, ignored). */
  readonly filesPerFolder: number;
  /** Packages in the ignored `node_modules/`. */
  readonly packages: number;
  /** Files in each package. */
  readonly filesPerPackage: number;
}

/** 100,000 files in all: 80,000 under `src/` (4,000 of them ignored), 20,000 in `node_modules/`. */
export const BENCH_TREE: TreeShape = {
  modules: 40,
  subfolders: 20,
  filesPerFolder: 100,
  packages: 200,
  filesPerPackage: 100,
};

/** How many files a tree of `shape` holds (module docs and ignore files included). */
export function countFiles(shape: TreeShape): number {
  return 2 + shape.modules * 4 + shape.modules * shape.subfolders * shape.filesPerFolder +
    shape.packages * shape.filesPerPackage;
}

/** Writes a tree of `shape` into the empty folder `root`. */
export async function generateTree(root: string, shape: TreeShape): Promise<void> {
  const writes: Promise<void>[] = [];
  const write = (path: string, text: string) =>
    writes.push(Deno.writeTextFile(join(root, path), text));
  const flush = async () => {
    await Promise.all(writes);
    writes.length = 0;
  };
  await Deno.writeTextFile(
    join(root, ".gitignore"),
    "/agent-config\n/logs\nnode_modules/\n*.log\n",
  );
  await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 0\n");
  for (let m = 0; m < shape.modules; m++) {
    const module = `src/module${m}`;
    await Deno.mkdir(join(root, module), { recursive: true });
    write(`${module}/UserSpecification.md`, `# Module ${m}\n`);
    write(`${module}/ModuleDependencies.md`, "# Module Dependencies\n\nsrc/module0\n");
    write(`${module}/APISignatures.md`, `# API\n\nexport function f${m}(): void\n`);
    write(`${module}/.gitignore`, "generated-*\n");
    for (let s = 0; s < shape.subfolders; s++) {
      const folder = `${module}/part${s}`;
      await Deno.mkdir(join(root, folder));
      for (let f = 0; f < shape.filesPerFolder; f++) {
        const name = f % 20 === 19 ? `trace${f}.log` : `file${f}.ts`;
        write(`${folder}/${name}`, `export const value${f} = ${f};\n`);
      }
      await flush();
    }
  }
  for (let p = 0; p < shape.packages; p++) {
    const folder = `node_modules/package${p}/lib`;
    await Deno.mkdir(join(root, folder), { recursive: true });
    for (let f = 0; f < shape.filesPerPackage; f++) {
      write(`${folder}/index${f}.js`, `module.exports = ${f};\n`);
    }
    await flush();
  }
  await flush();
}
