// Table cases ported from k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go
// (createStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases: the two-way patch
// and the result of applying it to `current`), over the same mergeItem shape; plus the kubelet's
// status case from cluster-node.md item 5 and a seeded property test.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createTwoWayMergePatch } from "./strategic-merge-diff.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { POD_SCHEMA, POD_STATUS_SCHEMA, type TypeSchema } from "./patch-schema.js";
import { PatchError } from "./patch-error.js";
import type { JsonObject, JsonValue } from "./json-value.js";
import { seededRandom } from "../../util/seeded-random.js";

/** The mergeItem test type of patch_test.go: mergingList by name, mergingIntList merged, the rest replaced. */
const MERGE_ITEM: TypeSchema = {
  fields: {
    mergingList: { patchStrategy: "merge", patchMergeKey: "name", items: { fields: {} } },
    mergingIntList: { patchStrategy: "merge" },
    nonMergingIntList: {},
    simpleMap: { mapValues: {} },
  },
};

interface UpstreamCase {
  description: string;
  original: JsonObject;
  modified: JsonObject;
  twoWay: JsonObject;
  current: JsonObject;
  result: JsonObject;
}

const UPSTREAM_CASES: UpstreamCase[] = [
  { description: "nil patch", original: { name: 1 }, modified: { name: 1 }, twoWay: {}, current: { name: 1 }, result: { name: 1 } },
  { description: "add field to map", original: { name: 1 }, modified: { name: 1, value: 1 }, twoWay: { value: 1 },
    current: { name: 1, other: "a" }, result: { name: 1, value: 1, other: "a" } },
  { description: "add field and delete field from map", original: { name: 1 }, modified: { value: 1 }, twoWay: { name: null, value: 1 },
    current: { name: 1, other: "a" }, result: { value: 1, other: "a" } },
  { description: "delete field from nested map", original: { simpleMap: { key1: 1, key2: 1 } }, modified: { simpleMap: { key1: 1 } },
    twoWay: { simpleMap: { key2: null } }, current: { simpleMap: { key1: 1, key2: 1, other: "a" } }, result: { simpleMap: { key1: 1, other: "a" } } },
  { description: "delete all fields from map", original: { name: 1, value: 1 }, modified: {}, twoWay: { name: null, value: null },
    current: { name: 1, value: 1, other: "a" }, result: { other: "a" } },
  { description: "replace list of scalars", original: { nonMergingIntList: [1, 2] }, modified: { nonMergingIntList: [2, 3] },
    twoWay: { nonMergingIntList: [2, 3] }, current: { nonMergingIntList: [1, 2] }, result: { nonMergingIntList: [2, 3] } },
  { description: "delete all maps from merging list", original: { mergingList: [{ name: 1 }, { name: 2 }] }, modified: { mergingList: [] },
    twoWay: { mergingList: [{ name: 1, $patch: "delete" }, { name: 2, $patch: "delete" }] },
    current: { mergingList: [{ name: 1, other: "a" }, { name: 2, other: "b" }] }, result: { mergingList: [] } },
  { description: "merge empty merging lists", original: { mergingList: [] }, modified: { mergingList: [] }, twoWay: {},
    current: { mergingList: [] }, result: { mergingList: [] } },
  { description: "delete items in lists of scalars", original: { mergingIntList: [1, 2, 3] }, modified: { mergingIntList: [1, 2] },
    twoWay: { "$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3] },
    current: { mergingIntList: [1, 2, 3, 4] }, result: { mergingIntList: [1, 2, 4] } },
  { description: "add and delete items in lists of scalars", original: { mergingIntList: [1, 2, 3] }, modified: { mergingIntList: [1, 2, 4] },
    twoWay: { "$setElementOrder/mergingIntList": [1, 2, 4], "$deleteFromPrimitiveList/mergingIntList": [3], mergingIntList: [4] },
    current: { mergingIntList: [1, 2, 3, 4] }, result: { mergingIntList: [1, 2, 4] } },
  { description: "merge lists of maps", original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 4, value: 4 }, { name: 1 }, { name: 2, value: 2 }, { name: 3, value: 3 }] },
    twoWay: { "$setElementOrder/mergingList": [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }] },
    current: { mergingList: [{ name: 1, other: "a" }, { name: 2, value: 2, other: "b" }] },
    result: { mergingList: [{ name: 4, value: 4 }, { name: 1, other: "a" }, { name: 2, value: 2, other: "b" }, { name: 3, value: 3 }] } },
  { description: "add field to map in merging list", original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 1, value: 1 }, { name: 2, value: 2 }] },
    twoWay: { "$setElementOrder/mergingList": [{ name: 1 }, { name: 2 }], mergingList: [{ name: 1, value: 1 }] },
    current: { mergingList: [{ name: 1, other: "a" }, { name: 2, value: 2, other: "b" }] },
    result: { mergingList: [{ name: 1, value: 1, other: "a" }, { name: 2, value: 2, other: "b" }] } },
];

test("createTwoWayMergePatch and applyStrategicMergePatch match patch_test.go's table cases", () => {
  for (const c of UPSTREAM_CASES) {
    assert.deepEqual(createTwoWayMergePatch(c.original, c.modified, MERGE_ITEM), c.twoWay, `${c.description}: two-way patch`);
    assert.deepEqual(applyStrategicMergePatch(c.current, c.twoWay, MERGE_ITEM), c.result, `${c.description}: result`);
  }
});

