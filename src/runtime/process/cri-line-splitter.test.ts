import assert from "node:assert/strict";
import { test } from "node:test";
import type { LogTag } from "../log-format.js";
import { CriLineSplitter } from "./cri-line-splitter.js";

type Entry = [LogTag, string];

function split(chunks: (string | Buffer)[], maxLen: number): Entry[] {
  const splitter = new CriLineSplitter(maxLen);
  const out: Entry[] = [];
  const emit = (tag: LogTag, content: Buffer): void => void out.push([tag, content.toString("latin1")]);
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk, emit);
  splitter.end(emit);
  return out;
}

test("entries follow containerd's redirectLogs (maxLen 8)", () => {
  const cases: { name: string; input: string; want: Entry[] }[] = [
    { name: "one full line", input: "hello\n", want: [["F", "hello"]] },
    { name: "two lines", input: "a\nb\n", want: [["F", "a"], ["F", "b"]] },
    { name: "empty line is an empty F entry", input: "\n\nx\n", want: [["F", ""], ["F", ""], ["F", "x"]] },
    { name: "CRLF drops the CR", input: "dos\r\n", want: [["F", "dos"]] },
    { name: "a lone CR stays", input: "a\rb\n", want: [["F", "a\rb"]] },
    { name: "no trailing newline ends with P", input: "a\nlast", want: [["F", "a"], ["P", "last"]] },
    { name: "trailing CR without newline is content", input: "end\r", want: [["P", "end\r"]] },
    { name: "exactly maxLen is one F", input: "12345678\n", want: [["F", "12345678"]] },
    { name: "maxLen+1 is P then F", input: "123456789\n", want: [["P", "12345678"], ["F", "9"]] },
    { name: "2*maxLen is P then a full-size F", input: "abcdefghABCDEFGH\n", want: [["P", "abcdefgh"], ["F", "ABCDEFGH"]] },
    { name: "maxLen+CRLF is one F", input: "12345678\r\n", want: [["F", "12345678"]] },
    { name: "long unterminated line is P chunks", input: "abcdefghABCDEFGHxy", want: [["P", "abcdefgh"], ["P", "ABCDEFGH"], ["P", "xy"]] },
    { name: "nothing at all", input: "", want: [] },
  ];
  for (const c of cases) assert.deepEqual(split([c.input], 8), c.want, c.name);
});

/** model is containerd's result computed on the whole input at once. */
function model(input: string, maxLen: number): Entry[] {
  const out: Entry[] = [];
  const lines = input.split("\n");
  const last = lines.pop() ?? "";
  const chunked = (line: string, lastTag: LogTag): void => {
    let rest = line;
    while (rest.length > maxLen) {
      out.push(["P", rest.slice(0, maxLen)]);
      rest = rest.slice(maxLen);
    }
    out.push([lastTag, rest]);
  };
  for (const line of lines) chunked(line.endsWith("\r") ? line.slice(0, -1) : line, "F");
  if (last !== "") chunked(last, "P");
  return out;
}

test("entries do not depend on how the output was chunked", () => {
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const alphabet = "ab\r\n\n";
  for (let round = 0; round < 300; round++) {
    const length = random(60);
    let input = "";
    for (let i = 0; i < length; i++) input += alphabet[random(alphabet.length)];
    const chunks: string[] = [];
    for (let at = 0; at < input.length; ) {
      const size = 1 + random(9);
      chunks.push(input.slice(at, at + size));
      at += size;
    }
    const maxLen = 1 + random(6);
    assert.deepEqual(split(chunks, maxLen), model(input, maxLen), `input ${JSON.stringify(input)} chunks ${JSON.stringify(chunks)} maxLen ${maxLen}`);
  }
});

test("a CRLF split across chunks at the maxLen boundary is still one F entry", () => {
  assert.deepEqual(split(["12345678\r", "\n"], 8), [["F", "12345678"]]);
  assert.deepEqual(split(["1234", "5678\r", "x\n"], 8), [["P", "12345678"], ["F", "\rx"]]);
});

test("an unfinished line never holds more than maxLen + 1 bytes", () => {
  const splitter = new CriLineSplitter(16);
  let emitted = 0;
  for (let i = 0; i < 1000; i++) {
    splitter.push(Buffer.from("0123456789"), () => void emitted++);
    assert.ok(splitter.pendingBytes <= 17, `pending ${splitter.pendingBytes}`);
  }
  assert.equal(emitted, 624); // 10000 bytes = 625 chunks of 16; the last one is still held
  splitter.end(() => void emitted++);
  assert.equal(emitted, 625);
});

test("the 16 KiB default splits a 40000-byte line into P, P, F", () => {
  const line = Buffer.alloc(40000, "x");
  const out = split([line, "\n"], 16384);
  assert.deepEqual(
    out.map(([tag, content]) => [tag, content.length]),
    [
      ["P", 16384],
      ["P", 16384],
      ["F", 7232],
    ],
  );
});

test("maxLen must be a positive integer", () => {
  assert.throws(() => new CriLineSplitter(0), RangeError);
  assert.throws(() => new CriLineSplitter(1.5), RangeError);
});
