import { test } from "node:test";
import assert from "node:assert/strict";
import {
  aggregateFieldErrors, childPath, duplicate, forbidden, formatFieldError, formatFieldErrors, formatInvalidObject,
  goQuote, indexPath, invalid, isDNS1123Label, isDNS1123Subdomain, isHTTPHeaderName, isRelaxedEnvVarName,
  isValidPortName, isValidPortNum, notSupported, regexError, renderValue, required, tooLong, typeInvalid,
} from "./field-errors.js";

test("formatFieldError renders each error type with the API server's text", () => {
  const cases: [ReturnType<typeof invalid>, string][] = [
    [invalid("spec.containers[0].livenessProbe.successThreshold", 2, "must be 1"),
      "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"],
    [invalid("metadata.name", "Bad", "oops"), 'metadata.name: Invalid value: "Bad": oops'],
    [required("spec.containers[0].exec.command"), "spec.containers[0].exec.command: Required value"],
    [required("spec.containers[0].livenessProbe", "must specify a handler type"),
      "spec.containers[0].livenessProbe: Required value: must specify a handler type"],
    [forbidden("p.tcpSocket", "may not specify more than 1 handler type"), "p.tcpSocket: Forbidden: may not specify more than 1 handler type"],
    [notSupported("p.httpGet.scheme", "FTP", ["HTTP", "HTTPS"]), 'p.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"'],
    [notSupported("x", "y", []), 'x: Unsupported value: "y"'],
    [duplicate("spec.initContainers[0].name", "x"), 'spec.initContainers[0].name: Duplicate value: "x"'],
    [tooLong("metadata.annotations", 10), "metadata.annotations: Too long: may not be more than 10 bytes"],
    [typeInvalid("periodSeconds", "ten", "must be an integer"), 'periodSeconds: Invalid value: "ten": must be an integer'],
    [invalid("", null, "root"), 'Invalid value: "null": root'],
  ];
  for (const [error, expected] of cases) assert.equal(formatFieldError(error), expected);
});

test("goQuote escapes like Go's %q", () => {
  const cases: [string, string][] = [
    ["plain", '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["tab\tnl\ncr\r", '"tab\\tnl\\ncr\\r"'],
    ["\x07\x08\x0b\x0c", '"\\a\\b\\v\\f"'],
    ["\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'],
    ["héllo ☃ 😀", '"héllo ☃ 😀"'],
    ["\u00a0\u200b", '"\\u00a0\\u200b"'],
    ["\ud800", '"\ufffd"'],
    ["", '""'],
  ];
  for (const [input, expected] of cases) assert.equal(goQuote(input), expected, JSON.stringify(input));
});

test("renderValue prints numbers and booleans bare, strings quoted, null as null", () => {
  assert.equal(renderValue(-1), "-1");
  assert.equal(renderValue(1.5), "1.5");
  assert.equal(renderValue(true), "true");
  assert.equal(renderValue("8080"), '"8080"');
  assert.equal(renderValue(undefined), '"null"');
  assert.equal(renderValue([1, "a"]), '[1,"a"]');
});

test("aggregate forms: list dedupes, single stands alone, several are bracketed", () => {
  const a = required("a");
  const b = invalid("b", 1, "bad");
  assert.deepEqual(formatFieldErrors([a, b, a]), ["a: Required value", "b: Invalid value: 1: bad"]);
  assert.equal(aggregateFieldErrors([]), "");
  assert.equal(aggregateFieldErrors([a, a]), "a: Required value");
  assert.equal(aggregateFieldErrors([a, b]), "[a: Required value, b: Invalid value: 1: bad]");
  assert.equal(formatInvalidObject("Pod", "web", [a]), 'Pod "web" is invalid: a: Required value');
});

test("path helpers build API-server paths", () => {
  assert.equal(childPath("", "periodSeconds"), "periodSeconds");
  assert.equal(childPath(indexPath("spec.containers", 0), "livenessProbe"), "spec.containers[0].livenessProbe");
});

test("regexError lists examples the way apimachinery does", () => {
  assert.equal(regexError("m", "f"), "m (regex used for validation is 'f')");
  assert.equal(regexError("m", "f", "a", "b"), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
});

test("DNS-1123 label and subdomain rules", () => {
  const label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  assert.deepEqual(isDNS1123Label("my-app-1"), []);
  assert.deepEqual(isDNS1123Label("My_App"), [label]);
  assert.deepEqual(isDNS1123Label("a.b"), ["must not contain dots"]);
  assert.deepEqual(isDNS1123Label("a".repeat(64)), ["must be no more than 63 characters"]);
  assert.deepEqual(isDNS1123Subdomain("web.example-1"), []);
  assert.deepEqual(isDNS1123Subdomain("Web"), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isDNS1123Subdomain("a".repeat(254)), ["must be no more than 253 characters"]);
});

test("port number, port name, header name and env name rules", () => {
  assert.deepEqual(isValidPortNum(1), []);
  assert.deepEqual(isValidPortNum(65535), []);
  assert.deepEqual(isValidPortNum(0), ["must be between 1 and 65535, inclusive"]);
  assert.deepEqual(isValidPortNum(80.5), ["must be between 1 and 65535, inclusive"]);
  assert.deepEqual(isValidPortName("http-alt"), []);
  assert.deepEqual(isValidPortName("-A-"), [
    "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
    "must contain at least one letter (a-z)",
    "must not begin or end with a hyphen",
  ]);
  assert.deepEqual(isValidPortName(""), [
    "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
    "must contain at least one letter (a-z)",
  ]);
  assert.deepEqual(isHTTPHeaderName("X-Ok-1"), []);
  assert.equal(isHTTPHeaderName("X:Bad").length, 1);
  assert.deepEqual(isRelaxedEnvVarName("MY.VAR-1_x"), []);
  assert.deepEqual(isRelaxedEnvVarName("A=B"), ["a valid environment variable name must consist only of printable ASCII characters other than '='"]);
});
