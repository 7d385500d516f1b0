// The generic REST handlers against a real loopback server and a real object store: every
// verb on pods, configmaps, secrets and namespaces, with the API server's codes and texts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { podBody, startApiServer } from "../../../test/servers/api-server.js";
import { PATCH_CONTENT_TYPES } from "../patch/index.js";

const PODS = "/api/v1/namespaces/default/pods";

test("POST creates a pod (201): status Pending, bound to the node, uid and resourceVersion from the server; GET returns it", async (t) => {
  const { call } = await startApiServer(t);
  const created = await call("POST", PODS, podBody("web"));
  assert.equal(created.code, 201, JSON.stringify(created.body));
  assert.equal(created.body["kind"], "Pod");
  assert.deepEqual(created.body["status"], { phase: "Pending" });
  assert.equal(created.body["spec"]["nodeName"], "node-a");
  assert.match(created.body["metadata"]["uid"], /^[0-9a-f-]{36}$/);
  const got = await call("GET", `${PODS}/web`);
  assert.equal(got.code, 200);
  assert.deepEqual(got.body, created.body);
});

test("POST of an existing name is 409 AlreadyExists; GET of a missing one 404 NotFound naming it", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("web"));
  const again = await call("POST", PODS, podBody("web"));
  assert.equal(again.code, 409);
  assert.equal(again.body["message"], 'pods "web" already exists');
  const missing = await call("GET", `${PODS}/nope`);
  assert.equal(missing.code, 404);
  assert.deepEqual([missing.body["reason"], missing.body["message"], missing.body["details"]], ["NotFound", 'pods "nope" not found', { name: "nope", kind: "pods" }]);
});

test("a NotFound of any resource names that resource, as the API server's errors.NewNotFound(qualifiedResource, name) does", async (t) => {
  const { call } = await startApiServer(t);
  for (const [path, resource] of [["/api/v1/namespaces/default/configmaps/x", "configmaps"], ["/api/v1/namespaces/default/events/x", "events"], ["/api/v1/nodes/x", "nodes"], ["/api/v1/namespaces/default/secrets/x", "secrets"]] as const) {
    const missing = await call("GET", path);
    assert.equal(missing.code, 404, path);
    assert.deepEqual([missing.body["reason"], missing.body["message"], missing.body["details"]], ["NotFound", `${resource} "x" not found`, { name: "x", kind: resource }], path);
  }
  const probes = await call("GET", `${PODS}/x/probes`);
  assert.deepEqual([probes.code, probes.body["details"]], [404, { name: "x", kind: "pods" }]);
});

test("a pod in a namespace that does not exist is refused as NamespaceLifecycle does (404 namespaces not found)", async (t) => {
  const { call } = await startApiServer(t);
  const answer = await call("POST", "/api/v1/namespaces/ghost/pods", podBody("web"));
  assert.equal(answer.code, 404);
  assert.equal(answer.body["message"], 'namespaces "ghost" not found');
});

