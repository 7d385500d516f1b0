import assert from "node:assert/strict";
import { test } from "node:test";
import { SourcesReady } from "./sources-ready.js";

test("SourcesReady is ready with no source to wait for, waits for every source added, and is ready once each was seen", () => {
  const ready = new SourcesReady();
  assert.equal(ready.allReady(), true);
  ready.add("api");
  ready.add("file");
  assert.equal(ready.allReady(), false);
  assert.deepEqual(ready.pending(), ["api", "file"]);
  ready.seen("file");
  assert.equal(ready.allReady(), false);
  assert.deepEqual(ready.pending(), ["api"]);
  ready.seen("api");
  assert.equal(ready.allReady(), true);
  assert.deepEqual(ready.pending(), []);
});

test("SourcesReady: a source seen before it is added counts as seen; seeing a source nobody waits for changes nothing", () => {
  const ready = new SourcesReady();
  ready.seen("api");
  ready.add("api");
  assert.equal(ready.allReady(), true);
  ready.add("file");
  ready.seen("http");
  assert.deepEqual(ready.pending(), ["file"]);
});
