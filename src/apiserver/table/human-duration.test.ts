import { test } from "node:test";
import assert from "node:assert/strict";
import { humanDuration, timestampSince } from "./human-duration.js";

// apimachinery util/duration duration_test.go TestHumanDuration.
test("human duration: ages render as apimachinery's HumanDuration", () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [120 * s, "2m"],
    [200 * s, "3m20s"],
    [10 * 60 * s, "10m"],
    [179 * 60 * s, "179m"],
    [3 * 3600 * s, "3h"],
    [(3 * 3600 + 5 * 60) * s, "3h5m"],
    [47 * 3600 * s, "47h"],
    [(2 * 24 + 5) * 3600 * s, "2d5h"],
    [30 * 24 * 3600 * s, "30d"],
    [(2 * 365 + 5) * 24 * 3600 * s, "2y5d"],
    [9 * 365 * 24 * 3600 * s, "9y"],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, String(ms));
});

test("human duration: a missing or unparsable timestamp is <unknown>", () => {
  const now = Date.parse("2026-01-01T00:10:00Z");
  assert.equal(timestampSince(undefined, now), "<unknown>");
  assert.equal(timestampSince("yesterday", now), "<unknown>");
  assert.equal(timestampSince("2026-01-01T00:00:00Z", now), "10m");
});
