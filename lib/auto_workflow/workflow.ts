// PLACEHOLDER (replaced by the auto-workflow work of issue 5 in this session).
import { CodeCommitError } from "../errors/errors.ts";
import type { Session } from "../session/session.ts";
/** Placeholder. */
export function runAutoWorkflow(_session: Session): Promise<number> {
  return Promise.reject(new CodeCommitError("auto workflow: placeholder"));
}