test("an invalid pod is 422 Invalid with one cause per field error", async (t) => {
  const { call } = await startApiServer(t);
  const answer = await call("POST", PODS, { metadata: { name: "Bad_Name" }, spec: { containers: [{ name: "app", image: "x", readinessProbe: { exec: { command: ["a"] }, periodSeconds: -1 } }] } });
  assert.equal(answer.code, 422);
  assert.equal(answer.body["reason"], "Invalid");
  assert.match(answer.body["message"], /^Pod "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  assert.deepEqual(answer.body["details"]["causes"].map((c: { field: string }) => c.field), ["metadata.name", "spec.containers[0].readinessProbe.periodSeconds"]);
});

test("fieldValidation: Strict refuses an unknown field (400), Warn (the default) answers with a Warning header, Ignore says nothing", async (t) => {
  const { call } = await startApiServer(t);
  const body = (name: string): Record<string, unknown> => ({ ...podBody(name), spec: { foo: 1, containers: [{ name: "app", image: "x" }] } });
  const strict = await call("POST", `${PODS}?fieldValidation=Strict`, body("a"));
  assert.equal(strict.code, 400);
  assert.equal(strict.body["message"], 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo"');
  const warn = await call("POST", PODS, body("b"));
  assert.equal(warn.code, 201);
  assert.equal(warn.headers.get("warning"), '299 - "unknown field \\"spec.foo\\""');
  const ignore = await call("POST", `${PODS}?fieldValidation=Ignore`, body("c"));
  assert.equal(ignore.code, 201);
  assert.equal(ignore.headers.get("warning"), null);
  assert.equal((await call("POST", `${PODS}?fieldValidation=Loud`, body("d"))).code, 400);
});

test("dropDisabledPodFields: httpGet.protocol and grpc.mode (alpha gates, off in 1.37) are accepted with fieldValidation Strict and dropped from the stored pod", async (t) => {
  const { call } = await startApiServer(t);
  const container = { name: "app", image: "x", livenessProbe: { httpGet: { path: "/", port: 80, protocol: "HTTP2" } }, readinessProbe: { grpc: { port: 9090, mode: "TLS" } } };
  const created = await call("POST", `${PODS}?fieldValidation=Strict`, { ...podBody("h2c"), spec: { containers: [container] } });
  assert.equal(created.code, 201, JSON.stringify(created.body));
  assert.equal(created.headers.get("warning"), null);
  const stored = (await call("GET", `${PODS}/h2c`)).body["spec"]["containers"][0];
  assert.deepEqual([stored["livenessProbe"]["httpGet"]["protocol"], stored["readinessProbe"]["grpc"]["mode"]], [undefined, undefined]);
  assert.equal(stored["readinessProbe"]["grpc"]["port"], 9090);
});

test("dryRun=All answers as a create would and stores nothing; another dryRun value is a 400", async (t) => {
  const { call } = await startApiServer(t);
  const dry = await call("POST", `${PODS}?dryRun=All`, podBody("web"));
  assert.equal(dry.code, 201);
  assert.equal(dry.body["metadata"]["name"], "web");
  assert.equal((await call("GET", `${PODS}/web`)).code, 404);
  assert.equal((await call("POST", `${PODS}?dryRun=Some`, podBody("web"))).code, 400);
});

test("PUT updates an image; a stale resourceVersion is 409 Conflict; another spec change is 422 with ValidatePodUpdate's text", async (t) => {
  const { call } = await startApiServer(t);
  const created = (await call("POST", PODS, podBody("web"))).body;
  const next = structuredClone(created);
  next["spec"]["containers"][0]["image"] = "busybox:1.37";
  const updated = await call("PUT", `${PODS}/web`, next);
  assert.equal(updated.code, 200, JSON.stringify(updated.body));
  assert.equal(updated.body["spec"]["containers"][0]["image"], "busybox:1.37");
  assert.notEqual(updated.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  const stale = await call("PUT", `${PODS}/web`, next);
  assert.equal(stale.code, 409);
  assert.match(stale.body["message"], /the object has been modified; please apply your changes to the latest version and try again/);
  const forbidden = structuredClone(updated.body);
  forbidden["spec"]["containers"][0]["command"] = ["sh"];
  const refused = await call("PUT", `${PODS}/web`, forbidden);
  assert.equal(refused.code, 422);
  assert.match(refused.body["message"], /^Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/);
});

test("PUT of a name other than the URL's is a 400; PUT on pods/status changes only the status", async (t) => {
  const { call } = await startApiServer(t);
  const created = (await call("POST", PODS, podBody("web"))).body;
  const renamed = { ...created, metadata: { ...created["metadata"], name: "other" } };
  const answer = await call("PUT", `${PODS}/web`, renamed);
  assert.equal(answer.code, 400);
  assert.equal(answer.body["message"], "the name of the object (other) does not match the name on the URL (web)");
  const withStatus = structuredClone(created);
  withStatus["status"] = { phase: "Running" };
  withStatus["spec"]["containers"][0]["image"] = "ignored:1";
  const status = await call("PUT", `${PODS}/web/status`, withStatus);
  assert.equal(status.code, 200, JSON.stringify(status.body));
  assert.equal(status.body["status"]["phase"], "Running");
  assert.equal(status.body["spec"]["containers"][0]["image"], "busybox:1.36");
});

test("PATCH with a type the server does not take is 415 with the API server's list of patch types", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("web"));
  const answer = await call("PATCH", `${PODS}/web`, { metadata: { labels: { a: "b" } } }, { "Content-Type": "application/json" });
  assert.equal(answer.code, 415);
  assert.equal(answer.body["message"], `the body of the request was in an unknown format - accepted media types include: ${PATCH_CONTENT_TYPES.join(", ")}`);
});

test("PATCH in the three client patch types: merge, strategic merge (containers merged by name) and JSON patch", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("web"));
  const merge = await call("PATCH", `${PODS}/web`, { metadata: { labels: { tier: "front" } } }, { "Content-Type": "application/merge-patch+json" });
  assert.equal(merge.code, 200, JSON.stringify(merge.body));
  assert.deepEqual(merge.body["metadata"]["labels"], { tier: "front" });
  const strategic = await call("PATCH", `${PODS}/web`, { spec: { containers: [{ name: "app", image: "busybox:1.37" }] } }, { "Content-Type": "application/strategic-merge-patch+json" });
  assert.equal(strategic.code, 200, JSON.stringify(strategic.body));
  assert.equal(strategic.body["spec"]["containers"].length, 1);
  assert.equal(strategic.body["spec"]["containers"][0]["image"], "busybox:1.37");
  const json = await call("PATCH", `${PODS}/web`, [{ op: "replace", path: "/spec/containers/0/image", value: "busybox:1.38" }], { "Content-Type": "application/json-patch+json" });
  assert.equal(json.code, 200, JSON.stringify(json.body));
  assert.equal(json.body["spec"]["containers"][0]["image"], "busybox:1.38");
  const forbidden = await call("PATCH", `${PODS}/web`, { spec: { restartPolicy: "Never" } }, { "Content-Type": "application/merge-patch+json" });
  assert.equal(forbidden.code, 422);
  assert.match(forbidden.body["message"], /spec: Forbidden: pod updates may not change fields other than/);
  const missing = await call("PATCH", `${PODS}/nope`, { metadata: {} }, { "Content-Type": "application/merge-patch+json" });
  assert.equal(missing.code, 404);
});

