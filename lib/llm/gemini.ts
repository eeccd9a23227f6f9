/**
 * The Gemini `generateContent` API, streamed: request, reply, stream chunks, error bodies.
 * @module
 */
import { z } from "zod";
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

const text = z.string().optional();
const count = z.number().int().nonnegative().optional();

const PartSchema = z.object({ text, thought: z.boolean().optional() }).passthrough();

const CandidateSchema = z.object({
  content: z.object({ parts: z.array(PartSchema).optional(), role: text }).passthrough()
    .optional(),
  finishReason: text,
  finishMessage: text,
}).passthrough();

const ResponseSchema = z.object({
  candidates: z.array(CandidateSchema).optional(),
  promptFeedback: z.object({ blockReason: text, blockReasonMessage: text }).passthrough()
    .optional(),
  usageMetadata: z.object({
    promptTokenCount: count,
    candidatesTokenCount: count,
    thoughtsTokenCount: count,
    cachedContentTokenCount: count,
    totalTokenCount: count,
  }).passthrough().optional(),
}).passthrough();

const ErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: text,
    status: text,
    details: z.array(z.object({ "@type": text }).passthrough()).optional(),
  }).passthrough(),
}).passthrough();

const QuotaViolation = z.object({ quotaMetric: text, quotaId: text, quotaValue: text })
  .passthrough();
const QuotaFailureSchema = z.object({ violations: z.array(QuotaViolation).optional() })
  .passthrough();

const ErrorInfoSchema = z.object({
  reason: text,
  metadata: z.record(z.string(), z.string()).optional(),
}).passthrough();

type GeminiError = z.infer<typeof ErrorSchema>["error"];
type Response = z.infer<typeof ResponseSchema>;

/** The Gemini API adapter. */
export const geminiAdapter: ApiAdapter = {
  unstreamedUrl(url) {
    const plain = url.replace(/:streamGenerateContent\?alt=sse$/, ":generateContent");
    return plain === url ? undefined : plain;
  },
  request(baseUrl, model, key, prompt, { thinkingLevel } = {}) {
    const headers = {
      "content-type": "application/json",
      ...(key !== undefined && { "x-goog-api-key": key }),
    };
    const body = {
      contents: [{ role: "user", parts: [{ text: prompt }] }],
      ...(thinkingLevel !== undefined &&
        { generationConfig: { thinkingConfig: { thinkingLevel } } }),
    };
    const url = `${baseUrl}/models/${model}:streamGenerateContent?alt=sse`;
    return { url, headers, body: JSON.stringify(body) };
  },

  parseReply(body): ParsedReply {
    const response = parseAs(ResponseSchema, body, "the reply is not a generateContent response");
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason) {
      const detail = response.promptFeedback?.blockReasonMessage;
      throw new Error(`Gemini blocked the prompt (${blockReason})${detail ? `: ${detail}` : ""}`);
    }
    const candidate = response.candidates?.[0];
    if (!candidate) throw new Error("Gemini returned no candidate");
    const finishReason = candidate.finishReason ?? "STOP";
    const text = (candidate.content?.parts ?? [])
      .filter((part) => part.thought !== true && typeof part.text === "string")
      .map((part) => part.text)
      .join("");
    const truncated = finishReason === "MAX_TOKENS";
    if (!truncated && finishReason !== "STOP" && finishReason !== "FINISH_REASON_UNSPECIFIED") {
      const detail = candidate.finishMessage ? `: ${candidate.finishMessage}` : "";
      throw new Error(`Gemini stopped the reply (finish reason ${finishReason})${detail}`);
    }
    const usage = response.usageMetadata;
    return replyOf("Gemini", text, finishReason, truncated, {
      input: usage?.promptTokenCount ?? 0,
      output: usage?.candidatesTokenCount ?? 0,
      thinking: usage?.thoughtsTokenCount ?? 0,
      cached: usage?.cachedContentTokenCount ?? 0,
    });
  },

  parseError(body, rawText): ParsedError {
    const parsed = ErrorSchema.safeParse(unwrap(body));
    if (!parsed.success) return { message: excerpt(rawText) || "(empty body)" };
    const error = parsed.data.error;
    const retryInfo = detail(error, "RetryInfo");
    const errorInfo = ErrorInfoSchema.safeParse(detail(error, "ErrorInfo")).data;
    const message = [error.status, error.message].filter(Boolean).join(": ");
    const diagnosis = diagnoseQuota(error) ?? diagnoseDisabledApi(errorInfo);
    return {
      message: message || excerpt(rawText),
      retryDelayMs: googleDuration(retryInfo?.retryDelay),
      // Gemini answers a wrong key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
      keyRejected: errorInfo?.reason === "API_KEY_INVALID",
      ...(diagnosis && { diagnosis }),
    };
  },

  assembler: geminiAssembler,
};

// Some Google front ends wrap the error in a one-element array.
function unwrap(json: unknown): unknown {
  return Array.isArray(json) && json.length === 1 ? json[0] : json;
}

const RPC_STATUS: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

