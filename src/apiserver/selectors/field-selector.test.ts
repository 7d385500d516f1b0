import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeFieldValue, parseFieldSelector, unescapeFieldValue } from "./field-selector.js";
import { SelectorError } from "./selector-error.js";

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorError, `not a SelectorError: ${String(err)}`);
    return err.message;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

// upstream fields/selector_test.go TestSelectorParse: terms are sorted, == is =.
test("field selector: terms are parsed with =, == and != and sorted", () => {
  const cases: [string, string][] = [
    ["", ""],
    ["a=b", "a=b"],
    ["kind=Pod,name=web", "kind=Pod,name=web"],
    ["name=web,kind=Pod", "kind=Pod,name=web"],
    ["a==b", "a=b"],
    ["a!=b", "a!=b"],
    ["a=", "a="],
    ["a=b,", "a=b"],
    ["!x=a", "!x=a"],
    ["metadata.name=web,involvedObject.uid=1234-5678", "involvedObject.uid=1234-5678,metadata.name=web"],
  ];
  for (const [text, canonical] of cases) assert.equal(parseFieldSelector(text).toString(), canonical, text);
});

// upstream TestSplitTerms / TestEscapeValue / TestUnescapeValue.
test("field selector: backslash escapes \\, , and = in values", () => {
  const selector = parseFieldSelector(String.raw`a=x\,y,b=p\=q,c=back\\slash`);
  assert.deepEqual(
    selector.requirements.map((r) => [r.field, r.value]),
    [["a", "x,y"], ["b", "p=q"], ["c", "back\\slash"]],
  );
  assert.equal(selector.toString(), String.raw`a=x\,y,b=p\=q,c=back\\slash`);
  assert.equal(escapeFieldValue("a,b=c\\"), String.raw`a\,b\=c\\`);
  assert.equal(unescapeFieldValue(String.raw`a\,b\=c\\`), "a,b=c\\");
});

test("field selector: bad terms and escapes carry apimachinery's messages", () => {
  const cases: [string, string][] = [
    ["x<a", "invalid selector: 'x<a'; can't understand 'x<a'"],
    ["a=b,nonsense", "invalid selector: 'a=b,nonsense'; can't understand 'nonsense'"],
    ["x==a==b", "invalid field selector: unescaped character in value: 61"],
    ["x=a=b", "invalid field selector: unescaped character in value: 61"],
    [String.raw`x=a\b`, String.raw`invalid field selector: invalid escape sequence: \b`],
    ["x=a\\", "invalid field selector: invalid escape sequence: \\"],
  ];
  for (const [text, message] of cases) assert.equal(parseError(text), message, text);
});

test("field selector: a missing field compares as the empty string", () => {
  assert.equal(parseFieldSelector("spec.nodeName=").matches({}), true);
  assert.equal(parseFieldSelector("spec.nodeName!=node-1").matches({}), true);
  assert.equal(parseFieldSelector("spec.nodeName=node-1").matches({}), false);
});

test("field selector: all terms must hold", () => {
  const selector = parseFieldSelector("involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=u1");
  assert.equal(selector.matches({ "involvedObject.name": "web", "involvedObject.namespace": "default", "involvedObject.uid": "u1" }), true);
  assert.equal(selector.matches({ "involvedObject.name": "web", "involvedObject.namespace": "default", "involvedObject.uid": "u2" }), false);
  assert.equal(parseFieldSelector("status.phase!=Running").matches({ "status.phase": "Running" }), false);
});

test("field selector: requiresExactMatch names the value an = term demands", () => {
  const selector = parseFieldSelector("metadata.name=web,status.phase!=Failed");
  assert.equal(selector.requiresExactMatch("metadata.name"), "web");
  assert.equal(selector.requiresExactMatch("status.phase"), undefined);
  assert.equal(parseFieldSelector("").empty, true);
});

test("field selector: an over-long selector is refused before parsing", () => {
  assert.equal(parseError(`a=${"b".repeat(70_000)}`), "field selector is longer than 65536 characters");
});
