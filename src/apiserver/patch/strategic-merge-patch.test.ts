// Cases modelled on k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go's table
// (mergeItemTestCases / createStrategicMergePatch cases): "Add to a merging list", "Delete an item
// from a merging list", "$patch: replace in a list", "$patch: delete a map", "Delete from a
// primitive list", "$setElementOrder", "$retainKeys", "Lists of lists are not supported"; the
// table at the end ports customStrategicMergePatchTestCaseData (apply-only cases) verbatim.

import { test } from "node:test";
import assert from "node:assert/strict";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { POD_SCHEMA, POD_STATUS_SCHEMA, type TypeSchema } from "./patch-schema.js";
import { PatchError } from "./patch-error.js";
import type { JsonValue } from "./json-value.js";

function rejects(doc: JsonValue, patch: JsonValue, code: number, message: string): void {
  assert.throws(() => applyStrategicMergePatch(doc, patch, POD_SCHEMA), (error: unknown) => {
    assert.ok(error instanceof PatchError);
    assert.equal(error.message, message);
    assert.equal(error.code, code);
    return true;
  });
}

const pod = {
  metadata: { name: "web", labels: { app: "a", tier: "t" }, finalizers: ["x", "y"] },
  spec: {
    containers: [
      { name: "app", image: "app:1", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }], command: ["a", "b"] },
      { name: "side", image: "side:1" },
    ],
    tolerations: [{ key: "k1" }, { key: "k2" }],
  },
};

test("strategic merge patch merges containers by name and keeps the untouched ones", () => {
  const result = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "app", image: "app:2" }] } }, POD_SCHEMA);
  assert.deepEqual(result["spec"], { ...pod.spec, containers: [{ ...pod.spec.containers[0]!, image: "app:2" }, pod.spec.containers[1]!] });
  assert.equal(pod.spec.containers[0]!.image, "app:1", "the input is not changed");
});

test("strategic merge patch adds a new merging-list item before server-only items when no order is given", () => {
  // mergeSortedSlice: a patch item the live list lacks cannot be compared, so it goes first.
  const result = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "new", image: "n" }] } }, POD_SCHEMA) as { spec: { containers: { name: string }[] } };
  assert.deepEqual(result.spec.containers.map((c) => c.name), ["new", "app", "side"]);
  const ordered = applyStrategicMergePatch(pod, {
    spec: { "$setElementOrder/containers": [{ name: "app" }, { name: "side" }, { name: "new" }], containers: [{ name: "new", image: "n" }] },
  }, POD_SCHEMA) as { spec: { containers: { name: string }[] } };
  assert.deepEqual(ordered.spec.containers.map((c) => c.name), ["app", "side", "new"]);
});

test("strategic merge patch merges a nested merging list (env by name) inside a merged item", () => {
  const result = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "app", env: [{ name: "B", value: "3" }, { name: "C", value: "4" }] }] } }, POD_SCHEMA) as {
    spec: { containers: { env: unknown }[] };
  };
  assert.deepEqual(result.spec.containers[0]!.env, [{ name: "A", value: "1" }, { name: "B", value: "3" }, { name: "C", value: "4" }]);
});

test("strategic merge patch replaces lists without a merge strategy (tolerations, command)", () => {
  const result = applyStrategicMergePatch(pod, { spec: { tolerations: [{ key: "k3" }], containers: [{ name: "app", command: ["c"] }] } }, POD_SCHEMA) as {
    spec: { tolerations: unknown; containers: { command: unknown }[] };
  };
  assert.deepEqual(result.spec.tolerations, [{ key: "k3" }]);
  assert.deepEqual(result.spec.containers[0]!.command, ["c"]);
});

test("strategic merge patch $patch: delete removes a list item by merge key", () => {
  const result = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "side", $patch: "delete" }] } }, POD_SCHEMA) as { spec: { containers: { name: string }[] } };
  assert.deepEqual(result.spec.containers.map((c) => c.name), ["app"]);
});

test("strategic merge patch $patch: replace in a list replaces the whole list", () => {
  const result = applyStrategicMergePatch(pod, { spec: { containers: [{ $patch: "replace" }, { name: "only", image: "o" }] } }, POD_SCHEMA) as { spec: { containers: unknown } };
  assert.deepEqual(result.spec.containers, [{ name: "only", image: "o" }]);
});