test("createTwoWayMergePatch builds the kubelet's status patch: nulls for fields that went away and $setElementOrder/conditions", () => {
  const apiServerStatus = {
    phase: "Running",
    conditions: [
      { type: "Initialized", status: "True", lastTransitionTime: "t0" },
      { type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]", lastTransitionTime: "t0" },
      { type: "example.com/gate", status: "True", lastTransitionTime: "t0" },
    ],
    containerStatuses: [{ name: "app", ready: false, restartCount: 0 }],
  };
  const kubeletStatus = {
    phase: "Running",
    conditions: [
      { type: "Initialized", status: "True", lastTransitionTime: "t0" },
      { type: "Ready", status: "True", lastTransitionTime: "t1" },
      { type: "example.com/gate", status: "True", lastTransitionTime: "t0" },
    ],
    containerStatuses: [{ name: "app", ready: true, restartCount: 0 }],
  };
  const patch = createTwoWayMergePatch({ status: apiServerStatus }, { status: kubeletStatus }, POD_SCHEMA);
  assert.deepEqual(patch, {
    status: {
      "$setElementOrder/conditions": [{ type: "Initialized" }, { type: "Ready" }, { type: "example.com/gate" }],
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: "t1", reason: null, message: null }],
      containerStatuses: [{ name: "app", ready: true, restartCount: 0 }],
    },
  });
  assert.deepEqual(applyStrategicMergePatch({ status: apiServerStatus }, patch, POD_SCHEMA), { status: kubeletStatus });
});

test("createTwoWayMergePatch sends $setElementOrder alone when only the order of a merge list changed", () => {
  const original = { conditions: [{ type: "A" }, { type: "B" }] };
  const modified = { conditions: [{ type: "B" }, { type: "A" }] };
  const patch = createTwoWayMergePatch(original, modified, POD_STATUS_SCHEMA);
  assert.deepEqual(patch, { "$setElementOrder/conditions": [{ type: "B" }, { type: "A" }] });
  assert.deepEqual(applyStrategicMergePatch(original, patch, POD_STATUS_SCHEMA), modified);
});

test("createTwoWayMergePatch refuses lists of lists in a merge list with 422", () => {
  assert.throws(() => createTwoWayMergePatch({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }, MERGE_ITEM),
    (error: unknown) => error instanceof PatchError && error.code === 422 && error.message === "lists of lists are not supported");
});

function generatePod(random: () => number): JsonObject {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const maybe = (chance: number): boolean => random() < chance;
  const subset = <T>(values: readonly T[]): T[] => values.filter(() => maybe(0.5)).sort(() => random() - 0.5);
  const scalar = (): JsonValue => pick(["x", "y", 1, 2, true, false]);
  const pod: JsonObject = { metadata: { name: "p" } };
  const metadata = pod["metadata"] as JsonObject;
  if (maybe(0.7)) metadata["labels"] = Object.fromEntries(subset(["a", "b", "c"]).map((key) => [key, pick(["1", "2"])]));
  if (maybe(0.6)) metadata["finalizers"] = subset(["f1", "f2", "f3", "f4"]);
  if (maybe(0.3)) metadata["extra"] = { nested: { value: scalar() } };
  const spec: JsonObject = {};
  if (maybe(0.9)) {
    spec["containers"] = subset(["c1", "c2", "c3"]).map((name) => {
      const container: JsonObject = { name, image: pick(["i:1", "i:2"]) };
      if (maybe(0.6)) container["env"] = subset(["A", "B", "C"]).map((env) => (maybe(0.5) ? { name: env, value: pick(["1", "2"]) } : { name: env }));
      if (maybe(0.5)) container["ports"] = subset([80, 443, 8080]).map((port) => ({ containerPort: port, protocol: pick(["TCP", "UDP"]) }));
      if (maybe(0.5)) container["command"] = subset(["sh", "-c", "run"]);
      if (maybe(0.3)) container["readinessProbe"] = { periodSeconds: pick([1, 5]), httpGet: { path: pick(["/a", "/b"]) } };
      return container;
    });
  }
  if (maybe(0.4)) spec["tolerations"] = subset(["t1", "t2"]).map((key) => ({ key }));
  if (maybe(0.4)) spec["volumes"] = subset(["v1", "v2"]).map((name) => (maybe(0.5) ? { name, emptyDir: {} } : { name, hostPath: { path: pick(["/a", "/b"]) } }));
  pod["spec"] = spec;
  if (maybe(0.8)) {
    const status: JsonObject = { phase: pick(["Pending", "Running"]) };
    status["conditions"] = subset(["Ready", "Initialized", "ContainersReady", "gate"]).map((type) => {
      const condition: JsonObject = { type, status: pick(["True", "False"]) };
      if (maybe(0.5)) condition["reason"] = pick(["ContainersNotReady", "PodCompleted"]);
      return condition;
    });
    if (maybe(0.5)) status["containerStatuses"] = subset(["c1", "c2"]).map((name) => ({ name, ready: maybe(0.5) }));
    if (maybe(0.5)) status["podIPs"] = subset(["10.0.0.1", "10.0.0.2"]).map((ip) => ({ ip }));
    pod["status"] = status;
  }
  return pod;
}

test("applying createTwoWayMergePatch(original, modified) to original gives modified, for 600 seeded random pod pairs", () => {
  const random = seededRandom(20261125);
  for (let round = 0; round < 600; round++) {
    const original = generatePod(random);
    const modified = generatePod(random);
    const patch = createTwoWayMergePatch(original, modified, POD_SCHEMA);
    const result = applyStrategicMergePatch(original, patch, POD_SCHEMA);
    assert.deepEqual(result, modified, `round ${round}: patch ${JSON.stringify(patch)}`);
  }
});
