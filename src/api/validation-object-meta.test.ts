import assert from "node:assert/strict";
import { test } from "node:test";
import { formatFieldErrors } from "./field-errors.js";
import { defaultAndValidatePod } from "./validation.js";
import { isQualifiedName, isValidLabelValue, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, validateAnnotations, validateLabels } from "./validation-object-meta.js";
import type { Pod } from "./types.js";

const NAME_REGEX = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test("label and annotation keys are qualified names: optional DNS-1123 prefix, 63-character name", () => {
  for (const ok of ["app", "app.kubernetes.io/name", "A_b-c.D", "x"]) assert.deepEqual(isQualifiedName(ok), [], ok);
  assert.deepEqual(isQualifiedName("-app"), [NAME_REGEX]);
  assert.deepEqual(isQualifiedName("n".repeat(64)), ["name part must be no more than 63 characters"]);
  assert.deepEqual(isQualifiedName("/app"), ["prefix part must be non-empty"]);
  assert.deepEqual(isQualifiedName("example.com/"), ["name part must be non-empty", NAME_REGEX]);
  assert.match(isQualifiedName("Example.com/app")[0] ?? "", /^prefix part a lowercase RFC 1123 subdomain must consist of/);
  assert.match(isQualifiedName("a/b/c")[0] ?? "", /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
});

test("label values are empty or at most 63 qualified-name characters", () => {
  for (const ok of ["", "v1", "my_value", "1.2.3"]) assert.deepEqual(isValidLabelValue(ok), [], ok);
  assert.deepEqual(isValidLabelValue("v".repeat(64)), ["must be no more than 63 characters"]);
  assert.deepEqual(isValidLabelValue("has space"), [VALUE_REGEX]);
});

test("validateLabels reports bad keys and values at metadata.labels with the bad value", () => {
  assert.deepEqual(formatFieldErrors(validateLabels({ "bad key": "ok", good: "bad value" }, "metadata.labels")), [
    `metadata.labels: Invalid value: "bad key": ${NAME_REGEX}`,
    `metadata.labels: Invalid value: "bad value": ${VALUE_REGEX}`,
  ]);
});

test("annotation keys are qualified names in any case, and keys plus values total at most 256 KiB", () => {
  assert.deepEqual(validateAnnotations({ "Example.COM/Note": "anything at all: spaces, {json}" }, "metadata.annotations"), []);
  assert.deepEqual(formatFieldErrors(validateAnnotations({ "bad key": "" }, "metadata.annotations")), [`metadata.annotations: Invalid value: "bad key": ${NAME_REGEX}`]);
  assert.equal(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, 262144);
  assert.deepEqual(validateAnnotations({ a: "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES - 1) }, "metadata.annotations"), []);
  assert.deepEqual(formatFieldErrors(validateAnnotations({ a: "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) }, "metadata.annotations")), [
    "metadata.annotations: Too long: may not be more than 262144 bytes",
  ]);
});

test("validatePod checks the pod's labels and annotations", () => {
  const pod: Pod = {
    metadata: { name: "web", namespace: "default", labels: { app: "web!" }, annotations: { "a/b/c": "x" } },
    spec: { containers: [{ name: "app", image: "busybox" }] },
  };
  const checked = defaultAndValidatePod(pod);
  assert.ok(!checked.ok);
  assert.deepEqual(checked.errors.map((e) => `${e.field}: ${String(e.badValue)}`), ["metadata.labels: web!", "metadata.annotations: a/b/c"]);
});
