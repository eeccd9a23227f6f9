/**
 * Run as a script in a project folder, with the tool's own read and write
 * permissions (`--allow-read=. --allow-write=.`): prints the sandbox plan
 * of the current folder as JSON, or `{"error": message}`. Tests of the plan
 * run it so, because what Deno lets the tool look at is what the plan can
 * find (a link out of the project can be followed by its in-project name,
 * not inspected by its target's).
 *
 * @module
 */
import { planSandbox } from "../../lib/sandbox/sandbox_plan.ts";

if (import.meta.main) {
  try {
    console.log(JSON.stringify(await planSandbox(".")));
  } catch (error) {
    console.log(JSON.stringify({ error: (error as Error).message }));
  }
}
