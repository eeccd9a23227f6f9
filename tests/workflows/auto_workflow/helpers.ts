/**
 * Helpers shared by the auto-workflow tests: the five-module fixture project
 * of `tests/fixtures/auto_workflow/`, dependency lists, and stages by name.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listFiles } from "../../support/project.ts";
import { type Stage, type StageName, STAGES } from "../../../lib/workflows/auto_workflow/stages.ts";

/** The fixture folder of the auto-workflow tests. */
export const FIXTURES: string = fileURLToPath(
  new URL("../../fixtures/auto_workflow/", import.meta.url),
);

/** Every file of the fixture project `name`, path → content. */
export async function fixtureFiles(name: string): Promise<Record<string, string>> {
  const root = join(FIXTURES, name);
  const files: Record<string, string> = {};
  for (const path of await listFiles(root)) files[path] = await Deno.readTextFile(join(root, path));
  return files;
}

/** `# Module Dependencies`, a blank line, then `paths`, one per line. */
export function dependencies(...paths: string[]): string {
  return `# Module Dependencies\n\n${paths.map((path) => `${path}\n`).join("")}`;
}

/** The stage called `name`. */
export function stageNamed(name: StageName): Stage {
  const found = STAGES.find((stage) => stage.name === name);
  if (found === undefined) throw new Error(`no stage ${name}`);
  return found;
}
