import assert from "node:assert/strict";
import { test } from "node:test";
import { checkValueShape, DEFAULT_PARSE_LIMITS, formatOfFile, MAX_INPUT_BYTES, MAX_YAML_INPUT_BYTES, parseBounded, type BoundedParseResult, type ParseLimits } from "./bounded-parse.js";

const SMALL: ParseLimits = { ...DEFAULT_PARSE_LIMITS, maxBytes: 1000, maxDepth: 5, maxYamlTokens: 400, maxYamlDocuments: 3, maxValueNodes: 60, maxReportedErrors: 2 };

function refused(result: BoundedParseResult): { reason: string; errors: string[] } {
  assert.ok(!result.ok, "expected the input to be refused");
  return { reason: result.reason, errors: result.errors };
}

test("input size: the limit is the API server's 3 MiB, counted in UTF-8 bytes", () => {
  assert.equal(MAX_INPUT_BYTES, 3145728);
  assert.ok(parseBounded(`a: ${"x".repeat(997)}`, "yaml", "f", SMALL).ok);
  assert.deepEqual(refused(parseBounded(`a: ${"x".repeat(998)}`, "yaml", "f", SMALL)), { reason: "TooLarge", errors: ["f: too large: limit is 1000 bytes"] });
  assert.equal(refused(parseBounded(`a: ${"é".repeat(500)}`, "yaml", "f", SMALL)).reason, "TooLarge");
});

test("input size: YAML texts are limited to 1 MiB, JSON texts to 3 MiB", () => {
  assert.equal(MAX_YAML_INPUT_BYTES, 1048576);
  const yamlOver = `a: ${"x".repeat(MAX_YAML_INPUT_BYTES)}`;
  assert.deepEqual(refused(parseBounded(yamlOver, "yaml", "f")), {
    reason: "TooLarge",
    errors: ["f: too large: limit is 1048576 bytes for YAML (JSON may have up to 3145728 bytes)"],
  });
  assert.ok(parseBounded(`"${"x".repeat(2 * MAX_YAML_INPUT_BYTES)}"`, "json", "f").ok);
});

