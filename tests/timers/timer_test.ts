import assert from "node:assert/strict";
import { startTimer, within } from "../../lib/timers/timer.ts";

/**
 * Runs `body` while a plain timer keeps the process alive: the timers under
 * test never do (in the tool, the request, child or read they guard does).
 */
function alive(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    const keep = setTimeout(() => {}, 60_000);
    try {
      await body();
    } finally {
      clearTimeout(keep);
    }
  };
}

Deno.test(
  "startTimer: done is true once the time is up, not before",
  alive(async () => {
    const started = performance.now();
    const timer = startTimer(30);
    assert.equal(await timer.done, true);
    assert.ok(performance.now() - started >= 29, "fired too early");
  }),
);

Deno.test(
  "startTimer: a cancelled timer ends with false, and a late cancel changes nothing",
  alive(async () => {
    const cancelled = startTimer(10_000);
    cancelled.cancel();
    assert.equal(await cancelled.done, false);
    const fired = startTimer(1);
    assert.equal(await fired.done, true);
    fired.cancel();
    assert.equal(await fired.done, true);
  }),
);

Deno.test(
  "timers sharing the wait fire in the order they are due, an earlier one added last too",
  alive(async () => {
    const order: number[] = [];
    const late = startTimer(120);
    const middle = startTimer(60);
    const early = startTimer(10);
    const cancelled = startTimer(30);
    cancelled.cancel();
    await Promise.all([
      late.done.then(() => order.push(120)),
      middle.done.then(() => order.push(60)),
      early.done.then(() => order.push(10)),
    ]);
    assert.deepEqual(order, [10, 60, 120]);
  }),
);

Deno.test(
  "within: the promise's value, or the timeout's error once the time is up",
  alive(async () => {
    assert.equal(await within(Promise.resolve(7), 1_000, () => new Error("late")), 7);
    await assert.rejects(
      within(new Promise(() => {}), 20, () => new RangeError("too slow")),
      RangeError,
    );
    await assert.rejects(within(Promise.reject(new Error("failed")), 1_000, () => new Error()), {
      message: "failed",
    });
  }),
);

Deno.test("a timer does not keep the process alive", async () => {
  const script = `
    import { startTimer } from ${
    JSON.stringify(new URL("../../lib/timers/timer.ts", import.meta.url).href)
  };
    startTimer(60_000).done.then(() => console.log("fired"));
    console.log("started");
  `;
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(output.stdout), "started\n");
  assert.ok(performance.now() - started < 30_000, "the process waited for the timer");
});
