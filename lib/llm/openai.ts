/**
 * The OpenAI chat completions API (and compatible local servers), streamed.
 * @module
 */
import { z } from "zod";
import { formatCount } from "../text/numbers.ts";
import {
  type ApiAdapter,
  type Diagnosis,
  eventJson,
  excerpt,
  parseAs,
  type ParsedError,
  type ParsedReply,
  replyOf,
  type StreamAssembler,
  streamErrorStatus,
} from "./adapter.ts";

const count = z.number().int().nonnegative().optional();

const UsageSchema = z.object({
  prompt_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).passthrough().nullable().optional(),
  completion_tokens: count,
  completion_tokens_details: z.object({ reasoning_tokens: count }).passthrough().nullable()
    .optional(),
}).passthrough();

const text = z.string().nullable().optional();

const ChunkSchema = z.object({
  choices: z.array(
    z.object({
      delta: z.object({
        content: text,
        refusal: text,
        // What local servers call the reasoning they stream.
        reasoning_content: text,
        reasoning: text,
      }).passthrough().nullable().optional(),
      finish_reason: text,
    }).passthrough(),
  ).optional(),
  usage: UsageSchema.nullable().optional(),
}).passthrough();

const ResponseSchema = z.object({
  choices: z.array(
    z.object({
      message: z.object({ content: text, refusal: text }).passthrough(),
      finish_reason: text,
    }).passthrough(),
  ),
  usage: UsageSchema.nullable().optional(),
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
    const headers = {
      "content-type": "application/json",
      ...(key !== undefined && { authorization: `Bearer ${key}` }),
    };
    const body = {
      model,
      messages: [{ role: "user", content: prompt }],
      ...(shape.reasoningEffort !== undefined && { reasoning_effort: shape.reasoningEffort }),
      stream: true,
      stream_options: { include_usage: true },
    };
    return { url: `${baseUrl}/chat/completions`, headers, body: JSON.stringify(body) };
  },

  parseReply(body): ParsedReply {
    const response = parseAs(ResponseSchema, body, "the reply is not a chat completion");
    const choice = response.choices[0];
    if (!choice) throw new Error("OpenAI returned no choice");
    if (choice.message.refusal) throw new Error(`the model refused: ${choice.message.refusal}`);
    const finishReason = choice.finish_reason ?? "stop";
    if (finishReason === "content_filter") {
      throw new Error("OpenAI's content filter stopped the reply (finish reason content_filter)");
    }
    const usage = response.usage;
    const thinking = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    const text = choice.message.content ?? "";
    return replyOf("OpenAI", text, finishReason, finishReason === "length", {
      input: usage?.prompt_tokens ?? 0,
      // completion_tokens counts the reasoning too; report the visible part apart.
      output: Math.max(0, (usage?.completion_tokens ?? 0) - thinking),
      thinking,
      cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    });
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

  assembler: openaiAssembler,
};

const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  invalid_api_key: 401,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
  server_error: 500,
  overloaded_error: 503,
};

// Joins the `delta`s of the one choice; the finish reason comes in the last chunk with a
// choice, the usage after it, then `[DONE]`. Whole once both have arrived.
function openaiAssembler(): StreamAssembler {
  let content = "";
  let refusal = "";
  let reasoning = "";
  let finishReason: string | undefined;
  let usage: z.infer<typeof UsageSchema> | undefined;
  let done = false;
  const rest: Record<string, unknown> = {};
  return {
    add(data) {
      if (data.trim() === "[DONE]") {
        done = true;
        return;
      }
      const json = eventJson(data);
      const error = ErrorSchema.safeParse(json);
      if (error.success) {
        const { code, type } = error.data.error;
        const status = (json as { status?: unknown }).status ?? code;
        return { status: streamErrorStatus(status, [code, type], ERROR_STATUS), body: data };
      }
      const what = "the reply stream holds a chunk that is not a chat completion chunk";
      const { choices, usage: chunkUsage, object: _, ...others } = parseAs(ChunkSchema, json, what);
      Object.assign(rest, others);
      if (chunkUsage) usage = chunkUsage;
      const choice = choices?.[0];
      const delta = choice?.delta;
      content += delta?.content ?? "";
      refusal += delta?.refusal ?? "";
      reasoning += delta?.reasoning_content ?? delta?.reasoning ?? "";
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    },
    progress: () => {
      const thinking = usage?.completion_tokens_details?.reasoning_tokens ?? undefined;
      const completion = usage?.completion_tokens;
      return {
        thinkingChars: reasoning.length,
        answerChars: content.length + refusal.length,
        thinkingTokens: thinking,
        answerTokens: completion === undefined ? undefined : completion - (thinking ?? 0),
      };
    },
    missing: () => finishReason === undefined ? "no finish reason" : done ? undefined : "no [DONE]",
    body: () => {
      const message: Record<string, unknown> = {
        role: "assistant",
        content,
        refusal: refusal.length > 0 ? refusal : null,
      };
      if (reasoning.length > 0) message.reasoning_content = reasoning;
      return {
        ...rest,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: finishReason ?? null }],
        ...(usage !== undefined && { usage }),
      };
    },
  };
}

// Names a rate-limit answer for a request that alone is over the limit (`Limit 30000,
// Requested 30601`): no wait lets it through. A limit merely reached is not one.
function diagnoseTooLarge(message: string): Diagnosis | undefined {
  const match = /\bLimit (\d+), Requested (\d+)\b/.exec(message);
  if (!match) return undefined;
  const [limit, requested] = [Number(match[1]), Number(match[2])];
  if (!(requested > limit)) return undefined;
  const per = /\(TPD\)/.test(message) ? " per day" : /\(TPM\)/.test(message) ? " per minute" : "";
  return {
    cause: `request larger than the limit (${formatCount(requested)} tokens requested, ` +
      `${formatCount(limit)} allowed${per})`,
    action:
      "make the prompt smaller (a smaller agent-config/codeRollup.txt, or --build-context), or raise the organization's limit (a higher usage tier)",
  };
}
