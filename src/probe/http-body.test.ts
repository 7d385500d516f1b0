// Tests of the probe's capped response body: one-read bodies decoded in place, bodies over
// several reads copied out before the read buffer is reused, the 10240-byte cap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CappedBody } from "./http-body.js";
import { MAX_OUTPUT_BYTES } from "./probe-result.js";

test("a body read at once is decoded in place; detach() survives reuse of the read buffer", () => {
  const body = new CappedBody();
  const read = Buffer.from("xxhé!yy");
  assert.equal(body.add(read, 2, 6, true), true);
  assert.equal(body.text(), "hé!");
  body.detach();
  read.fill(0x3f);
  assert.equal(body.text(), "hé!");
  assert.equal(body.bytes, 4);
});

test("pieces from several reads are joined, a UTF-8 sequence split across them included", () => {
  const body = new CappedBody();
  const read = Buffer.alloc(16);
  const euro = Buffer.from("€"); // 3 bytes, split 1 + 2
  for (const piece of [Buffer.from("a"), euro.subarray(0, 1), euro.subarray(1), Buffer.from("b")]) {
    piece.copy(read, 5);
    body.add(read, 5, 5 + piece.length, true);
    body.detach();
    read.fill(0);
  }
  assert.equal(body.text(), "a€b");
});

test("the cap: exactly MAX_OUTPUT_BYTES kept, add() says stop; a drained body only counts", () => {
  const body = new CappedBody();
  const chunk = Buffer.alloc(4000, 0x61);
  const results = [body.add(chunk, 0, 4000, true), body.add(chunk, 0, 4000, true), body.add(chunk, 0, 4000, true)];
  assert.deepEqual(results, [true, true, false]);
  assert.equal(body.text(), "a".repeat(MAX_OUTPUT_BYTES));
  body.reset();
  assert.equal(body.text(), "");
  assert.equal(body.add(chunk, 0, 4000, false), true);
  assert.equal(body.bytes, 4000);
  assert.equal(body.text(), "");
});
