// Discovery as kubectl reads it: /version, /api, /apis, /api/v1 from the registry, and the
// /openapi/v3 documents that make kubectl 1.32 validate on the server, and the schema-less
// /openapi/v2 document kubectl 1.20 needs before it creates or applies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startApiServer } from "../../../test/servers/api-server.js";
import { GIT_VERSION } from "./version-info.js";

test("/version reports the emulated release as gitVersion v1.37.2+probelet with the fields kubectl prints", async (t) => {
  const { call } = await startApiServer(t);
  const { body } = await call("GET", "/version");
  assert.equal(body["major"], "1");
  assert.equal(body["minor"], "37");
  assert.equal(body["gitVersion"], "v1.37.2+probelet");
  for (const field of ["gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"]) assert.equal(typeof body[field], "string", field);
});

test("/api lists v1, /apis no groups, /api/v1 every resource with verbs, short names and categories", async (t) => {
  const { call } = await startApiServer(t);
  assert.deepEqual((await call("GET", "/api")).body["versions"], ["v1"]);
  assert.deepEqual((await call("GET", "/apis")).body["groups"], []);
  const list = (await call("GET", "/api/v1")).body;
  assert.equal(list["kind"], "APIResourceList");
  const names = list["resources"].map((r: { name: string }) => r.name);
  assert.deepEqual(names, ["configmaps", "events", "namespaces", "nodes", "nodes/status", "pods", "pods/exec", "pods/log", "pods/status", "secrets"]);
  const pods = list["resources"].find((r: { name: string }) => r.name === "pods");
  assert.deepEqual(pods, { name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"], shortNames: ["po"], categories: ["all"] });
  const shortNames = Object.fromEntries(list["resources"].filter((r: { shortNames?: string[] }) => r.shortNames).map((r: { name: string; shortNames: string[] }) => [r.name, r.shortNames]));
  assert.deepEqual(shortNames, { configmaps: ["cm"], events: ["ev"], namespaces: ["ns"], nodes: ["no"], pods: ["po"] });
});

test("/openapi/v3 lists api/v1, whose Pod PATCH operation declares its GVK and the fieldValidation parameter", async (t) => {
  const { call } = await startApiServer(t);
  const index = (await call("GET", "/openapi/v3")).body;
  const url: string = index["paths"]["api/v1"]["serverRelativeURL"];
  assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=/);
  const doc = (await call("GET", url)).body;
  const patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  assert.deepEqual(patch["x-kubernetes-group-version-kind"], { group: "", version: "v1", kind: "Pod" });
  assert.ok(patch["parameters"].some((p: { name: string; in: string }) => p.name === "fieldValidation" && p.in === "query"));
});

test("exec without a connection upgrade is the API server's 400 'Upgrade request required'", async (t) => {
  const { call } = await startApiServer(t);
  const exec = await call("POST", "/api/v1/namespaces/default/pods/web/exec");
  assert.equal(exec.code, 400);
  assert.equal(exec.body["message"], "Upgrade request required");
});

test("/openapi/v2 answers kubectl 1.20's protobuf Accept with a Swagger 2.0 document of no definitions, and JSON otherwise", async (t) => {
  const { server, call } = await startApiServer(t);
  const json = await call("GET", "/openapi/v2");
  assert.equal(json.code, 200);
  assert.deepEqual(json.body, { swagger: "2.0", info: { title: "Kubernetes", version: GIT_VERSION }, paths: {} });
  const res = await fetch(`${server.url}/openapi/v2?timeout=32s`, { headers: { Accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", "a media type Go's mime package parses");
  const bytes = Buffer.from(await res.arrayBuffer());
  // openapi_v2.Document: field 1 (tag 0x0a) "2.0"; field 2 (0x12) Info {title, version}; field 8 (0x42) empty Paths.
  const info = Buffer.concat([Buffer.from([0x0a, 10]), Buffer.from("Kubernetes"), Buffer.from([0x12, GIT_VERSION.length]), Buffer.from(GIT_VERSION)]);
  assert.deepEqual(bytes, Buffer.concat([Buffer.from([0x0a, 3]), Buffer.from("2.0"), Buffer.from([0x12, info.length]), info, Buffer.from([0x42, 0])]));
});

test("/openapi/v3/api/v1 carries each kind's schema with its GVK for kubectl explain, typed from the decoding schemas", async (t) => {
  const { call } = await startApiServer(t);
  const index = (await call("GET", "/openapi/v3")).body;
  const url: string = index["paths"]["api/v1"]["serverRelativeURL"];
  assert.match(url, /\?hash=[0-9A-F]{128}$/, "the hash is the document's SHA-512");
  const schemas = (await call("GET", url)).body["components"]["schemas"];
  assert.deepEqual(Object.keys(schemas).sort(), ["ConfigMap", "Event", "Namespace", "Node", "Pod", "Secret"].map((k) => `io.k8s.api.core.v1.${k}`));
  const pod = schemas["io.k8s.api.core.v1.Pod"];
  assert.deepEqual(pod["x-kubernetes-group-version-kind"], [{ group: "", version: "v1", kind: "Pod" }]);
  const container = pod["properties"]["spec"]["properties"]["containers"]["items"];
  const probe = container["properties"]["livenessProbe"]["properties"];
  assert.deepEqual(probe["periodSeconds"], { type: "integer", format: "int32" });
  assert.deepEqual(probe["httpGet"]["properties"]["port"], { type: "string", format: "int-or-string" });
  assert.deepEqual(probe["exec"]["properties"]["command"], { type: "array", items: { type: "string" } });
  assert.deepEqual(pod["properties"]["metadata"]["properties"]["labels"], { type: "object", additionalProperties: { type: "string" } });
  assert.equal(pod["required"], undefined, "decoding's zero-filled fields are not published as required");
});
