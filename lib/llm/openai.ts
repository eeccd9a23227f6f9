/**
 * The OpenAI chat completions API (and the OpenAI-compatible servers that
 * run local models): request, reply, and error bodies. GPT-5 models take
 * no `temperature` and no `max_tokens`, so neither is ever sent; nor is
 * `max_completion_tokens`, so the model's own output limit applies.
 *
 * @module
 */
import { z } from "zod";
import { formatCount } from "../text/numbers.ts";
import {
  type ApiAdapter,
  type Diagnosis,
  excerpt,
  type ParsedError,
  type ParsedReply,
} from "./adapter.ts";

const count = z.number().int().nonnegative().optional();

const ResponseSchema = z.object({
  choices: z.array(
    z.object({
      message: z.object({
        content: z.string().nullable().optional(),
        refusal: z.string().nullable().optional(),
      }).passthrough(),
      finish_reason: z.string().nullable().optional(),
    }).passthrough(),
  ),
  usage: z.object({
    prompt_tokens: count,
    prompt_tokens_details: z.object({ cached_tokens: count }).passthrough().nullable().optional(),
    completion_tokens: count,
    completion_tokens_details: z.object({ reasoning_tokens: count }).passthrough().nullable()
      .optional(),
  }).passthrough().nullable().optional(),
}).passthrough();

const ErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().nullable().optional(),
    code: z.union([z.string(), z.number()]).nullable().optional(),
  }).passthrough(),
}).passthrough();

/** The OpenAI API adapter. */
export const openaiAdapter: ApiAdapter = {
  request(baseUrl, model, key, prompt, shape = {}) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key !== undefined) headers["authorization"] = `Bearer ${key}`;
    const body: Record<string, unknown> = {
      model,
      messages: [{ role: "user", content: prompt }],
    };
    if (shape.reasoningEffort !== undefined) body.reasoning_effort = shape.reasoningEffort;
    return { url: `${baseUrl}/chat/completions`, headers, body: JSON.stringify(body) };
  },

  parseReply(body): ParsedReply {
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw new Error(`the reply is not a chat completion: ${parsed.error.issues[0]?.message}`);
    }
    const choice = parsed.data.choices[0];
    if (!choice) throw new Error("OpenAI returned no choice");
    if (choice.message.refusal) throw new Error(`the model refused: ${choice.message.refusal}`);
    const finishReason = choice.finish_reason ?? "stop";
    if (finishReason === "content_filter") {
      throw new Error("OpenAI's content filter stopped the reply (finish reason content_filter)");
    }
    const truncated = finishReason === "length";
    const text = choice.message.content ?? "";
    if (text === "" && !truncated) {
      throw new Error(`OpenAI returned an empty reply (finish reason ${finishReason})`);
    }
    const usage = parsed.data.usage;
    const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    return {
      text,
      truncated,
      finishReason,
      usage: {
        input: usage?.prompt_tokens ?? 0,
        // completion_tokens counts the reasoning too; report the visible part apart.
        output: Math.max(0, (usage?.completion_tokens ?? 0) - reasoning),
        thinking: reasoning,
        cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
      },
    };
  },

  parseError(body, rawText): ParsedError {
    const parsed = ErrorSchema.safeParse(body);
    if (!parsed.success) return { message: excerpt(rawText) || "(empty body)" };
    const error = parsed.data.error;
    // A numeric code (as OpenAI-compatible local servers send) only repeats the HTTP status.
    const kind = (typeof error.code === "string" ? error.code : undefined) ?? error.type ??
      error.code;
    const message = [kind, error.message].filter((part) => part !== undefined && part !== null)
      .join(": ");
    const diagnosis = diagnoseTooLarge(error.message ?? "");
    return {
      message: message || excerpt(rawText),
      keyRejected: error.code === "invalid_api_key",
      // A 429 for an account with no credit left: waiting does not help.
      retryable: error.code === "insufficient_quota" || error.type === "insufficient_quota"
        ? false
        : undefined,
      ...(diagnosis && { diagnosis }),
    };
  },
};

/**
 * Names a rate-limit answer for a request that alone is over the limit
 * ("Request too large for gpt-5 … on tokens per min (TPM): Limit 30000,
 * Requested 30601"): no wait lets it through; the prompt must shrink. A
 * limit merely reached ("Limit 500, Used 500, Requested 1") is not one.
 */
function diagnoseTooLarge(message: string): Diagnosis | undefined {
  const match = /\bLimit (\d+), Requested (\d+)\b/.exec(message);
  if (!match) return undefined;
  const [limit, requested] = [Number(match[1]), Number(match[2])];
  if (!(requested > limit)) return undefined;
  const per = /\(TPD\)/.test(message) ? " per day" : /\(TPM\)/.test(message) ? " per minute" : "";
  return {
    cause: `request larger than the limit (${formatCount(requested)} tokens requested, ${
      formatCount(limit)
    } allowed${per})`,
    action:
      "make the prompt smaller (a smaller agent-config/codeRollup.txt, or --build-context), or raise the organization's limit (a higher usage tier)",
  };
}
