// PLACEHOLDER (replaced by the context-builder work of issue 4 in this session).
import { CodeCommitError } from "../errors/errors.ts";
import type { RunLog } from "../logger/run_log.ts";
import type { Session } from "../session/session.ts";
/** What the context builder needs from its caller. */
export interface ContextRequest {
  /** The next agent's full prompt (without a codebase). */
  readonly nextAgentPrompt: string;
  /** The caller's log folder; the builder logs 0-context-query… and 0-codebase.txt in it. */
  readonly log: RunLog;
}
/** Placeholder. */
export function buildContext(_session: Session, _request: ContextRequest): Promise<string> {
  return Promise.reject(new CodeCommitError("context builder: placeholder"));
}
