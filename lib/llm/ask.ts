/**
 * One LLM call as every workflow makes it: key check, logs, live line, retries, cost.
 * @module
 */
import type { Console } from "../console/console.ts";
import { CodeCommitError, EXIT, InterruptedError, messageOf } from "../errors/errors.ts";
import type { CallLogNames } from "../logger/log_names.ts";
import type { RunLog } from "../logger/run_log.ts";
import type { Redactor } from "../secrets/redact.ts";
import { outlineBlocks } from "../reply/blocks.ts";
import { formatCount, formatSeconds } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { checkPromptBudget, type PromptBudget } from "./budget.ts";
import { addCosts, type Cost, describeCost, estimateCost, NO_COST } from "./prices.ts";
import type { StreamProgress } from "./adapter.ts";
import { type LlmClient, LlmError, type LlmReply, type TokenUsage } from "./types.ts";

/** Token and cost totals of a run, across its calls. */
export class TokenTally implements TokenUsage {
  calls = 0;
  input = 0;
  cached = 0;
  output = 0;
  thinking = 0;
  cost: Cost = NO_COST;

  /** Adds one call's usage and cost. Never throws. */
  add(usage: TokenUsage, cost: Cost): void {
    this.calls++;
    for (const kind of ["input", "cached", "output", "thinking"] as const) {
      this[kind] += usage[kind];
    }
    this.cost = addCosts(this.cost, cost);
  }

  /** `12,345 input, 2,100 output, 5,000 thinking tokens, est. $0.0431`. Never throws. */
  describe(): string {
    return `${describeUsage(this)}, ${describeCost(this.cost)}`;
  }
}

/** What one call needs besides the client and the prompt. */
export interface AskContext {
  readonly console: Console;
  readonly log: RunLog;
  readonly names: CallLogNames;
  readonly redactor: Redactor;
  readonly signal?: AbortSignal;
  readonly tally?: TokenTally;
  readonly budget?: PromptBudget;
}

/**
 * Sends `prompt` with logging, progress and redaction. @throws {CodeCommitError} when the prompt
 * holds a key or is too large. @throws {LlmError} on failure. @throws {InterruptedError} on Ctrl-C.
 */
export async function ask(
  client: LlmClient,
  prompt: string,
  context: AskContext,
): Promise<LlmReply> {
  const { console, log, names, redactor } = context;
  if (context.budget !== undefined) checkPromptBudget(prompt, context.budget);
  await log.write(names.query, prompt);
  if (redactor.containsKey(prompt)) {
    const message = `the prompt for ${client.model} contains an API key, so it was not sent: ` +
      `remove the key from the files the prompt is made of (the query, the specifications, ` +
      `the codebase); ${log.path(names.query)} shows where, masked`;
    await log.writeError(names.replyText, message);
    throw new CodeCommitError(message, EXIT.safety);
  }

  const logAnswer = async (body?: string, events?: string) => {
    if (body !== undefined) await log.write(names.replyJson, body);
    if (events === undefined) return;
    await log.write(names.replyEvents, eventsForLog(events, redactor, names.replyJson, body));
  };
  const live = console.liveLine(`waiting for ${client.model}…`);
  let reply: LlmReply;
  try {
    reply = await client.complete(prompt, {
      signal: context.signal,
      ...(live.shown && { onProgress: (progress) => live.update(describeProgress(progress)) }),
      onRetry: (notice) =>
        console.warn(
          `${client.model}: ${notice.reason}; retrying in ${formatSeconds(notice.delayMs)}` +
            `${notice.serverHint ? " as the server asked" : ""} ` +
            `(attempt ${notice.attempt + 1} of ${notice.maxAttempts})`,
        ),
    });
  } catch (error) {
    live.stop();
    if (error instanceof InterruptedError) {
      await log.writeError(names.replyText, `${error.message}, before the reply arrived`);
    } else {
      await log.writeError(names.replyText, messageOf(error));
      if (error instanceof LlmError) await logAnswer(error.body, error.events);
    }
    throw error;
  }
  live.stop();

  await log.write(names.replyText, replyTextForLog(reply.text, names.replyJson));
  await logAnswer(reply.body, reply.events);
  const cost = estimateCost(client.model, reply.usage);
  context.tally?.add(reply.usage, cost);
  console.info(
    `${client.model} answered in ${formatSeconds(reply.elapsedMs)}: ` +
      `${describeUsage(reply.usage)}, ${describeCost(cost)}` +
      (reply.attempts > 1 ? ` (${reply.attempts} attempts)` : "") +
      (reply.truncated ? `; the reply was cut off at the model's output limit` : ""),
  );
  // The body is in the log now; the run goes on without a second copy of the reply.
  const { events: _events, ...rest } = reply;
  return { ...rest, body: "" };
}

