/**
 * Tests of resolveBaseUrl: an override of an API endpoint is accepted only
 * when it keeps the key from travelling in clear text (https://, or
 * http:// to 127.0.0.1, localhost or [::1]) and carries nothing that could
 * change where the request goes (credentials, a query, a fragment).
 */

import assert from "node:assert/strict";
import { loopbackKeyWarning, resolveBaseUrl, resolveLocalBaseUrl } from "../../lib/llm/endpoint.ts";
import { CodeCommitError, EXIT, UsageError } from "../../lib/errors/errors.ts";

const ENV = "CODE_COMMIT_GEMINI_BASE_URL";
const FALLBACK = "https://generativelanguage.googleapis.com/v1beta";

Deno.test("an unset or empty variable gives the default endpoint", () => {
  assert.equal(resolveBaseUrl(ENV, undefined, FALLBACK), FALLBACK);
  assert.equal(resolveBaseUrl(ENV, "", FALLBACK), FALLBACK);
});

/** Accepted values and the base URL they resolve to. */
const ACCEPTED: [string, string][] = [
  [
    "https://generativelanguage.googleapis.com/v1beta",
    "https://generativelanguage.googleapis.com/v1beta",
  ],
  [
    "https://generativelanguage.googleapis.com/v1beta/",
    "https://generativelanguage.googleapis.com/v1beta",
  ],
  ["https://api.openai.com/v1//", "https://api.openai.com/v1"],
  ["https://api.openai.com", "https://api.openai.com"],
  ["https://api.openai.com:443/v1", "https://api.openai.com/v1"],
  ["HTTPS://API.OpenAI.COM/v1", "https://api.openai.com/v1"],
  ["https://127.0.0.1:8443/v1", "https://127.0.0.1:8443/v1"],
  ["http://127.0.0.1:8080/v1beta", "http://127.0.0.1:8080/v1beta"],
  ["http://localhost:8080/v1", "http://localhost:8080/v1"],
  ["http://LOCALHOST:8080/v1", "http://localhost:8080/v1"],
  ["http://[::1]:8080/v1", "http://[::1]:8080/v1"],
  ["http://127.0.0.1/", "http://127.0.0.1"],
  // The URL parser spells these 127.0.0.1: still this machine.
  ["http://127.1:9/v1", "http://127.0.0.1:9/v1"],
  ["http://0x7f000001:9/v1", "http://127.0.0.1:9/v1"],
  ["  https://api.openai.com/v1  ", "https://api.openai.com/v1"],
];

for (const [value, expected] of ACCEPTED) {
  Deno.test(`accepted: ${JSON.stringify(value)} → ${expected}`, () => {
    assert.equal(resolveBaseUrl(ENV, value, FALLBACK), expected);
  });
}

