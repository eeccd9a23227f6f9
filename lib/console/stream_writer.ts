/**
 * Writing whole texts to stdout or stderr, where a reader that is gone is no error.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * A writer of whole texts to `stream` that drops everything once its reader is gone (a broken
 * pipe: `code-commit --init | head -2`). Throws what any other failed write throws.
 */
export function streamWriter(stream: { writeSync(p: Uint8Array): number }): (text: string) => void {
  let closed = false;
  return (text) => {
    if (closed) return;
    let bytes = encoder.encode(text);
    try {
      while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      closed = true;
    }
  };
}
