/**
 * Tests of the words a run ends with when it stops early: `interrupted` for
 * Ctrl-C or a stop signal (no error), `stopped by the error below`
 * otherwise; and what it left changed. The lists of changed files are
 * tested end to end (tests/e2e/committing_code_test.ts).
 */
import assert from "node:assert/strict";
import { CodeCommitError, EXIT, InterruptedError } from "../../../lib/errors/errors.ts";
import {
  describeLeftChanges,
  REVIEW_CHANGES,
  stoppedBy,
} from "../../../lib/workflows/committing_code/run_changes.ts";

Deno.test("stoppedBy: an interruption is not called an error", () => {
  assert.equal(stoppedBy(new InterruptedError()), "interrupted");
  assert.equal(stoppedBy(new InterruptedError("SIGTERM")), "interrupted");
  assert.equal(
    stoppedBy(new CodeCommitError("the call failed", EXIT.model)),
    "stopped by the error below",
  );
  assert.equal(stoppedBy(new Error("a bug")), "stopped by the error below");
});

Deno.test("describeLeftChanges: no file changed, or how many and how to review them", () => {
  assert.equal(describeLeftChanges(0), "no file changed");
  assert.equal(describeLeftChanges(0, " by this run"), "no file changed");
  assert.equal(describeLeftChanges(1), `1 file changed, left in place (${REVIEW_CHANGES})`);
  assert.equal(
    describeLeftChanges(2, " by this run"),
    `2 files changed by this run, left in place (${REVIEW_CHANGES})`,
  );
});
