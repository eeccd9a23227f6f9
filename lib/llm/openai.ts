/**
 * The OpenAI chat completions API: request and reply. GPT-5 takes no
 * `temperature` and no `max_tokens`, so neither is ever sent.
 *
 * @module
 */
import { z } from "zod";
import { type ApiAdapter, excerpt, type ParsedError, type ParsedReply } from "./adapter.ts";

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
  request(baseUrl, model, key, prompt) {
    return {
      url: `${baseUrl}/chat/completions`,
      headers: { "content-type": "application/json", "authorization": `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: "user", content: prompt }] }),
    };
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
      },
    };
  },

  parseError(body, rawText): ParsedError {
    const parsed = ErrorSchema.safeParse(body);
    if (!parsed.success) return { message: excerpt(rawText) || "(empty body)" };
    const error = parsed.data.error;
    const kind = error.code ?? error.type;
    const message = [kind, error.message].filter((part) => part !== undefined && part !== null)
      .join(": ");
    return {
      message: message || excerpt(rawText),
      keyRejected: error.code === "invalid_api_key",
      // A 429 for an account with no credit left: waiting does not help.
      retryable: error.code === "insufficient_quota" || error.type === "insufficient_quota"
        ? false
        : undefined,
    };
  },
};
