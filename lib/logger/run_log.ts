/**
 * One run's log folder, `logs/YYYY-MM-DD-hh-mm-ss-<slug>` (local time); every byte redacted.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { checkRealFolder } from "../file_system/real_folders.ts";
import type { Redactor } from "../secrets/redact.ts";
import { LOGS_DIR } from "./log_names.ts";

function timestamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}-` +
    `${pad(date.getHours())}-${pad(date.getMinutes())}-${pad(date.getSeconds())}`;
}

/** One run's log folder. */
export class RunLog {
  private constructor(
    private readonly root: string,
    readonly dir: string,
    private readonly redactor: Redactor,
  ) {}

  /**
   * Creates `logs/` if needed and a new run folder in it (`-2`, … when taken).
   * @throws {CodeCommitError} when `logs` is not a real folder (a link could send the logs elsewhere).
   */
  static async create(
    root: string,
    slug: string,
    redactor: Redactor,
    now: Date = new Date(),
  ): Promise<RunLog> {
    const logs = await checkRealFolder(denoFileSystem, root, LOGS_DIR, { create: true })
      .catch((error) => {
        throw new CodeCommitError(`cannot create ${LOGS_DIR}/: ${messageOf(error)}`, EXIT.setup, {
          cause: error,
        });
      });
    if (!logs.ok) {
      throw new CodeCommitError(
        `${LOGS_DIR} is ${logs.found === "symlink" ? "a symbolic link" : "not a folder"}; ` +
          `code-commit writes its logs only into a real ${LOGS_DIR}/ folder: move it away`,
        EXIT.setup,
      );
    }
    const base = `${timestamp(now)}-${slug}`;
    for (let n = 1;; n++) {
      const dir = `${LOGS_DIR}/${n === 1 ? base : `${base}-${n}`}`;
      try {
        await Deno.mkdir(under(root, dir));
        return new RunLog(root, dir, redactor);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          throw new CodeCommitError(`cannot create ${dir}: ${messageOf(error)}`, EXIT.setup);
        }
      }
    }
  }

  /** The path of a file of this run, relative to the project root. Never throws. */
  path(name: string): string {
    return `${this.dir}/${name}`;
  }

  /** Writes `text`, redacted, to the file `name` of this run. @throws {CodeCommitError} naming it. */
  async write(name: string, text: string): Promise<void> {
    const path = this.path(name);
    await Deno.writeTextFile(under(this.root, path), this.redactor.redact(text)).catch((error) => {
      throw new CodeCommitError(`cannot write the log ${path}: ${error.message}`, EXIT.setup);
    });
  }

  /** Writes a failed call's reply file: `ERROR`, then the error. @throws as {@link RunLog.write}. */
  writeError(name: string, message: string): Promise<void> {
    return this.write(name, `ERROR\n${message}\n`);
  }
}