test("server-side apply creates an absent object (201) with the manager in managedFields, then updates it (200)", async (t) => {
  const { call } = await startApiServer(t);
  const apply = { "Content-Type": "application/apply-patch+yaml" };
  const created = await call("PATCH", `${PODS}/web?fieldManager=kubectl&force=false`, podBody("web"), apply);
  assert.equal(created.code, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body["metadata"]["managedFields"].map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`), ["kubectl/Apply"]);
  const updated = await call("PATCH", `${PODS}/web?fieldManager=kubectl&force=false`, podBody("web", { image: "busybox:1.37" }), apply);
  assert.equal(updated.code, 200, JSON.stringify(updated.body));
  assert.equal(updated.body["spec"]["containers"][0]["image"], "busybox:1.37");
  const noManager = await call("PATCH", `${PODS}/web`, podBody("web"), apply);
  assert.equal(noManager.code, 422);
  assert.equal(noManager.body["message"], 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
});

test("a client-side create records its fieldManager as an Update in managedFields", async (t) => {
  const { call } = await startApiServer(t);
  const created = await call("POST", `${PODS}?fieldManager=kubectl-create`, podBody("web"));
  assert.deepEqual(created.body["metadata"]["managedFields"].map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`), ["kubectl-create/Update"]);
});

test("list and get as a Table when kubectl's Accept asks for one: printer columns, one row per pod, PartialObjectMetadata rows", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("web"));
  const accept = { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json" };
  const list = await call("GET", `${PODS}?limit=500`, undefined, accept);
  assert.equal(list.body["kind"], "Table");
  assert.deepEqual(list.body["columnDefinitions"].slice(0, 5).map((c: { name: string }) => c.name), ["Name", "Ready", "Status", "Restarts", "Age"]);
  assert.equal(list.body["rows"].length, 1);
  assert.equal(list.body["rows"][0]["cells"][0], "web");
  assert.equal(list.body["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  const one = await call("GET", `${PODS}/web`, undefined, accept);
  assert.equal(one.body["kind"], "Table");
  const plain = await call("GET", `${PODS}/web`, undefined, { Accept: "application/vnd.kubernetes.protobuf,application/json" });
  assert.equal(plain.body["kind"], "Pod");
  assert.equal((await call("GET", PODS, undefined, { Accept: "text/html" })).code, 406);
});

test("label selectors in the full syntax narrow lists; a malformed one is the API server's 400", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("a", { labels: { app: "a", tier: "front" } }));
  await call("POST", PODS, podBody("b", { labels: { app: "b" } }));
  await call("POST", PODS, podBody("c"));
  const names = async (selector: string): Promise<string[]> =>
    (await call("GET", `${PODS}?labelSelector=${encodeURIComponent(selector)}`)).body["items"].map((p: { metadata: { name: string } }) => p.metadata.name);
  assert.deepEqual(await names("app=a"), ["a"]);
  assert.deepEqual(await names("app!=a"), ["b", "c"]);
  assert.deepEqual(await names("app in (a,b)"), ["a", "b"]);
  assert.deepEqual(await names("app notin (a)"), ["b", "c"]);
  assert.deepEqual(await names("tier"), ["a"]);
  assert.deepEqual(await names("!app"), ["c"]);
  const bad = await call("GET", `${PODS}?labelSelector=${encodeURIComponent("x y")}`);
  assert.equal(bad.code, 400);
  assert.equal(bad.body["message"], "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt");
});