test("strategic merge patch $patch: replace on a map replaces the map and $patch: delete empties it", () => {
  const replaced = applyStrategicMergePatch(pod, { metadata: { labels: { $patch: "replace", only: "1" } } }, POD_SCHEMA) as { metadata: { labels: unknown } };
  assert.deepEqual(replaced.metadata.labels, { only: "1" });
  const deleted = applyStrategicMergePatch(pod, { metadata: { labels: { $patch: "delete" } } }, POD_SCHEMA) as { metadata: { labels: unknown } };
  assert.deepEqual(deleted.metadata.labels, {});
});

test("strategic merge patch null deletes a map key", () => {
  const result = applyStrategicMergePatch(pod, { metadata: { labels: { tier: null, missing: null } } }, POD_SCHEMA) as { metadata: { labels: unknown } };
  assert.deepEqual(result.metadata.labels, { app: "a" });
});

test("strategic merge patch merges primitive merge lists as a set and $deleteFromPrimitiveList removes values", () => {
  const added = applyStrategicMergePatch(pod, { metadata: { finalizers: ["y", "z"] } }, POD_SCHEMA) as { metadata: { finalizers: unknown } };
  assert.deepEqual(added.metadata.finalizers, ["x", "y", "z"]);
  const removed = applyStrategicMergePatch(pod, { metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] } }, POD_SCHEMA) as { metadata: { finalizers: unknown } };
  assert.deepEqual(removed.metadata.finalizers, ["y"]);
});

test("strategic merge patch $setElementOrder orders the merged list and interleaves server-only items by live order", () => {
  const status = { conditions: [{ type: "A", status: "True" }, { type: "Server", status: "True" }, { type: "B", status: "False" }] };
  const patch = { "$setElementOrder/conditions": [{ type: "B" }, { type: "A" }], conditions: [{ type: "B", status: "True" }] };
  const result = applyStrategicMergePatch(status, patch, POD_STATUS_SCHEMA) as { conditions: unknown };
  // Server (live index 1) sorts before B (live index 2); A follows B as the order list says.
  assert.deepEqual(result.conditions, [{ type: "Server", status: "True" }, { type: "B", status: "True" }, { type: "A", status: "True" }]);
});

