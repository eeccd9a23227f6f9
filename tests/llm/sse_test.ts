/**
 * Tests of the server-sent events parser: each case is a stream and the
 * events it holds; every case is also fed cut at every position (in two
 * pieces) and one character at a time, and must give the same events.
 */
import assert from "node:assert/strict";
import { type SseEvent, SseParser } from "../../lib/llm/sse.ts";

const msg = (data: string, event = "message"): SseEvent => ({ event, data });

/** Name, stream, events, whether an unfinished event or line is left at the end. */
const CASES: [string, string, SseEvent[], boolean][] = [
  ["one event, LF", 'data: {"a":1}\n\n', [msg('{"a":1}')], false],
  ["one event, CRLF", 'data: {"a":1}\r\n\r\n', [msg('{"a":1}')], false],
  ["one event, CR alone", "data: x\r\r", [msg("x")], false],
  [
    "mixed line ends",
    "data: a\r\n\ndata: b\n\r\ndata: c\r\r",
    [msg("a"), msg("b"), msg("c")],
    false,
  ],
  ["two events", "data: 1\n\ndata: 2\n\n", [msg("1"), msg("2")], false],
  ["multi-line data joined with LF", "data: a\ndata: b\r\ndata:c\n\n", [msg("a\nb\nc")], false],
  ["no space after the colon", "data:x\n\n", [msg("x")], false],
  ["only one leading space removed", "data:  x \n\n", [msg(" x ")], false],
  ["a colon inside the data", "data: a: b\n\n", [msg("a: b")], false],
  ["comments ignored", ": keep-alive\r\n\r\n:\ndata: x\n: mid\n\n", [msg("x")], false],
  ["event type", "event: error\ndata: {}\n\n", [msg("{}", "error")], false],
  ["event type does not carry over", "event: error\ndata: 1\n\ndata: 2\n\n", [
    msg("1", "error"),
    msg("2"),
  ], false],
  ["id and retry ignored", "id: 7\nretry: 100\ndata: x\n\n", [msg("x")], false],
  ["a field without colon", "data\n\n", [msg("")], false],
  ["empty data line", "data:\n\n", [msg("")], false],
  ["blank lines without data dispatch nothing", "\n\n\r\n", [], false],
  ["unknown fields ignored", "foo: bar\ndata: x\n\n", [msg("x")], false],
  ["last event not ended: dropped", "data: 1\n\ndata: 2\n", [msg("1")], true],
  ["last line not ended: dropped", "data: 1\n\ndata: 2", [msg("1")], true],
  ["[DONE] is data like any other", "data: [DONE]\n\n", [msg("[DONE]")], false],
  ["non-ASCII data", "data: é ✓ 😀\n\n", [msg("é ✓ 😀")], false],
];

function feed(pieces: string[]): { events: SseEvent[]; unfinished: boolean } {
  const parser = new SseParser();
  const events = pieces.flatMap((piece) => parser.push(piece));
  return { events, unfinished: parser.end() };
}

for (const [name, stream, expected, unfinished] of CASES) {
  Deno.test(`SSE: ${name}`, () => {
    assert.deepEqual(feed([stream]), { events: expected, unfinished });
    for (let cut = 0; cut <= stream.length; cut++) {
      assert.deepEqual(
        feed([stream.slice(0, cut), stream.slice(cut)]),
        { events: expected, unfinished },
        `cut at ${cut}: ${JSON.stringify([stream.slice(0, cut), stream.slice(cut)])}`,
      );
    }
    assert.deepEqual(feed(Array.from(stream)), { events: expected, unfinished }, "one at a time");
  });
}

Deno.test("SSE: events come out as soon as their blank line arrives", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("data: a\n"), []);
  assert.deepEqual(parser.push("\ndata: b"), [msg("a")]);
  assert.deepEqual(parser.push("\n\r"), [msg("b")]);
  // The LF after that CR belongs to it: no second blank line, no empty event.
  assert.deepEqual(parser.push("\ndata: c\n\n"), [msg("c")]);
  assert.equal(parser.end(), false);
});

Deno.test("SSE: after end, a parser starts afresh", () => {
  const parser = new SseParser();
  parser.push("event: error\ndata: half");
  assert.equal(parser.end(), true);
  assert.deepEqual(parser.push("data: x\n\n"), [msg("x")]);
});