test("nesting depth: deep YAML flow, block maps, block sequences and JSON are refused with their line", () => {
  const deepBlock = Array.from({ length: 7 }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
  const cases: Array<[string, "yaml" | "json", string]> = [
    ["[[[[[[1]]]]]]", "yaml", "f:1: exceeded max depth of 5"],
    [`a:\n  b: {c: [[[[x]]]]}`, "yaml", "f:2: exceeded max depth of 5"],
    [deepBlock, "yaml", "f:6: exceeded max depth of 5"],
    ["- - - - - - x", "yaml", "f:1: exceeded max depth of 5"],
    ['{"a":{"b":{"c":{"d":{"e":{}}}}}}', "json", "f:1:26: exceeded max depth of 5"],
  ];
  for (const [text, format, message] of cases) assert.deepEqual(refused(parseBounded(text, format, "f", SMALL)), { reason: "TooDeep", errors: [message] }, text);
  assert.ok(parseBounded("[[[[[1]]]]]", "yaml", "f", SMALL).ok);
  assert.ok(parseBounded(Array.from({ length: 5 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"), "yaml", "f", SMALL).ok);
});

test("nesting depth: a 10,000-deep document under the default limits is a TooDeep error, not a stack overflow", () => {
  const deepJson = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
  assert.deepEqual(refused(parseBounded(deepJson, "json", "body")), { reason: "TooDeep", errors: ["body:1:501: exceeded max depth of 100"] });
  const deepYaml = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
  assert.deepEqual(refused(parseBounded(deepYaml, "yaml", "body")), { reason: "TooDeep", errors: ["body:1: exceeded max depth of 100"] });
});

test("aliases: a billion-laughs stream and a recursive alias are refused", () => {
  const lines = ["l0: &l0 [a, a, a, a, a, a, a, a, a]"];
  for (let i = 1; i <= 9; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(", ")}]`);
  const bomb = refused(parseBounded(lines.join("\n"), "yaml", "f"));
  assert.deepEqual(bomb, { reason: "TooComplex", errors: ["f: document 1: Excessive alias count indicates a resource exhaustion attack"] });
  assert.deepEqual(refused(parseBounded("a: &x\n  b: *x\n", "yaml", "f")), { reason: "TooDeep", errors: ["f: exceeded max depth of 100"] });
});

test("YAML work: the token budget, the document budget and the value-node budget bound the parse", () => {
  const manyKeys = Array.from({ length: 100 }, (_, i) => `k${i}: 1`).join("\n");
  assert.match(refused(parseBounded(manyKeys, "yaml", "f", SMALL)).errors[0] ?? "", /^f:\d+: the YAML stream has more than 400 tokens; split it or send JSON$/);
  assert.deepEqual(refused(parseBounded("a: 1\n---\na: 2\n---\na: 3\n---\na: 4\n---\na: 5\n", "yaml", "f", SMALL)), { reason: "TooComplex", errors: ["f:10: the YAML stream has more than 3 documents"] });
  assert.deepEqual(refused(parseBounded(`[${Array.from({ length: 60 }, () => "1").join(",")}]`, "json", "f", SMALL)), { reason: "TooComplex", errors: ["f:1:120: more than 60 values"] });
});

test("syntax errors: YAML errors name line and column and are capped at maxReportedErrors", () => {
  const tabs = "a:\n\tb: 1\n\tc: 2\n\td: 3\n";
  assert.deepEqual(refused(parseBounded(tabs, "yaml", "pod.yaml", SMALL)), {
    reason: "Syntax",
    errors: ["pod.yaml:2:1: Tabs are not allowed as indentation", "pod.yaml:3:1: Tabs are not allowed as indentation", "pod.yaml: and 1 more errors"],
  });
});

test("duplicate YAML map keys are errors found in linear time, in block and flow maps at any depth", () => {
  const text = "a: 1\nb:\n  c: [{x: 1, x: 2}]\n  d: 2\n  d: 3\na: 4\n";
  assert.deepEqual(refused(parseBounded(text, "yaml", "f")), {
    reason: "Syntax",
    errors: ["f:3:14: Map keys must be unique", "f:5:3: Map keys must be unique", "f:6:1: Map keys must be unique"],
  });
  assert.ok(parseBounded("a: 1\nb: {a: 1}\nc: [a, a]\n'1': x\n1: y\n", "yaml", "f").ok, "equal keys in different maps, and 1 beside '1', are fine");
});

test(".json files are strict JSON, other files YAML streams", () => {
  assert.equal(formatOfFile("pod.json"), "json");
  assert.equal(formatOfFile("POD.JSON"), "json");
  assert.equal(formatOfFile("pod.yaml"), "yaml");
  assert.equal(formatOfFile("STDIN"), "yaml");
  assert.deepEqual(refused(parseBounded("{a: 1}", "json", "pod.json")), { reason: "Syntax", errors: ["pod.json:1:2: invalid character 'a' looking for beginning of object key string"] });
  assert.deepEqual(parseBounded("{a: 1}", "yaml", "pod.yaml"), { ok: true, documents: [{ value: { a: 1 }, position: 1 }] });
});

test("empty, comment-only and null inputs yield no documents; empty YAML documents still count in positions", () => {
  for (const [text, format] of [["", "yaml"], ["# only a comment\n", "yaml"], ["null", "yaml"], ["null", "json"], ["---\n---\n", "yaml"]] as const) {
    assert.deepEqual(parseBounded(text, format, "f"), { ok: true, documents: [] }, JSON.stringify(text));
  }
  assert.deepEqual(parseBounded("---\n---\na: 1\n", "yaml", "f"), { ok: true, documents: [{ value: { a: 1 }, position: 2 }] });
});

test("checkValueShape counts aliased values every time they are used", () => {
  const shared = [1, 2, 3];
  assert.equal(checkValueShape({ a: shared, b: shared }, { maxDepth: 5, maxValueNodes: 9 }), undefined);
  assert.equal(checkValueShape({ a: shared, b: shared, c: shared }, { maxDepth: 5, maxValueNodes: 9 })?.reason, "TooComplex");
});
