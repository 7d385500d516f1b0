import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServedEvent } from "./event-printer.js";
import type { ServedNode } from "./node-printer.js";
import type { ServedPod } from "./pod-columns.js";
import { toTable } from "./to-table.js";

const NOW = Date.parse("2026-01-10T00:00:00Z");
const daysAgo = (d: number): string => new Date(NOW - d * 24 * 3600 * 1000).toISOString();

const web: ServedPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "12", creationTimestamp: daysAgo(2), labels: { app: "web" } },
  spec: { containers: [{ name: "app" }], nodeName: "node-1" },
  status: { phase: "Running", podIPs: [{ ip: "10.0.0.5" }], containerStatuses: [{ name: "app", ready: true, restartCount: 0, state: { running: {} } }] },
};

test("table: a pod list becomes a meta.k8s.io/v1 Table with printPod's nine columns", () => {
  const table = toTable("pods", [web], { includeObject: "Metadata", now: NOW, resourceVersion: "40" });
  assert.equal(table.kind, "Table");
  assert.equal(table.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(table.metadata, { resourceVersion: "40" });
  assert.deepEqual(
    table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ["Name", "string", "name", 0], ["Ready", "string", "", 0], ["Status", "string", "", 0], ["Restarts", "string", "", 0], ["Age", "string", "", 0],
      ["IP", "string", "", 1], ["Node", "string", "", 1], ["Nominated Node", "string", "", 1], ["Readiness Gates", "string", "", 1],
    ],
  );
  assert.deepEqual(table.rows[0]!.cells, ["web", "1/1", "Running", "0", "2d", "10.0.0.5", "node-1", "<none>", "<none>"]);
  assert.ok(table.columnDefinitions.every((c) => c.description.length > 0));
});

