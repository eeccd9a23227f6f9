/**
 * The Gemini `generateContent` API: request and reply.
 *
 * @module
 */
import { z } from "zod";
import { type ApiAdapter, excerpt, type ParsedError, type ParsedReply } from "./adapter.ts";
import { parseGoogleDuration } from "./retry.ts";

const PartSchema = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
}).passthrough();

const CandidateSchema = z.object({
  content: z.object({
    parts: z.array(PartSchema).optional(),
    role: z.string().optional(),
  }).passthrough().optional(),
  finishReason: z.string().optional(),
  finishMessage: z.string().optional(),
}).passthrough();

const count = z.number().int().nonnegative().optional();

const ResponseSchema = z.object({
  candidates: z.array(CandidateSchema).optional(),
  promptFeedback: z.object({
    blockReason: z.string().optional(),
    blockReasonMessage: z.string().optional(),
  }).passthrough().optional(),
  usageMetadata: z.object({
    promptTokenCount: count,
    candidatesTokenCount: count,
    thoughtsTokenCount: count,
    totalTokenCount: count,
  }).passthrough().optional(),
}).passthrough();

const ErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.object({ "@type": z.string().optional() }).passthrough()).optional(),
  }).passthrough(),
}).passthrough();

/** Finish reasons that mean the reply ended normally. */
const NORMAL_FINISH = new Set(["STOP", "FINISH_REASON_UNSPECIFIED"]);

/** The Gemini API adapter. */
export const geminiAdapter: ApiAdapter = {
  request(baseUrl, model, key, prompt) {
    return {
      url: `${baseUrl}/models/${model}:generateContent`,
      headers: { "content-type": "application/json", "x-goog-api-key": key },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: prompt }] }] }),
    };
  },

  parseReply(body): ParsedReply {
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw new Error(
        `the reply is not a generateContent response: ${parsed.error.issues[0]?.message}`,
      );
    }
    const response = parsed.data;
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
    if (!truncated && !NORMAL_FINISH.has(finishReason)) {
      const detail = candidate.finishMessage ? `: ${candidate.finishMessage}` : "";
      throw new Error(`Gemini stopped the reply (finish reason ${finishReason})${detail}`);
    }
    if (text === "" && !truncated) {
      throw new Error(`Gemini returned an empty reply (finish reason ${finishReason})`);
    }
    const usage = response.usageMetadata;
    return {
      text,
      truncated,
      finishReason,
      usage: {
        input: usage?.promptTokenCount ?? 0,
        output: usage?.candidatesTokenCount ?? 0,
        thinking: usage?.thoughtsTokenCount ?? 0,
      },
    };
  },

  parseError(body, rawText): ParsedError {
    // Some Google front ends wrap the error in a one-element array.
    const unwrapped = Array.isArray(body) && body.length === 1 ? body[0] : body;
    const parsed = ErrorSchema.safeParse(unwrapped);
    if (!parsed.success) return { message: excerpt(rawText) || "(empty body)" };
    const error = parsed.data.error;
    const retryInfo = error.details?.find((detail) =>
      detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo"
    );
    const errorInfo = error.details?.find((detail) =>
      detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo"
    );
    const message = [error.status, error.message].filter(Boolean).join(": ");
    return {
      message: message || excerpt(rawText),
      retryDelayMs: parseGoogleDuration(retryInfo?.retryDelay),
      // Gemini answers a wrong key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
      keyRejected: errorInfo?.reason === "API_KEY_INVALID",
    };
  },
};
