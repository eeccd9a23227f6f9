/**
 * Whether the tests run in CI (the `CI` environment variable is set): a
 * test that needs a system program CI installs (bubblewrap, strace, npm)
 * fails there when it is missing, instead of being skipped.
 *
 * @module
 */

/** Whether the tests run in CI (the `CI` environment variable is set). */
export const IN_CI = Deno.env.get("CI") !== undefined && Deno.env.get("CI") !== "";
