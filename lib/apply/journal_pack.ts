/**
 * A pack of the apply journal being written: the pre-images' bytes of one
 * apply, back to back, streamed to a temporary file and renamed into place
 * when the apply's record is committed.
 *
 * @module
 */

import { AtomicFileWriter } from "../file_system/write_atomically.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { JournalError } from "./journal_schema.ts";
import { removeQuietly } from "./journal_store.ts";

/**
 * The bytes of one pack being written, streamed to a temporary file (see
 * `AtomicFileWriter`), renamed into place at commit.
 */
export class PackWriter {
  readonly #dir: string;
  readonly #name: string;
  readonly #writer: AtomicFileWriter;

  /** A pack to be named `name` in the journal folder `dir`; nothing is written yet. */
  constructor(dir: string, name: string) {
    this.#dir = dir;
    this.#name = name;
    this.#writer = new AtomicFileWriter(dir, name);
  }

  /**
   * Appends `data`; returns its offset.
   *
   * @throws {JournalError} when the pack would grow past what the journal reads back.
   */
  append(data: Uint8Array): number {
    const offset = this.#writer.size;
    if (data.length === 0) return offset;
    if (offset + data.length > READ_LIMITS.journalPack.bytes) {
      throw new JournalError(
        `the reply replaces or deletes more than ${
          READ_LIMITS.journalPack.bytes / (1024 * 1024)
        } MiB of files, more than code-commit keeps copies of in its journal; nothing was ` +
          "changed: ask for a smaller change",
      );
    }
    this.#writer.append(data);
    return offset;
  }

  /** Syncs, closes and renames the pack into place; nothing when it is empty. */
  seal(): void {
    this.#writer.commit();
  }

  /** Closes and removes what was written. Never throws. */
  abandon(): void {
    this.#writer.abandon();
    removeQuietly(`${this.#dir}/${this.#name}`);
  }
}
