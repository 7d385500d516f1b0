import { test } from "node:test";
import assert from "node:assert/strict";
import { ApplyConflictError, recordUpdate, serverSideApply } from "./server-side-apply.js";
import { PatchError } from "./patch-error.js";
import type { JsonObject, JsonValue } from "./json-value.js";

const T0 = new Date("2026-11-25T10:00:00.123Z");
const T1 = new Date("2026-11-25T11:00:00Z");

function podConfig(image: string, labels: Record<string, string> = { app: "web" }): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", labels },
    spec: { containers: [{ name: "app", image }] },
  };
}

function managedFields(object: JsonObject): JsonObject[] {
  return (object["metadata"] as JsonObject)["managedFields"] as JsonObject[];
}

function entry(object: JsonObject, manager: string): JsonObject | undefined {
  return managedFields(object).find((candidate) => candidate["manager"] === manager);
}

test("serverSideApply creates an absent object and records the manager's Apply entry in FieldsV1 form", () => {
  const { object, created } = serverSideApply(undefined, podConfig("nginx:1"), { manager: "kubectl", now: T0 });
  assert.equal(created, true);
  assert.deepEqual((object["spec"] as JsonObject)["containers"], [{ name: "app", image: "nginx:1" }]);
  assert.deepEqual(managedFields(object), [{
    manager: "kubectl",
    operation: "Apply",
    apiVersion: "v1",
    time: "2026-11-25T10:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": { "f:containers": { 'k:{"name":"app"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    },
  }]);
});

test("serverSideApply answers 409 with the API server's message and FieldManagerConflict cause when another manager owns a changed field", () => {
  const live = recordUpdate(undefined, podConfig("nginx:1"), "kubectl-client-side-apply", T0);
  assert.throws(() => serverSideApply(live, podConfig("nginx:2"), { manager: "kubectl", now: T1 }), (error: unknown) => {
    assert.ok(error instanceof ApplyConflictError);
    assert.ok(error instanceof PatchError);
    assert.equal(error.code, 409);
    assert.equal(error.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .spec.containers[name="app"].image');
    assert.deepEqual(error.causes, [{
      type: "FieldManagerConflict",
      message: 'conflict with "kubectl-client-side-apply" using v1',
      field: '.spec.containers[name="app"].image',
    }]);
    return true;
  });
});

test("serverSideApply lists several conflicts grouped by manager", () => {
  const live = recordUpdate(undefined, podConfig("nginx:1", { app: "web", tier: "a" }), "editor", T0);
  assert.throws(() => serverSideApply(live, podConfig("nginx:2", { app: "other", tier: "a" }), { manager: "kubectl", now: T1 }), (error: unknown) => {
    assert.ok(error instanceof ApplyConflictError);
    assert.equal(error.message, 'Apply failed with 2 conflicts: conflicts with "editor" using v1:\n- .metadata.labels.app\n- .spec.containers[name="app"].image');
    assert.equal(error.causes.length, 2);
    return true;
  });
});

test("serverSideApply shares ownership when the applied value equals the live one", () => {
  const live = recordUpdate(undefined, podConfig("nginx:1"), "kubectl-client-side-apply", T0);
  const { object, created } = serverSideApply(live, podConfig("nginx:1"), { manager: "kubectl", now: T1 });
  assert.equal(created, false);
  const image = (fields: JsonObject | undefined): JsonValue | undefined =>
    ((((fields?.["fieldsV1"] as JsonObject)["f:spec"] as JsonObject)["f:containers"] as JsonObject)['k:{"name":"app"}'] as JsonObject)["f:image"];
  assert.deepEqual(image(entry(object, "kubectl")), {});
  assert.deepEqual(image(entry(object, "kubectl-client-side-apply")), {});
});

test("serverSideApply with force takes the conflicting field from the other manager", () => {
  const live = recordUpdate(undefined, podConfig("nginx:1"), "kubectl-client-side-apply", T0);
  const { object } = serverSideApply(live, podConfig("nginx:2"), { manager: "kubectl", force: true, now: T1 });
  assert.equal(((object["spec"] as JsonObject)["containers"] as JsonObject[])[0]!["image"], "nginx:2");
  const other = JSON.stringify(entry(object, "kubectl-client-side-apply")?.["fieldsV1"]);
  assert.ok(!other.includes("f:image"), other);
  assert.ok(other.includes("f:name"), "the other manager keeps the fields that did not conflict");
});

test("serverSideApply removes fields the manager stops applying unless another manager owns them", () => {
  const first = serverSideApply(undefined, podConfig("nginx:1", { app: "web", tier: "a", team: "x" }), { manager: "kubectl", now: T0 }).object;
  const shared = recordUpdate(first, { ...first, metadata: { ...(first["metadata"] as JsonObject), labels: { app: "web", tier: "a", team: "y" } } }, "editor", T0);
  const { object } = serverSideApply(shared, podConfig("nginx:1", { app: "web" }), { manager: "kubectl", now: T1 });
  assert.deepEqual((object["metadata"] as JsonObject)["labels"], { app: "web", team: "y" });
});

test("serverSideApply gives a pre-existing object's fields to before-first-apply", () => {
  const live = podConfig("nginx:1");
  assert.throws(() => serverSideApply(live, podConfig("nginx:2"), { manager: "kubectl", now: T1 }),
    /conflict with "before-first-apply" using v1: \.spec\.containers\[name="app"\]\.image/);
});

test("serverSideApply keys container ports by containerPort and the defaulted protocol", () => {
  const config = podConfig("nginx:1");
  ((config["spec"] as JsonObject)["containers"] as JsonObject[])[0]!["ports"] = [{ containerPort: 80 }];
  const { object } = serverSideApply(undefined, config, { manager: "kubectl", now: T0 });
  const fields = JSON.stringify(entry(object, "kubectl")?.["fieldsV1"]);
  assert.ok(fields.includes('"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}'), fields);
});

test("serverSideApply refuses bad apply configurations with the API server's 400s and 500s", () => {
  const cases: [JsonValue, number, RegExp][] = [
    [{ apiVersion: "v1", metadata: { name: "x" } }, 400, /^Object 'Kind' is missing in/],
    [{ kind: "Pod", metadata: { name: "x" } }, 400, /^Object 'apiVersion' is missing in/],
    [{ apiVersion: "v1", kind: "Pod", metadata: { name: "x", managedFields: [] } }, 400, /^metadata\.managedFields must be nil$/],
    [{ apiVersion: "v1", kind: "Pod", spec: { containers: [{ image: "x" }] } }, 500,
      /^\.spec\.containers: element 0: associative list with keys has an element that omits key field "name" \(and doesn't have default value\)$/],
  ];
  for (const [config, code, message] of cases) {
    assert.throws(() => serverSideApply(undefined, config, { manager: "kubectl", now: T0 }), (error: unknown) => {
      assert.ok(error instanceof PatchError);
      assert.equal(error.code, code);
      assert.match(error.message, message);
      return true;
    });
  }
  let deep: JsonValue = "x";
  for (let level = 0; level < 150; level++) deep = { a: deep };
  assert.throws(() => serverSideApply(undefined, { apiVersion: "v1", kind: "Pod", spec: deep }, { manager: "kubectl", now: T0 }),
    (error: unknown) => error instanceof PatchError && error.code === 400);
});

test("recordUpdate records an Update entry with '.' on newly added maps and lists, and takes fields from appliers", () => {
  const created = recordUpdate(undefined, podConfig("nginx:1"), "kubectl-create", T0);
  assert.deepEqual(managedFields(created), [{
    manager: "kubectl-create",
    operation: "Update",
    apiVersion: "v1",
    time: "2026-11-25T10:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: {
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
      "f:spec": { "f:containers": { ".": {}, 'k:{"name":"app"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    },
  }]);
  const applied = serverSideApply(undefined, podConfig("nginx:1"), { manager: "kubectl", now: T0 }).object;
  const edited = recordUpdate(applied, { ...podConfig("nginx:2"), metadata: applied["metadata"]! }, "kubectl-edit", T1);
  const names = managedFields(edited).map((candidate) => `${String(candidate["manager"])}/${String(candidate["operation"])}`);
  assert.deepEqual(names, ["kubectl/Apply", "kubectl-edit/Update"], "Apply entries sort before Update entries");
  assert.ok(!JSON.stringify(entry(edited, "kubectl")?.["fieldsV1"]).includes("f:image"));
  assert.ok(JSON.stringify(entry(edited, "kubectl-edit")?.["fieldsV1"]).includes("f:image"));
});

test("serverSideApply keeps __proto__ keys as data", () => {
  const config = JSON.parse('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"__proto__":"x"}}}') as JsonObject;
  const { object } = serverSideApply(undefined, config, { manager: "kubectl", now: T0 });
  const labels = (object["metadata"] as JsonObject)["labels"] as object;
  assert.equal(Object.getPrototypeOf(labels), Object.prototype);
  assert.deepEqual(Object.keys(labels), ["__proto__"]);
});

test("serverSideApply names another applier without an apiVersion in its conflict message", () => {
  const first = serverSideApply(undefined, podConfig("nginx:1"), { manager: "deployer", now: T0 }).object;
  assert.throws(() => serverSideApply(first, podConfig("nginx:2"), { manager: "kubectl", now: T1 }), (error: unknown) =>
    error instanceof ApplyConflictError && error.message === 'Apply failed with 1 conflict: conflict with "deployer": .spec.containers[name="app"].image');
});

test("recordUpdate leaves the manager's entry and time alone when the write changed nothing", () => {
  const created = recordUpdate(undefined, podConfig("nginx:1"), "kubectl-create", T0);
  const again = recordUpdate(created, created, "kubectl-create", T1);
  assert.deepEqual(managedFields(again), managedFields(created));
  const other = recordUpdate(created, created, "someone-else", T1);
  assert.deepEqual(managedFields(other).map((candidate) => candidate["manager"]), ["kubectl-create"]);
});

/** configMap is a ConfigMap of n keys whose values start with prefix. */
function configMap(n: number, prefix: string): JsonObject {
  const data: JsonObject = {};
  for (let i = 0; i < n; i++) data[`key-${i}`] = `${prefix}-${i}`;
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data };
}

test("an apply of a 60,000-key ConfigMap stays linear: a conflicting one answers 409 with the exact count and at most 1000 conflicts listed", () => {
  const started = process.cpuUsage();
  const { object } = serverSideApply(undefined, configMap(60_000, "a"), { manager: "one", now: T0 });
  const again = serverSideApply(object, configMap(60_000, "a"), { manager: "one", now: T1 });
  assert.equal(Object.keys(again.object["data"] as JsonObject).length, 60_000);
  assert.throws(() => serverSideApply(object, configMap(60_000, "b"), { manager: "two", now: T1 }), (err: unknown) => {
    assert.ok(err instanceof ApplyConflictError);
    assert.match(err.message, /^Apply failed with 60000 conflicts: conflicts with "one":\n- \.data\.key-0\n/);
    assert.match(err.message, /\n- … and 59000 more$/);
    assert.equal(err.causes.length, 1000);
    assert.ok(err.message.length < 30_000, `the message has ${err.message.length} characters`);
    return true;
  });
  const forced = serverSideApply(object, configMap(60_000, "b"), { manager: "two", now: T1, force: true });
  assert.equal((forced.object["data"] as JsonObject)["key-59999"], "b-59999");
  // CPU time, which other work on the machine inflates less than wall time: under a second per
  // apply even on a busy machine; the conflicting apply alone took 186 s before (quadratic listing).
  const cpu = process.cpuUsage(started);
  const ms = (cpu.user + cpu.system) / 1000;
  assert.ok(ms < 20_000, `four applies took ${Math.round(ms)} ms of CPU`);
});

test("a write whose field sets together pass MAX_TRACKED_FIELDS is refused with a 400 that says why", () => {
  // Two managers already own 125,000 keys each: any further write would walk more than the budget.
  const fieldsV1: JsonObject = {};
  for (let i = 0; i < 125_000; i++) fieldsV1[`f:key-${i}`] = {};
  const live = configMap(125_000, "a");
  (live["metadata"] as JsonObject)["managedFields"] = ["one", "two"].map((manager) => ({ manager, operation: "Apply", apiVersion: "v1", time: "2026-11-25T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": fieldsV1 } }));
  const message = "the write would track 250004 field paths (its own and every manager's in metadata.managedFields), more than 250000: split the object, or set fewer fields";
  assert.throws(() => serverSideApply(live, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data: { "key-0": "a-0" } }, { manager: "three", now: T1 }), (err: unknown) => {
    assert.ok(err instanceof PatchError);
    assert.equal(err.code, 400);
    assert.equal(err.message, message);
    return true;
  });
  assert.throws(() => recordUpdate(live, { ...live, data: { ...(live["data"] as JsonObject), "key-0": "changed" } }, "four", T1), new PatchError(400, message), "an update too");
});
