import assert from "node:assert/strict";
import { test } from "node:test";
import { parseQuantity } from "./quantity.js";

test("parseQuantity reads binary, decimal and exponent suffixes and rounds up like Quantity.Value()", () => {
  const cases: Array<[string, number | undefined]> = [
    ["0", 0],
    ["128974848", 128974848],
    ["129e6", 129_000_000],
    ["129M", 129_000_000],
    ["123Mi", 123 * 2 ** 20],
    ["1.5Ki", 1536],
    ["64Mi", 67_108_864],
    ["1Gi", 2 ** 30],
    ["100m", 1],
    ["1k", 1000],
    [".5Ki", 512],
    ["-1Mi", -(2 ** 20)],
    ["+2", 2],
    ["", undefined],
    ["abc", undefined],
    ["12MB", undefined],
    ["1.2.3", undefined],
    ["Mi", undefined],
    ["1e", undefined],
    ["1 Mi", undefined],
  ];
  for (const [text, want] of cases) assert.equal(parseQuantity(text), want, JSON.stringify(text));
});