/** Refused values and a pattern the message must match (besides naming the variable). */
const REFUSED: [string, RegExp][] = [
  // Hosts the Deno net permission does not allow: refused at once, not retried as network errors.
  [
    "https://proxy.example.com/v1beta",
    /points at proxy\.example\.com:443, but code-commit may connect only to generativelanguage\.googleapis\.com:443, api\.openai\.com:443 and this machine/,
  ],
  ["https://api.openai.com:8443/v1", /points at api\.openai\.com:8443/],
  ["https://api.openai.com.evil.example/v1", /points at api\.openai\.com\.evil\.example:443/],
  ["not a url", /is not a URL: "not a url"/],
  ["proxy.example.com/v1", /is not a URL/],
  ["http://proxy.example.com/v1", /plain http:\/\/ to proxy\.example\.com.*clear text/],
  ["http://10.0.0.5:8080/v1", /plain http:\/\/ to 10\.0\.0\.5/],
  ["http://192.168.1.10/v1", /plain http:\/\//],
  // Loopback look-alikes that resolve elsewhere.
  ["http://localhost.evil.example/v1", /plain http:\/\/ to localhost\.evil\.example/],
  ["http://127.0.0.1.nip.io/v1", /plain http:\/\//],
  ["http://evil.example/127.0.0.1", /plain http:\/\/ to evil\.example/],
  ["http://[::ffff:127.0.0.1]/v1", /plain http:\/\//],
  ["http://0.0.0.0:8080/v1", /plain http:\/\//],
  ["ftp://proxy.example.com/v1", /uses ftp:\/\//],
  ["ws://127.0.0.1/v1", /uses ws:\/\//],
  ["file:///etc/passwd", /uses file:\/\//],
  ["javascript:alert(1)", /uses javascript:\/\//],
  ["https://user:secret@proxy.example.com/v1", /must not carry a user name or password/],
  ["https://user@proxy.example.com/v1", /must not carry a user name or password/],
  ["http://user:pw@127.0.0.1/v1", /must not carry a user name or password/],
  ["https://proxy.example.com/v1?key=abc", /must not have a query or a fragment/],
  ["https://proxy.example.com/v1#frag", /must not have a query or a fragment/],
];

for (const [value, pattern] of REFUSED) {
  Deno.test(`refused: ${JSON.stringify(value)}`, () => {
    assert.throws(
      () => resolveBaseUrl(ENV, value, FALLBACK),
      (error: unknown) => {
        assert.ok(error instanceof CodeCommitError);
        assert.match(error.message, new RegExp(`^${ENV} `), "the message names the variable");
        assert.match(error.message, pattern);
        assert.equal(error.exitCode, 3);
        return true;
      },
    );
  });
}

Deno.test("a refusal of plain http says how to fix it", () => {
  assert.throws(
    () => resolveBaseUrl("CODE_COMMIT_OPENAI_BASE_URL", "http://api.example.com/v1", FALLBACK),
    /set CODE_COMMIT_OPENAI_BASE_URL to an https:\/\/ URL, or http:\/\/ to 127\.0\.0\.1, localhost or \[::1\]/,
  );
});

// An empty query or fragment (…/v1? or …/v1#) would silently change the endpoint: refused.
Deno.test({
  name: "refused: an empty query or fragment (…/v1? or …/v1#)",

  fn() {
    for (const value of ["https://proxy.example.com/v1?", "https://proxy.example.com/v1#"]) {
      assert.throws(
        () => resolveBaseUrl(ENV, value, FALLBACK),
        /must not have a query or a fragment/,
        value,
      );
    }
  },
});

Deno.test("the resolved base URL never ends in / so paths join cleanly", () => {
  for (const [value] of ACCEPTED) {
    const base = resolveBaseUrl(ENV, value, FALLBACK);
    assert.doesNotMatch(base, /\/$/, value);
    assert.equal(new URL(`${base}/chat/completions`).pathname.includes("//"), false, value);
  }
});

// ---------------------------------------------------------------------------
// The server of a local model (--model local:NAME)

const OPENAI_ENV = "CODE_COMMIT_OPENAI_BASE_URL";

Deno.test("a local model's server: a loopback URL, resolved as any override", () => {
  for (
    const [value, expected] of [
      ["http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"],
      ["http://localhost:8080/v1/", "http://localhost:8080/v1"],
      ["http://[::1]:8000/v1", "http://[::1]:8000/v1"],
      ["https://127.0.0.1:8443/v1", "https://127.0.0.1:8443/v1"],
    ]
  ) {
    assert.equal(resolveLocalBaseUrl(OPENAI_ENV, value, "local:llama3"), expected, value);
  }
});

Deno.test("a local model without a loopback server is a usage error (exit 2) saying what to set", () => {
  for (
    const [value, says] of [
      [undefined, "needs a local OpenAI-compatible server"],
      ["", "needs a local OpenAI-compatible server"],
      ["https://api.openai.com/v1", "but CODE_COMMIT_OPENAI_BASE_URL is api.openai.com;"],
      ["http://192.168.1.20:11434/v1", "but CODE_COMMIT_OPENAI_BASE_URL is 192.168.1.20;"],
      ["http://127.0.0.1.nip.io/v1", "is 127.0.0.1.nip.io;"],
      ["not a url", '"not a url", not a URL such as http://127.0.0.1:11434/v1'],
      ["localhost:11434", '"localhost:11434", not a URL such as'],
    ] as const
  ) {
    assert.throws(
      () => resolveLocalBaseUrl(OPENAI_ENV, value, "local:llama3"),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.equal(error.exitCode, 2);
        assert.ok(error.message.startsWith("--model local:llama3 "), error.message);
        assert.ok(error.message.includes(says), error.message);
        assert.ok(
          error.message.endsWith(
            "set CODE_COMMIT_OPENAI_BASE_URL to the server's address on this machine, " +
              "e.g. http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8080/v1 (llama.cpp) " +
              "or http://127.0.0.1:8000/v1 (vLLM)",
          ),
          error.message,
        );
        return true;
      },
      String(value),
    );
  }
});

Deno.test("a loopback URL with a query is refused as any override is (exit 1)", () => {
  assert.throws(
    () => resolveLocalBaseUrl(OPENAI_ENV, "http://127.0.0.1:11434/v1?x=1", "local:llama3"),
    (error: unknown) =>
      error instanceof CodeCommitError && !(error instanceof UsageError) &&
      /must not have a query/.test(error.message),
  );
});

Deno.test("loopbackKeyWarning: the OpenAI key bound for this machine is named; the real API and Gemini are not", () => {
  const env = "CODE_COMMIT_OPENAI_BASE_URL";
  for (
    const base of ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "https://[::1]:8443/v1"]
  ) {
    assert.equal(
      loopbackKeyWarning("openai", env, base),
      `sending your OpenAI key to ${base} (${env}), a server on this machine: ` +
        "use --model local:NAME for a local server, which sends no key",
    );
  }
  assert.equal(loopbackKeyWarning("openai", env, "https://api.openai.com/v1"), undefined);
  assert.equal(
    loopbackKeyWarning("gemini", "CODE_COMMIT_GEMINI_BASE_URL", "http://127.0.0.1:9/v1beta"),
    undefined,
  );
});

Deno.test("plain http:// to this machine is refused while a proxy would carry it, unless NO_PROXY names the host", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  for (const proxy of ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
    assert.throws(
      () =>
        resolveBaseUrl(
          ENV,
          "http://127.0.0.1:8080/v1",
          FALLBACK,
          env({ [proxy]: "http://p:3128" }),
        ),
      (error: Error) =>
        error instanceof CodeCommitError && error.exitCode === EXIT.setup &&
        error.message.includes(`${proxy} is set`) && error.message.includes("NO_PROXY"),
    );
  }
  const proxied = { HTTP_PROXY: "http://p:3128" };
  for (const noProxy of ["127.0.0.1", "localhost, 127.0.0.1", "*"]) {
    assert.equal(
      resolveBaseUrl(
        ENV,
        "http://127.0.0.1:8080/v1",
        FALLBACK,
        env({ ...proxied, NO_PROXY: noProxy }),
      ),
      "http://127.0.0.1:8080/v1",
    );
  }
  assert.equal(
    resolveBaseUrl(ENV, "http://[::1]:8080/v1", FALLBACK, env({ ...proxied, no_proxy: "::1" })),
    "http://[::1]:8080/v1",
  );
  // https:// goes through a proxy as a tunnel: the key stays encrypted.
  assert.equal(
    resolveBaseUrl(ENV, "https://127.0.0.1:8443/v1", FALLBACK, env(proxied)),
    "https://127.0.0.1:8443/v1",
  );
});
