import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { resolveContainerEnv } from "./container-env.js";
import { fromServices, serviceEnvVars, SERVICES_NOT_READ, type ServiceObject } from "./service-env.js";
import { MemoryConfigObjects } from "../volumes/config-objects.js";

const fooservice: ServiceObject = { metadata: { name: "fooservice", namespace: "apps" }, spec: { clusterIP: "10.96.0.20", ports: [{ port: 8765, protocol: "TCP" }] } };
const kubernetes: ServiceObject = { metadata: { name: "kubernetes", namespace: "default" }, spec: { clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP" }] } };

test("a service's variables as envvars.FromServices writes them: host, first port, named ports, Docker links", () => {
  assert.deepEqual(fromServices([fooservice]), [
    ["FOOSERVICE_SERVICE_HOST", "10.96.0.20"],
    ["FOOSERVICE_SERVICE_PORT", "8765"],
    ["FOOSERVICE_PORT", "tcp://10.96.0.20:8765"],
    ["FOOSERVICE_PORT_8765_TCP", "tcp://10.96.0.20:8765"],
    ["FOOSERVICE_PORT_8765_TCP_PROTO", "tcp"],
    ["FOOSERVICE_PORT_8765_TCP_PORT", "8765"],
    ["FOOSERVICE_PORT_8765_TCP_ADDR", "10.96.0.20"],
  ]);
  assert.deepEqual(new Map(fromServices([kubernetes])).get("KUBERNETES_SERVICE_PORT_HTTPS"), "443");
  assert.deepEqual(fromServices([{ metadata: { name: "headless" }, spec: { clusterIP: "None", ports: [{ port: 80 }] } }]), []);
  assert.equal(new Map(fromServices([{ metadata: { name: "my-svc" }, spec: { clusterIP: "fd00::1", ports: [{ port: 80, protocol: "UDP" }] } }])).get("MY_SVC_PORT"), "udp://[fd00::1]:80");
});

test("a pod sees its namespace's services when enableServiceLinks is on, and the default namespace's kubernetes service always", () => {
  const other: ServiceObject = { metadata: { name: "other", namespace: "elsewhere" }, spec: { clusterIP: "10.96.0.30", ports: [{ port: 1 }] } };
  const all = [fooservice, kubernetes, other];
  const linked = serviceEnvVars(all, "apps", true);
  assert.ok(linked.has("FOOSERVICE_SERVICE_HOST") && linked.has("KUBERNETES_SERVICE_HOST") && !linked.has("OTHER_SERVICE_HOST"));
  const unlinked = serviceEnvVars(all, "apps", false);
  assert.deepEqual([...unlinked.keys()].filter((k) => k.endsWith("_SERVICE_HOST")), ["KUBERNETES_SERVICE_HOST"]);
});

test("container env: the container's variables win over the services', $(VAR) falls back to them, and an API pod waits for the first list", () => {
  const pod: Pod = { metadata: { name: "p", namespace: "apps", annotations: { "kubernetes.io/config.source": "api" } }, spec: { containers: [] } };
  const container = { name: "c", env: [{ name: "FOOSERVICE_SERVICE_PORT", value: "1" }, { name: "URL", value: "http://$(FOOSERVICE_SERVICE_HOST)" }] };
  const ctx = { pod, addresses: { podIP: "", hostIP: "" }, objects: new MemoryConfigObjects(), node: { cpu: 1, memory: 1, ephemeralStorage: 1 } };
  const got = resolveContainerEnv({ ...ctx, services: { services: () => [fooservice] } }, container);
  assert.ok(got.ok);
  const env = new Map(got.env.map((e) => [e.key, e.value]));
  assert.equal(env.get("FOOSERVICE_SERVICE_PORT"), "1");
  assert.equal(env.get("URL"), "http://10.96.0.20");
  assert.equal(env.get("FOOSERVICE_PORT"), "tcp://10.96.0.20:8765");
  assert.deepEqual(got.env.slice(0, 2).map((e) => e.key), ["FOOSERVICE_SERVICE_PORT", "URL"], "the container's own come first");
  const early = resolveContainerEnv({ ...ctx, services: { services: () => undefined } }, container);
  assert.deepEqual([early.ok, !early.ok && early.message], [false, SERVICES_NOT_READ]);
  const staticPod = { ...pod, metadata: { ...pod.metadata, annotations: { "kubernetes.io/config.source": "file" } } };
  assert.ok(resolveContainerEnv({ ...ctx, pod: staticPod, services: { services: () => undefined } }, container).ok, "a static pod does not wait");
});
