import assert from "node:assert/strict";
import { test } from "node:test";
import { resultString, toPrometheusType } from "./cached-result.js";
import { ResultsManager, type ResultUpdate } from "./results-manager.js";

const POD_UID = "pod-uid";

function recording(manager: ResultsManager): ResultUpdate[] {
  const updates: ResultUpdate[] = [];
  manager.subscribe((u) => updates.push(u), { initial: true });
  return updates;
}

test("[case 102] TestCacheOperations: unset → not found; set → found with its value; removed → not found", () => {
  const m = new ResultsManager();
  assert.equal(m.get("unset"), undefined);
  m.set("set", "Success", POD_UID);
  assert.equal(m.get("set"), "Success");
  m.remove("set");
  assert.equal(m.get("set"), undefined);
  assert.equal(m.size, 0);
});

test("[case 103] TestUpdates: a new or changed result publishes one update; the same value again publishes none", () => {
  const m = new ResultsManager();
  const updates = recording(m);
  assert.equal(m.set("foo", "Success", POD_UID), true);
  assert.deepEqual(updates.splice(0), [{ containerId: "foo", result: "Success", podUid: POD_UID, initial: false }]);
  assert.equal(m.set("bar", "Failure", POD_UID), true);
  assert.deepEqual(updates.splice(0), [{ containerId: "bar", result: "Failure", podUid: POD_UID, initial: false }]);
  assert.equal(m.set("foo", "Success", POD_UID), false);
  assert.equal(m.set("bar", "Failure", POD_UID), false);
  assert.deepEqual(updates, []);
  m.set("foo", "Failure", POD_UID);
  assert.deepEqual(updates.splice(0), [{ containerId: "foo", result: "Failure", podUid: POD_UID, initial: false }]);
  m.set("bar", "Success", POD_UID);
  assert.deepEqual(updates.splice(0), [{ containerId: "bar", result: "Success", podUid: POD_UID, initial: false }]);
});

test("[case 104] remove publishes nothing; setting the same value after a remove publishes it again", () => {
  const m = new ResultsManager();
  m.set("foo", "Success", POD_UID);
  const updates = recording(m);
  m.remove("foo");
  assert.deepEqual(updates, []);
  m.set("foo", "Success", POD_UID);
  assert.deepEqual(updates, [{ containerId: "foo", result: "Success", podUid: POD_UID, initial: false }]);
});

test("[case 105] ToPrometheusType: Success 0, Failure 1, Unknown -1; String(): Success, Failure, UNKNOWN", () => {
  assert.deepEqual((["Success", "Failure", "Unknown"] as const).map(toPrometheusType), [0, 1, -1]);
  assert.deepEqual((["Success", "Failure", "Unknown"] as const).map(resultString), ["Success", "Failure", "UNKNOWN"]);
});

test("initial values reach only the listeners that ask for them; probe results reach every listener", () => {
  const m = new ResultsManager();
  const all: ResultUpdate[] = [];
  const results: ResultUpdate[] = [];
  m.subscribe((u) => all.push(u), { initial: true });
  m.subscribe((u) => results.push(u));
  m.set("c1", "Failure", POD_UID, true);
  m.set("c1", "Success", POD_UID);
  assert.deepEqual(all.map((u) => `${u.result}${u.initial ? " (initial)" : ""}`), ["Failure (initial)", "Success"]);
  assert.deepEqual(results.map((u) => u.result), ["Success"]);
});
