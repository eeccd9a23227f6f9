/**
 * One LLM call as every workflow makes it: refused if the prompt holds a
 * key, the prompt logged, a live wait on the terminal, retries reported,
 * the reply (or `ERROR`) and its JSON body logged, and a line with the
 * time and tokens printed.
 *
 * @module
 */
import type { Console } from "../console/console.ts";
import { CodeCommitError, InterruptedError, messageOf } from "../errors/errors.ts";
import type { CallLogNames } from "../logger/log_names.ts";
import type { RunLog } from "../logger/run_log.ts";
import type { Redactor } from "../secrets/redact.ts";
import { formatSeconds } from "../text/numbers.ts";
import { type LlmClient, LlmError, type LlmReply, type TokenUsage } from "./types.ts";

/** Token totals of a run, across its calls. */
export class TokenTally {
  /** Calls made. */
  calls = 0;
  /** Prompt tokens. */
  input = 0;
  /** Visible reply tokens. */
  output = 0;
  /** Thinking tokens. */
  thinking = 0;

  /** Adds one call's usage. */
  add(usage: TokenUsage): void {
    this.calls++;
    this.input += usage.input;
    this.output += usage.output;
    this.thinking += usage.thinking;
  }

  /** `12,345 input, 2,100 output, 5,000 thinking tokens`. */
  describe(): string {
    return describeUsage(this);
  }
}

/** What one call needs besides the client and the prompt. */
export interface AskContext {
  /** Where progress is shown. */
  readonly console: Console;
  /** Where the call is logged. */
  readonly log: RunLog;
  /** The names of this call's log files. */
  readonly names: CallLogNames;
  /** Knows the keys: a prompt holding one is never sent. */
  readonly redactor: Redactor;
  /** Aborts the call (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Adds this call's usage to the run's totals. */
  readonly tally?: TokenTally;
}

/**
 * Sends `prompt` to `client` with logging, progress and redaction.
 *
 * @throws {CodeCommitError} when the prompt contains an API key (it is not sent).
 * @throws {LlmError} when the call fails; the reply file then starts with `ERROR`.
 * @throws {InterruptedError} on Ctrl-C.
 */
export async function ask(
  client: LlmClient,
  prompt: string,
  context: AskContext,
): Promise<LlmReply> {
  const { console, log, names, redactor } = context;
  await log.write(names.query, prompt);
  if (redactor.containsKey(prompt)) {
    const message = `the prompt for ${client.model} contains an API key, so it was not sent: ` +
      `remove the key from the files the prompt is made of (the query, the specifications, ` +
      `the codebase); ${log.path(names.query)} shows where, masked`;
    await log.writeError(names.responseText, message);
    throw new CodeCommitError(message);
  }

  const stopWaiting = console.waiting(`waiting for ${client.model}…`);
  let reply: LlmReply;
  try {
    reply = await client.complete(prompt, {
      signal: context.signal,
      onRetry: (notice) =>
        console.warn(
          `${client.model}: ${notice.reason}; retrying in ${formatSeconds(notice.delayMs)}` +
            `${notice.serverHint ? " as the server asked" : ""} (attempt ${
              notice.attempt + 1
            } of ${notice.maxAttempts})`,
        ),
    });
  } catch (error) {
    stopWaiting();
    if (error instanceof InterruptedError) {
      await log.writeError(names.responseText, `${error.message}, before the reply arrived`);
    } else {
      await log.writeError(names.responseText, messageOf(error));
      if (error instanceof LlmError && error.body !== undefined) {
        await log.write(names.responseJson, error.body);
      }
    }
    throw error;
  }
  stopWaiting();

  await log.write(names.responseText, reply.text);
  await log.write(names.responseJson, reply.body);
  context.tally?.add(reply.usage);
  console.info(
    `${client.model} answered in ${formatSeconds(reply.elapsedMs)}: ${describeUsage(reply.usage)}` +
      (reply.attempts > 1 ? ` (${reply.attempts} attempts)` : "") +
      (reply.truncated ? `; the reply was cut off at the model's output limit` : ""),
  );
  return reply;
}

/** `12,345 input, 2,100 output, 5,000 thinking tokens`. */
export function describeUsage(usage: TokenUsage): string {
  const n = (value: number) => value.toLocaleString("en-US");
  return `${n(usage.input)} input, ${n(usage.output)} output, ${n(usage.thinking)} thinking tokens`;
}
