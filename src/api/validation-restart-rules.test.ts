import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeValue } from "./decode.js";
import { formatFieldErrors } from "./field-errors.js";
import { podSchema } from "./schema.js";
import type { Container, Pod } from "./types.js";
import { defaultAndValidatePod, validatePod } from "./validation.js";

function podWith(container: Partial<Container>, init = false): Pod {
  const c = { name: "app", image: "img", command: ["app"], ...container };
  return init
    ? { metadata: { name: "p", namespace: "default" }, spec: { initContainers: [c], containers: [{ name: "main", image: "img", command: ["m"] }] } }
    : { metadata: { name: "p", namespace: "default" }, spec: { containers: [c] } };
}

function errors(container: Partial<Container>, init = false): string[] {
  const result = defaultAndValidatePod(podWith(container, init));
  return result.ok ? [] : formatFieldErrors(result.errors);
}

test("restartPolicyRules: valid In and NotIn rules on a regular and an init container are accepted", () => {
  const rules = [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }, { action: "Restart", exitCodes: { operator: "NotIn", values: [] } }];
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: rules }), []);
  assert.deepEqual(errors({ restartPolicy: "OnFailure", restartPolicyRules: rules }, true), []);
});

test("restartPolicyRules: rules without the container's restartPolicy are rejected as the API server says it", () => {
  assert.deepEqual(errors({ restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }] }, true), [
    "spec.initContainers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used",
  ]);
});

test("restartPolicyRules: an unsupported action and operator name their field paths and supported values", () => {
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: [{ action: "DoNotRestart", exitCodes: { operator: "Equals", values: [3] } }] }), [
    'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "DoNotRestart": supported values: "Restart", "RestartAllContainers"',
    'spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Equals": supported values: "In", "NotIn"',
  ]);
});

test("restartPolicyRules: a rule without exitCodes is Required", () => {
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: [{ action: "Restart" }] }), [
    "spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified",
  ]);
});

test("[case 227] TestValidateContainerRestartPolicy, #137136 field.TooMany: more than 20 rules or more than 255 exit codes are Too many, with the count", () => {
  const many = Array.from({ length: 21 }, () => ({ action: "Restart", exitCodes: { operator: "In", values: [1] } }));
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: many }), ["spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"]);
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: many.slice(1) }), []);
  const values = Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values } }] }), [
    "spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items",
  ]);
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: values.slice(1) } }] }), []);
});

test("[case 227] TestValidateContainerRestartPolicy, KEP-5532 RestartAllContainers: accepted on regular containers, init containers and sidecars (RestartAllContainersOnContainerExits on in 1.37)", () => {
  const rule = [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }];
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: rule }), []);
  assert.deepEqual(errors({ restartPolicy: "Never", restartPolicyRules: rule }, true), []);
  assert.deepEqual(errors({ restartPolicy: "Always", restartPolicyRules: rule }, true), []);
});

test("[case 227] TestValidateContainerRestartPolicy, KEP-5532 with RestartAllContainersOnContainerExits off: only Restart, and a sidecar's rules are Forbidden", () => {
  const pod = (container: Partial<Container>, init: boolean): string[] => {
    const result = defaultAndValidatePod(podWith(container, init), { restartAllContainers: false });
    return result.ok ? [] : formatFieldErrors(result.errors);
  };
  const rule = [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }];
  assert.deepEqual(pod({ restartPolicy: "Never", restartPolicyRules: rule }, false), [
    'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported values: "Restart"',
  ]);
  assert.deepEqual(pod({ restartPolicy: "Always", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }] }, true), [
    "spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always",
  ]);
});

test("restartPolicyRules: with ContainerRestartRules off the rules are not checked (the API server drops the field)", () => {
  const pod = defaultAndValidatePod(podWith({ restartPolicy: "Always" }, true));
  assert.ok(pod.ok);
  pod.pod.spec.initContainers![0]!.restartPolicyRules = [{ action: "Bogus" }];
  assert.deepEqual(validatePod(pod.pod, { containerRestartRules: false }), []);
});

test("restartPolicyRules: strict decoding types the rules and rejects unknown fields inside them", () => {
  const errs: string[] = [];
  const decoded = decodeValue(podSchema, { metadata: { name: "p" }, spec: { containers: [{ name: "app", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] }, when: 1 }] }] } }, "", errs) as Pod;
  assert.deepEqual(errs, ['strict decoding error: unknown field "spec.containers[0].restartPolicyRules[0].when"']);
  assert.deepEqual(decoded.spec.containers[0]!.restartPolicyRules, [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }]);
});
