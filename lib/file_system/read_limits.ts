/**
 * How much code-commit reads, at most, of each kind of file it reads itself.
 * @module
 */

/** The largest size read from one kind of file, and the kind as a message names it after "reads from". */
export interface ReadLimit {
  readonly bytes: number;
  readonly what: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The limits: far above any real file of each kind, far below what would strain memory. */
export const READ_LIMITS = {
  apiKey: { bytes: 64 * KiB, what: "an API key file" },
  query: { bytes: 4 * MiB, what: "the query" },
  codeRollup: { bytes: 32 * MiB, what: "the code rollup" },
  settings: { bytes: 64 * KiB, what: "the settings" },
  ignoreRules: { bytes: 4 * MiB, what: "an ignore-rules file" },
  gitIndex: { bytes: 256 * MiB, what: "the git index" },
  specification: { bytes: 4 * MiB, what: "a specification" },
  moduleDocument: { bytes: 1 * MiB, what: "a module document" },
  buildScript: { bytes: 1 * MiB, what: "the build script" },
  manifest: { bytes: 4 * MiB, what: "a project manifest" },
  projectFile: { bytes: 1 * MiB, what: "a file for a prompt" },
  replacedFile: { bytes: 512 * MiB, what: "a file a reply replaces or deletes" },
  journalRecord: { bytes: 64 * MiB, what: "a record of the apply journal" },
  journalPack: { bytes: 512 * MiB, what: "the copies of one apply in the journal" },
} as const satisfies Record<string, ReadLimit>;

/** How long opening a file may take, in ms: a fifo swapped in after the check waits forever. */
export const OPEN_TIMEOUT_MS = 5_000;