test("strategic merge patch refuses a patch list whose order contradicts $setElementOrder (patch_test.go)", () => {
  const doc = { metadata: { finalizers: ["1", "3", "2"] } };
  const patch = { metadata: { "$setElementOrder/finalizers": ["1", "2", "3"], finalizers: ["3", "1"] } };
  assert.throws(() => applyStrategicMergePatch(doc, patch, POD_SCHEMA), /doesn't match \$setElementOrder list/);
});

test("strategic merge patch $retainKeys clears live keys the list does not name", () => {
  const withVolume = { spec: { volumes: [{ name: "v", emptyDir: {}, extra: 1 }] } };
  const patch = { spec: { volumes: [{ name: "v", $retainKeys: ["name", "hostPath"], hostPath: { path: "/x" } }] } };
  const result = applyStrategicMergePatch(withVolume, patch, POD_SCHEMA) as { spec: { volumes: unknown } };
  assert.deepEqual(result.spec.volumes, [{ name: "v", hostPath: { path: "/x" } }]);
  rejects(withVolume, { spec: { volumes: [{ name: "v", $retainKeys: ["name"], hostPath: {} }] } }, 400, "invalid patch format of retainKeys");
  rejects(withVolume, { spec: { volumes: [{ name: "v", $retainKeys: "name" }] } }, 400, "invalid patch format of retainKeys");
});

test("strategic merge patch answers the API server's errors for malformed directives and lists", () => {
  rejects(pod, { spec: { containers: [{ image: "no-name" }] } }, 500, "map: map[image:no-name] does not contain declared merge key: name");
  rejects(pod, { spec: { containers: [{ $patch: "merge" }] } }, 500, "merging lists cannot yet be specified in the patch");
  rejects(pod, { metadata: { labels: { $patch: "bogus" } } }, 500, "unknown patch type: bogus in map: map[$patch:bogus]");
  rejects(pod, { metadata: { "$deleteFromPrimitiveList/finalizers": "x" } }, 400, "invalid patch format of primitive list");
  rejects({ metadata: { finalizers: [] } }, { metadata: { finalizers: [["x"]] } }, 422, "lists of lists are not supported");
  rejects(pod, { metadata: { finalizers: [["x"]] } }, 500, "list element types are not identical: [[x y] [[x]]]");
  rejects(pod, ["not", "a", "map"], 400, "json: cannot unmarshal array into Go value of type map[string]interface {}");
});

test("strategic merge patch stores __proto__ as data", () => {
  const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as JsonValue;
  const result = applyStrategicMergePatch(pod, patch, POD_SCHEMA) as { metadata: { labels: object } };
  assert.equal(Object.getPrototypeOf(result.metadata.labels), Object.prototype);
  assert.ok(Object.keys(result.metadata.labels).includes("__proto__"));
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

test("strategic merge patch refuses nesting deeper than 100 levels with a 400", () => {
  let deep: JsonValue = "x";
  for (let level = 0; level < 120; level++) deep = { a: deep };
  rejects({ a: {} }, { a: deep }, 400, "the patch or object is nested deeper than 100 levels");
});

/** The MergeItem test type of patch_test.go, as patch metadata. */
const MERGE_ITEM: TypeSchema = (() => {
  const mergingList: TypeSchema = { patchStrategy: "merge", patchMergeKey: "name", items: { fields: {} } };
  const retainKeysItem: TypeSchema = { fields: { simpleMap: { mapValues: {} }, mergingIntList: { patchStrategy: "merge" }, mergingList } };
  return {
    fields: {
      mergingList,
      mergingIntList: { patchStrategy: "merge" },
      simpleMap: { mapValues: {} },
      retainKeysMap: { patchStrategy: "retainKeys", ...retainKeysItem },
      retainKeysMergingList: { patchStrategy: "merge,retainKeys", patchMergeKey: "name", items: { fields: {} } },
    },
  };
})();

// customStrategicMergePatchTestCaseData and customStrategicMergePatchRawTestCases of patch_test.go:
// patches CreateTwoWayMergePatch would not generate, applied to `original`.
const CUSTOM_CASES: [string, JsonValue, JsonValue, JsonValue][] = [
  ["unique scalars when merging lists", { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
  ["delete map from nested map", { simpleMap: { key1: 1, key2: 1 } }, { simpleMap: { $patch: "delete" } }, { simpleMap: {} }],
  ["delete all items from merging list", { mergingList: [{ name: 1 }, { name: 2 }] }, { mergingList: [{ $patch: "replace" }] }, { mergingList: [] }],
  ["merge empty merging lists", { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
  ["delete all keys from map", { name: 1, value: 1 }, { $patch: "replace" }, {}],
  ["add key and delete all keys from map", { name: 1, value: 1 }, { other: "a", $patch: "replace" }, { other: "a" }],
  ["retainKeys map can add a field when no retainKeys directive present", { retainKeysMap: { name: "foo" } }, { retainKeysMap: { value: "bar" } },
    { retainKeysMap: { name: "foo", value: "bar" } }],
  ["retainKeys map can delete a field when no retainKeys directive present", { retainKeysMap: { name: "foo", value: "a" } }, { retainKeysMap: { value: null } },
    { retainKeysMap: { name: "foo" } }],
  ["retainKeys map merge an empty map", { retainKeysMap: { name: "foo", value: "a" } }, { retainKeysMap: {} }, { retainKeysMap: { name: "foo", value: "a" } }],
  ["retainKeys list can change a field when no retainKeys directive present", { retainKeysMergingList: [{ name: "bar" }, { name: "foo", value: "a" }] },
    { retainKeysMergingList: [{ name: "foo", value: "b" }] }, { retainKeysMergingList: [{ name: "bar" }, { name: "foo", value: "b" }] }],
  ["preserve the order from the patch in a merging list", { mergingList: [{ name: 1 }, { name: 2, value: "b" }, { name: 3 }] },
    { mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }, { name: 2, other: "x" }] },
    { mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }, { name: 2, value: "b", other: "x" }] }],
  ["preserve the order from the patch in a merging list 2", { mergingList: [{ name: 1 }, { name: 2, value: "b" }, { name: 3 }] },
    { mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }] },
    { mergingList: [{ name: 2, value: "b" }, { name: 3, value: "c" }, { name: 1, value: "a" }] }],
  ["preserve the order from the patch in a merging int list", { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }, { mergingIntList: [3, 1, 2] }],
  ["preserve the order from the patch in a merging int list 2", { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
  ["$setElementOrder contains item that is not present in the list to be merged", { mergingList: [{ name: 1 }, { name: 3 }] },
    { "$setElementOrder/mergingList": [{ name: 3 }, { name: 2 }, { name: 1 }], mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] },
    { mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] }],
  ["$setElementOrder contains item that is not present in the int list to be merged", { mergingIntList: [1, 3] },
    { "$setElementOrder/mergingIntList": [3, 2, 1] }, { mergingIntList: [3, 1] }],
];

test("applyStrategicMergePatch matches patch_test.go's custom apply cases", () => {
  for (const [description, original, patch, expected] of CUSTOM_CASES) {
    assert.deepEqual(applyStrategicMergePatch(original, patch, MERGE_ITEM), expected, description);
  }
});
