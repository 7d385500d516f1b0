import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFieldSelector } from "./field-selector.js";
import { checkFieldSelector, selectableFields, type SelectableResource } from "./selectable-fields.js";
import { SelectorError } from "./selector-error.js";

const pod = {
  metadata: { name: "web", namespace: "default" },
  spec: { nodeName: "node-1", restartPolicy: "Always", schedulerName: "default-scheduler", serviceAccountName: "default", containers: [] },
  status: { phase: "Running", podIP: "10.0.0.9", podIPs: [{ ip: "10.0.0.5" }, { ip: "fd00::5" }], nominatedNodeName: "node-2" },
};

// pkg/registry/core/pod/strategy.go ToSelectableFields.
test("selectable fields: pods expose the fields of pod ToSelectableFields", () => {
  assert.deepEqual(selectableFields("pods", pod), {
    "metadata.name": "web",
    "metadata.namespace": "default",
    "spec.nodeName": "node-1",
    "spec.restartPolicy": "Always",
    "spec.schedulerName": "default-scheduler",
    "spec.serviceAccountName": "default",
    "spec.hostNetwork": "false",
    "status.phase": "Running",
    "status.podIP": "10.0.0.5",
    "status.nominatedNodeName": "node-2",
  });
  assert.equal(selectableFields("pods", { metadata: {}, spec: { hostNetwork: true }, status: { podIP: "10.1.1.1" } })["status.podIP"], "10.1.1.1");
  assert.equal(selectableFields("pods", { metadata: {}, spec: { hostNetwork: true } })["spec.hostNetwork"], "true");
});

// pkg/registry/core/event/strategy.go ToSelectableFields.
test("selectable fields: events fall back to reportingComponent for source", () => {
  const event = {
    metadata: { name: "web.1", namespace: "default" },
    involvedObject: { kind: "Pod", name: "web", namespace: "default", uid: "u1", apiVersion: "v1", fieldPath: "spec.containers{app}" },
    reason: "Unhealthy",
    type: "Warning",
    source: {},
    reportingComponent: "kubelet",
  };
  const fields = selectableFields("events", event);
  assert.equal(fields.source, "kubelet");
  assert.equal(fields["involvedObject.fieldPath"], "spec.containers{app}");
  assert.equal(fields["involvedObject.resourceVersion"], "");
  assert.equal(selectableFields("events", { ...event, source: { component: "probelet" } }).source, "probelet");
});

test("selectable fields: namespaces, nodes, configmaps and secrets expose their registry fields", () => {
  assert.deepEqual(selectableFields("namespaces", { metadata: { name: "default" }, status: { phase: "Active" } }), {
    "metadata.name": "default", "status.phase": "Active", name: "default",
  });
  assert.deepEqual(selectableFields("nodes", { metadata: { name: "n1" }, spec: { unschedulable: true } }), { "metadata.name": "n1", "spec.unschedulable": "true" });
  assert.deepEqual(selectableFields("nodes", { metadata: { name: "n1" } }), { "metadata.name": "n1", "spec.unschedulable": "false" });
  assert.deepEqual(selectableFields("configmaps", { metadata: { name: "c", namespace: "ns" } }), { "metadata.name": "c", "metadata.namespace": "ns" });
  assert.equal(selectableFields("secrets", { metadata: { name: "s" }, type: "Opaque" }).type, "Opaque");
});

// The accepted labels and messages of pkg/apis/core/v1/conversion.go and runtime.DefaultMetaV1FieldSelectorConversion.
test("selectable fields: unsupported field labels are refused with each resource's 400 message", () => {
  const cases: [SelectableResource, string, string][] = [
    ["pods", "foo", "field label not supported: foo"],
    ["pods", "spec.containers", "field label not supported: spec.containers"],
    ["events", "message", "field label not supported: message"],
    ["namespaces", "name", "field label not supported: name"],
    ["namespaces", "metadata.namespace", "field label not supported: metadata.namespace"],
    ["nodes", "status.phase", "field label not supported: status.phase"],
    ["secrets", "data", "field label not supported: data"],
    ["configmaps", "data", '"data" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ];
  for (const [resource, label, message] of cases) {
    assert.throws(
      () => checkFieldSelector(resource, parseFieldSelector(`${label}=x`)),
      (err: unknown) => err instanceof SelectorError && err.message === message,
      `${resource} ${label}`,
    );
  }
});

test("selectable fields: every accepted label passes the check", () => {
  const accepted: [SelectableResource, string][] = [
    ["pods", "status.podIPs"], ["pods", "spec.hostNetwork"], ["pods", "status.nominatedNodeName"],
    ["events", "involvedObject.uid"], ["events", "reportingComponent"], ["namespaces", "status.phase"],
    ["nodes", "spec.unschedulable"], ["configmaps", "metadata.namespace"], ["secrets", "type"],
  ];
  for (const [resource, label] of accepted) assert.equal(checkFieldSelector(resource, parseFieldSelector(`${label}=x`)).toString(), `${label}=x`);
});

test("selectable fields: the legacy pod label spec.host selects by spec.nodeName", () => {
  const selector = checkFieldSelector("pods", parseFieldSelector("spec.host=node-1"));
  assert.equal(selector.toString(), "spec.nodeName=node-1");
  assert.equal(selector.matches(selectableFields("pods", pod)), true);
});

test("selectable fields: status.podIPs is accepted but never equals an address (not in the pod field set)", () => {
  const selector = checkFieldSelector("pods", parseFieldSelector("status.podIPs=10.0.0.5"));
  assert.equal(selector.matches(selectableFields("pods", pod)), false);
});
