/**
 * Base URLs of the LLM APIs. An override from the environment must keep
 * the key safe in transit: `https://`, or `http://` only to this machine.
 *
 * @module
 */
import { CodeCommitError } from "../errors/errors.ts";
import { NET_HOSTS } from "../permissions/permissions.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The `host:port` pairs beyond loopback that code-commit's net permission allows. */
const PERMITTED_REMOTE: ReadonlySet<string> = new Set<string>(
  NET_HOSTS.filter((host) => host.includes(".") && host.endsWith(":443")),
);

/**
 * Returns the base URL to use: `value` when set (validated), else
 * `fallback`. A trailing `/` is dropped.
 *
 * @throws {CodeCommitError} naming `envName` when the value is not a URL,
 * is plain `http://` to a host other than loopback, uses another scheme,
 * carries credentials, a query or a fragment, or names a host code-commit's
 * Deno permissions do not let it reach (the two APIs on port 443, and
 * loopback).
 */
export function resolveBaseUrl(
  envName: string,
  value: string | undefined,
  fallback: string,
): string {
  if (value === undefined || value === "") return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CodeCommitError(`${envName} is not a URL: ${JSON.stringify(value)}`);
  }
  const fix = `set ${envName} to an https:// URL, or http:// to 127.0.0.1, localhost or [::1]`;
  if (url.protocol === "http:") {
    if (!LOOPBACK_HOSTS.has(url.hostname)) {
      throw new CodeCommitError(
        `${envName} is plain http:// to ${url.hostname}, which would send your API key in clear text; ${fix}`,
      );
    }
  } else if (url.protocol !== "https:") {
    throw new CodeCommitError(`${envName} uses ${url.protocol}//; ${fix}`);
  }
  if (url.username || url.password) {
    throw new CodeCommitError(`${envName} must not carry a user name or password; ${fix}`);
  }
  if (url.search || url.hash || /[?#]/.test(value)) {
    throw new CodeCommitError(
      `${envName} must not have a query or a fragment (the part after ? or #)`,
    );
  }
  if (url.protocol === "https:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    const hostPort = `${url.hostname}:${url.port || "443"}`;
    if (!PERMITTED_REMOTE.has(hostPort)) {
      throw new CodeCommitError(
        `${envName} points at ${hostPort}, but code-commit may connect only to ${
          [...PERMITTED_REMOTE].join(", ")
        } and this machine (its Deno permissions): point it at one of those`,
      );
    }
  }
  return url.href.replace(/\/+$/, "");
}
