// PLACEHOLDER (replaced by the consistency-report work of issue 4 in this session).
import { CodeCommitError } from "../errors/errors.ts";
import type { Session } from "../session/session.ts";
/** Placeholder. */
export function runConsistencyReport(_session: Session): Promise<number> {
  return Promise.reject(new CodeCommitError("consistency report: placeholder"));
}