test("DELETE of a bound pod is graceful: 200 with deletionTimestamp = now + grace; a shorter grace replaces it; grace 0 removes it", async (t) => {
  const { call } = await startApiServer(t);
  await call("POST", PODS, podBody("web"));
  const before = Date.now();
  const graceful = await call("DELETE", `${PODS}/web`, { propagationPolicy: "Background" });
  assert.equal(graceful.code, 200);
  assert.equal(graceful.body["metadata"]["deletionGracePeriodSeconds"], 30);
  const at = Date.parse(graceful.body["metadata"]["deletionTimestamp"]);
  assert.ok(at >= before - 1000 + 30_000 && at <= Date.now() + 30_000, graceful.body["metadata"]["deletionTimestamp"]);
  const shorter = await call("DELETE", `${PODS}/web?gracePeriodSeconds=5`);
  assert.equal(shorter.body["metadata"]["deletionGracePeriodSeconds"], 5);
  const now = await call("DELETE", `${PODS}/web`, { gracePeriodSeconds: 0 });
  assert.equal(now.code, 200);
  assert.equal((await call("GET", `${PODS}/web`)).code, 404);
});

test("DELETE preconditions: a wrong uid is 409 with the storage layer's text; the right one deletes", async (t) => {
  const { call } = await startApiServer(t);
  const uid = (await call("POST", PODS, podBody("web"))).body["metadata"]["uid"];
  const wrong = await call("DELETE", `${PODS}/web`, { gracePeriodSeconds: 0, preconditions: { uid: "not-it" } });
  assert.equal(wrong.code, 409);
  assert.equal(wrong.body["message"], `Operation cannot be fulfilled on pods "web": Precondition failed: UID in precondition: not-it, UID in object meta: ${uid}`);
  assert.equal((await call("DELETE", `${PODS}/web`, { gracePeriodSeconds: 0, preconditions: { uid } })).code, 200);
  assert.equal((await call("DELETE", `${PODS}/web`, { propagationPolicy: "Sideways" })).code, 400);
});

test("DELETE on the collection deletes the selected pods only and answers with them", async (t) => {
  const { call } = await startApiServer(t);
  for (const name of ["a", "b", "c"]) await call("POST", PODS, podBody(name, { labels: { app: name } }));
  const answer = await call("DELETE", `${PODS}?labelSelector=app%3Db&gracePeriodSeconds=0`);
  assert.equal(answer.code, 200);
  assert.deepEqual(answer.body["items"].map((p: { metadata: { name: string } }) => p.metadata.name), ["b"]);
  const left = await call("GET", PODS);
  assert.deepEqual(left.body["items"].map((p: { metadata: { name: string } }) => p.metadata.name), ["a", "c"]);
});

test("list pages with limit and continue, at the first page's resourceVersion; a foreign continue token is a 400", async (t) => {
  const { call } = await startApiServer(t);
  for (const name of ["a", "b", "c"]) await call("POST", PODS, podBody(name));
  const first = await call("GET", `${PODS}?limit=2`);
  assert.deepEqual(first.body["items"].map((p: { metadata: { name: string } }) => p.metadata.name), ["a", "b"]);
  assert.equal(first.body["metadata"]["remainingItemCount"], 1);
  const second = await call("GET", `${PODS}?limit=2&continue=${encodeURIComponent(first.body["metadata"]["continue"])}`);
  assert.deepEqual(second.body["items"].map((p: { metadata: { name: string } }) => p.metadata.name), ["c"]);
  assert.equal(second.body["metadata"]["resourceVersion"], first.body["metadata"]["resourceVersion"]);
  assert.equal((await call("GET", `${PODS}?continue=bogus`)).code, 400);
});

test("an unsupported field selector is the API server's 400, never ignored", async (t) => {
  const { call } = await startApiServer(t);
  const answer = await call("GET", `${PODS}?fieldSelector=spec.bogus%3Dx`);
  assert.equal(answer.code, 400);
  assert.equal(answer.body["message"], "field label not supported: spec.bogus");
});

