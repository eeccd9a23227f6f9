/**
 * Timers that start nothing of Node's. In Deno 2.9 the first `setTimeout`
 * or `setInterval` of a process loads Deno's Node timers (≈ 9 ms and 4 MiB);
 * these wait with `Atomics.waitAsync` on a cell of their own instead
 * (≈ 0.1 ms, under 1 MiB), are cancelled with `Atomics.notify`, and never
 * keep the process alive by themselves: use them where something else does
 * (a request, a child process, a file read), not for a bare sleep.
 *
 * @module
 */

/** A running timer. */
export interface Timer {
  /** Resolves `true` when the time is up, `false` when cancelled first. Never rejects. */
  readonly done: Promise<boolean>;
  /** Cancels the timer; no effect once it fired. Never throws. */
  cancel(): void;
}

/** Starts a timer of `ms` milliseconds (see the module doc). Never throws. */
export function startTimer(ms: number): Timer {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(0, ms));
  const done = wait.async
    ? wait.value.then((result) => result === "timed-out")
    : Promise.resolve(wait.value === "timed-out");
  return { done, cancel: () => void Atomics.notify(cell, 0) };
}

/**
 * `promise`, or the rejection with `timeout()` once `ms` milliseconds have
 * passed first. A later failure of `promise` is then ignored (no one is
 * left to tell).
 */
export async function within<T>(promise: Promise<T>, ms: number, timeout: () => Error): Promise<T> {
  const timer = startTimer(ms);
  promise.catch(() => {});
  try {
    return await Promise.race([
      promise,
      timer.done.then((expired) => {
        if (expired) throw timeout();
        return new Promise<never>(() => {}); // cancelled: the promise settled first
      }),
    ]);
  } finally {
    timer.cancel();
  }
}

/**
 * Calls `tick` every `ms` milliseconds until the returned function is
 * called (after which `tick` is never called again). Never throws.
 */
export function every(ms: number, tick: () => void): () => void {
  let stopped = false;
  let timer: Timer | undefined;
  void (async () => {
    while (!stopped) {
      timer = startTimer(ms);
      if (!(await timer.done) || stopped) return;
      tick();
    }
  })();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
