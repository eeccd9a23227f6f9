import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runDenoScript } from "../support/child.ts";
import { withProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("a worker that throws, as it loads or on a request, prints nothing: with the run's permissions, standard error stays empty", async () => {
  await withProject({ "in.txt": "inside\n" }, async (root) => {
    const script = `
      import { READ_WORKER_SOURCE } from ${
      JSON.stringify(`${TOOL_ROOT}lib/rollup/read_worker_source.ts`)
    };
      import { readerWorkerUrl } from ${JSON.stringify(`${TOOL_ROOT}lib/rollup/reader_loader.ts`)};
      const bundles = [
        "throw new Error('at load: do not print me');",
        "this is ((( not a script",
        "const nothing = 'no reader here';",
        READ_WORKER_SOURCE + "\\nPromise.reject(new Error('rejected: do not print me'));",
        READ_WORKER_SOURCE + "\\nconst theirs = self.onmessage; self.onmessage = (event) => { theirs(event); throw new Error('on a request: do not print me'); };",
        READ_WORKER_SOURCE,
      ];
      const answers = [];
      for (const bundle of bundles) {
        const worker = new Worker(readerWorkerUrl(bundle), { type: "module" });
        answers.push(await new Promise((resolve) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => { event.preventDefault(); resolve("onerror"); };
          worker.postMessage({ id: 1, root: Deno.cwd(), paths: ["in.txt"] });
          setTimeout(() => resolve("no answer"), 2000);
        }));
        await new Promise((resolve) => setTimeout(resolve, 100)); // a late rejection, if any
        worker.terminate();
      }
      console.log(JSON.stringify(answers));
    `;
    const output = await runDenoScript(root, ["--no-prompt", "--allow-read=."], script);
    const stderr = output.stderr;
    assert.equal(output.code, 0, stderr);
    assert.equal(stderr, "", "nothing on standard error");
    assert.deepEqual(JSON.parse(output.stdout), [
      { failed: true },
      { failed: true },
      { failed: true }, // no onmessage: no reader
      { id: 1, outcomes: ["inside\n"] }, // a stray rejection: the reads go on
      { id: 1, outcomes: ["inside\n"] }, // the answer went out before the throw
      { id: 1, outcomes: ["inside\n"] },
    ]);
  });
});