// endpoints/handlers/response.go asTable.
test("table: includeObject picks PartialObjectMetadata, the full object or null for each row", () => {
  const metadata = toTable("pods", [web], { includeObject: "Metadata", now: NOW }).rows[0]!.object;
  assert.deepEqual(metadata, { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: web.metadata });
  const full = toTable("pods", [web], { includeObject: "Object", now: NOW }).rows[0]!.object;
  assert.deepEqual(full, web);
  assert.equal(toTable("pods", [web], { includeObject: "None", now: NOW }).rows[0]!.object, null);
  const beta = toTable("pods", [web], { includeObject: "Metadata", now: NOW, version: "v1beta1" });
  assert.equal(beta.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal((beta.rows[0]!.object as { apiVersion: string }).apiVersion, "meta.k8s.io/v1beta1");
});

test("table: an empty list has columns and no rows, and list metadata is carried over", () => {
  const table = toTable("pods", [], { includeObject: "Metadata", now: NOW, resourceVersion: "7", continue: "tok", remainingItemCount: 3 });
  assert.deepEqual(table.rows, []);
  assert.equal(table.columnDefinitions.length, 9);
  assert.deepEqual(table.metadata, { resourceVersion: "7", continue: "tok", remainingItemCount: 3 });
  assert.equal(JSON.parse(JSON.stringify(table)).rows.length, 0);
});

test("table: finished pods carry printPod's Completed row condition", () => {
  const done: ServedPod = { ...web, status: { phase: "Succeeded" } };
  assert.deepEqual(toTable("pods", [done], { includeObject: "None", now: NOW }).rows[0]!.conditions, [
    { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
  ]);
  assert.equal(toTable("pods", [web], { includeObject: "None", now: NOW }).rows[0]!.conditions, undefined);
});

// After printers_test.go TestPrintEvent.
test("table: events print Last Seen, Type, Reason, Object, Message and the wide columns as printEvent", () => {
  const base: ServedEvent = {
    metadata: { name: "event1", namespace: "default" },
    involvedObject: { kind: "Deployment", name: "Deployment Name", fieldPath: "spec.containers{foo}" },
    reason: "Event Reason",
    message: " Message Data \n",
    type: "Normal",
    count: 6,
    firstTimestamp: daysAgo(3),
    lastTimestamp: daysAgo(2),
    source: { component: "kubelet", host: "Node1" },
  };
  const table = toTable("events", [
    base,
    { ...base, lastTimestamp: null, count: 0, source: {}, reportingComponent: "probelet", reportingInstance: "host-a" },
    { ...base, firstTimestamp: null, lastTimestamp: null, eventTime: daysAgo(1), series: { count: 4, lastObservedTime: daysAgo(0) }, involvedObject: { kind: "Node" } },
  ], { includeObject: "None", now: NOW });
  assert.deepEqual(table.columnDefinitions.map((c) => `${c.name}/${c.priority}`), [
    "Last Seen/0", "Type/0", "Reason/0", "Object/0", "Subobject/1", "Source/1", "Message/0", "First Seen/1", "Count/1", "Name/1",
  ]);
  assert.deepEqual(table.rows[0]!.cells, ["2d", "Normal", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 6, "event1"]);
  assert.deepEqual(table.rows[1]!.cells, ["3d", "Normal", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "probelet, host-a", "Message Data", "3d", 1, "event1"]);
  assert.deepEqual(table.rows[2]!.cells, ["0s", "Normal", "Event Reason", "node", "", "kubelet, Node1", "Message Data", "24h", 4, "event1"]);
});

// After printers_test.go TestPrintNodeStatus, TestPrintNodeRole, TestPrintNodeOSImage and friends.
test("table: nodes print Status from the Ready condition, sorted Roles and <unknown>/<none> wide cells", () => {
  const node = (name: string, extra: Partial<ServedNode> = {}): ServedNode => ({ metadata: { name, creationTimestamp: daysAgo(5) }, ...extra });
  const cases: [ServedNode, string][] = [
    [node("foo1", { status: { conditions: [{ type: "Ready", status: "True" }] } }), "Ready"],
    [node("foo2", { spec: { unschedulable: true }, status: { conditions: [{ type: "Ready", status: "True" }] } }), "Ready,SchedulingDisabled"],
    [node("foo4", { status: { conditions: [{ type: "Ready", status: "False" }] } }), "NotReady"],
    [node("foo5", { spec: { unschedulable: true }, status: { conditions: [{ type: "Ready", status: "False" }] } }), "NotReady,SchedulingDisabled"],
    [node("foo7"), "Unknown"],
    [node("foo8", { spec: { unschedulable: true } }), "Unknown,SchedulingDisabled"],
    [node("foo9", { status: { conditions: [{ type: "InvalidValue", status: "True" }] } }), "Unknown"],
  ];
  const table = toTable("nodes", cases.map(([n]) => n), { includeObject: "None", now: NOW });
  assert.deepEqual(table.rows.map((r) => r.cells[1]), cases.map(([, status]) => status));
  const roles = toTable("nodes", [
    { metadata: { name: "r", labels: { "node-role.kubernetes.io/proxy": "", "node-role.kubernetes.io/master": "", "kubernetes.io/role": "node", "node-role.kubernetes.io/": "" } } },
  ], { includeObject: "None", now: NOW }).rows[0]!.cells;
  assert.deepEqual(roles, ["r", "Unknown", "master,node,proxy", "<unknown>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]);
  const wide = toTable("nodes", [
    node("w", {
      status: {
        addresses: [{ type: "Hostname", address: "w" }, { type: "InternalIP", address: "10.1.1.1" }, { type: "ExternalIP", address: "1.2.3.4" }],
        nodeInfo: { kubeletVersion: "v1.32.3", osImage: "Debian GNU/Linux 13", kernelVersion: "6.12.0", containerRuntimeVersion: "containerd://2.0.0" },
      },
    }),
  ], { includeObject: "None", now: NOW }).rows[0]!.cells;
  assert.deepEqual(wide, ["w", "Unknown", "<none>", "5d", "v1.32.3", "10.1.1.1", "1.2.3.4", "Debian GNU/Linux 13", "6.12.0", "containerd://2.0.0"]);
});

// After printers_test.go TestPrintNamespace, TestPrintConfigMap, TestPrintSecret.
test("table: namespaces, configmaps and secrets print their metadata columns with integer Data counts", () => {
  assert.deepEqual(toTable("namespaces", [{ metadata: { name: "default", creationTimestamp: daysAgo(1) }, status: { phase: "Active" } }], { includeObject: "None", now: NOW }).rows[0]!.cells, ["default", "Active", "24h"]);
  const cm = toTable("configmaps", [{ metadata: { name: "cfg", creationTimestamp: daysAgo(10) }, data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }], { includeObject: "None", now: NOW });
  assert.deepEqual(cm.columnDefinitions.map((c) => c.name), ["Name", "Data", "Age"]);
  assert.deepEqual(cm.rows[0]!.cells, ["cfg", 3, "10d"]);
  const secret = toTable("secrets", [{ metadata: { name: "s" }, type: "Opaque", data: { token: "c2VjcmV0" } }], { includeObject: "Metadata", now: NOW });
  assert.deepEqual(secret.columnDefinitions.map((c) => c.name), ["Name", "Type", "Data", "Age"]);
  assert.deepEqual(secret.rows[0]!.cells, ["s", "Opaque", 1, "<unknown>"]);
  assert.ok(!JSON.stringify(secret).includes("c2VjcmV0"), "the default row object carries metadata only, never the secret's data");
});
