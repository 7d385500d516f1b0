// Every patch function answers hostile or nonsensical input with a PatchError (a 4xx/5xx the API
// server would send), never with a TypeError or a stack overflow: seeded random inputs built from
// the directive keys, merge keys and shapes the functions look at.

import { test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch } from "./json-patch.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { createTwoWayMergePatch } from "./strategic-merge-diff.js";
import { recordUpdate, serverSideApply } from "./server-side-apply.js";
import { POD_SCHEMA } from "./patch-schema.js";
import { PatchError } from "./patch-error.js";
import type { JsonObject, JsonValue } from "./json-value.js";
import { seededRandom } from "../../util/seeded-random.js";

const KEYS = ["metadata", "spec", "status", "containers", "conditions", "finalizers", "labels", "name", "type", "image", "env", "ports",
  "containerPort", "protocol", "volumes", "$patch", "$retainKeys", "$setElementOrder/containers", "$setElementOrder/conditions",
  "$deleteFromPrimitiveList/finalizers", "$deleteFromPrimitiveList", "$setElementOrder", "__proto__", "constructor", "apiVersion", "kind",
  "managedFields", "op", "path", "from", "value"];
const SCALARS: JsonValue[] = [null, true, false, 0, 1, -1, "", "x", "replace", "delete", "merge", "add", "remove", "copy", "move", "test",
  "/spec", "/spec/containers/0", "/spec/containers/-", "/metadata/labels/a", "/x/y", "v1", "Pod"];

function randomValue(random: () => number, depth: number): JsonValue {
  const roll = random();
  if (depth > 5 || roll < 0.4) return SCALARS[Math.floor(random() * SCALARS.length)]!;
  if (roll < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  const object: JsonObject = {};
  const size = Math.floor(random() * 5);
  for (let index = 0; index < size; index++) {
    Object.defineProperty(object, KEYS[Math.floor(random() * KEYS.length)]!, {
      value: randomValue(random, depth + 1), enumerable: true, writable: true, configurable: true,
    });
  }
  return object;
}

function onlyPatchErrors(label: string, action: () => unknown): void {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof PatchError, `${label}: ${(error as Error).stack ?? String(error)}`);
  }
}

const NOW = new Date("2026-11-25T00:00:00Z");

test("every patch function answers 500 seeded random inputs with a result or a PatchError", () => {
  const random = seededRandom(1125);
  for (let round = 0; round < 500; round++) {
    const doc = randomValue(random, 0);
    const patch = randomValue(random, 0);
    const label = `round ${round}: ${JSON.stringify({ doc, patch })}`;
    onlyPatchErrors(label, () => applyJsonPatch(doc, Array.isArray(patch) ? patch : [patch]));
    onlyPatchErrors(label, () => applyMergePatch(doc, patch));
    onlyPatchErrors(label, () => applyStrategicMergePatch(doc, patch, POD_SCHEMA));
    onlyPatchErrors(label, () => createTwoWayMergePatch(doc, patch, POD_SCHEMA));
    const applied = { apiVersion: "v1", kind: "Pod", ...(typeof patch === "object" && patch !== null && !Array.isArray(patch) ? patch : {}) };
    const live = typeof doc === "object" && doc !== null && !Array.isArray(doc) ? doc : undefined;
    onlyPatchErrors(label, () => serverSideApply(live, applied, { manager: "m", now: NOW }));
    onlyPatchErrors(label, () => recordUpdate(live, applied, "m", NOW));
  }
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});
