import assert from "node:assert/strict";
import { test } from "node:test";
import { formatGoDuration, formatGoNanoseconds } from "./go-duration.js";

test("formatGoDuration renders probe timeouts as Go's Duration.String() does (§B.4, §J)", () => {
  const cases: Array<[ms: number, expected: string]> = [
    [0, "0s"],
    [1000, "1s"],
    [2000, "2s"],
    [10_000, "10s"],
    [59_000, "59s"],
    [60_000, "1m0s"],
    [90_000, "1m30s"],
    [120_000, "2m0s"],
    [500, "500ms"],
    [1, "1ms"],
    [1500, "1.5s"],
    [90_500, "1m30.5s"],
    [3_600_000, "1h0m0s"],
    [3_661_500, "1h1m1.5s"],
    [0.25, "250µs"],
    [0.0015, "1.5µs"],
    [0.0005, "500ns"],
    [-1000, "-1s"],
    [-1.5, "-1.5ms"],
    [Number.NaN, "0s"],
  ];
  for (const [ms, expected] of cases) {
    assert.equal(formatGoDuration(ms), expected, `formatGoDuration(${ms})`);
  }
});

test("formatGoNanoseconds matches Go's own Duration.String() table", () => {
  const minute = 60n * 1_000_000_000n;
  const hour = 60n * minute;
  const cases: Array<[ns: bigint, expected: string]> = [
    [0n, "0s"],
    [1n, "1ns"],
    [1100n, "1.1µs"],
    [2_200_000n, "2.2ms"],
    [3_300_000_000n, "3.3s"],
    [4n * minute + 5_000_000_000n, "4m5s"],
    [4n * minute + 5_001_000_000n, "4m5.001s"],
    [5n * hour + 6n * minute + 7_001_000_000n, "5h6m7.001s"],
    [8n * minute + 1n, "8m0.000000001s"],
    [(1n << 63n) - 1n, "2562047h47m16.854775807s"],
    [-(1n << 63n), "-2562047h47m16.854775808s"],
  ];
  for (const [ns, expected] of cases) {
    assert.equal(formatGoNanoseconds(ns), expected, `formatGoNanoseconds(${ns})`);
  }
});
