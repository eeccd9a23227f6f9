/**
 * How much code-commit reads, at most, of each kind of file it reads
 * itself: one table, shown in docs/safety.md. A file larger
 * than its limit is refused with a one-line error naming it (a project file
 * for a prompt is withheld instead), and no read ever takes in more than
 * the limit plus one byte, whatever the file turns out to be.
 *
 * @module
 */

/** The largest size read from one kind of file, and how a message names the kind. */
export interface ReadLimit {
  /** The largest size accepted, in bytes. */
  readonly bytes: number;
  /** The kind, as a message names it after "reads from": `an API key file`. */
  readonly what: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The limits, chosen far above any real file of each kind and far below
 * what would strain memory:
 * - `apiKey`: `agent-config/*-key.txt` (a key is under 200 bytes);
 * - `query`: `agent-config/query.txt` (a model's whole context is ≈ 4 MiB of text);
 * - `codeRollup`: `agent-config/codeRollup.txt` (the whole codebase, sent as it is);
 * - `settings`: `agent-config/settings.json` (a dozen keys take a few hundred bytes);
 * - `ignoreRules`: every `.gitignore` and `.git/info/exclude`;
 * - `gitIndex`: `.git/index` (≈ 100 bytes per tracked file: 2.5 million files);
 * - `specification`: a `UserSpecification.md`, and its copies in the specification cache;
 * - `moduleDocument`: a module's `ModuleDependencies.md`;
 * - `buildScript`: `build.sh`, read before and after each build to see that the build left it alone;
 * - `manifest`: `package.json`, read by `--init` to fit its starter build to the project;
 * - `projectFile`: a project file pasted into a prompt (withheld, not refused, when larger);
 * - `replacedFile`: a file a reply replaces or deletes (kept to roll it back);
 * - `journalRecord`: one record of the apply journal (2,000 paths take ≈ 300 KB);
 * - `journalPack`: the copies one apply keeps in the journal, back to back (an apply that
 *   would keep more is refused before it writes anything).
 */
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

/**
 * How long opening a file may take, in milliseconds. Opening a regular file
 * takes microseconds; opening a fifo for reading waits for a writer,
 * forever, so a fifo swapped in after the check ends the read here.
 */
export const OPEN_TIMEOUT_MS = 5_000;