const WHOLE_REPLY_LOGGED = 1024 * 1024;

function replyTextForLog(text: string, jsonName: string): string {
  if (text.length <= WHOLE_REPLY_LOGGED) return text;
  return `[code-commit: this reply is ${formatCount(text.length)} characters long; the content ` +
    `of its file blocks is left out here, and the whole reply is in ${jsonName}]\n` +
    outlineBlocks(
      text,
      (lines, characters) =>
        `[code-commit: ${plural(lines, "line")} (${formatCount(characters)} characters) ` +
        `left out; see ${jsonName}]`,
    );
}

/** The text fields of stream events (`"text"`, `"content"`, …), as JSON strings. */
const STREAMED_TEXT =
  /"(?:text|content|refusal|reasoning_content|reasoning)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

// The raw events, unless their streamed text, joined, or the assembled body holds a key: a key cut
// across two events (or between thinking chunks) is in pieces no masking finds.
function eventsForLog(
  events: string,
  redactor: Redactor,
  jsonName: string,
  body: string | undefined,
): string {
  let streamed = "";
  for (const match of events.matchAll(STREAMED_TEXT)) {
    try {
      streamed += JSON.parse(`"${match[1]}"`);
    } catch {
      streamed += match[1];
    }
  }
  if (!redactor.containsKey(streamed) && !redactor.containsKey(body ?? "")) return events;
  return `[code-commit: the streamed reply holds an API key, which its raw events may hold cut ` +
    `in pieces that masking cannot find; they are not logged. ${jsonName} holds the reply, ` +
    `masked.]\n`;
}

/** `12,345 input (8,192 cached), 2,100 output, 5,000 thinking tokens`. */
function describeUsage(usage: TokenUsage): string {
  const cached = usage.cached > 0 ? ` (${formatCount(usage.cached)} cached)` : "";
  return `${formatCount(usage.input)} input${cached}, ${formatCount(usage.output)} output, ` +
    `${formatCount(usage.thinking)} thinking tokens`;
}

// Roughly, in code and English.
const CHARS_PER_TOKEN = 4;

// `thinking 1,112 · answer 97 tokens`, estimated from characters (`~250`) where the API has not
// counted; empty when nothing has arrived.
function describeProgress(progress: StreamProgress): string {
  let estimated = false;
  const part = (name: string, tokens: number | undefined, chars: number) => {
    if (tokens !== undefined && tokens > 0) return `${name} ${formatCount(tokens)}`;
    if (chars === 0) return undefined;
    estimated = true;
    return `${name} ~${formatCount(Math.ceil(chars / CHARS_PER_TOKEN))}`;
  };
  const parts = [
    part("thinking", progress.thinkingTokens, progress.thinkingChars),
    part("answer", progress.answerTokens, progress.answerChars),
  ].filter((text) => text !== undefined);
  if (parts.length === 0) return "";
  return `${parts.join(" · ")} tokens${estimated ? " (~ estimated from characters)" : ""}`;
}
