import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../../test/fakes/fake-clock.js";
import { InvalidContinueError, ObjectStore, type KubeObject, type StoreEvent } from "./object-store.js";
import { StoreError } from "./store-errors.js";

interface Thing extends KubeObject {
  spec?: { n?: number };
}

function newStore(historySize?: number): ObjectStore {
  const store = new ObjectStore(new FakeClock());
  store.register("pods", { namespaced: true, ...(historySize !== undefined ? { historySize } : {}) });
  store.register("nodes", { namespaced: false });
  return store;
}

const thing = (name: string, namespace = "default", n = 0, labels?: Record<string, string>): Thing => ({ metadata: { name, namespace, ...(labels ? { labels } : {}) }, spec: { n } });

function rejectsWith(fn: () => unknown, reason: string, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof StoreError && e.reason === reason && e.message === message);
}

test("every write takes the next resourceVersion from one counter across resources", () => {
  const store = newStore();
  const a = store.create("pods", thing("a"));
  const n = store.create<KubeObject>("nodes", { metadata: { name: "node-1", namespace: "ignored" } });
  const a2 = store.update("pods", { ...a, spec: { n: 1 } });
  assert.deepEqual([a.metadata.resourceVersion, n.metadata.resourceVersion, a2.metadata.resourceVersion, store.resourceVersion], ["1", "2", "3", "3"]);
  assert.equal(n.metadata.namespace, undefined, "cluster-scoped objects have no namespace");
});

