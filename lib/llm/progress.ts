/**
 * What a streamed reply has delivered so far, and how the live line says it. Pure.
 * @module
 */
import { formatCount } from "../text/numbers.ts";

/** What has arrived of one streamed reply: characters, and tokens when the API has said. */
export interface StreamProgress {
  readonly thinkingChars: number;
  readonly answerChars: number;
  readonly thinkingTokens?: number;
  readonly answerTokens?: number;
}

// Roughly, in code and English.
const CHARS_PER_TOKEN = 4;

/**
 * `thinking 1,112 · answer 97 tokens`, estimated from characters (`~250`) where the API has not
 * counted; empty when nothing has arrived. Never throws.
 */
export function describeProgress(progress: StreamProgress): string {
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
