/**
 * Tests of the log names: the run folder slugs and
 * the numbered file names of every LLM call.
 */

import assert from "node:assert/strict";
import {
  autoWorkflowSlug,
  type CallLogNames,
  CONTEXT_CODEBASE,
  CONTEXT_QUERY,
  INITIAL_QUERY,
  LOGS_DIR,
  repairQuery,
  SINGLE_QUERY,
  SLUGS,
} from "../../lib/logger/log_names.ts";

Deno.test("logs live in logs/, one slug per workflow", () => {
  assert.equal(LOGS_DIR, "logs");
  assert.deepEqual(SLUGS, {
    committingCode: "committing-code",
    consistencyReport: "consistency-report",
    // --undo's folder holds the list of what it restored.
    undo: "undo",
    // --check-build's folder holds its one build log.
    checkBuild: "check-build",
  });
});

/** Every call's names, each carrying the number of its LLM call. */
const CALLS: [string, CallLogNames, CallLogNames][] = [
  ["the initial query", INITIAL_QUERY, {
    query: "1-initial-query.txt",
    replyText: "1-initial-query-response.txt",
    replyJson: "1-initial-query-response.json",
    replyEvents: "1-initial-query-response-events.txt",
    build: "1-initial-query-build.txt",
    dryRun: "1-initial-query-dry-run.diff",
  }],
  ["repair 1", repairQuery(1), {
    query: "2-repair-query-1.txt",
    replyText: "2-repair-query-1-response.txt",
    replyJson: "2-repair-query-1-response.json",
    replyEvents: "2-repair-query-1-response-events.txt",
    build: "2-repair-query-1-build.txt",
    dryRun: "2-repair-query-1-dry-run.diff",
  }],
  ["repair 2", repairQuery(2), {
    query: "3-repair-query-2.txt",
    replyText: "3-repair-query-2-response.txt",
    replyJson: "3-repair-query-2-response.json",
    replyEvents: "3-repair-query-2-response-events.txt",
    build: "3-repair-query-2-build.txt",
    dryRun: "3-repair-query-2-dry-run.diff",
  }],
  ["repair 3", repairQuery(3), {
    query: "4-repair-query-3.txt",
    replyText: "4-repair-query-3-response.txt",
    replyJson: "4-repair-query-3-response.json",
    replyEvents: "4-repair-query-3-response-events.txt",
    build: "4-repair-query-3-build.txt",
    dryRun: "4-repair-query-3-dry-run.diff",
  }],
  ["the context builder's query", CONTEXT_QUERY, {
    query: "0-context-query.txt",
    replyText: "0-context-query-response.txt",
    replyJson: "0-context-query-response.json",
    replyEvents: "0-context-query-response-events.txt",
    build: "0-context-query-build.txt",
    dryRun: "0-context-query-dry-run.diff",
  }],
  ["a single-call workflow", SINGLE_QUERY, {
    query: "query.txt",
    replyText: "query-response.txt",
    replyJson: "query-response.json",
    replyEvents: "query-response-events.txt",
    build: "query-build.txt",
    dryRun: "query-dry-run.diff",
  }],
];

for (const [name, actual, expected] of CALLS) {
  Deno.test(`log names of ${name}`, () => {
    assert.deepEqual(actual, expected);
  });
}

Deno.test("the exact names of the initial, repair, context and single calls", () => {
  assert.equal(INITIAL_QUERY.query, "1-initial-query.txt");
  assert.equal(repairQuery(1).build, "2-repair-query-1-build.txt");
  assert.equal(repairQuery(3).replyJson, "4-repair-query-3-response.json");
  assert.equal(CONTEXT_QUERY.query, "0-context-query.txt");
  assert.equal(CONTEXT_CODEBASE, "0-codebase.txt");
  assert.equal(SINGLE_QUERY.replyJson, "query-response.json");
});

Deno.test("the four names of a call are distinct, and no two calls share a name", () => {
  const all = [INITIAL_QUERY, repairQuery(1), repairQuery(2), repairQuery(3), CONTEXT_QUERY]
    .flatMap((names) => Object.values(names));
  all.push(CONTEXT_CODEBASE);
  assert.equal(new Set(all).size, all.length);
  for (const name of all) assert.match(name, /^[0-9a-z.-]+$/, "a plain file name");
});

/** Spec path, stage, slug. */
const AUTO_SLUGS: [string, string, string][] = [
  [
    "src/llm/UserSpecification.md",
    "implemented",
    "auto-workflow-src+llm+UserSpecification.md-implemented",
  ],
  ["UserSpecification.md", "implemented", "auto-workflow-UserSpecification.md-implemented"],
  [
    "src/a/b/c/UserSpecification.md",
    "reviewed",
    "auto-workflow-src+a+b+c+UserSpecification.md-reviewed",
  ],
];

for (const [path, stage, slug] of AUTO_SLUGS) {
  Deno.test(`autoWorkflowSlug(${path}, ${stage})`, () => {
    const actual = autoWorkflowSlug(path, stage);
    assert.equal(actual, slug);
    assert.ok(!actual.includes("/"), "one folder, not a path");
  });
}
