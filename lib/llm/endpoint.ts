/**
 * Base URLs of the LLM APIs: an override must be `https://`, or `http://` to this machine.
 * @module
 */
import { CodeCommitError, EXIT, UsageError } from "../errors/errors.ts";
import { NET_HOSTS, NO_PROXY_VARS, PROXY_VARS } from "../permissions/permissions.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

const PERMITTED_REMOTE: ReadonlySet<string> = new Set<string>(
  NET_HOSTS.filter((host) => host.includes(".") && host.endsWith(":443")),
);

/**
 * `value` when set (validated), else `fallback`; no trailing `/`. @throws {CodeCommitError}
 * when the value is not a URL the key may safely travel to, or a host Deno may not reach.
 */
export function resolveBaseUrl(
  envName: string,
  value: string | undefined,
  fallback: string,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  if (value === undefined || value === "") return fallback;
  const url = URL.parse(value);
  const fail = (message: string) => new CodeCommitError(`${envName} ${message}`, EXIT.setup);
  if (url === null) throw fail(`is not a URL: ${JSON.stringify(value)}`);
  const fix = `set ${envName} to an https:// URL, or http:// to 127.0.0.1, localhost or [::1]`;
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol === "http:" && !loopback) {
    throw fail(
      `is plain http:// to ${url.hostname}, which would send your API key in clear text; ${fix}`,
    );
  }
  if (!["http:", "https:"].includes(url.protocol)) throw fail(`uses ${url.protocol}//; ${fix}`);
  const proxy = url.protocol === "http:" ? proxyOf(url.hostname, env) : undefined;
  if (proxy !== undefined) {
    throw fail(
      `is plain http:// and ${proxy} is set: the request, your key with it, would go through that ` +
        `proxy in clear text; add ${url.hostname} to NO_PROXY, or unset ${proxy}`,
    );
  }
  if (url.username || url.password) throw fail(`must not carry a user name or password; ${fix}`);
  if (url.search || url.hash || /[?#]/.test(value)) {
    throw fail("must not have a query or a fragment (the part after ? or #)");
  }
  const hostPort = `${url.hostname}:${url.port || "443"}`;
  if (url.protocol === "https:" && !loopback && !PERMITTED_REMOTE.has(hostPort)) {
    const allowed = [...PERMITTED_REMOTE].join(", ");
    throw fail(
      `points at ${hostPort}, but code-commit may connect only to ${allowed} ` +
        "and this machine (its Deno permissions): point it at one of those",
    );
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * The base URL of a local model's server: it must name this machine, the prompt must not leave it.
 * @throws {UsageError} when unset, not a URL, or another host; else as {@link resolveBaseUrl}.
 */
export function resolveLocalBaseUrl(
  envName: string,
  value: string | undefined,
  model: string,
): string {
  const fix = `set ${envName} to the server's address on this machine, ` +
    "e.g. http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8080/v1 (llama.cpp) " +
    "or http://127.0.0.1:8000/v1 (vLLM)";
  if (value === undefined || value === "") {
    throw new UsageError(`--model ${model} needs a local OpenAI-compatible server: ${fix}`);
  }
  const url = URL.parse(value);
  if (url === null || !LOOPBACK_HOSTS.has(url.hostname)) {
    // "localhost:11434" parses, as scheme "localhost:" with no host.
    const where = url === null || url.hostname === ""
      ? `${JSON.stringify(value)}, not a URL such as http://127.0.0.1:11434/v1`
      : url.hostname;
    throw new UsageError(
      `--model ${model} is sent no key and only to this machine, but ${envName} is ${where}; ${fix}`,
    );
  }
  return resolveBaseUrl(envName, value, value);
}

/**
 * The proxy variable Deno's `fetch` would send a plain http:// request to `host` through, unless
 * `NO_PROXY` names the host (or `*`); undefined when none is set.
 */
function proxyOf(host: string, env: (name: string) => string | undefined): string | undefined {
  const proxy = PROXY_VARS.find((name) => (env(name) ?? "") !== "");
  if (proxy === undefined) return undefined;
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const exempt = NO_PROXY_VARS.flatMap((name) => (env(name) ?? "").split(","))
    .map((entry) => entry.trim().replace(/^\[(.*)\]$/, "$1"));
  return exempt.includes("*") || exempt.includes(bare) ? undefined : proxy;
}

/**
 * The warning for sending the OpenAI key to this machine: whatever listens there gets it (anyone's
 * server once the local one stopped). Undefined otherwise, and for Gemini. Never throws.
 */
export function loopbackKeyWarning(
  provider: string,
  envName: string,
  baseUrl: string,
): string | undefined {
  const hostname = URL.parse(baseUrl)?.hostname;
  if (provider !== "openai" || hostname === undefined || !LOOPBACK_HOSTS.has(hostname)) {
    return undefined;
  }
  return `sending your OpenAI key to ${baseUrl} (${envName}), a server on this machine: ` +
    "use --model local:NAME for a local server, which sends no key";
}
