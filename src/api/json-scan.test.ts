import assert from "node:assert/strict";
import { test } from "node:test";
import { scanJson, type JsonProblem } from "./json-scan.js";

const LIMITS = { maxDepth: 5, maxValues: 50 };

test("scanJson accepts every shape of strict JSON within the limits", () => {
  const valid = ['{"a":[1,-2.5e+3,true,false,null,"x\\u00e9\\n"],"b":{}}', "[]", " 0 ", '"s"', '\n{\n  "k": [ [ [ ] ] ]\n}\n'];
  for (const text of valid) assert.equal(scanJson(text, LIMITS), undefined, text);
});

test("scanJson reports syntax errors in Go encoding/json's words with line and column", () => {
  const cases: Array<[string, Omit<JsonProblem, "kind">]> = [
    ['{"metadata": }', { message: "invalid character '}' looking for beginning of value", line: 1, column: 14 }],
    ['{\n  "a": 1,\n  }', { message: "invalid character '}' looking for beginning of object key string", line: 3, column: 3 }],
    ['{"a" 1}', { message: "invalid character '1' after object key", line: 1, column: 6 }],
    ['{"a":1 "b":2}', { message: "invalid character '\"' after object key:value pair", line: 1, column: 8 }],
    ["[1 2]", { message: "invalid character '2' after array element", line: 1, column: 4 }],
    ["{}}", { message: "invalid character '}' after top-level value", line: 1, column: 3 }],
    ["[tru]", { message: "invalid character ']' in literal true (expecting 'e')", line: 1, column: 5 }],
    ['["a\\x"]', { message: "invalid character 'x' in string escape code", line: 1, column: 5 }],
    ['["\\u12g4"]', { message: "invalid character 'g' in \\u hexadecimal character escape", line: 1, column: 7 }],
    ['["a\nb"]', { message: "invalid character '\\n' in string literal", line: 1, column: 4 }],
    ["{'a': 1}", { message: "invalid character '\\'' looking for beginning of object key string", line: 1, column: 2 }],
    ['{"a":', { message: "unexpected end of JSON input", line: 1, column: 6 }],
    ["", { message: "unexpected end of JSON input", line: 1, column: 1 }],
  ];
  for (const [text, expected] of cases) assert.deepEqual(scanJson(text, LIMITS), { kind: "syntax", ...expected }, JSON.stringify(text));
});

test("scanJson refuses nesting past maxDepth at the first bracket too deep, without recursion", () => {
  assert.equal(scanJson("[[[[[1]]]]]", LIMITS), undefined);
  assert.deepEqual(scanJson("[[[[[[1]]]]]]", LIMITS), { kind: "depth", message: "exceeded max depth of 5", line: 1, column: 6 });
  const deep = "[".repeat(1_000_000);
  assert.equal(scanJson(deep, { maxDepth: 100, maxValues: 10 })?.message, "more than 10 values");
  assert.equal(scanJson(deep, { maxDepth: 100, maxValues: 2_000_000 })?.message, "exceeded max depth of 100");
});

test("scanJson refuses more than maxValues values, keys not counted", () => {
  const fifty = `{${Array.from({ length: 49 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
  assert.equal(scanJson(fifty, LIMITS), undefined);
  const fiftyOne = `[${Array.from({ length: 50 }, (_, i) => i).join(",")}]`;
  assert.deepEqual(scanJson(fiftyOne, LIMITS), { kind: "values", message: "more than 50 values", line: 1, column: 139 });
});