test("create sets a UID and creationTimestamp and refuses a name that exists: AlreadyExists", () => {
  const store = newStore();
  const a = store.create("pods", thing("a"));
  assert.match(a.metadata.uid ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(a.metadata.creationTimestamp, "2026-01-01T00:00:00Z");
  rejectsWith(() => store.create("pods", thing("a")), "AlreadyExists", 'pods "a" already exists');
  assert.equal(store.create("pods", thing("a", "other")).metadata.name, "a", "the same name in another namespace is another object");
});

test("an update with a stale resourceVersion is a Conflict; UID and creationTimestamp cannot change", () => {
  const store = newStore();
  const a = store.create("pods", thing("a"));
  const b = store.update("pods", { ...a, metadata: { ...a.metadata, uid: "forged", creationTimestamp: "1999-01-01T00:00:00Z" }, spec: { n: 2 } });
  assert.equal(b.metadata.uid, a.metadata.uid);
  assert.equal(b.metadata.creationTimestamp, a.metadata.creationTimestamp);
  rejectsWith(() => store.update("pods", { ...a, spec: { n: 3 } }), "Conflict", 'Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes to the latest version and try again');
  rejectsWith(() => store.update("pods", thing("missing")), "NotFound", 'pods "missing" not found');
});

test("delete honours UID and resourceVersion preconditions with the API server's texts", () => {
  const store = newStore();
  const a = store.create("pods", thing("a"));
  rejectsWith(() => store.delete("pods", "default", "a", { uid: "other" }), "Conflict", `Operation cannot be fulfilled on pods "a": Precondition failed: UID in precondition: other, UID in object meta: ${a.metadata.uid}`);
  rejectsWith(() => store.delete("pods", "default", "a", { resourceVersion: "99" }), "Conflict", 'Operation cannot be fulfilled on pods "a": Precondition failed: ResourceVersion in precondition: 99, ResourceVersion in object meta: 1');
  const gone = store.delete("pods", "default", "a", { uid: a.metadata.uid ?? "" });
  assert.equal(gone.metadata.resourceVersion, "2");
  assert.equal(store.get("pods", "default", "a"), undefined);
  rejectsWith(() => store.delete("pods", "default", "a"), "NotFound", 'pods "a" not found');
});

test("stored objects are frozen copies: neither the writer nor a reader can change them", () => {
  const store = newStore();
  const input = thing("a");
  const stored = store.create("pods", input);
  input.spec = { n: 9 };
  assert.equal((store.get<Thing>("pods", "default", "a")?.spec?.n), 0);
  assert.throws(() => {
    (stored.spec as { n: number }).n = 5;
  }, TypeError);
});

test("list sorts by namespace and name, filters, and pages with limit and continue", () => {
  const store = newStore();
  for (const [name, ns] of [["c", "default"], ["a", "default"], ["b", "kube-system"], ["d", "default"]] as const) store.create("pods", thing(name, ns));
  assert.deepEqual(store.list("pods").items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ["default/a", "default/c", "default/d", "kube-system/b"]);
  assert.deepEqual(store.list("pods", { namespace: "default", filter: (p) => p.metadata.name !== "c" }).items.map((p) => p.metadata.name), ["a", "d"]);
  const first = store.list("pods", { limit: 2 });
  assert.deepEqual(first.items.map((p) => p.metadata.name), ["a", "c"]);
  assert.equal(first.remainingItemCount, 2);
  store.create("pods", thing("e"));
  const second = store.list("pods", { limit: 2, ...(first.continueToken ? { continueToken: first.continueToken } : {}) });
  assert.deepEqual(second.items.map((p) => p.metadata.name), ["d", "e"]);
  assert.equal(second.resourceVersion, first.resourceVersion, "every page reports the first page's resourceVersion");
  assert.throws(() => store.list("pods", { continueToken: "garbage" }), InvalidContinueError);
});

test("a watch without a resourceVersion starts with every object as ADDED, then live changes", () => {
  const store = newStore();
  store.create("pods", thing("a"));
  const seen: StoreEvent[] = [];
  const stop = store.watch("pods", {}, (e) => seen.push(e));
  const b = store.create("pods", thing("b"));
  store.delete("pods", "default", "b");
  stop();
  store.create("pods", thing("c"));
  assert.deepEqual(seen.map((e) => `${e.type} ${e.object.metadata.name} ${e.resourceVersion}`), ["ADDED a 1", "ADDED b 2", "DELETED b 3"]);
  assert.equal(b.metadata.resourceVersion, "2");
});

test("a watch from a resourceVersion replays only the later changes; one older than the kept history is 410 Expired", () => {
  const store = newStore(3);
  const a = store.create("pods", thing("a"));
  for (let n = 1; n <= 2; n++) store.modify<Thing>("pods", "default", "a", (p) => ({ ...p, spec: { n } }));
  const seen: string[] = [];
  store.watch<Thing>("pods", { fromResourceVersion: 2 }, (e) => seen.push(`${e.type} ${e.object.spec?.n} ${e.resourceVersion}`));
  assert.deepEqual(seen, ["MODIFIED 2 3"]);
  for (let n = 3; n <= 5; n++) store.modify<Thing>("pods", "default", "a", (p) => ({ ...p, spec: { n } }));
  assert.throws(() => store.watch("pods", { fromResourceVersion: Number(a.metadata.resourceVersion) }, () => undefined), (e: unknown) => e instanceof StoreError && e.code === 410 && e.reason === "Expired" && e.message === "too old resource version: 1 (4)");
});

test("a filtered watch sees an object that starts matching as ADDED and one that stops matching as DELETED", () => {
  const store = newStore();
  const a = store.create<Thing>("pods", thing("a", "default", 0, { app: "x" }));
  const seen: string[] = [];
  store.watch<Thing>("pods", { fromResourceVersion: 1, filter: (p) => p.metadata.labels?.["app"] === "y" }, (e) => seen.push(`${e.type} ${e.object.metadata.labels?.["app"]}`));
  const b = store.update<Thing>("pods", { ...a, metadata: { ...a.metadata, labels: { app: "y" } } });
  const c = store.update<Thing>("pods", { ...b, spec: { n: 1 } });
  store.update<Thing>("pods", { ...c, metadata: { ...c.metadata, labels: { app: "z" } } });
  store.create("pods", thing("other", "default", 0, { app: "x" }));
  assert.deepEqual(seen, ["ADDED y", "MODIFIED y", "DELETED z"]);
});

test("a namespaced watch sees only its namespace", () => {
  const store = newStore();
  const seen: string[] = [];
  store.watch("pods", { namespace: "team" }, (e) => seen.push(`${e.object.metadata.namespace}/${e.object.metadata.name}`));
  store.create("pods", thing("a"));
  store.create("pods", thing("b", "team"));
  assert.deepEqual(seen, ["team/b"]);
});

test("a seeded revision continues the counter above it, and a watch from before it is 410 Expired", () => {
  const store = newStore();
  store.create("pods", thing("a"));
  store.seedRevision(500);
  assert.equal(store.resourceVersion, "500");
  assert.equal(store.create("pods", thing("b")).metadata.resourceVersion, "501");
  assert.throws(() => store.watch("pods", { fromResourceVersion: 1 }, () => undefined), (e: unknown) => e instanceof StoreError && e.code === 410);
  const seen: string[] = [];
  store.watch("pods", { fromResourceVersion: 500 }, (e) => seen.push(`${e.type} ${e.object.metadata.name ?? ""}`))();
  assert.deepEqual(seen, ["ADDED b"], "a watch from the seed sees what came after it");
  store.seedRevision(10);
  assert.equal(store.resourceVersion, "501", "a lower seed changes nothing");
});
