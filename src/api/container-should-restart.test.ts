import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, ContainerRestartRule, PodSpec, RestartPolicy } from "./types.js";
import { containerShouldRestart, isContainerRestartable, matchingRestartRule } from "./container-should-restart.js";

const spec = (restartPolicy?: RestartPolicy): PodSpec => ({ containers: [], ...(restartPolicy ? { restartPolicy } : {}) });
const rule = (operator: string, values: number[]): ContainerRestartRule => ({ action: "Restart", exitCodes: { operator, values } });
const container = (restartPolicy?: string, restartPolicyRules?: ContainerRestartRule[]): Container => ({
  name: "app",
  ...(restartPolicy ? { restartPolicy } : {}),
  ...(restartPolicyRules ? { restartPolicyRules } : {}),
});

test("ContainerShouldRestart: restartPolicyRules win over the container's and the pod's policy", () => {
  const c = container("Never", [rule("In", [42])]);
  assert.equal(containerShouldRestart(c, spec("Never"), 42), true, "rule matches: restart despite Never/Never");
  assert.equal(containerShouldRestart(c, spec("Always"), 1), false, "no rule matches: the container's Never wins over the pod's Always");
});

test("ContainerShouldRestart: rules are evaluated only when the container sets its own restartPolicy", () => {
  assert.equal(containerShouldRestart(container(undefined, [rule("In", [42])]), spec("Never"), 42), false);
});

test("ContainerShouldRestart: NotIn matches every exit code not listed; a rule with an unknown operator or no exitCodes never matches", () => {
  assert.equal(containerShouldRestart(container("Never", [rule("NotIn", [0])]), spec("Never"), 3), true);
  assert.equal(containerShouldRestart(container("Never", [rule("NotIn", [0])]), spec("Never"), 0), false);
  assert.equal(containerShouldRestart(container("Never", [rule("Equals", [3])]), spec("Never"), 3), false);
  assert.equal(containerShouldRestart(container("Never", [{ action: "Restart" }]), spec("Never"), 3), false);
});

test("ContainerShouldRestart: the first matching rule in list order is the one applied", () => {
  const c = container("Never", [rule("In", [7]), rule("NotIn", [])]);
  assert.deepEqual(matchingRestartRule(c, 7)?.exitCodes?.operator, "In");
  assert.deepEqual(matchingRestartRule(c, 8)?.exitCodes?.operator, "NotIn");
});

test("ContainerShouldRestart: the container's restartPolicy overrides the pod's", () => {
  assert.equal(containerShouldRestart(container("Always"), spec("Never"), 0), true);
  assert.equal(containerShouldRestart(container("Always"), spec("Never"), 1), true);
  assert.equal(containerShouldRestart(container("Never"), spec("Always"), 1), false);
  assert.equal(containerShouldRestart(container("OnFailure"), spec("Always"), 0), false);
  assert.equal(containerShouldRestart(container("OnFailure"), spec("Never"), 2), true);
});

test("ContainerShouldRestart: without a container policy the pod's applies, and an unset pod policy means Always", () => {
  assert.equal(containerShouldRestart(container(), spec("OnFailure"), 0), false);
  assert.equal(containerShouldRestart(container(), spec("OnFailure"), 1), true);
  assert.equal(containerShouldRestart(container(), spec("Never"), 1), false);
  assert.equal(containerShouldRestart(container(), spec(), 0), true);
});

test("ContainerShouldRestart: a sidecar (restartPolicy Always) restarts whatever the pod's policy and exit code", () => {
  for (const code of [0, 1, 137]) assert.equal(containerShouldRestart(container("Always"), spec("Never"), code), true);
});

test("IsContainerRestartable: a Restart rule or a container policy other than Never; else the pod's policy other than Never", () => {
  assert.equal(isContainerRestartable(spec("Always"), container("Never")), false);
  assert.equal(isContainerRestartable(spec("Never"), container("Never", [rule("In", [42])])), true);
  assert.equal(isContainerRestartable(spec("Never"), container("OnFailure")), true);
  assert.equal(isContainerRestartable(spec("Never"), container()), false);
  assert.equal(isContainerRestartable(spec("OnFailure"), container()), true);
});