test("ConfigMaps: a bad key and more than 1 MiB are 422 with the API server's messages; data round-trips", async (t) => {
  const { call } = await startApiServer(t);
  const CMS = "/api/v1/namespaces/default/configmaps";
  const bad = await call("POST", CMS, { metadata: { name: "cm" }, data: { "bad key": "v" } });
  assert.equal(bad.code, 422);
  assert.match(bad.body["message"], /^ConfigMap "cm" is invalid: data\[bad key\]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '\.' \(e\.g\. 'key\.name', {2}or 'KEY_NAME', {2}or 'key-name', regex used for validation is '\[-\._a-zA-Z0-9\]\+'\)$/);
  const big = await call("POST", CMS, { metadata: { name: "cm" }, data: { a: "x".repeat(1024 * 1024 + 1) } });
  assert.equal(big.code, 422);
  assert.match(big.body["message"], /Too long: must have at most 1048576 bytes/);
  const ok = await call("POST", CMS, { metadata: { name: "cm" }, data: { "app.conf": "x=1" } });
  assert.equal(ok.code, 201);
  assert.deepEqual((await call("GET", `${CMS}/cm`)).body["data"], { "app.conf": "x=1" });
  const deleted = await call("DELETE", `${CMS}/cm`);
  assert.deepEqual([deleted.body["kind"], deleted.body["status"], deleted.body["details"]["name"]], ["Status", "Success", "cm"]);
});

test("an invalid update of a ConfigMap or a Secret names each problem once, as the API server's ValidateConfigMapUpdate and ValidateSecretUpdate do", async (t) => {
  const { call } = await startApiServer(t);
  for (const [path, body] of [["/api/v1/namespaces/default/configmaps", { data: { a: "x" } }], ["/api/v1/namespaces/default/secrets", { data: { a: "eA==" } }]] as const) {
    assert.equal((await call("POST", path, { metadata: { name: "o" }, ...body })).code, 201);
    const bad = await call("PUT", `${path}/o`, { metadata: { name: "o" }, data: { "bad key": body.data.a } });
    assert.equal(bad.code, 422, JSON.stringify(bad.body));
    assert.equal(bad.body["details"]["causes"].length, 1, JSON.stringify(bad.body["details"]["causes"]));
    assert.equal(bad.body["message"].split("data[bad key]").length - 1, 1, bad.body["message"]);
  }
});

test("Secrets: stringData is merged into data as base64 and not stored; bad base64 is a 400; the type defaults to Opaque", async (t) => {
  const { call } = await startApiServer(t);
  const SECRETS = "/api/v1/namespaces/default/secrets";
  const created = await call("POST", SECRETS, { metadata: { name: "s" }, data: { a: Buffer.from("one").toString("base64") }, stringData: { b: "two" } });
  assert.equal(created.code, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body["data"], { a: "b25l", b: "dHdv" });
  assert.equal(created.body["stringData"], undefined);
  assert.equal(created.body["type"], "Opaque");
  const bad = await call("POST", SECRETS, { metadata: { name: "t" }, data: { a: "not base64!" } });
  assert.equal(bad.code, 400);
  assert.equal(bad.body["message"], 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');
  const tls = await call("POST", SECRETS, { metadata: { name: "u" }, type: "kubernetes.io/tls", data: {} });
  assert.equal(tls.code, 422);
  assert.match(tls.body["message"], /data\[tls\.crt\]: Required value/);
});

test("namespaces: the four of every cluster exist; deleting one marks it Terminating, deletes its objects, then removes it", async (t) => {
  const { call } = await startApiServer(t);
  const names = (await call("GET", "/api/v1/namespaces")).body["items"].map((n: { metadata: { name: string } }) => n.metadata.name);
  assert.deepEqual(names, ["default", "kube-node-lease", "kube-public", "kube-system"]);
  assert.equal((await call("POST", "/api/v1/namespaces", { metadata: { name: "team" } })).code, 201);
  assert.equal((await call("POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "cm" }, data: {} })).code, 201);
  const deleting = await call("DELETE", "/api/v1/namespaces/team");
  assert.equal(deleting.code, 200);
  assert.equal(deleting.body["status"]["phase"], "Terminating");
  for (let i = 0; i < 50 && (await call("GET", "/api/v1/namespaces/team")).code !== 404; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal((await call("GET", "/api/v1/namespaces/team")).code, 404);
  assert.equal((await call("GET", "/api/v1/namespaces/team/configmaps/cm")).code, 404);
  const invalid = await call("POST", "/api/v1/namespaces", { metadata: { name: "a.b" } });
  assert.equal(invalid.code, 422);
});
