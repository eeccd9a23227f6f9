/**
 * What a streamed reply has delivered so far, and how the live line says
 * it: tokens of thinking and of the answer apart, as the API counts them
 * where it does, else estimated from the characters received (and marked
 * `~`). Pure.
 *
 * @module
 */
import { formatCount } from "../text/numbers.ts";

/** What has arrived of one streamed reply. */
export interface StreamProgress {
  /** Characters of thinking received (thought summaries, reasoning text). */
  readonly thinkingChars: number;
  /** Characters of the answer received. */
  readonly answerChars: number;
  /** Thinking tokens so far, when the API has said. */
  readonly thinkingTokens?: number;
  /** Answer tokens so far, when the API has said. */
  readonly answerTokens?: number;
}

/** Characters a token stands for, roughly, in code and English. */
const CHARS_PER_TOKEN = 4;

/**
 * `thinking 1,112 · answer 97 tokens`; where the API has not counted,
 * `answer ~250 tokens (~ estimated from characters)`; empty when nothing
 * has arrived. Never throws.
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
