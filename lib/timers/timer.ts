/**
 * Timers that start nothing of Node's. In Deno 2.9 the first `setTimeout`
 * or `setInterval` of a process loads Deno's Node timers (≈ 9 ms and 4 MiB);
 * these share one `Atomics.waitAsync` wait instead (≈ 0.1 ms and under
 * 1 MiB for the first, a set entry for each other), and never keep the
 * process alive by themselves: use them where something else does (a
 * request, a child process, a file read), not for a bare sleep.
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

/** A timer not yet fired nor cancelled: when it is due, and how it ends. */
interface Pending {
  /** When it is due, in `performance.now()` time. */
  readonly due: number;
  /** Ends it: `true` when the time is up, `false` when cancelled. */
  readonly end: (expired: boolean) => void;
}

/**
 * Every running timer shares one wait, armed for the earliest one due: a
 * timer then costs a set entry, not a wait of its own (a rollup starts one
 * per file it opens). The set stays small: timers guard work in flight.
 */
const pending = new Set<Pending>();
/** The armed wait's cell, and when it ends; none while nothing is pending. */
let armed: { readonly cell: Int32Array; readonly due: number } | undefined;

/** Arms the shared wait for the earliest pending timer, unless it already ends by then. */
function arm(): void {
  let due = Infinity;
  for (const timer of pending) if (timer.due < due) due = timer.due;
  if (due === Infinity || (armed !== undefined && armed.due <= due)) return;
  if (armed !== undefined) Atomics.notify(armed.cell, 0);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const mine = { cell, due };
  armed = mine;
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(0, due - performance.now()));
  (wait.async ? wait.value : Promise.resolve(wait.value)).then(() => {
    if (armed !== mine) return; // replaced by an earlier one
    armed = undefined;
    const now = performance.now();
    for (const timer of pending) {
      if (timer.due > now) continue;
      pending.delete(timer);
      timer.end(true);
    }
    arm();
  });
}

/** Starts a timer of `ms` milliseconds (see the module doc). Never throws. */
export function startTimer(ms: number): Timer {
  let end!: (expired: boolean) => void;
  const done = new Promise<boolean>((resolve) => end = resolve);
  const timer: Pending = { due: performance.now() + Math.max(0, ms), end };
  pending.add(timer);
  if (armed === undefined || armed.due > timer.due) arm();
  return {
    done,
    cancel: () => {
      if (pending.delete(timer)) end(false);
    },
  };
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