// Joins consecutive text parts of the same kind (thought or answer); the last finish reason,
// usage and feedback win. Whole once a chunk gave a finish reason or said the prompt was blocked.
function geminiAssembler(): StreamAssembler {
  const parts: z.infer<typeof PartSchema>[] = [];
  let role: string | undefined;
  let candidate: Record<string, unknown> | undefined;
  let usage: Response["usageMetadata"];
  let feedback: Response["promptFeedback"];
  const rest: Record<string, unknown> = {};
  const chars = { thinking: 0, answer: 0 };
  return {
    add(data) {
      const json = eventJson(data);
      const error = ErrorSchema.safeParse(unwrap(json));
      if (error.success) {
        const { code, status } = error.data.error;
        return { status: streamErrorStatus(code, [status], RPC_STATUS), body: data };
      }
      const what = "the reply stream holds a chunk that is not a generateContent response";
      const chunk = parseAs(ResponseSchema, json, what);
      const { candidates, usageMetadata, promptFeedback, ...others } = chunk;
      Object.assign(rest, others);
      if (usageMetadata !== undefined) usage = usageMetadata;
      if (promptFeedback !== undefined) feedback = promptFeedback;
      const first = candidates?.[0];
      if (first === undefined) return;
      const { content, ...fields } = first;
      candidate = { ...candidate, ...fields };
      role = content?.role ?? role;
      for (const part of content?.parts ?? []) {
        const last = parts.at(-1);
        chars[part.thought === true ? "thinking" : "answer"] += part.text?.length ?? 0;
        if (
          last !== undefined && typeof last.text === "string" && typeof part.text === "string" &&
          (last.thought === true) === (part.thought === true)
        ) {
          const { text, ...more } = part;
          Object.assign(last, more, { text: last.text + text });
        } else {
          parts.push({ ...part });
        }
      }
    },
    progress: () => ({
      thinkingChars: chars.thinking,
      answerChars: chars.answer,
      thinkingTokens: usage?.thoughtsTokenCount,
      answerTokens: usage?.candidatesTokenCount,
    }),
    missing: () =>
      candidate?.finishReason !== undefined || feedback?.blockReason !== undefined
        ? undefined
        : "no finish reason",
    body: () => {
      const content = parts.length > 0 ? { parts, role } : { role };
      return {
        ...(candidate !== undefined && { candidates: [{ content, ...candidate }] }),
        ...(feedback !== undefined && { promptFeedback: feedback }),
        ...(usage !== undefined && { usageMetadata: usage }),
        ...rest,
      };
    },
  };
}

// A protobuf Duration as Google spells it (`"1.2s"`), in milliseconds.
function googleDuration(text: unknown): number | undefined {
  const match = typeof text === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(text.trim()) : null;
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

function detail(error: GeminiError, name: string): Record<string, unknown> | undefined {
  return error.details?.find((item) => item["@type"] === `type.googleapis.com/google.rpc.${name}`);
}

// Names a 429 that no wait can cure: a quota of 0 for the model, or a violated quota counted
// per day. A quota counted per minute is left to the retries, as the server's RetryInfo says.
function diagnoseQuota(error: GeminiError): Diagnosis | undefined {
  if (error.status !== "RESOURCE_EXHAUSTED" && error.code !== 429) return undefined;
  const violations = QuotaFailureSchema.safeParse(detail(error, "QuotaFailure")).data?.violations ??
    [];
  const text = error.message ?? "";
  const zero = violations.some((violation) => violation.quotaValue === "0") ||
    /\blimit: 0(?![\d.])/.test(text);
  if (zero) {
    const freeTier = /free_?tier/i.test(text) ||
      violations.some((v) => /free_?tier/i.test(`${v.quotaId} ${v.quotaMetric}`));
    return freeTier
      ? {
        cause: "free-tier limit: the free tier allows this model no requests (limit 0)",
        action:
          "enable billing for the key's Google Cloud project (Google AI Studio, Billing), or choose another model with --model",
      }
      : {
        cause: "no quota: the key's project may not use this model (limit 0)",
        action:
          "ask for a quota for it in the Google Cloud console (IAM & Admin, Quotas), or choose another model with --model",
      };
  }
  const daily = violations.find((violation) => /PerDay/.test(violation.quotaId ?? ""));
  if (daily) {
    return {
      cause: `daily quota used up (${daily.quotaId})`,
      action:
        "it resets at midnight Pacific time: run again then, or raise the quota with billing on the key's Google Cloud project",
    };
  }
  return undefined;
}

/** A 403 whose key is fine but whose project has not enabled the API. */
function diagnoseDisabledApi(
  errorInfo: z.infer<typeof ErrorInfoSchema> | undefined,
): Diagnosis | undefined {
  if (errorInfo?.reason !== "SERVICE_DISABLED") return undefined;
  const service = errorInfo.metadata?.serviceTitle ?? "the Generative Language API";
  const url = errorInfo.metadata?.activationUrl;
  const where =
    url !== undefined && /^https:\/\/console\.(developers|cloud)\.google\.com\//.test(url)
      ? `at ${url}`
      : "in the Google Cloud console (APIs & Services)";
  return {
    cause: `API not enabled: ${service} is not enabled for the key's Google Cloud project`,
    action: `enable it ${where}, wait a few minutes, and run again`,
  };
}
