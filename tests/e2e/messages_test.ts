/**
 * How code-commit's messages read: every run of the real tool in these
 * tests goes through `runTool`, which fails the test when a line printed
 * nests parentheses (`x (y (z))`); here, that check itself.
 */
import assert from "node:assert/strict";
import { nestedParentheses } from "../support/run_tool.ts";

Deno.test("the check of every e2e run's output finds parentheses nested in parentheses", () => {
  assert.deepEqual(
    nestedParentheses(
      [
        "running ./build.sh (not contained (--sandbox off))",
        "build failed (exit code 1, after 0.1s); see (the log)",
        "auto workflow: 1 module, phases 1 to 1; L0: the root module (UserSpecification.md)",
        "warning: build failed (stopped at the time limit of 1s (--build-timeout), after 1s)",
        "  the model's words (may (nest))",
        "  | build output (may (nest))",
        "a stray ) then (one)",
      ].join("\n"),
    ),
    [
      "running ./build.sh (not contained (--sandbox off))",
      "warning: build failed (stopped at the time limit of 1s (--build-timeout), after 1s)",
    ],
  );
  assert.deepEqual(nestedParentheses(""), []);
});
